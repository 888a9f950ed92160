package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/newsdedup/newscrawl/storage"
)

// SchemaVersion is the schema this code reads and writes, kept in the
// one-row table schema_version. It equals len(migrations).
const SchemaVersion = 8

// migrations[i] takes the schema from version i to i+1; each runs in one
// transaction together with the schema_version update, under the exclusive
// crawl lock (see Store.Lock).
//
// Times are Unix nanoseconds in BIGINT (NULL for the zero time), as in the
// SQLite store: timestamptz keeps only microseconds and the Store contract
// round-trips nanoseconds. seq columns give commit and FIFO order. docfreq's
// term uses the "C" collation, so that its primary key is in byte order
// (the order DocFreqs streams). raw keeps stored articles' HTTP responses
// (Commit.Raw): header in wire format, body as is (PostgreSQL compresses
// large values itself). cluster_merges logs the merges duplicates
// applied (Duplicate.Merges), for other processes' indexes (Changes). A
// stored article appends its distinct terms
// to docfreq_log instead of upserting docfreq (see foldEvery): the number of
// stored articles is the docs counter plus the log's rows, and a term's
// document frequency its docfreq row plus the log rows listing it. Frontier leases name their owner, a row of
// owners whose heartbeat_at a live process refreshes; a lease whose owner is
// gone or silent for leaseTimeout is pending again.
var migrations = [...]string{
	`
CREATE TABLE runs (
	id          BIGSERIAL PRIMARY KEY,
	started_at  BIGINT,
	finished_at BIGINT,
	status      TEXT NOT NULL,
	config      TEXT NOT NULL,
	stats       TEXT NOT NULL DEFAULT '{}',
	owner       TEXT
);
CREATE TABLE pages (
	seq        BIGSERIAL PRIMARY KEY,
	url        TEXT NOT NULL UNIQUE,
	site       TEXT NOT NULL,
	run_id     BIGINT NOT NULL,
	outcome    TEXT NOT NULL CHECK (outcome IN ('stored', 'duplicate', 'not_article', 'error')),
	status     INTEGER NOT NULL,
	err_kind   TEXT NOT NULL,
	err        TEXT NOT NULL,
	permanent  BOOLEAN NOT NULL,
	fetched_at BIGINT
);
CREATE TABLE articles (
	id           BIGSERIAL PRIMARY KEY,
	url          TEXT NOT NULL UNIQUE,
	site         TEXT NOT NULL,
	run_id       BIGINT NOT NULL,
	title        TEXT NOT NULL,
	text         TEXT NOT NULL,
	published_at BIGINT,
	source       TEXT NOT NULL,
	author       TEXT NOT NULL,
	editor       TEXT NOT NULL,
	fetched_at   BIGINT,
	content_hash TEXT NOT NULL,
	cluster      BIGINT NOT NULL,
	simhash      BIGINT NOT NULL,
	signature    BYTEA NOT NULL,
	sig_len      INTEGER NOT NULL
);
CREATE INDEX articles_fetched_at ON articles(fetched_at);
CREATE INDEX articles_published_at ON articles(published_at);
CREATE INDEX articles_cluster ON articles(cluster);
CREATE TABLE duplicates (
	seq          BIGSERIAL PRIMARY KEY,
	url          TEXT NOT NULL UNIQUE,
	site         TEXT NOT NULL,
	run_id       BIGINT NOT NULL,
	dup_of       BIGINT NOT NULL REFERENCES articles(id),
	dup_of_url   TEXT NOT NULL,
	cluster      BIGINT NOT NULL,
	distance     INTEGER NOT NULL,
	jaccard      DOUBLE PRECISION NOT NULL,
	containment  DOUBLE PRECISION NOT NULL DEFAULT 0,
	reason       TEXT NOT NULL DEFAULT '',
	title        TEXT NOT NULL,
	text         TEXT NOT NULL,
	published_at BIGINT,
	source       TEXT NOT NULL,
	author       TEXT NOT NULL,
	fetched_at   BIGINT,
	simhash      BIGINT NOT NULL,
	signature    BYTEA NOT NULL
);
CREATE INDEX duplicates_dup_of ON duplicates(dup_of);
CREATE INDEX duplicates_fetched_at ON duplicates(fetched_at);
CREATE INDEX duplicates_published_at ON duplicates(published_at);
CREATE INDEX duplicates_cluster ON duplicates(cluster);
CREATE TABLE docfreq (
	term TEXT COLLATE "C" PRIMARY KEY,
	df   BIGINT NOT NULL
);
CREATE TABLE raw (
	url    TEXT PRIMARY KEY REFERENCES articles(url),
	status INTEGER NOT NULL,
	proto  TEXT NOT NULL,
	header BYTEA NOT NULL,
	body   BYTEA NOT NULL
);
CREATE TABLE cluster_merges (
	seq          BIGSERIAL PRIMARY KEY,
	into_cluster BIGINT NOT NULL,
	from_cluster BIGINT NOT NULL
);
CREATE TABLE docfreq_log (
	seq   BIGSERIAL PRIMARY KEY,
	terms TEXT[] NOT NULL
);
CREATE TABLE counters (
	key   TEXT PRIMARY KEY,
	value BIGINT NOT NULL
);
INSERT INTO counters(key, value) VALUES ('docs', 0);
CREATE TABLE owners (
	id           TEXT PRIMARY KEY,
	host         TEXT NOT NULL,
	pid          INTEGER NOT NULL,
	started_at   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
	heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE frontier (
	seq       BIGSERIAL PRIMARY KEY,
	url       TEXT NOT NULL UNIQUE,
	site      TEXT NOT NULL,
	depth     INTEGER NOT NULL,
	referer   TEXT NOT NULL,
	state     TEXT NOT NULL CHECK (state IN ('pending', 'inflight')),
	owner     TEXT,
	leased_at TIMESTAMPTZ,
	CHECK ((state = 'inflight') = (owner IS NOT NULL))
);
CREATE INDEX frontier_pending ON frontier(seq) WHERE state = 'pending';
CREATE INDEX frontier_site_pending ON frontier(site, seq) WHERE state = 'pending';
CREATE INDEX frontier_site ON frontier(site);
CREATE INDEX frontier_owner ON frontier(owner) WHERE state = 'inflight';
`,
	// 1 -> 2: lead-image fingerprints of photo pages (imgfp form, '' for
	// none) and the image evidence of "image" verdicts.
	`
ALTER TABLE articles ADD COLUMN image TEXT NOT NULL DEFAULT '';
ALTER TABLE duplicates ADD COLUMN image TEXT NOT NULL DEFAULT '';
ALTER TABLE duplicates ADD COLUMN image_similarity DOUBLE PRECISION NOT NULL DEFAULT 0;
`,
	// 2 -> 3: the partial-reprint rule's data, as in the SQLite store's
	// migration 6 -> 7: winnowing prints (packed uint64s) and content-word
	// counts of articles and duplicates, and a partial reprint's
	// partial_of, own_share and passages (uint64 triples).
	`
ALTER TABLE articles ADD COLUMN prints BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE articles ADD COLUMN content_words INTEGER NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN partial_of BIGINT NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN own_share DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN passages BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE duplicates ADD COLUMN prints BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE duplicates ADD COLUMN content_words INTEGER NOT NULL DEFAULT 0;
`,
	// 3 -> 4: cron runs that re-fetch only what changed, as in the SQLite
	// store's migration 7 -> 8: pages.retry_at (a permanent error's next
	// chance; NULL: never) and the surfaces table (storage.SurfaceState),
	// whose claim is one INSERT ... ON CONFLICT DO UPDATE ... WHERE due.
	`
ALTER TABLE pages ADD COLUMN retry_at BIGINT;
CREATE TABLE surfaces (
	key           TEXT PRIMARY KEY,
	site          TEXT NOT NULL DEFAULT '',
	etag          TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	fetched_at    BIGINT,
	status        INTEGER NOT NULL DEFAULT 0,
	new_urls      INTEGER NOT NULL DEFAULT 0,
	empty_runs    INTEGER NOT NULL DEFAULT 0,
	next_due      BIGINT,
	links         TEXT NOT NULL DEFAULT ''
);
`,
	// 4 -> 5: multi-page articles, as in the SQLite store's migration
	// 8 -> 9: the outcome 'part' (a later page of an article, named in
	// part_of) and an article's pages and missing pages, one URL a line.
	`
ALTER TABLE pages DROP CONSTRAINT IF EXISTS pages_outcome_check;
ALTER TABLE pages ADD CONSTRAINT pages_outcome_check CHECK (outcome IN ('stored', 'duplicate', 'not_article', 'error', 'part'));
ALTER TABLE pages ADD COLUMN part_of TEXT NOT NULL DEFAULT '';
ALTER TABLE articles ADD COLUMN pages TEXT NOT NULL DEFAULT '';
ALTER TABLE articles ADD COLUMN pages_missing TEXT NOT NULL DEFAULT '';
`,
	// 5 -> 6: the title search index (search.go).
	migrationTitleSearch,
	// 6 -> 7: each article's and duplicate's channel, as in the SQLite
	// store's migration 10 -> 11.
	`
ALTER TABLE articles ADD COLUMN channel TEXT NOT NULL DEFAULT '';
ALTER TABLE duplicates ADD COLUMN channel TEXT NOT NULL DEFAULT '';
`,
	// 7 -> 8: the fleet's host pacer (Store.Wait, Hold): per host, the
	// earliest start of its next request, in microseconds on the server's
	// clock.
	`
CREATE TABLE host_pace (
	host       TEXT PRIMARY KEY,
	next_start BIGINT NOT NULL
);
`,
}

// Lock classes of the two-key advisory locks (pg_advisory_lock(int, int)):
// the first key says what is locked, the second is a hash of the schema
// name (and of the URL for lockURL), so that stores in different schemas
// of one database never contend.
const (
	lockCrawl   = 1 // shared by crawls (Store.Lock), exclusive for migrations
	lockURL     = 2 // a URL's Commit (transaction-scoped)
	lockPush    = 3 // frontier pushes (transaction-scoped)
	lockFold    = 4 // document-frequency folds (transaction-scoped, try-only)
	lockMigrate = 5 // schema creation and migrations (session-scoped)
	lockDecide  = 6 // dedup decisions of the fleet (session-scoped, exclusive)
)

// migrate creates or migrates the schema. A store at SchemaVersion is
// opened without any lock; an older one is migrated under the exclusive
// crawl lock, waiting at most migrateLockWait (options) for running crawls (which
// hold it shared) to end.
func (s *Store) migrate(ctx context.Context) error {
	v, err := s.schemaVersion(ctx, s.pool)
	if err != nil {
		return err
	}
	switch {
	case v == SchemaVersion:
		return nil
	case v > SchemaVersion || v < 0:
		return fmt.Errorf("%w: schema %s has version %d, this program supports up to %d",
			storage.ErrSchemaTooNew, s.schema, v, SchemaVersion)
	}
	// Migrators are serialised by a session-level lock taken before the
	// migration's transaction begins: a transaction started after another
	// process's migration committed sees its tables (one that waited for a
	// lock inside could still resolve names from stale catalog caches).
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, fmt.Sprintf("SET lock_timeout = %d", s.opt.migrateLockWait.Milliseconds())); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, lockMigrate, s.schemaKey)
	if _, rerr := conn.Exec(ctx, "RESET lock_timeout"); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		_ = conn.Conn().Close(ctx) // ends the session and whatever it holds
		if isCode(err, codeLockNotAvailable) {
			return fmt.Errorf("migrate schema %s: another process is migrating it: %w", s.schema, storage.ErrLocked)
		}
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, lockMigrate, s.schemaKey); err != nil {
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// Read again under the lock: another process may have migrated.
		cur, err := s.schemaVersion(ctx, tx)
		if err != nil || cur == SchemaVersion {
			return err
		}
		if cur > SchemaVersion {
			return fmt.Errorf("%w: schema %s has version %d, this program supports up to %d",
				storage.ErrSchemaTooNew, s.schema, cur, SchemaVersion)
		}
		// A migration also excludes running crawls (they hold the crawl
		// lock shared): the schema never changes under one.
		if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", s.opt.migrateLockWait.Milliseconds())); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockCrawl, s.schemaKey); err != nil {
			if isCode(err, codeLockNotAvailable) {
				return fmt.Errorf("migrate schema %s: running crawls hold it: %w", s.schema, storage.ErrLocked)
			}
			return err
		}
		if cur == 0 {
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
				one     BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
				version INTEGER NOT NULL)`); err != nil {
				return fmt.Errorf("create schema_version: %w", err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_version(version) VALUES (0) ON CONFLICT (one) DO NOTHING`); err != nil {
				return fmt.Errorf("create schema_version: %w", err)
			}
		}
		for ; cur < SchemaVersion; cur++ {
			if _, err := tx.Exec(ctx, migrations[cur]); err != nil {
				return fmt.Errorf("migrate schema %s from %d to %d: %w", s.schema, cur, cur+1, err)
			}
			if _, err := tx.Exec(ctx, `UPDATE schema_version SET version = $1`, cur+1); err != nil {
				return fmt.Errorf("migrate schema %s from %d to %d: %w", s.schema, cur, cur+1, err)
			}
		}
		return nil
	})
}

// checkVersion is a read-only open's schema check: the schema must hold a
// store of this program's version.
func (s *Store) checkVersion(ctx context.Context) error {
	v, err := s.schemaVersion(ctx, s.pool)
	switch {
	case err != nil:
		return err
	case v == 0:
		return fmt.Errorf("%w in schema %s", storage.ErrNoStore, s.schema)
	case v > SchemaVersion || v < 0:
		return fmt.Errorf("%w: schema %s has version %d, this program supports up to %d",
			storage.ErrSchemaTooNew, s.schema, v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("schema %s has version %d, this program reads version %d: a writing command (crawl, import) migrates it", s.schema, v, SchemaVersion)
	}
	return nil
}

// querier is what schemaVersion needs of a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// schemaVersion reads the schema version; 0 when the schema holds no
// schema_version table yet.
func (s *Store) schemaVersion(ctx context.Context, q querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := q.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// PostgreSQL error codes the store reacts to.
const (
	codeSerialization    = "40001"
	codeDeadlock         = "40P01"
	codeUniqueViolation  = "23505"
	codeLockNotAvailable = "55P03"
)

func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}
