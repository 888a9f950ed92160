package sqlcore

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/storage"
)

// Rows scans the rows of a store's tables, in the column orders above.
type Rows struct {
	// Damaged, when set, is wrapped by the error of a row whose content
	// Commit could not have written (text that is not UTF-8, passages out
	// of range, an unreadable image fingerprint): the store's sign of a
	// damaged file.
	Damaged error
	// DupText, when set, is the scan destination of a duplicate's text
	// column (a store that keeps it compressed); nil scans a plain string.
	DupText func(dst *string) any
}

// damaged formats a row's error, wrapping r.Damaged when set.
func (r Rows) damaged(format string, args ...any) error {
	if r.Damaged == nil {
		return fmt.Errorf(format, args...)
	}
	return fmt.Errorf("%w: "+format, append([]any{r.Damaged}, args...)...)
}

// Page scans a PageCols row.
func (r Rows) Page(sc Scanner) (storage.Page, error) {
	var p storage.Page
	var outcome string
	if err := sc.Scan(&p.URL, &p.Site, &p.RunID, &outcome, &p.Status, &p.ErrKind, &p.Err, &p.Permanent,
		nanos{&p.FetchedAt}, nanos{&p.RetryAt}, &p.PartOf); err != nil {
		return storage.Page{}, err
	}
	p.Outcome = storage.Outcome(outcome)
	return p, nil
}

// Article scans an ArticleCols (or FingerprintCols) row.
func (r Rows) Article(sc Scanner) (storage.Article, error) {
	var a storage.Article
	var simhash int64
	sig := uint64s{what: "signature", dst: &a.Fingerprint.Signature}
	prints := uint64s{what: "prints", dst: &a.Fingerprint.Prints}
	var passages []uint64
	pass := uint64s{what: "passages", dst: &passages}
	var pages, missing string
	if err := sc.Scan(&a.ID, &a.URL, &a.Site, &a.RunID, &a.Title, &a.Text, nanos{&a.PublishedAt}, &a.Source, &a.Author,
		&a.Editor, nanos{&a.FetchedAt}, &a.ContentHash, &a.Cluster, &simhash, &sig, &a.Fingerprint.Length, &a.Fingerprint.Image,
		&prints, &a.Fingerprint.ContentWords, &a.PartialOf, &a.OwnShare, &pass, &pages, &missing, &a.Channel); err != nil {
		return storage.Article{}, err
	}
	a.Pages, a.PagesMissing = splitLines(pages), splitLines(missing)
	if err := errors.Join(sig.err, prints.err, pass.err); err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", a.ID, err)
	}
	var err error
	if a.Passages, err = unpackPassages(passages); err != nil {
		return storage.Article{}, r.damaged("article %d: %w", a.ID, err)
	}
	if !validUTF8(a.URL, a.Title, a.Text, a.Source, a.Author, a.Editor) {
		return storage.Article{}, r.damaged("article %d (%s) holds text that is not valid UTF-8", a.ID, a.URL)
	}
	if _, err := imgfp.Parse(a.Fingerprint.Image); err != nil {
		return storage.Article{}, r.damaged("article %d (%s): %w", a.ID, a.URL, err)
	}
	a.Fingerprint.Simhash = uint64(simhash)
	return a, nil
}

// Duplicate scans a DuplicateCols (or DupFingerprintCols) row, preceded
// by the columns lead scans into (such as a seq).
func (r Rows) Duplicate(sc Scanner, lead ...any) (storage.Duplicate, error) {
	var d storage.Duplicate
	var simhash int64
	sig := uint64s{what: "signature", dst: &d.Signature}
	prints := uint64s{what: "prints", dst: &d.Prints}
	var text any = &d.Text
	if r.DupText != nil {
		text = r.DupText(&d.Text)
	}
	dest := append(lead, &d.URL, &d.Site, &d.RunID, &d.DupOf, &d.DupOfURL, &d.Cluster, &d.Distance, &d.Jaccard,
		&d.Containment, &d.Title, text, nanos{&d.PublishedAt}, &d.Source, &d.Author, nanos{&d.FetchedAt}, &simhash, &sig,
		&d.Reason, &d.Image, &d.ImageSimilarity, &prints, &d.ContentWords, &d.Channel)
	if err := sc.Scan(dest...); err != nil {
		return storage.Duplicate{}, err
	}
	if err := errors.Join(sig.err, prints.err); err != nil {
		return storage.Duplicate{}, fmt.Errorf("duplicate %s: %w", d.URL, err)
	}
	if !validUTF8(d.URL, d.Title, d.Text, d.Source, d.Author) {
		return storage.Duplicate{}, r.damaged("duplicate %s holds text that is not valid UTF-8", d.URL)
	}
	if _, err := imgfp.Parse(d.Image); err != nil {
		return storage.Duplicate{}, r.damaged("duplicate %s: %w", d.URL, err)
	}
	d.Simhash = uint64(simhash)
	return d, nil
}

// Run scans a RunCols row.
func (r Rows) Run(sc Scanner) (storage.Run, error) {
	var run storage.Run
	var stats string
	if err := sc.Scan(&run.ID, nanos{&run.StartedAt}, nanos{&run.FinishedAt}, &run.Status, &run.Config, &stats); err != nil {
		return storage.Run{}, err
	}
	if err := json.Unmarshal([]byte(stats), &run.Stats); err != nil {
		return storage.Run{}, fmt.Errorf("run %d stats: %w", run.ID, err)
	}
	return run, nil
}

// Surface scans a SurfaceCols row.
func (r Rows) Surface(sc Scanner) (storage.SurfaceState, error) {
	var st storage.SurfaceState
	var links string
	if err := sc.Scan(&st.Key, &st.Site, &st.ETag, &st.LastModified, nanos{&st.FetchedAt}, &st.Status, &st.NewURLs,
		&st.EmptyRuns, nanos{&st.NextDue}, &links); err != nil {
		return storage.SurfaceState{}, err
	}
	st.Links = splitLines(links)
	return st, nil
}

// validUTF8 reports whether every string is valid UTF-8. Commit.Validate
// admits nothing else, so invalid UTF-8 read back means damage (a flipped
// byte inside a text).
func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// RowIter steps through a query's result rows: *sql.Rows and pgx.Rows are.
type RowIter interface {
	Scanner
	Next() bool
	Err() error
}

// One is the answer of a read of one record named what and key: the
// driver's noRows error becomes storage.ErrNotFound, and an error names
// the record.
func One[T any](v T, err, noRows error, what string, key any) (T, error) {
	if errors.Is(err, noRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s %v: %w", what, key, err)
	}
	return v, nil
}

// Runs reads every RunCols row.
func (r Rows) Runs(rows RowIter) ([]storage.Run, error) {
	var out []storage.Run
	for rows.Next() {
		run, err := r.Run(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, rows.Err()
}

// LeaseCols are the columns a frontier pop returns.
const LeaseCols = `seq, url, site, depth, referer`

// Leased reads the LeaseCols rows of a frontier pop and returns their
// items oldest first (RETURNING has no defined order).
func Leased(rows RowIter) ([]storage.FrontierItem, error) {
	type seqItem struct {
		seq int64
		storage.FrontierItem
	}
	var got []seqItem
	for rows.Next() {
		var it seqItem
		if err := rows.Scan(&it.seq, &it.URL, &it.Site, &it.Depth, &it.Referer); err != nil {
			return nil, err
		}
		got = append(got, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(got, func(a, b seqItem) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]storage.FrontierItem, len(got))
	for i, it := range got {
		out[i] = it.FrontierItem
	}
	return out, nil
}
