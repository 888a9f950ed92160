// Package sqlite is the embedded storage.Store: one SQLite file in WAL mode
// through the pure-Go modernc.org/sqlite driver (no cgo). It owns the
// schema knowledge: the migrations (SchemaVersion) and Audit, the
// independent check of a store file that the crash evaluation runs.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	msqlite "modernc.org/sqlite" // registers the pure-Go "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/storage"
)

// SchemaVersion is the schema this code reads and writes, kept in the file's
// PRAGMA user_version. It equals len(migrations).
const SchemaVersion = 10

// SQLite tuning.
const (
	// busyTimeoutMS is how long a statement waits for another connection's
	// write lock (another process checkpointing or writing) before it fails
	// with SQLITE_BUSY. Writes inside this process are serialised by a mutex
	// and never wait on each other here.
	busyTimeoutMS = 5000
	// maxOpenConns bounds the pool. SQLite has one writer at a time; in WAL
	// mode readers do not block it nor each other, so a few connections let
	// iterations (whose callbacks may call back into the store) run beside a
	// writer on 2-core machines without piling up connections.
	maxOpenConns = 4
	// lockPoll is how often Lock(wait=true) retries a held file lock; flock
	// cannot be interrupted by a context, so the wait polls with LOCK_NB.
	lockPoll = 200 * time.Millisecond
	// maxCheckRows bounds the rows each Check query reads, so that a badly
	// broken store yields a prompt error instead of a huge one.
	maxCheckRows = 1000
	// foldChunkBits sets the largest document-frequency upsert of a fold to
	// maxFoldChunk terms (2 parameters each), far below SQLite's 32766
	// bound on parameters.
	foldChunkBits = 8
	maxFoldChunk  = 1 << foldChunkBits
	// foldEvery is how many stored documents' terms wait in docfreq_pending
	// before a Commit folds them into docfreq (see docfreq.go). Upserting an
	// article's terms straight into docfreq dirtied about a hundred B-tree
	// pages per commit, which the WAL then wrote and checkpointed again; the
	// log takes one row per document and the fold touches each docfreq page
	// once per foldEvery documents. Larger batches share more terms, so the
	// fold's upserts per document fall as it grows, while the folding commit
	// and the log that DocFreqs reads into memory grow; 256 balances them
	// (BenchmarkCommit figures: docs/THRESHOLDS.md).
	foldEvery = 256
)

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
}

// Store is the embedded SQLite store: one database file in WAL mode, written through
// a single *sql.DB. It is safe for concurrent use. Writes from this process
// are serialised by a mutex (SQLite has one writer at a time); reads run
// concurrently. Lock uses an advisory flock on path+".lock" so that two
// processes never crawl into one store at once.
type Store struct {
	path string
	db   *sql.DB

	writeMu sync.Mutex // serialises write transactions of this process
	termBuf []byte     // encodes a commit's terms; guarded by writeMu
	packer  textPacker // compresses duplicates' texts; guarded by writeMu

	stmts sqliteStmts

	// immutable is the file's state when it was opened read-only with
	// SQLite's immutable=1 (see open); nil otherwise.
	immutable os.FileInfo
}

// sqliteStmts are the prepared statements of the hot path.
type sqliteStmts struct {
	pageOutcome   *sql.Stmt
	deletePage    *sql.Stmt
	insertPage    *sql.Stmt
	insertArticle *sql.Stmt
	articleRef    *sql.Stmt
	insertDup     *sql.Stmt
	logTerms      *sql.Stmt
	addDoc        *sql.Stmt
	clearTerms    *sql.Stmt
	// foldDocFreq[k] adds counts to 1<<k terms in one statement, so that a
	// fold of n terms takes about n/maxFoldChunk +
	// popcount(n%maxFoldChunk) statements instead of n (each costs
	// microseconds through the driver).
	foldDocFreq [foldChunkBits + 1]*sql.Stmt
	push        *sql.Stmt
	lowerDepth  *sql.Stmt
	popSite     *sql.Stmt
	popAll      *sql.Stmt
	done        *sql.Stmt
}

var _ storage.Store = (*Store)(nil)

// options are open-time settings; only tests change them (export_test.go).
type options struct {
	// readOnly opens the file with SQLite's mode=ro: every write fails with
	// SQLITE_READONLY. Unlike chmod, it also holds when running as root.
	readOnly bool
	// pragmas are extra per-connection PRAGMAs such as "max_page_count(64)",
	// used to simulate a full disk.
	pragmas []string
}

// Open opens (creating it and its parent directory when missing) the
// store at path, migrating an older schema; with ReadOnly it only opens an
// existing store for reading. It fails with an error wrapping
// ErrSchemaTooNew when the file was written by a newer program, ErrDamaged
// when SQLite finds it corrupt, and refuses symlinks planted where it would
// create files (see checkNotPlanted).
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return open(ctx, path, o)
}

func open(ctx context.Context, path string, opt options) (*Store, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite store: %w: path %q must name a file", storage.ErrInvalid, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	if !opt.readOnly {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
		}
	}
	if err := checkNotPlanted(abs); err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}

	q := url.Values{}
	// BEGIN IMMEDIATE takes the write lock at the start of a transaction, so
	// Commit's read-check-write never has to upgrade a read lock (which in
	// WAL mode can fail with SQLITE_BUSY_SNAPSHOT without waiting).
	q.Set("_txlock", "immediate")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "foreign_keys(1)")
	// synchronous=NORMAL in WAL mode syncs the WAL only at checkpoints: the
	// database can never be corrupted, but a power loss (not a process crash)
	// may roll back the last transactions. That is safe here because every
	// Commit is idempotent and a frontier item is Done only in a transaction
	// after its page's Commit: a lost tail simply refetches those URLs.
	q.Add("_pragma", "synchronous(NORMAL)")
	// Statement journals (written by the multi-row document-frequency
	// upserts of a fold) and temporary indexes stay in memory instead of
	// temp files.
	q.Add("_pragma", "temp_store(MEMORY)")
	if opt.readOnly {
		q.Set("mode", "ro")
	}
	for _, p := range opt.pragmas {
		q.Add("_pragma", p)
	}
	s, err := connect(ctx, abs, q, opt.readOnly)
	if err != nil && opt.readOnly && needsImmutable(err, abs) {
		// A WAL store in a directory this process cannot write: SQLite
		// cannot create the -shm file that even readers need. With no
		// -wal file beside it the database file holds every committed
		// transaction, and it can be read as immutable; Close reports
		// whether it changed meanwhile (a writer that started).
		before, serr := os.Stat(abs)
		if serr != nil {
			return nil, fmt.Errorf("open sqlite store %s: %w", path, serr)
		}
		q.Set("immutable", "1")
		if s, err = connect(ctx, abs, q, true); err == nil {
			s.immutable = before
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, damaged(err))
	}
	return s, nil
}

// connect opens the database with the URI parameters q and initialises it.
func connect(ctx context.Context, abs string, q url.Values, readOnly bool) (*Store, error) {
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &Store{path: abs, db: db}
	if err := s.init(ctx, readOnly); err != nil {
		s.closeAll()
		return nil, err
	}
	return s, nil
}

// init sets WAL mode, checks and migrates the schema and prepares statements.
func (s *Store) init(ctx context.Context, readOnly bool) error {
	if !readOnly {
		if err := s.setWAL(ctx); err != nil {
			return err
		}
	}
	if err := s.migrate(ctx, readOnly); err != nil {
		return err
	}
	return s.prepare(ctx)
}

// setWAL switches the file to WAL mode. Switching needs an exclusive lock
// and SQLite answers SQLITE_BUSY at once, without its busy handler, while
// another connection (a process opening the same new file) holds any lock;
// so the switch is retried until busyTimeoutMS has passed.
func (s *Store) setWAL(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil {
			if !strings.EqualFold(mode, "wal") {
				return fmt.Errorf("set WAL mode: journal mode is %q", mode)
			}
			return nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			return fmt.Errorf("set WAL mode: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("set WAL mode: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}

// isBusy reports SQLITE_BUSY and SQLITE_LOCKED (and their extended codes).
func isBusy(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

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

// migrateFrom applies migrations[v] in one transaction. The version is read
// again inside the transaction so that two processes opening a new file at
// once do not both apply it.
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
	if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
		return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
	}
	return nil
}

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

func (s *Store) prepare(ctx context.Context) error {
	list := []struct {
		dst   **sql.Stmt
		query string
	}{
		{&s.stmts.pageOutcome, `SELECT outcome FROM pages WHERE url = ?`},
		{&s.stmts.deletePage, `DELETE FROM pages WHERE url = ?`},
		{&s.stmts.insertPage, `INSERT INTO pages(` + pageCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&s.stmts.insertArticle, `INSERT INTO articles(id, url, site, run_id, title, text, published_at, source,
			author, editor, fetched_at, content_hash, cluster, simhash, signature, sig_len, image,
			prints, content_words, partial_of, own_share, passages, pages, pages_missing)
			VALUES ((SELECT coalesce(max(id), 0) + 1 FROM articles), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,
			CASE WHEN ?12 = 0 THEN (SELECT coalesce(max(id), 0) + 1 FROM articles) ELSE ?12 END, ?13, ?14, ?15, ?16,
			?17, ?18, ?19, ?20, ?21, ?22, ?23)
			RETURNING id, cluster`},
		{&s.stmts.articleRef, `SELECT url, cluster FROM articles WHERE id = ?`},
		{&s.stmts.insertDup, `INSERT INTO duplicates(` + duplicateCols + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
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
			RETURNING seq, url, site, depth, referer`},
		{&s.stmts.popAll, `UPDATE frontier SET state = 'inflight' WHERE seq IN (
			SELECT seq FROM frontier WHERE state = 'pending' ORDER BY seq LIMIT ?)
			RETURNING seq, url, site, depth, referer`},
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

// Close closes the prepared statements and the database. It does not release
// a lock taken with Lock; call its release function.
func (s *Store) Close() error {
	return s.closeAll()
}

func (s *Store) closeAll() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.stmts.pageOutcome, s.stmts.deletePage, s.stmts.insertPage,
		s.stmts.insertArticle, s.stmts.articleRef, s.stmts.insertDup, s.stmts.logTerms, s.stmts.addDoc,
		s.stmts.clearTerms, s.stmts.push, s.stmts.lowerDepth, s.stmts.popSite, s.stmts.popAll, s.stmts.done} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	for _, st := range s.stmts.foldDocFreq {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	errs = append(errs, s.db.Close())
	if s.immutable != nil {
		errs = append(errs, s.checkUnchanged())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close sqlite store %s: %w", s.path, err)
	}
	return nil
}

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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeTx runs fn in one immediate transaction under the write mutex.
func (s *Store) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // the transaction is abandoned; fn's error is the one to report
		return err
	}
	return tx.Commit()
}

// BeginRun records a new run with status RunRunning.
func (s *Store) BeginRun(ctx context.Context, config string) (storage.Run, error) {
	r := storage.Run{StartedAt: time.Now().UTC(), Status: storage.RunRunning, Config: config}
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO runs(started_at, status, config, stats)
			VALUES (?, ?, ?, '{}') RETURNING id`, nullTime(r.StartedAt), r.Status, r.Config).Scan(&r.ID)
	})
	if err != nil {
		return storage.Run{}, fmt.Errorf("begin run: %w", err)
	}
	return r, nil
}

// FinishRun stores r's finish time, status and stats; ErrNotFound for an
// unknown run.
func (s *Store) FinishRun(ctx context.Context, r storage.Run) error {
	if err := storage.ValidTime("run finished_at", r.FinishedAt); err != nil {
		return err
	}
	stats, err := json.Marshal(r.Stats)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET finished_at = ?, status = ?, stats = ? WHERE id = ?`,
			nullTime(r.FinishedAt), r.Status, string(stats), r.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return storage.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	return nil
}

// Runs returns every run in id order.
func (s *Store) Runs(ctx context.Context) ([]storage.Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, started_at, finished_at, status, config, stats FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []storage.Run
	for rows.Next() {
		var r storage.Run
		var started, finished sql.NullInt64
		var stats string
		if err := rows.Scan(&r.ID, &started, &finished, &r.Status, &r.Config, &stats); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		if err := json.Unmarshal([]byte(stats), &r.Stats); err != nil {
			return nil, fmt.Errorf("list runs: run %d stats: %w", r.ID, err)
		}
		r.StartedAt, r.FinishedAt = fromNull(started), fromNull(finished)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// Commit writes one page outcome in one transaction; see Store.Commit.
func (s *Store) Commit(ctx context.Context, c *storage.Commit) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var r commitResult
	err := s.writeTx(ctx, func(tx *sql.Tx) (err error) {
		r, err = s.commitTx(ctx, tx, c)
		return err
	})
	if err != nil {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	r.fill(c)
	return nil
}

// commitResult is what a commit's transaction assigned.
type commitResult struct {
	artID, artCluster int64
	dupOfURL          string
	dupCluster        int64
}

// fill copies the assigned ids into the committed article or duplicate.
func (r commitResult) fill(c *storage.Commit) {
	switch {
	case c.Article != nil:
		c.Article.ID, c.Article.Cluster = r.artID, r.artCluster
	case c.Duplicate != nil:
		c.Duplicate.DupOfURL, c.Duplicate.Cluster = r.dupOfURL, r.dupCluster
	}
}

// commitTx writes one validated page outcome in the caller's transaction
// (s.writeMu held).
func (s *Store) commitTx(ctx context.Context, tx *sql.Tx, c *storage.Commit) (r commitResult, err error) {
	p := &c.Page
	var old string
	err = tx.StmtContext(ctx, s.stmts.pageOutcome).QueryRowContext(ctx, p.URL).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return r, err
	case storage.Outcome(old).Final():
		return r, fmt.Errorf("%w (%s)", storage.ErrAlreadyDecided, old)
	default:
		if _, err := tx.StmtContext(ctx, s.stmts.deletePage).ExecContext(ctx, p.URL); err != nil {
			return r, err
		}
	}
	if _, err := tx.StmtContext(ctx, s.stmts.insertPage).ExecContext(ctx, p.URL, p.Site, p.RunID,
		string(p.Outcome), p.Status, p.ErrKind, p.Err, boolInt(p.Permanent), nullTime(p.FetchedAt), nullTime(p.RetryAt), p.PartOf); err != nil {
		return r, err
	}
	if err := s.commitParts(ctx, tx, c); err != nil {
		return r, err
	}
	switch {
	case c.Article != nil:
		a := c.Article
		if a.PartialOf != 0 {
			var u string
			var cl int64
			err := tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, a.PartialOf).Scan(&u, &cl)
			if errors.Is(err, sql.ErrNoRows) {
				return r, fmt.Errorf("partial_of %d: %w", a.PartialOf, storage.ErrNotFound)
			} else if err != nil {
				return r, err
			}
		}
		err := tx.StmtContext(ctx, s.stmts.insertArticle).QueryRowContext(ctx, p.URL, a.Site, a.RunID,
			a.Title, a.Text, nullTime(a.PublishedAt), a.Source, a.Author, a.Editor, nullTime(a.FetchedAt),
			a.ContentHash, a.Cluster, int64(a.Fingerprint.Simhash), packSignature(a.Fingerprint.Signature),
			a.Fingerprint.Length, a.Fingerprint.Image, packSignature(a.Fingerprint.Prints), a.Fingerprint.ContentWords,
			a.PartialOf, a.OwnShare, packPassages(a.Passages), strings.Join(a.Pages, "\n"),
			strings.Join(a.PagesMissing, "\n")).Scan(&r.artID, &r.artCluster)
		if err != nil {
			return r, err
		}
		if err := s.addTerms(ctx, tx, c.Terms); err != nil {
			return r, err
		}
		if c.Raw != nil {
			if err := putRaw(ctx, tx, p.URL, c.Raw); err != nil {
				return r, err
			}
		}
	case c.Duplicate != nil:
		d := c.Duplicate
		err := tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, d.DupOf).Scan(&r.dupOfURL, &r.dupCluster)
		if errors.Is(err, sql.ErrNoRows) {
			return r, fmt.Errorf("dup_of %d: %w", d.DupOf, storage.ErrNotFound)
		} else if err != nil {
			return r, err
		}
		if d.DupOfURL != "" {
			r.dupOfURL = d.DupOfURL
		}
		if d.Cluster != 0 {
			r.dupCluster = d.Cluster
		}
		if _, err := tx.StmtContext(ctx, s.stmts.insertDup).ExecContext(ctx, p.URL, d.Site, d.RunID, d.DupOf,
			r.dupOfURL, r.dupCluster, d.Distance, d.Jaccard, d.Containment, d.Title, s.packer.pack(d.Text), nullTime(d.PublishedAt),
			d.Source, d.Author, nullTime(d.FetchedAt), int64(d.Simhash), packSignature(d.Signature), d.Reason,
			d.Image, d.ImageSimilarity, packSignature(d.Prints), d.ContentWords); err != nil {
			return r, err
		}
		merges := slices.Clone(d.Merges)
		slices.Sort(merges)
		for _, m := range slices.Compact(merges) {
			for _, q := range []string{`UPDATE articles SET cluster = ? WHERE cluster = ?`, `UPDATE duplicates SET cluster = ? WHERE cluster = ?`,
				`INSERT INTO cluster_merges(into_cluster, from_cluster) VALUES (?, ?)`} {
				if _, err := tx.ExecContext(ctx, q, r.dupCluster, m); err != nil {
					return r, fmt.Errorf("merge cluster %d into %d: %w", m, r.dupCluster, err)
				}
			}
		}
	}
	return r, nil
}

// commitParts records the later pages of a multi-page article
// (Commit.Parts) as pages of outcome part; a URL already decided keeps
// its record.
func (s *Store) commitParts(ctx context.Context, tx *sql.Tx, c *storage.Commit) error {
	p := &c.Page
	for _, u := range c.Parts {
		var old string
		err := tx.StmtContext(ctx, s.stmts.pageOutcome).QueryRowContext(ctx, u).Scan(&old)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case storage.Outcome(old).Final():
			continue
		default:
			if _, err := tx.StmtContext(ctx, s.stmts.deletePage).ExecContext(ctx, u); err != nil {
				return err
			}
		}
		if _, err := tx.StmtContext(ctx, s.stmts.insertPage).ExecContext(ctx, u, p.Site, p.RunID,
			string(storage.OutcomePart), p.Status, "", "", 0, nullTime(p.FetchedAt), nil, p.URL); err != nil {
			return fmt.Errorf("part %s: %w", u, err)
		}
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

// Decided reports the final outcome of a URL.
func (s *Store) Decided(ctx context.Context, u string) (storage.Outcome, bool, error) {
	var o string
	err := s.stmts.pageOutcome.QueryRowContext(ctx, u).Scan(&o)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("decided %s: %w", u, err)
	}
	if !storage.Outcome(o).Final() {
		return "", false, nil
	}
	return storage.Outcome(o), true, nil
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

// Lock takes an exclusive advisory flock on path+".lock" (the file holds the
// holder's pid for diagnostics). With wait=true it polls every lockPoll until
// the lock is free or ctx ends.
func (s *Store) Lock(ctx context.Context, wait bool) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := s.path + ".lock"
	f, err := openLockFile(name)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if !wait {
			holder := lockHolder(f)
			f.Close()
			return nil, fmt.Errorf("lock %s: %w%s", name, storage.ErrLocked, holder)
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	// Best effort: the pid only improves the message of a competing Lock.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	var once sync.Once
	var relErr error
	return func() error {
		once.Do(func() {
			_ = f.Truncate(0) // best effort, as above
			uerr := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			relErr = errors.Join(uerr, f.Close())
			if relErr != nil {
				relErr = fmt.Errorf("unlock %s: %w", name, relErr)
			}
		})
		return relErr
	}, nil
}

// lockHolder describes the pid recorded in a held lock file, if any.
func lockHolder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0) // short read or EOF are expected; an empty pid is just omitted
	pid := strings.TrimSpace(string(b[:n]))
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	return " (held by pid " + pid + ")"
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

// Push queues the items that are neither queued nor decided, in one
// transaction, and returns how many it added.
func (s *Store) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	for _, it := range items {
		if it.URL == "" {
			return 0, fmt.Errorf("push: %w: frontier item with empty url", storage.ErrInvalid)
		}
	}
	if len(items) == 0 {
		return 0, nil
	}
	added := 0
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		added = 0
		st := tx.StmtContext(ctx, s.stmts.push)
		now := time.Now().UnixNano()
		for _, it := range items {
			res, err := st.ExecContext(ctx, it.URL, it.Site, it.Depth, it.Referer, now)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			added += int(n)
			if n == 0 {
				if _, err := tx.StmtContext(ctx, s.stmts.lowerDepth).ExecContext(ctx, it.URL, it.Depth, it.Referer); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("push: %w", err)
	}
	return added, nil
}

// Pop leases up to n pending items of site (all sites when empty), oldest
// first, marking them in flight.
func (s *Store) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	if n <= 0 {
		return nil, nil
	}
	type seqItem struct {
		seq int64
		storage.FrontierItem
	}
	var got []seqItem
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		got = got[:0]
		var rows *sql.Rows
		var err error
		if site == "" {
			rows, err = tx.StmtContext(ctx, s.stmts.popAll).QueryContext(ctx, n)
		} else {
			rows, err = tx.StmtContext(ctx, s.stmts.popSite).QueryContext(ctx, site, n)
		}
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var it seqItem
			if err := rows.Scan(&it.seq, &it.URL, &it.Site, &it.Depth, &it.Referer); err != nil {
				return err
			}
			got = append(got, it)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("pop: %w", err)
	}
	// RETURNING has no defined order.
	sort.Slice(got, func(i, j int) bool { return got[i].seq < got[j].seq })
	out := make([]storage.FrontierItem, len(got))
	for i, it := range got {
		out[i] = it.FrontierItem
	}
	return out, nil
}

// Done removes url from the frontier (no-op when absent).
func (s *Store) Done(ctx context.Context, u string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.stmts.done.ExecContext(ctx, u); err != nil {
		return fmt.Errorf("done %s: %w", u, err)
	}
	return nil
}

// Requeue makes every in-flight item pending again.
func (s *Store) Requeue(ctx context.Context) (int, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	res, err := s.db.ExecContext(ctx, `UPDATE frontier SET state = 'pending' WHERE state = 'inflight'`)
	if err != nil {
		return 0, fmt.Errorf("requeue: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("requeue: %w", err)
	}
	return int(n), nil
}

// Pending counts queued items (pending or in flight) of site (all when empty).
func (s *Store) Pending(ctx context.Context, site string) (int, error) {
	var n int
	var err error
	if site == "" {
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM frontier`).Scan(&n)
	} else {
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM frontier WHERE site = ?`, site).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("pending: %w", err)
	}
	return n, nil
}

// Reset forgets every frontier item.
func (s *Store) Reset(ctx context.Context) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.db.ExecContext(ctx, `DELETE FROM frontier`); err != nil {
		return fmt.Errorf("reset frontier: %w", err)
	}
	return nil
}
