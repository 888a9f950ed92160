// Package sqlite is the embedded storage.Store: one SQLite file in WAL mode
// through the pure-Go modernc.org/sqlite driver (no cgo). It owns the
// schema knowledge: the migrations (SchemaVersion) and Audit, the
// independent check of a store file that the crash evaluation runs.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	msqlite "modernc.org/sqlite" // registers the pure-Go "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

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
	rows  sqlcore.Rows // scans rows, duplicates' texts decompressed

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
	s := &Store{path: abs, db: db, rows: sqlcore.Rows{Damaged: ErrDamaged, DupText: func(dst *string) any { return textDest{dst} }}}
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
