// Package postgres is the shared storage.Store: one PostgreSQL schema that
// several crawler processes, on one machine or many, write at once.
//
// It keeps the SQLite store's semantics (storage.Store, checked by the
// conformance suite in storage/storagetest) and makes each of them hold
// across processes:
//
//   - Commit is idempotent per URL across processes: a transaction-scoped
//     advisory lock on the URL serialises its read-check-write, so two
//     processes committing one URL end with one winner and one
//     ErrAlreadyDecided. Cluster merges run in the same transaction, and a
//     duplicate locks (FOR SHARE) the article it points to, so that a
//     concurrent merge is either fully before or fully after it.
//   - The frontier is leased with SELECT … FOR UPDATE SKIP LOCKED: a URL is
//     leased by one process at a time. Every lease names its owner (one per
//     open Store); the owner's heartbeat is refreshed every heartbeatEvery,
//     and a lease whose owner has been silent for leaseTimeout (the process
//     died, even by kill -9) is pending again for the next Pop.
//   - Store.Lock is shared: several crawls run on one store at once. The
//     same advisory lock is taken exclusively by schema migrations, so that
//     a newer program never changes the schema under a running crawl.
//   - Dedup decisions can be serialised across processes: LockDecisions is
//     a fleet-wide lock and Changes a feed of the articles, duplicates and
//     cluster merges committed after a Cursor, with which a process brings
//     its in-memory index up to date before deciding (internal/pipeline).
//   - Import copies another store (SQLite) into an empty schema.
//
// Open(ctx, url) is the one constructor; the schema (the first entry of the
// URL's search_path, "public" by default) is created or migrated there.
// Transactions run at READ COMMITTED; the advisory locks and row locks above
// make the read-check-write steps safe, and a transaction that PostgreSQL
// aborts for a deadlock or serialization failure is retried.
package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Tuning and protocol constants.
const (
	// leaseTimeout is how long an owner may stay silent before its leases
	// are pending again: a crawl started after a kill -9 resumes the dead
	// process's URLs within about this long (docs/SHARED.md: ~30 s).
	leaseTimeout = 30 * time.Second
	// heartbeatEvery is how often a live Store refreshes its owner row; a
	// sixth of leaseTimeout leaves room for several missed beats (a busy
	// database, a GC pause) before a live owner's leases are taken.
	heartbeatEvery = 5 * time.Second
	// minPoolConns is the smallest connection pool: iteration callbacks may
	// call back into the store, and each held crawl lock keeps one
	// connection.
	minPoolConns = 8
	// maxTxAttempts bounds the retries of a transaction that PostgreSQL
	// aborted for a deadlock or a serialization failure.
	maxTxAttempts = 5
	// migrateLockWait is how long a schema migration waits for running
	// crawls to release the crawl lock before Open fails with ErrLocked.
	migrateLockWait = 10 * time.Second
	// lockPoll is how often Lock(wait=true) retries while a migration holds
	// the crawl lock exclusively.
	lockPoll = 200 * time.Millisecond
	// maxCheckRows bounds the rows each Check query reports.
	maxCheckRows = 1000
	// foldEvery is how many stored articles' terms wait in docfreq_log
	// before the committing process folds them into docfreq (fold), as
	// the SQLite store does: the log keeps commits free of shared rows,
	// the fold keeps DocFreqs' merge of the log short.
	foldEvery = 256
	// DefaultConnectTimeout bounds one connection attempt when the URL
	// sets no connect_timeout: a host that accepts nothing or answers
	// nothing fails the open instead of hanging.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultStatementTimeout is the server-side statement_timeout when
	// the URL sets none (statement_timeout=0 in the URL turns it off): a
	// statement stuck on a wedged server ends with an error. It is far
	// above every statement the store runs at a million articles (the
	// longest, an export's streaming read, is about a minute).
	DefaultStatementTimeout = 10 * time.Minute
)

// LeaseTimeout is how long after its owner's last heartbeat a frontier
// lease returns to the queue (a process killed without cleanup).
const LeaseTimeout = leaseTimeout

// Store is the PostgreSQL storage.Store. It is safe for concurrent use by
// goroutines and by processes.
type Store struct {
	pool      *pgxpool.Pool
	schema    string
	schemaKey int32 // hash of the schema name: second key of advisory locks
	owner     string
	opt       options
	rows      sqlcore.Rows // scans rows (PostgreSQL's types admit only what Commit writes)

	stopBeat context.CancelFunc
	beatDone chan struct{}

	mu      sync.Mutex
	locks   map[*heldLock]struct{} // held session locks, released by Close
	closed  bool
	beatErr error // last heartbeat failure, for Check
	foldErr error // last document-frequency fold failure, for Check
}

var _ storage.Store = (*Store)(nil)

// options are open-time settings; only tests change the timings
// (export_test.go).
type options struct {
	leaseTimeout    time.Duration
	heartbeatEvery  time.Duration
	migrateLockWait time.Duration
	readOnly        bool
}

// Option changes how Open opens a store.
type Option func(*options)

// ReadOnly opens an existing store for reading only (export, report,
// serve, explain, the evals' reads): nothing is created, migrated or
// written, not even the frontier owner row, and every transaction of the
// pool is read-only (default_transaction_read_only), so the server refuses
// a write. A schema without a store fails with an error wrapping
// storage.ErrNoStore, one written by a newer program with
// storage.ErrSchemaTooNew, an older one with an error saying to open it
// once with a writing command.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// Open connects to the PostgreSQL database at url (a postgres:// URL or a
// libpq key=value string; search_path=NAME selects the schema, which must
// exist), creates or migrates the schema and registers this Store as a
// frontier owner. It fails with an error wrapping storage.ErrSchemaTooNew
// when the schema was written by a newer program, and with one wrapping
// storage.ErrLocked when a migration is needed while crawls are running.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	o := options{leaseTimeout: leaseTimeout, heartbeatEvery: heartbeatEvery, migrateLockWait: migrateLockWait}
	for _, f := range opts {
		f(&o)
	}
	return open(ctx, url, o)
}

func open(ctx context.Context, url string, opt options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors can quote the URL, password included.
		return nil, fmt.Errorf("open postgres store: %w: cannot parse the connection url", storage.ErrInvalid)
	}
	cfg.MaxConns = max(cfg.MaxConns, minPoolConns)
	applyTimeouts(cfg)
	if opt.readOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store %s: %w", redact(cfg), err)
	}
	s := &Store{pool: pool, opt: opt, locks: map[*heldLock]struct{}{}}
	if err := s.init(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres store %s: %w", redact(cfg), err)
	}
	beatCtx, stop := context.WithCancel(context.Background())
	s.stopBeat, s.beatDone = stop, make(chan struct{})
	if opt.readOnly {
		close(s.beatDone) // no owner row to keep alive
		return s, nil
	}
	go s.heartbeat(beatCtx)
	return s, nil
}

// applyTimeouts sets the connect and statement timeouts a URL leaves out.
func applyTimeouts(cfg *pgxpool.Config) {
	if cfg.ConnConfig.ConnectTimeout <= 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(DefaultStatementTimeout.Milliseconds(), 10)
	}
}

// redact names the server and database of cfg without credentials.
func redact(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)
}

func (s *Store) init(ctx context.Context) error {
	var schema *string
	if err := s.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return err
	}
	if schema == nil {
		return fmt.Errorf("%w: the search_path names no existing schema", storage.ErrInvalid)
	}
	s.schema = *schema
	if err := s.pool.QueryRow(ctx, `SELECT hashtext($1)`, s.schema).Scan(&s.schemaKey); err != nil {
		return err
	}
	if s.opt.readOnly {
		return s.checkVersion(ctx)
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	host, _ := os.Hostname() // informative only
	var rnd [6]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
	s.owner = fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(rnd[:]))
	if _, err := s.pool.Exec(ctx, `INSERT INTO owners(id, host, pid) VALUES ($1, $2, $3)`,
		s.owner, host, os.Getpid()); err != nil {
		return fmt.Errorf("register frontier owner: %w", err)
	}
	return nil
}

// heartbeat refreshes the owner row until ctx ends. A missing row (another
// process found this one silent and removed it) is inserted again; the
// leases it lost stay with whoever popped them since.
func (s *Store) heartbeat(ctx context.Context) {
	defer close(s.beatDone)
	t := time.NewTicker(s.opt.heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := s.pool.Exec(ctx, `INSERT INTO owners(id, host, pid) VALUES ($1, '', 0)
			ON CONFLICT (id) DO UPDATE SET heartbeat_at = clock_timestamp()`, s.owner)
		s.mu.Lock()
		s.beatErr = err
		s.mu.Unlock()
	}
}

// Owner is this Store's frontier owner id (host/pid/random), which its
// leases carry.
func (s *Store) Owner() string { return s.owner }

// Close releases held crawl locks, returns this Store's leases to the queue,
// removes its owner row and closes the pool.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	locks := make([]*heldLock, 0, len(s.locks))
	for l := range s.locks {
		locks = append(locks, l)
	}
	s.mu.Unlock()
	var errs []error
	for _, l := range locks {
		errs = append(errs, l.release())
	}
	s.stopBeat()
	<-s.beatDone
	if s.opt.readOnly {
		s.pool.Close()
		return errors.Join(errs...)
	}
	ctx := context.Background()
	_, err := s.pool.Exec(ctx, `UPDATE frontier SET state = 'pending', owner = NULL, leased_at = NULL
		WHERE state = 'inflight' AND owner = $1`, s.owner)
	errs = append(errs, err)
	_, err = s.pool.Exec(ctx, `DELETE FROM owners WHERE id = $1`, s.owner)
	errs = append(errs, err)
	s.pool.Close()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close postgres store: %w", err)
	}
	return nil
}

// retryable reports transaction aborts that a retry can resolve.
func retryable(err error) bool {
	return isCode(err, codeDeadlock) || isCode(err, codeSerialization)
}

// writeTx runs fn in a READ COMMITTED transaction, retrying it (from the
// start) when PostgreSQL aborts it for a deadlock or serialization failure.
func (s *Store) writeTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for range maxTxAttempts {
		err = pgx.BeginFunc(ctx, s.pool, fn)
		if !retryable(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// checkText rejects strings PostgreSQL's text type cannot hold (NUL bytes,
// invalid UTF-8), so that such a commit fails with ErrInvalid before
// anything is written instead of with a server error halfway.
func checkText(c *storage.Commit) error {
	fields := []struct{ name, v string }{
		{"page url", c.Page.URL}, {"page site", c.Page.Site}, {"page err_kind", c.Page.ErrKind}, {"page error", c.Page.Err},
	}
	if a := c.Article; a != nil {
		fields = append(fields, []struct{ name, v string }{{"article site", a.Site}, {"title", a.Title}, {"text", a.Text},
			{"source", a.Source}, {"author", a.Author}, {"editor", a.Editor}, {"content hash", a.ContentHash}}...)
	}
	if d := c.Duplicate; d != nil {
		fields = append(fields, []struct{ name, v string }{{"duplicate site", d.Site}, {"dup_of url", d.DupOfURL}, {"reason", d.Reason},
			{"title", d.Title}, {"text", d.Text}, {"source", d.Source}, {"author", d.Author}}...)
	}
	for _, f := range fields {
		if !utf8.ValidString(f.v) || strings.IndexByte(f.v, 0) >= 0 {
			return fmt.Errorf("%w: %s of %s is not valid UTF-8 text without NUL bytes", storage.ErrInvalid, f.name, c.Page.URL)
		}
	}
	for _, t := range c.Terms {
		if !utf8.ValidString(t) || strings.IndexByte(t, 0) >= 0 {
			return fmt.Errorf("%w: a term of %s is not valid UTF-8 text without NUL bytes", storage.ErrInvalid, c.Page.URL)
		}
	}
	return nil
}

// BeginRun records a new run with status RunRunning.
func (s *Store) BeginRun(ctx context.Context, config string) (storage.Run, error) {
	r := storage.Run{StartedAt: time.Now().UTC(), Status: storage.RunRunning, Config: config}
	err := s.pool.QueryRow(ctx, `INSERT INTO runs(started_at, status, config, stats, owner) VALUES ($1, $2, $3, '{}', $4) RETURNING id`,
		sqlcore.NullTime(r.StartedAt), r.Status, r.Config, s.owner).Scan(&r.ID)
	if err != nil {
		return storage.Run{}, fmt.Errorf("begin run: %w", err)
	}
	return r, nil
}

// RunAlive reports whether run id was begun by a Store that is still open
// and beating, here or in another process: a crawl starting on a shared
// store closes only the running runs that are not alive (see
// internal/pipeline's CloseDeadRuns). ErrNotFound for an unknown run.
func (s *Store) RunAlive(ctx context.Context, id int64) (bool, error) {
	var alive bool
	err := s.pool.QueryRow(ctx, `SELECT r.owner IS NOT NULL AND `+liveOwner("r.owner", "$2")+`
		FROM runs r WHERE r.id = $1`, id, s.timeoutMicros()).Scan(&alive)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, fmt.Errorf("run %d: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return false, fmt.Errorf("run %d: %w", id, err)
	}
	return alive, nil
}

// FinishRun stores r's finish time, status and stats; ErrNotFound for an
// unknown run.
func (s *Store) FinishRun(ctx context.Context, r storage.Run) error {
	if err := storage.ValidTime("run finished_at", r.FinishedAt); err != nil {
		return err
	}
	stats, err := sqlcore.Stats(r.Stats)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE runs SET finished_at = $1, status = $2, stats = $3 WHERE id = $4`,
		sqlcore.NullTime(r.FinishedAt), r.Status, stats, r.ID)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("finish run %d: %w", r.ID, storage.ErrNotFound)
	}
	return nil
}

// Runs returns every run in id order.
func (s *Store) Runs(ctx context.Context) ([]storage.Run, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlcore.RunCols+` FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	out, err := s.rows.Runs(rows)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// Commit writes one page outcome in one transaction; see storage.Store.
func (s *Store) Commit(ctx context.Context, c *storage.Commit) error {
	if err := validCommit(c); err != nil {
		return err
	}
	var w written
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		replace, err := lockPage(ctx, tx, c.Page.URL)
		if err != nil {
			return err
		}
		w, err = writeOutcome(ctx, tx, c, replace)
		return err
	})
	if err != nil {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	s.committed(ctx, c, w)
	return nil
}

func validCommit(c *storage.Commit) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return checkText(c)
}

// written is what writeOutcome assigned: the article's id and cluster, the
// duplicate's dup_of URL, cluster and seq, the last cluster merge's seq
// and the docfreq_log row's seq (0 when not written).
type written struct {
	sqlcore.Assigned
	dupSeq, mergeSeq, logSeq int64
}

// writeOutcome writes c's page (replacing a non-final record of its URL
// when replace) and its article or duplicate, in one round trip (a batch)
// but for a duplicate's cluster merges; the URL lock is held.
func writeOutcome(ctx context.Context, tx pgx.Tx, c *storage.Commit, replace bool) (written, error) {
	var w written
	b := &pgx.Batch{}
	queuePage(b, &c.Page, replace)
	queueParts(b, c)
	switch {
	case c.Article != nil:
		a := c.Article
		queueArticle(b, c.Page.URL, a).QueryRow(func(r pgx.Row) error {
			err := r.Scan(&w.ArticleID, &w.ArticleCluster)
			if errors.Is(err, pgx.ErrNoRows) {
				return sqlcore.MissingPartialOf(a.PartialOf)
			}
			return err
		})
		if c.Raw != nil {
			if err := queueRaw(b, c.Page.URL, c.Raw); err != nil {
				return w, err
			}
		}
		b.Queue(`INSERT INTO docfreq_log(terms) VALUES ($1) RETURNING seq`, storage.DistinctTerms(c.Terms)).QueryRow(func(r pgx.Row) error {
			if err := r.Scan(&w.logSeq); err != nil {
				return fmt.Errorf("document frequencies: %w", err)
			}
			return nil
		})
	case c.Duplicate != nil:
		d := c.Duplicate
		queueDuplicate(b, c.Page.URL, d).QueryRow(func(r pgx.Row) error {
			err := r.Scan(&w.dupSeq, &w.DupOfURL, &w.DupCluster)
			if errors.Is(err, pgx.ErrNoRows) {
				return sqlcore.MissingDupOf(d.DupOf)
			}
			return err
		})
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return w, err
	}
	if c.Duplicate != nil && len(c.Duplicate.Merges) > 0 {
		var err error
		w.mergeSeq, err = mergeClusters(ctx, tx, w.DupCluster, sqlcore.Merges(c.Duplicate))
		return w, err
	}
	return w, nil
}

// committed fills in c's ids from w after its transaction committed, and
// folds the document-frequency log every foldEvery stored articles.
func (s *Store) committed(ctx context.Context, c *storage.Commit, w written) {
	if w.logSeq%foldEvery == 0 && w.logSeq > 0 {
		// The commit stands whatever happens here; a failed fold is
		// retried by the next one and reported by Check.
		err := s.fold(ctx)
		s.mu.Lock()
		s.foldErr = err
		s.mu.Unlock()
	}
	w.Fill(c)
}

// lockPage serialises every commit of url across processes (a
// transaction-scoped lock) and reads its record: ErrAlreadyDecided when it
// has a final outcome, replace when a non-final one is to be replaced
// (moving to the end of the commit order).
func lockPage(ctx context.Context, tx pgx.Tx, url string) (replace bool, err error) {
	// One round trip: the read runs once the lock is granted.
	b := &pgx.Batch{}
	b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockURL, url)
	var old string
	b.Queue(`SELECT outcome FROM pages WHERE url = $1`, url).QueryRow(func(r pgx.Row) error {
		if err := r.Scan(&old); !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return nil
	})
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return false, err
	}
	return sqlcore.Replace(old)
}

// queuePage queues the page outcome's record, after deleting the URL's
// earlier non-final record when replace.
func queuePage(b *pgx.Batch, p *storage.Page, replace bool) {
	if replace {
		b.Queue(`DELETE FROM pages WHERE url = $1`, p.URL)
	}
	b.Queue(`INSERT INTO pages(`+sqlcore.PageCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, sqlcore.PageArgs(p)...)
}

// queueParts queues the records of the later pages of a multi-page article
// (Commit.Parts) as pages of outcome part: each URL is locked like a
// committed page (in sorted order, so that two commits never wait on each
// other), an earlier non-final record is replaced, a final one kept.
func queueParts(b *pgx.Batch, c *storage.Commit) {
	parts := slices.Clone(c.Parts)
	slices.Sort(parts)
	for _, u := range parts {
		b.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockURL, u)
		b.Queue(`DELETE FROM pages WHERE url = $1 AND outcome NOT IN ('stored', 'duplicate', 'part')`, u)
		part := sqlcore.PartPage(c, u)
		b.Queue(`INSERT INTO pages(`+sqlcore.PageCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (url) DO NOTHING`, sqlcore.PageArgs(&part)...)
	}
}

// queueArticle queues the insert of a, which returns its id and cluster
// (its own id when a.Cluster is 0), and no row when a is a partial
// reprint (PartialOf) of an article that does not exist.
func queueArticle(b *pgx.Batch, url string, a *storage.Article) *pgx.QueuedQuery {
	return b.Queue(`INSERT INTO articles(`+sqlcore.ArticleCols+`)
		SELECT n, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $12::bigint = 0 THEN n ELSE $12 END, $13, $14, $15, $16,
		$17, $18, $19, $20, $21, $22, $23, $24
		FROM (SELECT nextval(pg_get_serial_sequence('articles', 'id')) AS n) AS next
		WHERE $19::bigint = 0 OR EXISTS (SELECT 1 FROM articles WHERE id = $19)
		RETURNING id, cluster`, sqlcore.ArticleArgs(url, a)...)
}

// queueDuplicate queues the insert of d, which returns its seq and its
// dup_of URL and cluster, filled in from the article when d leaves them
// empty, and no row when the article does not exist. FOR SHARE: a
// concurrent merge of the article's cluster commits wholly before the
// article is read or waits for this commit.
func queueDuplicate(b *pgx.Batch, url string, d *storage.Duplicate) *pgx.QueuedQuery {
	return b.Queue(`WITH a AS (SELECT url, cluster FROM articles WHERE id = $4 FOR SHARE)
		INSERT INTO duplicates(`+sqlcore.DuplicateCols+`)
		SELECT $1, $2, $3, $4, CASE WHEN $5::text = '' THEN a.url ELSE $5 END,
			CASE WHEN $6::bigint = 0 THEN a.cluster ELSE $6 END, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
			$19, $20, $21, $22, $23
		FROM a RETURNING seq, dup_of_url, cluster`, sqlcore.DuplicateArgs(url, d, d.DupOfURL, d.Cluster, d.Text)...)
}

// mergeClusters applies a duplicate's cluster merges (sqlcore.Merges, in
// their lock order) into cluster and logs them in cluster_merges; it
// returns the last merge's seq.
func mergeClusters(ctx context.Context, tx pgx.Tx, cluster int64, merges []int64) (int64, error) {
	for _, q := range []string{`UPDATE articles SET cluster = $1 WHERE cluster = ANY($2)`,
		`UPDATE duplicates SET cluster = $1 WHERE cluster = ANY($2)`} {
		if _, err := tx.Exec(ctx, q, cluster, merges); err != nil {
			return 0, fmt.Errorf("merge clusters %v into %d: %w", merges, cluster, err)
		}
	}
	var seq int64
	if err := tx.QueryRow(ctx, `WITH m AS (INSERT INTO cluster_merges(into_cluster, from_cluster)
		SELECT $1, unnest($2::bigint[]) RETURNING seq) SELECT coalesce(max(seq), 0) FROM m`, cluster, merges).Scan(&seq); err != nil {
		return 0, fmt.Errorf("merge clusters %v into %d: %w", merges, cluster, err)
	}
	return seq, nil
}

// fold moves docfreq_log into docfreq and the docs counter in one
// transaction, so that readers see the log either before or after it. At
// most one process folds at a time; another one's fold is skipped (the
// next foldEvery-th commit folds what is left). The upserts go in byte
// order of the terms.
func (s *Store) fold(ctx context.Context) error {
	return s.writeTx(ctx, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, $2)`, lockFold, s.schemaKey).Scan(&mine); err != nil || !mine {
			return err
		}
		_, err := tx.Exec(ctx, `WITH moved AS (DELETE FROM docfreq_log RETURNING terms),
			docs AS (UPDATE counters SET value = value + (SELECT count(*) FROM moved) WHERE key = 'docs')
			INSERT INTO docfreq(term, df)
			SELECT t, count(*) FROM moved, unnest(moved.terms) AS t GROUP BY t ORDER BY t COLLATE "C"
			ON CONFLICT (term) DO UPDATE SET df = docfreq.df + excluded.df`)
		return err
	})
}

// Decided reports the final outcome of a URL.
func (s *Store) Decided(ctx context.Context, u string) (storage.Outcome, bool, error) {
	var o string
	err := s.pool.QueryRow(ctx, `SELECT outcome FROM pages WHERE url = $1`, u).Scan(&o)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", false, fmt.Errorf("decided %s: %w", u, err)
	}
	out, ok := sqlcore.Decided(o)
	return out, ok, nil
}

// DocFreqs streams every term with its document frequency in byte order,
// and returns the number of stored articles, both from one snapshot.
func (s *Store) DocFreqs(ctx context.Context, fn func(term string, df int) error) (int, error) {
	var docs int
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT value + (SELECT count(*) FROM docfreq_log) FROM counters WHERE key = 'docs'`).Scan(&docs); err != nil {
			return fmt.Errorf("docs counter: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT term, sum(df)::bigint FROM (
				SELECT term, df FROM docfreq
				UNION ALL
				SELECT t COLLATE "C", 1 FROM docfreq_log, unnest(terms) AS t
			) AS x GROUP BY term ORDER BY term`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var term string
			var df int
			if err := rows.Scan(&term, &df); err != nil {
				return err
			}
			if err := fn(term, df); err != nil {
				return callbackError{err}
			}
		}
		return rows.Err()
	})
	if err != nil {
		var cb callbackError
		if errors.As(err, &cb) {
			return 0, cb.err
		}
		return 0, fmt.Errorf("document frequencies: %w", err)
	}
	return docs, nil
}

// callbackError carries a callback's error through a transaction unchanged.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }
func (e callbackError) Unwrap() error { return e.err }
