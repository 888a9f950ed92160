package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/storage"
)

// Columns read back for articles, duplicates and pages; fingerprint reads
// leave the text out.
const (
	articleCols = `id, url, site, run_id, title, text, published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing`
	fingerprintCols = `id, url, site, run_id, title, '', published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing`
	duplicateCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, reason, title, text,
		published_at, source, author, fetched_at, simhash, signature, image, image_similarity, prints, content_words`
	dupFingerprintCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, reason, title, '',
		published_at, source, author, fetched_at, simhash, signature, image, image_similarity, prints, content_words`
	pageCols = `url, site, run_id, outcome, status, err_kind, err, permanent, fetched_at, retry_at, part_of`
)

// packSignature encodes a signature as little-endian uint64s (the SQLite
// store's blob format); never nil, as the column is NOT NULL.
func packSignature(sig []uint64) []byte {
	b := make([]byte, 8*len(sig))
	for i, v := range sig {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// unpackSignature decodes packSignature, rejecting a length that is not a
// multiple of 8.
func unpackSignature(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("signature of %d bytes is not a multiple of 8", len(b))
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
// uint64s (start, other start, length) per passage (the SQLite store's
// format).
func packPassages(ps []storage.Passage) []byte {
	vs := make([]uint64, 0, 3*len(ps))
	for _, p := range ps {
		vs = append(vs, uint64(p.Start), uint64(p.OtherStart), uint64(p.Len))
	}
	return packSignature(vs)
}

// unpackPassages decodes packPassages.
func unpackPassages(b []byte) ([]storage.Passage, error) {
	vs, err := unpackSignature(b)
	if err != nil {
		return nil, fmt.Errorf("passages: %w", err)
	}
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

func scanPage(row pgx.Row) (storage.Page, error) {
	var p storage.Page
	var outcome string
	var fetched, retry *int64
	if err := row.Scan(&p.URL, &p.Site, &p.RunID, &outcome, &p.Status, &p.ErrKind, &p.Err, &p.Permanent, &fetched, &retry, &p.PartOf); err != nil {
		return storage.Page{}, err
	}
	p.Outcome, p.FetchedAt, p.RetryAt = storage.Outcome(outcome), fromNull(fetched), fromNull(retry)
	return p, nil
}

func scanArticle(row pgx.Row) (storage.Article, error) {
	var a storage.Article
	var pub, fetched *int64
	var simhash int64
	var sig, prints, passages []byte
	var pages, missing string
	if err := row.Scan(&a.ID, &a.URL, &a.Site, &a.RunID, &a.Title, &a.Text, &pub, &a.Source, &a.Author,
		&a.Editor, &fetched, &a.ContentHash, &a.Cluster, &simhash, &sig, &a.Fingerprint.Length, &a.Fingerprint.Image,
		&prints, &a.Fingerprint.ContentWords, &a.PartialOf, &a.OwnShare, &passages, &pages, &missing); err != nil {
		return storage.Article{}, err
	}
	a.Pages, a.PagesMissing = splitLines(pages), splitLines(missing)
	var err error
	if a.Fingerprint.Signature, err = unpackSignature(sig); err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", a.ID, err)
	}
	if a.Fingerprint.Prints, err = unpackSignature(prints); err != nil {
		return storage.Article{}, fmt.Errorf("article %d prints: %w", a.ID, err)
	}
	if a.Passages, err = unpackPassages(passages); err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", a.ID, err)
	}
	if _, err := imgfp.Parse(a.Fingerprint.Image); err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", a.ID, err)
	}
	a.PublishedAt, a.FetchedAt = fromNull(pub), fromNull(fetched)
	a.Fingerprint.Simhash = uint64(simhash)
	return a, nil
}

func scanDuplicate(row pgx.Row) (storage.Duplicate, error) {
	return scanDuplicateSeq(row, nil)
}

// scanDuplicateSeq scans a duplicate row, preceded by its seq when seq is
// not nil.
func scanDuplicateSeq(row pgx.Row, seq *int64) (storage.Duplicate, error) {
	var d storage.Duplicate
	var pub, fetched *int64
	var simhash int64
	var sig, prints []byte
	dest := []any{&d.URL, &d.Site, &d.RunID, &d.DupOf, &d.DupOfURL, &d.Cluster, &d.Distance, &d.Jaccard,
		&d.Containment, &d.Reason, &d.Title, &d.Text, &pub, &d.Source, &d.Author, &fetched, &simhash, &sig,
		&d.Image, &d.ImageSimilarity, &prints, &d.ContentWords}
	if seq != nil {
		dest = append([]any{seq}, dest...)
	}
	if err := row.Scan(dest...); err != nil {
		return storage.Duplicate{}, err
	}
	var err error
	if d.Signature, err = unpackSignature(sig); err != nil {
		return storage.Duplicate{}, fmt.Errorf("duplicate %s: %w", d.URL, err)
	}
	if d.Prints, err = unpackSignature(prints); err != nil {
		return storage.Duplicate{}, fmt.Errorf("duplicate %s prints: %w", d.URL, err)
	}
	if _, err := imgfp.Parse(d.Image); err != nil {
		return storage.Duplicate{}, fmt.Errorf("duplicate %s: %w", d.URL, err)
	}
	d.PublishedAt, d.FetchedAt, d.Simhash = fromNull(pub), fromNull(fetched), uint64(simhash)
	return d, nil
}

// PageOf returns the page record of url, or ErrNotFound.
func (s *Store) PageOf(ctx context.Context, u string) (storage.Page, error) {
	p, err := scanPage(s.pool.QueryRow(ctx, `SELECT `+pageCols+` FROM pages WHERE url = $1`, u))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Page{}, fmt.Errorf("page %s: %w", u, err)
	}
	return p, nil
}

// Article returns the article with that id, or ErrNotFound.
func (s *Store) Article(ctx context.Context, id int64) (storage.Article, error) {
	a, err := scanArticle(s.pool.QueryRow(ctx, `SELECT `+articleCols+` FROM articles WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Article{}, fmt.Errorf("article %d: %w", id, err)
	}
	return a, nil
}

// ArticleByURL returns the article stored for url, or ErrNotFound.
func (s *Store) ArticleByURL(ctx context.Context, u string) (storage.Article, error) {
	a, err := scanArticle(s.pool.QueryRow(ctx, `SELECT `+articleCols+` FROM articles WHERE url = $1`, u))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Article{}, fmt.Errorf("article %s: %w", u, err)
	}
	return a, nil
}

// each runs query and calls row for every result row, streaming; row's
// error is returned unchanged.
func (s *Store) each(ctx context.Context, what, query string, args []any, row func(pgx.Rows) error) error {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// articles streams articles; fn's error is returned unchanged.
func (s *Store) articles(ctx context.Context, what, query string, args []any, fn func(storage.Article) error) error {
	return s.each(ctx, what, query, args, func(r pgx.Rows) error {
		a, err := scanArticle(r)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fn(a)
	})
}

func (s *Store) duplicates(ctx context.Context, what, query string, args []any, fn func(storage.Duplicate) error) error {
	return s.each(ctx, what, query, args, func(r pgx.Rows) error {
		d, err := scanDuplicate(r)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fn(d)
	})
}

// Articles calls fn for every stored article in id order.
func (s *Store) Articles(ctx context.Context, fn func(storage.Article) error) error {
	return s.articles(ctx, "articles", `SELECT `+articleCols+` FROM articles ORDER BY id`, nil, fn)
}

// Fingerprints calls fn, in id order, for every article fetched or
// published at or after since (zero: all), without its text.
func (s *Store) Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error {
	if since.IsZero() {
		return s.articles(ctx, "fingerprints", `SELECT `+fingerprintCols+` FROM articles ORDER BY id`, nil, fn)
	}
	return s.articles(ctx, "fingerprints", `SELECT `+fingerprintCols+` FROM articles
		WHERE fetched_at >= $1 OR published_at >= $1 ORDER BY id`, []any{sinceNanos(since)}, fn)
}

// Duplicates calls fn for every duplicate verdict in commit order.
func (s *Store) Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error {
	return s.duplicates(ctx, "duplicates", `SELECT `+duplicateCols+` FROM duplicates ORDER BY seq`, nil, fn)
}

// DuplicateFingerprints calls fn, in commit order, for every duplicate
// fetched or published at or after since (zero: all), without its text.
func (s *Store) DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error {
	if since.IsZero() {
		return s.duplicates(ctx, "duplicate fingerprints", `SELECT `+dupFingerprintCols+` FROM duplicates ORDER BY seq`, nil, fn)
	}
	return s.duplicates(ctx, "duplicate fingerprints", `SELECT `+dupFingerprintCols+` FROM duplicates
		WHERE fetched_at >= $1 OR published_at >= $1 ORDER BY seq`, []any{sinceNanos(since)}, fn)
}

// Pages calls fn for every page record in commit order.
func (s *Store) Pages(ctx context.Context, fn func(storage.Page) error) error {
	return s.each(ctx, "pages", `SELECT `+pageCols+` FROM pages ORDER BY seq`, nil, func(r pgx.Rows) error {
		p, err := scanPage(r)
		if err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		return fn(p)
	})
}

// Check verifies the cross-table invariants in one snapshot and that this
// Store's heartbeat is working.
func (s *Store) Check(ctx context.Context) error {
	queries := []string{
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
		`SELECT 'article ' || id || ' signature of ' || length(signature) || ' bytes is not a multiple of 8'
			FROM articles WHERE length(signature) % 8 <> 0`,
		`SELECT 'duplicate ' || url || ' signature of ' || length(signature) || ' bytes is not a multiple of 8'
			FROM duplicates WHERE length(signature) % 8 <> 0`,
		`SELECT 'article ' || a.id || ': partial_of ' || a.partial_of || ' missing'
			FROM articles a LEFT JOIN articles o ON o.id = a.partial_of WHERE a.partial_of <> 0 AND o.id IS NULL`,
		`SELECT 'article ' || id || ' prints of ' || length(prints) || ' bytes or passages of ' || length(passages) || ' bytes malformed'
			FROM articles WHERE length(prints) % 8 <> 0 OR length(passages) % 24 <> 0`,
		`SELECT 'duplicate ' || url || ' prints of ' || length(prints) || ' bytes is not a multiple of 8'
			FROM duplicates WHERE length(prints) % 8 <> 0`,
		`SELECT 'term ' || quote_literal(term) || ' has document frequency ' || df FROM docfreq WHERE df < 1`,
		`SELECT 'docs counter missing' WHERE NOT EXISTS (SELECT 1 FROM counters WHERE key = 'docs')`,
		`SELECT 'docs counter ' || value || ' plus ' || (SELECT count(*) FROM docfreq_log) || ' logged documents but '
			|| (SELECT count(*) FROM articles) || ' articles'
			FROM counters WHERE key = 'docs' AND value + (SELECT count(*) FROM docfreq_log) <> (SELECT count(*) FROM articles)`,
	}
	var bad []string
	truncated := false
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for _, q := range queries {
			rows, err := tx.Query(ctx, q+fmt.Sprintf(" LIMIT %d", maxCheckRows+1))
			if err != nil {
				return err
			}
			msgs, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			if len(msgs) > maxCheckRows {
				msgs, truncated = msgs[:maxCheckRows], true
			}
			bad = append(bad, msgs...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	s.mu.Lock()
	if s.beatErr != nil {
		bad = append(bad, "heartbeat: "+s.beatErr.Error())
	}
	if s.foldErr != nil {
		bad = append(bad, "document-frequency fold: "+s.foldErr.Error())
	}
	s.mu.Unlock()
	if len(bad) == 0 {
		return nil
	}
	if truncated {
		bad = append(bad, fmt.Sprintf("(reading stopped after %d rows of one check)", maxCheckRows))
	}
	return fmt.Errorf("schema %s: %w", s.schema, storage.CheckFailed(bad))
}

// splitLines reads a list of URLs kept one a line (nil for "").
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
