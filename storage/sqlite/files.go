package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDamaged: the store file is corrupt (it fails SQLite's structural
// check, SQLite reports SQLITE_CORRUPT or SQLITE_NOTADB, or a record holds
// what this program never writes). Nothing should be read from it as if it
// were whole: restore a backup or start a new store.
var ErrDamaged = errors.New("store file is damaged")

// Option changes how Open opens a store.
type Option func(*options)

// ReadOnly opens an existing store for reading only (SQLite mode=ro):
// nothing is created, switched to WAL, migrated or written, so a store on a
// file or file system the process cannot write can still be exported. When
// the directory is not writable either, SQLite cannot create the -shm file
// that WAL readers share; if no -wal file exists (the database file then
// holds every commit) the store is read with immutable=1, without locks,
// and Close returns an error if the file changed meanwhile.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// checkRegular refuses a store path that exists and is not a regular
// file: a directory failed deep inside SQLite ("disk I/O error"), and a
// device such as /dev/null was opened as an empty database while SQLite
// created its journal beside it (/dev/null-journal).
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil // a missing file is created; other errors are SQLite's to report
	}
	kind := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeDevice != 0:
		kind = "a device"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%s is %s, not a store file", path, kind)
}

// checkNotPlanted refuses to open a store through a symlink planted where
// the program would create a file: the database path may be a symlink only
// to an existing SQLite file (a store moved to another disk), never a
// dangling one (SQLite would create its file at the target) or one to
// another kind of file (an empty file would be written as a database), and
// SQLite's side files (-wal, -shm, -journal), which it creates next to the
// database and writes headers into, must not be symlinks at all.
func checkNotPlanted(path string) error {
	if err := checkRegular(path); err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%s is a symlink to a missing or unreadable file, not a store: %w", path, err)
		}
		head := make([]byte, len(sqliteHeader))
		_, rerr := io.ReadFull(f, head)
		f.Close()
		if rerr != nil || !bytes.Equal(head, sqliteHeader) {
			return fmt.Errorf("%s is a symlink to a file that is not an SQLite store; refusing to write through it", path)
		}
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		if fi, err := os.Lstat(path + side); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink; SQLite would write through it: remove it", path+side)
		}
	}
	return nil
}

// openLockFile opens (creating it) the lock file without following a
// symlink (O_NOFOLLOW: a planted symlink fails with ELOOP instead of having
// its target truncated) and refuses anything but a regular file with one
// link (a planted FIFO or device, a hard link to another file).
func openLockFile(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symlink; refusing to follow it (remove it)", name)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || (ok && st.Nlink != 1) {
		f.Close()
		return nil, fmt.Errorf("%s is not a plain lock file (%v, %d links); refusing to use it (remove it)", name, fi.Mode().Type(), linkCount(st))
	}
	return f, nil
}

func linkCount(st *syscall.Stat_t) uint64 {
	if st == nil {
		return 0
	}
	return uint64(st.Nlink)
}

// isCorrupt reports whether err is SQLite's SQLITE_CORRUPT or SQLITE_NOTADB.
func isCorrupt(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// damaged wraps err with ErrDamaged when SQLite reports corruption.
func damaged(err error) error {
	if err != nil && isCorrupt(err) && !errors.Is(err, ErrDamaged) {
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return err
}

// QuickCheck runs SQLite's PRAGMA quick_check: every page of every table and
// index is read and its structure checked (O(N), without integrity_check's
// comparison of each index with its table, which costs about twice as much:
// see BenchmarkStoreCheck). Commands run it before they read or write a
// store; Check is the full audit. A damaged file gives an error wrapping
// ErrDamaged that lists the first problems.
func (s *Store) QuickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(10)`)
	if err != nil {
		return fmt.Errorf("quick check %s: %w", s.path, damaged(err))
	}
	defer rows.Close()
	var bad []string
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			return fmt.Errorf("quick check %s: %w", s.path, damaged(err))
		}
		if msg != "ok" {
			bad = append(bad, msg)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("quick check %s: %w", s.path, damaged(err))
	}
	if len(bad) > 0 {
		return fmt.Errorf("quick check %s: %w: %s", s.path, ErrDamaged, strings.Join(bad, "; "))
	}
	return nil
}

// needsImmutable reports whether a read-only open failed only because
// SQLite could not create the -shm file of a WAL store (a directory the
// process cannot write) and no -wal file holds transactions that are not in
// the database file yet.
func needsImmutable(err error, path string) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
	default:
		return false
	}
	_, werr := os.Lstat(path + "-wal")
	return errors.Is(werr, os.ErrNotExist)
}

// checkUnchanged reports an error when a store read as immutable changed
// (or a -wal file appeared) while it was open: what was read may mix two
// states of the file.
func (s *Store) checkUnchanged() error {
	now, err := os.Stat(s.path)
	_, werr := os.Lstat(s.path + "-wal")
	if err != nil || now.Size() != s.immutable.Size() || !now.ModTime().Equal(s.immutable.ModTime()) || werr == nil {
		return fmt.Errorf("%s changed while it was read without locks (its directory is not writable, so SQLite could not coordinate with the writer): read it again", s.path)
	}
	return nil
}

// metaQuickCheckAt is the meta key holding the time (Unix nanoseconds) of
// the last QuickCheck that found the file sound and was recorded.
const metaQuickCheckAt = "quick_check_at"

// LastQuickCheck returns when the last recorded QuickCheck found the store
// sound (RecordQuickCheck), or the zero time when none was recorded.
func (s *Store) LastQuickCheck(ctx context.Context) (time.Time, error) {
	var ns int64
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaQuickCheckAt).Scan(&ns)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("last quick check of %s: %w", s.path, damaged(err))
	}
	return time.Unix(0, ns).UTC(), nil
}

// RecordQuickCheck records t as the time of the last QuickCheck that found
// the store sound.
func (s *Store) RecordQuickCheck(ctx context.Context, t time.Time) error {
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, metaQuickCheckAt, t.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("record quick check of %s: %w", s.path, err)
	}
	return nil
}

// smallTables are the tables a crawl writes first (its run, the document
// counter), checked by QuickCheckSmall.
var smallTables = []string{"runs", "meta"}

// QuickCheckSmall runs PRAGMA quick_check on the small tables only (runs,
// meta: the schema and the pages a run writes first), a cost that does not
// grow with the corpus. Damage elsewhere is found by the next QuickCheck,
// or by SQLite when it reads a damaged page (ErrDamaged).
func (s *Store) QuickCheckSmall(ctx context.Context) error {
	var bad []string
	for _, table := range smallTables {
		// quick_check(TABLE) checks one table and its indexes.
		rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(`+table+`)`)
		if err != nil {
			return fmt.Errorf("quick check of %s in %s: %w", table, s.path, damaged(err))
		}
		for rows.Next() {
			var msg string
			if err := rows.Scan(&msg); err != nil {
				rows.Close()
				return fmt.Errorf("quick check of %s in %s: %w", table, s.path, damaged(err))
			}
			if msg != "ok" {
				bad = append(bad, msg)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("quick check of %s in %s: %w", table, s.path, damaged(err))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("quick check %s: %w: %s", s.path, ErrDamaged, strings.Join(bad, "; "))
	}
	return nil
}
