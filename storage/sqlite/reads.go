package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/storage"
)

// Columns read back for articles and duplicates; fingerprint reads leave
// text out.
const (
	articleCols = `id, url, site, run_id, title, text, published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing`
	fingerprintCols = `id, url, site, run_id, title, '', published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing`
	duplicateCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, title, text,
		published_at, source, author, fetched_at, simhash, signature, reason, image, image_similarity, prints, content_words`
	dupFingerprintCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, title, '',
		published_at, source, author, fetched_at, simhash, signature, reason, image, image_similarity, prints, content_words`
	pageCols = `url, site, run_id, outcome, status, err_kind, err, permanent, fetched_at, retry_at, part_of`
	// badSignatureCond selects signatures that unpackSignature rejects (or
	// that are not blobs at all); badSignature describes them.
	badSignatureCond = `typeof(signature) <> 'blob' OR length(signature) % 8 <> 0`
	badSignature     = `CASE WHEN typeof(signature) <> 'blob' THEN ' signature is ' || typeof(signature) || ', not a blob'
		ELSE ' signature of ' || length(signature) || ' bytes is not a multiple of 8' END`
	// finalPage is the condition under which Push (at time ?5) ignores a
	// URL (storage.Page.Skipped).
	finalPage = `outcome IN ('stored', 'duplicate', 'part') OR (outcome = 'error' AND permanent <> 0 AND (retry_at IS NULL OR retry_at > ?5))`
)

// nullTime encodes t as Unix nanoseconds, or NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func fromNull(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// packSignature encodes a signature as little-endian uint64s. The result is
// never nil (the driver binds a nil []byte as NULL, which the NOT NULL
// signature columns reject).
func packSignature(sig []uint64) []byte {
	b := make([]byte, 8*len(sig))
	for i, v := range sig {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// unpackSignature decodes packSignature, rejecting a blob whose length is
// not a multiple of 8.
func unpackSignature(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("signature blob of %d bytes is not a multiple of 8", len(b))
	}
	if len(b) == 0 {
		return nil, nil
	}
	sig := make([]uint64, len(b)/8)
	for i := range sig {
		sig[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return sig, nil
}

// packPassages encodes shared passages as packSignature does, three
// uint64s (start, other start, length) per passage.
func packPassages(ps []storage.Passage) []byte {
	vs := make([]uint64, 0, 3*len(ps))
	for _, p := range ps {
		vs = append(vs, uint64(p.Start), uint64(p.OtherStart), uint64(p.Len))
	}
	return packSignature(vs)
}

// unpackPassages reverses packPassages on the decoded uint64s.
func unpackPassages(vs []uint64) ([]storage.Passage, error) {
	if len(vs)%3 != 0 {
		return nil, fmt.Errorf("passages of %d values, not triples", len(vs))
	}
	var out []storage.Passage
	for i := 0; i < len(vs); i += 3 {
		if vs[i] > math.MaxInt32 || vs[i+1] > math.MaxInt32 || vs[i+2] > math.MaxInt32 {
			return nil, fmt.Errorf("passage %v out of range", vs[i:i+3])
		}
		out = append(out, storage.Passage{Start: int(vs[i]), OtherStart: int(vs[i+1]), Len: int(vs[i+2])})
	}
	return out, nil
}

// sigDest is a sql.Scanner that decodes a signature column straight from the
// driver's buffer (a *[]byte destination would copy the blob once more). A
// malformed blob is kept in err rather than failing Scan, so that the caller
// can name the row in its error.
type sigDest struct {
	dst *[]uint64
	err error
}

func (d *sigDest) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*d.dst, d.err = unpackSignature(v)
	case nil:
		*d.dst, d.err = nil, errors.New("signature is NULL")
	default:
		*d.dst, d.err = nil, fmt.Errorf("signature column holds a %T, not a blob", src)
	}
	return nil
}

// splitLines reads a list of URLs kept one a line (nil for "").
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

type scanner interface{ Scan(dest ...any) error }

func scanPage(sc scanner) (storage.Page, error) {
	var p storage.Page
	var outcome string
	var permanent int
	var fetched, retry sql.NullInt64
	if err := sc.Scan(&p.URL, &p.Site, &p.RunID, &outcome, &p.Status, &p.ErrKind, &p.Err, &permanent, &fetched, &retry, &p.PartOf); err != nil {
		return storage.Page{}, err
	}
	p.Outcome, p.Permanent, p.FetchedAt, p.RetryAt = storage.Outcome(outcome), permanent != 0, fromNull(fetched), fromNull(retry)
	return p, nil
}

func scanArticle(sc scanner) (storage.Article, error) {
	var a storage.Article
	var pub, fetched sql.NullInt64
	var simhash int64
	sig := sigDest{dst: &a.Fingerprint.Signature}
	prints := sigDest{dst: &a.Fingerprint.Prints}
	var passages []uint64
	pass := sigDest{dst: &passages}
	var pages, missing string
	if err := sc.Scan(&a.ID, &a.URL, &a.Site, &a.RunID, &a.Title, &a.Text, &pub, &a.Source, &a.Author,
		&a.Editor, &fetched, &a.ContentHash, &a.Cluster, &simhash, &sig, &a.Fingerprint.Length, &a.Fingerprint.Image,
		&prints, &a.Fingerprint.ContentWords, &a.PartialOf, &a.OwnShare, &pass, &pages, &missing); err != nil {
		return storage.Article{}, err
	}
	a.Pages, a.PagesMissing = splitLines(pages), splitLines(missing)
	if err := errors.Join(sig.err, prints.err, pass.err); err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", a.ID, err)
	}
	var err error
	if a.Passages, err = unpackPassages(passages); err != nil {
		return storage.Article{}, fmt.Errorf("%w: article %d: %w", ErrDamaged, a.ID, err)
	}
	if !validUTF8(a.URL, a.Title, a.Text, a.Source, a.Author, a.Editor) {
		return storage.Article{}, fmt.Errorf("%w: article %d (%s) holds text that is not valid UTF-8", ErrDamaged, a.ID, a.URL)
	}
	if _, err := imgfp.Parse(a.Fingerprint.Image); err != nil {
		return storage.Article{}, fmt.Errorf("%w: article %d (%s): %w", ErrDamaged, a.ID, a.URL, err)
	}
	a.PublishedAt, a.FetchedAt = fromNull(pub), fromNull(fetched)
	a.Fingerprint.Simhash = uint64(simhash)
	return a, nil
}

func scanDuplicate(sc scanner) (storage.Duplicate, error) {
	var d storage.Duplicate
	var pub, fetched sql.NullInt64
	var simhash int64
	sig := sigDest{dst: &d.Signature}
	prints := sigDest{dst: &d.Prints}
	if err := sc.Scan(&d.URL, &d.Site, &d.RunID, &d.DupOf, &d.DupOfURL, &d.Cluster, &d.Distance, &d.Jaccard,
		&d.Containment, &d.Title, textDest{&d.Text}, &pub, &d.Source, &d.Author, &fetched, &simhash, &sig, &d.Reason,
		&d.Image, &d.ImageSimilarity, &prints, &d.ContentWords); err != nil {
		return storage.Duplicate{}, err
	}
	if err := errors.Join(sig.err, prints.err); err != nil {
		return storage.Duplicate{}, fmt.Errorf("duplicate %s: %w", d.URL, err)
	}
	if !validUTF8(d.URL, d.Title, d.Text, d.Source, d.Author) {
		return storage.Duplicate{}, fmt.Errorf("%w: duplicate %s holds text that is not valid UTF-8", ErrDamaged, d.URL)
	}
	if _, err := imgfp.Parse(d.Image); err != nil {
		return storage.Duplicate{}, fmt.Errorf("%w: duplicate %s: %w", ErrDamaged, d.URL, err)
	}
	d.PublishedAt, d.FetchedAt, d.Simhash = fromNull(pub), fromNull(fetched), uint64(simhash)
	return d, nil
}

// PageOf returns the page record of url, or ErrNotFound.
func (s *Store) PageOf(ctx context.Context, u string) (storage.Page, error) {
	p, err := scanPage(s.db.QueryRowContext(ctx, `SELECT `+pageCols+` FROM pages WHERE url = ?`, u))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Page{}, fmt.Errorf("page %s: %w", u, err)
	}
	return p, nil
}

// Article returns the article with that id, or ErrNotFound.
func (s *Store) Article(ctx context.Context, id int64) (storage.Article, error) {
	a, err := scanArticle(s.db.QueryRowContext(ctx, `SELECT `+articleCols+` FROM articles WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", id, err)
	}
	return a, nil
}

// ArticleByURL returns the article stored for url, or ErrNotFound.
func (s *Store) ArticleByURL(ctx context.Context, u string) (storage.Article, error) {
	a, err := scanArticle(s.db.QueryRowContext(ctx, `SELECT `+articleCols+` FROM articles WHERE url = ?`, u))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Article{}, fmt.Errorf("article %s: %w", u, err)
	}
	return a, nil
}

// each runs query and calls row for every result row, streaming.
func (s *Store) each(ctx context.Context, what, query string, args []any, row func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, damaged(err))
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return damaged(err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, damaged(err))
	}
	return nil
}

// Articles calls fn for every stored article in id order. Rows are streamed;
// fn may call the store.
func (s *Store) Articles(ctx context.Context, fn func(storage.Article) error) error {
	return s.each(ctx, "articles", `SELECT `+articleCols+` FROM articles ORDER BY id`, nil, func(r *sql.Rows) error {
		a, err := scanArticle(r)
		if err != nil {
			return fmt.Errorf("articles: %w", err)
		}
		return fn(a)
	})
}

// Fingerprints calls fn, in id order, for every article fetched or published
// at or after since (zero: all), without reading its text.
func (s *Store) Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error {
	query := `SELECT ` + fingerprintCols + ` FROM articles ORDER BY id`
	var args []any
	if !since.IsZero() {
		query = `SELECT ` + fingerprintCols + ` FROM articles WHERE fetched_at >= ?1 OR published_at >= ?1 ORDER BY id`
		args = []any{sinceNanos(since)}
	}
	return s.each(ctx, "fingerprints", query, args, func(r *sql.Rows) error {
		a, err := scanArticle(r)
		if err != nil {
			return fmt.Errorf("fingerprints: %w", err)
		}
		return fn(a)
	})
}

// Duplicates calls fn for every duplicate verdict in commit order.
func (s *Store) Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error {
	return s.each(ctx, "duplicates", `SELECT `+duplicateCols+` FROM duplicates ORDER BY seq`, nil, func(r *sql.Rows) error {
		d, err := scanDuplicate(r)
		if err != nil {
			return fmt.Errorf("duplicates: %w", err)
		}
		return fn(d)
	})
}

// DuplicateFingerprints calls fn, in commit order, for every duplicate
// verdict fetched or published at or after since (zero: all), without
// reading its text.
func (s *Store) DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error {
	query := `SELECT ` + dupFingerprintCols + ` FROM duplicates ORDER BY seq`
	var args []any
	if !since.IsZero() {
		query = `SELECT ` + dupFingerprintCols + ` FROM duplicates WHERE fetched_at >= ?1 OR published_at >= ?1 ORDER BY seq`
		args = []any{sinceNanos(since)}
	}
	return s.each(ctx, "duplicate fingerprints", query, args, func(r *sql.Rows) error {
		d, err := scanDuplicate(r)
		if err != nil {
			return fmt.Errorf("duplicate fingerprints: %w", err)
		}
		return fn(d)
	})
}

// sinceNanos encodes a non-zero since bound as Unix nanoseconds. UnixNano is
// undefined outside the storable range, so the bound is clamped there,
// keeping the comparison's meaning (before all stored times, after all).
func sinceNanos(since time.Time) int64 {
	minStoreTime, maxStoreTime := storage.TimeBounds()
	switch {
	case since.Before(minStoreTime):
		return math.MinInt64
	case !since.Before(maxStoreTime):
		return math.MaxInt64
	}
	return since.UnixNano()
}

// Pages calls fn for every page record in commit order.
func (s *Store) Pages(ctx context.Context, fn func(storage.Page) error) error {
	return s.each(ctx, "pages", `SELECT `+pageCols+` FROM pages ORDER BY seq`, nil, func(r *sql.Rows) error {
		p, err := scanPage(r)
		if err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		return fn(p)
	})
}

// Check runs PRAGMA integrity_check and foreign_key_check and verifies the
// cross-table invariants in one read snapshot.
func (s *Store) Check(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	var bad []string
	truncated := false
	collect := func(query string) error {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if n == maxCheckRows {
				truncated = true
				break
			}
			n++
			var msg string
			if err := rows.Scan(&msg); err != nil {
				return err
			}
			bad = append(bad, msg)
		}
		return rows.Err()
	}

	var integrity []string
	rows, err := tx.QueryContext(ctx, `PRAGMA integrity_check(100)`)
	if err != nil {
		return fmt.Errorf("check: integrity_check: %w", damaged(err))
	}
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return fmt.Errorf("check: integrity_check: %w", damaged(err))
		}
		integrity = append(integrity, msg)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check: integrity_check: %w", damaged(err))
	}
	if len(integrity) != 1 || integrity[0] != "ok" {
		return fmt.Errorf("check %s: %w: %s", s.path, ErrDamaged, strings.Join(integrity, "; "))
	}

	queries := []string{
		`SELECT 'foreign key: ' || "table" || ' rowid ' || coalesce(rowid, 'NULL') || ' -> ' || parent FROM pragma_foreign_key_check`,
		`SELECT 'duplicate ' || d.url || ': dup_of ' || d.dup_of || ' missing'
			FROM duplicates d LEFT JOIN articles a ON a.id = d.dup_of WHERE a.id IS NULL`,
		`SELECT 'url ' || a.url || ' is both article and duplicate' FROM articles a JOIN duplicates d ON d.url = a.url`,
		`SELECT 'article ' || a.id || ' (' || a.url || ') has no stored page'
			FROM articles a LEFT JOIN pages p ON p.url = a.url WHERE p.url IS NULL OR p.outcome <> 'stored'`,
		`SELECT 'duplicate ' || d.url || ' has no duplicate page'
			FROM duplicates d LEFT JOIN pages p ON p.url = d.url WHERE p.url IS NULL OR p.outcome <> 'duplicate'`,
		`SELECT 'page ' || p.url || ' stored without article'
			FROM pages p LEFT JOIN articles a ON a.url = p.url WHERE p.outcome = 'stored' AND a.id IS NULL`,
		`SELECT 'page ' || p.url || ' duplicate without verdict'
			FROM pages p LEFT JOIN duplicates d ON d.url = p.url WHERE p.outcome = 'duplicate' AND d.url IS NULL`,
		`SELECT 'article ' || id || ` + badSignature + ` FROM articles WHERE ` + badSignatureCond,
		`SELECT 'duplicate ' || url || ` + badSignature + ` FROM duplicates WHERE ` + badSignatureCond,
		`SELECT 'article ' || a.id || ': partial_of ' || a.partial_of || ' missing'
			FROM articles a LEFT JOIN articles o ON o.id = a.partial_of WHERE a.partial_of <> 0 AND o.id IS NULL`,
		`SELECT 'article ' || id || ' prints or passages are not blobs of 8-byte values (passages: 24-byte triples)'
			FROM articles WHERE typeof(prints) <> 'blob' OR length(prints) % 8 <> 0 OR typeof(passages) <> 'blob' OR length(passages) % 24 <> 0`,
		`SELECT 'duplicate ' || url || ' prints are not a blob of 8-byte values'
			FROM duplicates WHERE typeof(prints) <> 'blob' OR length(prints) % 8 <> 0`,
		`SELECT 'term ' || quote(term) || ' has document frequency ' || df FROM docfreq WHERE df < 1`,
		`SELECT 'docs counter missing' WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = 'docs')`,
		`SELECT 'docs counter ' || value || ' but ' || (SELECT count(*) FROM articles) || ' articles'
			FROM meta WHERE key = 'docs' AND value <> (SELECT count(*) FROM articles)`,
	}
	for _, q := range queries {
		if err := collect(q); err != nil {
			return fmt.Errorf("check: %w", damaged(err))
		}
	}
	if _, err := readPending(ctx, tx); errors.Is(err, errBadTermLog) {
		bad = append(bad, err.Error())
	} else if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if len(bad) == 0 {
		return nil
	}
	if truncated {
		bad = append(bad, fmt.Sprintf("(reading stopped after %d rows of one check)", maxCheckRows))
	}
	return storage.CheckFailed(bad)
}
