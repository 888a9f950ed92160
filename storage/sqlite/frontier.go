package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

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
	var got []storage.FrontierItem
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
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
		got, err = sqlcore.Leased(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pop: %w", err)
	}
	return got, nil
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
