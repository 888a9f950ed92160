package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// SchemaVersion is the schema this code reads and writes, kept in the file's
// PRAGMA user_version. It equals len(migrations).
const SchemaVersion = 13

// migrations[i] takes the schema from version i to i+1. Each runs in one
// transaction together with the PRAGMA user_version update.
var migrations = [...]string{
	// 0 -> 1: initial schema. Times are Unix nanoseconds (NULL for the zero
	// time). seq columns are rowid aliases that give commit and FIFO order.
	// A term's document frequency is its df in docfreq plus the number of
	// docfreq_pending rows (one per recently stored document, holding its
	// distinct terms; see docfreq.go) that list it.
	`
CREATE TABLE runs (
	id          INTEGER PRIMARY KEY,
	started_at  INTEGER,
	finished_at INTEGER,
	status      TEXT NOT NULL,
	config      TEXT NOT NULL,
	stats       TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE pages (
	seq        INTEGER PRIMARY KEY,
	url        TEXT NOT NULL UNIQUE,
	site       TEXT NOT NULL,
	run_id     INTEGER NOT NULL,
	outcome    TEXT NOT NULL CHECK (outcome IN ('stored', 'duplicate', 'not_article', 'error')),
	status     INTEGER NOT NULL,
	err_kind   TEXT NOT NULL,
	err        TEXT NOT NULL,
	permanent  INTEGER NOT NULL,
	fetched_at INTEGER
);
CREATE TABLE articles (
	id           INTEGER PRIMARY KEY,
	url          TEXT NOT NULL UNIQUE,
	site         TEXT NOT NULL,
	run_id       INTEGER NOT NULL,
	title        TEXT NOT NULL,
	text         TEXT NOT NULL,
	published_at INTEGER,
	source       TEXT NOT NULL,
	author       TEXT NOT NULL,
	editor       TEXT NOT NULL,
	fetched_at   INTEGER,
	content_hash TEXT NOT NULL,
	cluster      INTEGER NOT NULL,
	simhash      INTEGER NOT NULL,
	signature    BLOB NOT NULL,
	sig_len      INTEGER NOT NULL
);
CREATE INDEX articles_fetched_at ON articles(fetched_at);
CREATE INDEX articles_published_at ON articles(published_at);
CREATE TABLE duplicates (
	seq          INTEGER PRIMARY KEY,
	url          TEXT NOT NULL UNIQUE,
	site         TEXT NOT NULL,
	run_id       INTEGER NOT NULL,
	dup_of       INTEGER NOT NULL REFERENCES articles(id),
	dup_of_url   TEXT NOT NULL,
	cluster      INTEGER NOT NULL,
	distance     INTEGER NOT NULL,
	jaccard      REAL NOT NULL,
	containment  REAL NOT NULL DEFAULT 0,
	title        TEXT NOT NULL,
	text         TEXT NOT NULL,
	published_at INTEGER,
	source       TEXT NOT NULL,
	author       TEXT NOT NULL,
	fetched_at   INTEGER,
	simhash      INTEGER NOT NULL,
	signature    BLOB NOT NULL DEFAULT x''
);
CREATE INDEX duplicates_dup_of ON duplicates(dup_of);
CREATE INDEX duplicates_fetched_at ON duplicates(fetched_at);
CREATE INDEX duplicates_published_at ON duplicates(published_at);
CREATE TABLE docfreq (
	term TEXT PRIMARY KEY,
	df   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE docfreq_pending (
	seq   INTEGER PRIMARY KEY,
	terms BLOB NOT NULL
);
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta(key, value) VALUES ('docs', 0);
CREATE TABLE frontier (
	seq     INTEGER PRIMARY KEY,
	url     TEXT NOT NULL UNIQUE,
	site    TEXT NOT NULL,
	depth   INTEGER NOT NULL,
	referer TEXT NOT NULL,
	state   TEXT NOT NULL CHECK (state IN ('pending', 'inflight'))
);
CREATE INDEX frontier_site ON frontier(site, state, seq);
CREATE INDEX frontier_state ON frontier(state, seq);
`,
	// 1 -> 2: cluster indexes, for the merges of clusters a duplicate
	// bridges (Duplicate.Merges).
	`
CREATE INDEX articles_cluster ON articles(cluster);
CREATE INDEX duplicates_cluster ON duplicates(cluster);
`,
	// 2 -> 3: the engine's reason for a duplicate verdict (exact, jaccard,
	// containment, short, hamming); '' for verdicts written before.
	`
ALTER TABLE duplicates ADD COLUMN reason TEXT NOT NULL DEFAULT '';
`,
	// 3 -> 4: raw HTTP responses of stored articles (fetch.keep_raw):
	// header in wire format, body gzip-compressed.
	`
CREATE TABLE raw (
	url    TEXT PRIMARY KEY,
	status INTEGER NOT NULL,
	proto  TEXT NOT NULL,
	header BLOB NOT NULL,
	body   BLOB NOT NULL
) WITHOUT ROWID;
`,
	// 4 -> 5: lead-image fingerprints of photo pages (imgfp form, '' for
	// none) and the image evidence of "image" verdicts.
	`
ALTER TABLE articles ADD COLUMN image TEXT NOT NULL DEFAULT '';
ALTER TABLE duplicates ADD COLUMN image TEXT NOT NULL DEFAULT '';
ALTER TABLE duplicates ADD COLUMN image_similarity REAL NOT NULL DEFAULT 0;
`,
	// 5 -> 6: the log of cluster merges (Duplicate.Merges), so that the
	// change feed (Head, Changes) reports merges as well as new rows: a
	// merge rewrites the cluster of old rows, which "rows after a cursor"
	// alone would miss. AUTOINCREMENT: a sequence number is never reused.
	// Merges made before this migration are not logged; they are already
	// in the rows' clusters.
	`
CREATE TABLE cluster_merges (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	into_cluster INTEGER NOT NULL,
	from_cluster INTEGER NOT NULL
);
`,
	// 6 -> 7: the partial-reprint rule's data. prints are the winnowing
	// fingerprints (packed uint64s, like signature) and content_words
	// their text's content-word count, for articles and duplicates, so
	// that an index restored from the store compares like the one that
	// wrote it (x'' and 0 for rows written before: the rule does not
	// apply to them); partial_of, own_share and passages (uint64 triples)
	// record a partial reprint's verdict (0, 0, x'' otherwise).
	`
ALTER TABLE articles ADD COLUMN prints BLOB NOT NULL DEFAULT x'';
ALTER TABLE articles ADD COLUMN content_words INTEGER NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN partial_of INTEGER NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN own_share REAL NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN passages BLOB NOT NULL DEFAULT x'';
ALTER TABLE duplicates ADD COLUMN prints BLOB NOT NULL DEFAULT x'';
ALTER TABLE duplicates ADD COLUMN content_words INTEGER NOT NULL DEFAULT 0;
`,
	// 7 -> 8: cron runs that re-fetch only what changed. pages.retry_at is
	// when a permanent error may be fetched again (NULL: never; a page
	// that was gone). surfaces keeps each list surface's validators, what
	// its last fetch yielded and when it is due again (storage.SurfaceState);
	// next_due is indexed for the claim.
	`
ALTER TABLE pages ADD COLUMN retry_at INTEGER;
CREATE TABLE surfaces (
	key           TEXT PRIMARY KEY,
	site          TEXT NOT NULL DEFAULT '',
	etag          TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	fetched_at    INTEGER,
	status        INTEGER NOT NULL DEFAULT 0,
	new_urls      INTEGER NOT NULL DEFAULT 0,
	empty_runs    INTEGER NOT NULL DEFAULT 0,
	next_due      INTEGER,
	links         TEXT NOT NULL DEFAULT ''
);
`,
	// 8 -> 9: multi-page articles. A later page of an article is a page of
	// outcome 'part' naming its article in part_of ('' for the other
	// outcomes); SQLite cannot change a CHECK constraint in place, so the
	// pages table is rebuilt with the new outcome (same rows, same seq:
	// the commit order is kept). An article lists its pages and those
	// that could not be fetched, one URL a line ('' for one page).
	`
CREATE TABLE pages_v9 (
	seq        INTEGER PRIMARY KEY,
	url        TEXT NOT NULL UNIQUE,
	site       TEXT NOT NULL,
	run_id     INTEGER NOT NULL,
	outcome    TEXT NOT NULL CHECK (outcome IN ('stored', 'duplicate', 'not_article', 'error', 'part')),
	status     INTEGER NOT NULL,
	err_kind   TEXT NOT NULL,
	err        TEXT NOT NULL,
	permanent  INTEGER NOT NULL,
	fetched_at INTEGER,
	retry_at   INTEGER,
	part_of    TEXT NOT NULL DEFAULT ''
);
INSERT INTO pages_v9(seq, url, site, run_id, outcome, status, err_kind, err, permanent, fetched_at, retry_at)
	SELECT seq, url, site, run_id, outcome, status, err_kind, err, permanent, fetched_at, retry_at FROM pages;
DROP TABLE pages;
ALTER TABLE pages_v9 RENAME TO pages;
ALTER TABLE articles ADD COLUMN pages TEXT NOT NULL DEFAULT '';
ALTER TABLE articles ADD COLUMN pages_missing TEXT NOT NULL DEFAULT '';
`,
	// 9 -> 10: the title search tables (search.go).
	migrationTitleSearch,
	// 10 -> 11: each article's and duplicate's channel (newsroom,
	// self_media, unknown); '' for the rows stored before.
	migrationChannel,
	// 11 -> 12: the title triggers stand aside while a Batch fills the
	// title tables itself (search.go).
	migrationDeferredTitles,
	// 12 -> 13: the title tables end each title with titleEnd, and their
	// vocabularies answer queries of one and two characters (search.go).
	migrationTitleEnd,
}

// migrationChannel adds the channel columns.
const migrationChannel = `
ALTER TABLE articles ADD COLUMN channel TEXT NOT NULL DEFAULT '';
ALTER TABLE duplicates ADD COLUMN channel TEXT NOT NULL DEFAULT '';
`

func (s *Store) migrate(ctx context.Context, readOnly bool) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for {
		var v int
		if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		switch {
		case v == SchemaVersion:
			return nil
		case v > SchemaVersion || v < 0:
			return fmt.Errorf("%w: file has schema version %d, this program supports up to %d", storage.ErrSchemaTooNew, v, SchemaVersion)
		case readOnly:
			return fmt.Errorf("schema version %d needs migrating to %d, impossible in read-only mode", v, SchemaVersion)
		}
		if err := s.migrateFrom(ctx, v); err != nil {
			return err
		}
	}
}

// migrateFrom applies migrations[v] in one transaction, or every migration
// when v is 0 (a new file: one transaction writes each page once, so a new
// store's first write is about its final size, not the sum of the
// migrations' rewrites of its title tables). The version is read again
// inside the transaction so that two processes opening a new file at once
// do not both apply it.
func (s *Store) migrateFrom(ctx context.Context, v int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate schema %d: %w", v, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var cur int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return fmt.Errorf("migrate schema %d: %w", v, err)
	}
	if cur != v {
		return nil // someone else migrated; the caller re-reads
	}
	to := v + 1
	if v == 0 {
		to = SchemaVersion
	}
	for i := v; i < to; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", i, i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", to)); err != nil {
		return fmt.Errorf("migrate schema %d to %d: %w", v, to, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema %d to %d: %w", v, to, err)
	}
	return nil
}

func (s *Store) prepare(ctx context.Context) error {
	list := []struct {
		dst   **sql.Stmt
		query string
	}{
		{&s.stmts.pageOutcome, `SELECT outcome FROM pages WHERE url = ?`},
		{&s.stmts.deletePage, `DELETE FROM pages WHERE url = ?`},
		{&s.stmts.insertPage, `INSERT INTO pages(` + sqlcore.PageCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&s.stmts.insertArticle, `INSERT INTO articles(id, url, site, run_id, title, text, published_at, source,
			author, editor, fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
			prints, content_words, partial_of, own_share, passages, pages, pages_missing, channel)
			VALUES ((SELECT coalesce(max(id), 0) + 1 FROM articles), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,
			CASE WHEN ?12 = 0 THEN (SELECT coalesce(max(id), 0) + 1 FROM articles) ELSE ?12 END, ?13, ?14, ?15, ?16,
			?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)
			RETURNING id, cluster`},
		{&s.stmts.articleRef, `SELECT url, cluster FROM articles WHERE id = ?`},
		{&s.stmts.insertDup, `INSERT INTO duplicates(` + sqlcore.DuplicateCols + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&s.stmts.logTerms, `INSERT INTO docfreq_pending(terms) VALUES (?)`},
		{&s.stmts.addDoc, `UPDATE meta SET value = value + 1 WHERE key = 'docs' RETURNING value`},
		{&s.stmts.clearTerms, `DELETE FROM docfreq_pending`},
		{&s.stmts.push, `INSERT INTO frontier(url, site, depth, referer, state)
			SELECT ?1, ?2, ?3, ?4, 'pending'
			WHERE NOT EXISTS (SELECT 1 FROM pages WHERE url = ?1 AND (` + finalPage + `))
			ON CONFLICT(url) DO NOTHING`},
		{&s.stmts.lowerDepth, `UPDATE frontier SET depth = ?2, referer = ?3
			WHERE url = ?1 AND state = 'pending' AND depth > ?2`},
		{&s.stmts.popSite, `UPDATE frontier SET state = 'inflight' WHERE seq IN (
			SELECT seq FROM frontier WHERE site = ? AND state = 'pending' ORDER BY seq LIMIT ?)
			RETURNING ` + sqlcore.LeaseCols},
		{&s.stmts.popAll, `UPDATE frontier SET state = 'inflight' WHERE seq IN (
			SELECT seq FROM frontier WHERE state = 'pending' ORDER BY seq LIMIT ?)
			RETURNING ` + sqlcore.LeaseCols},
		{&s.stmts.done, `DELETE FROM frontier WHERE url = ?`},
	}
	for k := range s.stmts.foldDocFreq {
		list = append(list, struct {
			dst   **sql.Stmt
			query string
		}{&s.stmts.foldDocFreq[k], `INSERT INTO docfreq(term, df) VALUES ` + strings.Repeat("(?, ?), ", 1<<k-1) +
			`(?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df`})
	}
	for _, p := range list {
		st, err := s.db.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", strings.Join(strings.Fields(p.query), " "), err)
		}
		*p.dst = st
	}
	return nil
}
