// Package sqlcore is what the SQL stores (storage/sqlite and
// storage/postgres) share: the columns of their tables, how a record is
// encoded into them and scanned back (times as Unix nanoseconds,
// signatures, prints and passages as little-endian uint64 blobs, URL
// lists one a line, run stats as JSON), and the rules of storage.Store's
// Commit (already decided, parts, dup_of and partial_of, cluster merges,
// the ids filled in), which storage/memory follows too. Each store keeps
// its dialect: placeholders, upserts, locking and round trips.
package sqlcore

import "strings"

// Scanner reads one result row: *sql.Row, *sql.Rows and pgx.Row all are.
type Scanner interface{ Scan(dest ...any) error }

// Columns of the tables, in the order the scans and the insert arguments
// below use. Fingerprint reads leave the text out.
const (
	// ArticleFields are the columns an article insert writes (all but id).
	ArticleFields = `url, site, run_id, title, text, published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing, channel`
	ArticleCols     = `id, ` + ArticleFields
	FingerprintCols = `id, url, site, run_id, title, '', published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing, channel`
	DuplicateCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, title, text,
		published_at, source, author, fetched_at, simhash, signature, reason, image, image_similarity, prints, content_words, channel`
	DupFingerprintCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, title, '',
		published_at, source, author, fetched_at, simhash, signature, reason, image, image_similarity, prints, content_words, channel`
	PageCols    = `url, site, run_id, outcome, status, err_kind, err, permanent, fetched_at, retry_at, part_of`
	RunCols     = `id, started_at, finished_at, status, config, stats`
	SurfaceCols = `key, site, etag, last_modified, fetched_at, status, new_urls, empty_runs, next_due, links`
)

// Names splits a column list such as PageCols into its names.
func Names(cols string) []string {
	names := strings.Split(cols, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// Invariants are the queries, one problem a row, of the cross-table rules
// Commit keeps: a stored article and a duplicate each have the page record
// of their outcome and the record its article or verdict, no URL is both,
// and the article a duplicate or a partial reprint names exists.
func Invariants() []string {
	return []string{
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
		`SELECT 'article ' || a.id || ': partial_of ' || a.partial_of || ' missing'
			FROM articles a LEFT JOIN articles o ON o.id = a.partial_of WHERE a.partial_of <> 0 AND o.id IS NULL`,
	}
}
