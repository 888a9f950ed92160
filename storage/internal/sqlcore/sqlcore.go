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
		prints, content_words, partial_of, own_share, passages, pages, pages_missing`
	ArticleCols     = `id, ` + ArticleFields
	FingerprintCols = `id, url, site, run_id, title, '', published_at, source, author, editor,
		fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
		prints, content_words, partial_of, own_share, passages, pages, pages_missing`
	DuplicateCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, title, text,
		published_at, source, author, fetched_at, simhash, signature, reason, image, image_similarity, prints, content_words`
	DupFingerprintCols = `url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, containment, title, '',
		published_at, source, author, fetched_at, simhash, signature, reason, image, image_similarity, prints, content_words`
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
