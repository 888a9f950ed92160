package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// liveOwner is the condition "owner id $1-like column o names a Store whose
// heartbeat is recent"; the lease timeout is bound in microseconds to $T.
const liveOwnerCond = `EXISTS (SELECT 1 FROM owners o WHERE o.id = %s
	AND o.heartbeat_at > clock_timestamp() - %s * interval '1 microsecond')`

func liveOwner(col, timeoutParam string) string {
	return fmt.Sprintf(liveOwnerCond, col, timeoutParam)
}

func (s *Store) timeoutMicros() int64 { return s.opt.leaseTimeout.Microseconds() }

// Push queues the items that are neither queued nor decided nor fetched
// since the fleet's run began (fleetStartNanos), in one statement, and
// returns how many it added; a pending item pushed again at
// a smaller depth takes that depth. Pushes are serialised across
// processes (a transaction-scoped advisory lock): two pushes inserting the
// same URLs in different orders would otherwise deadlock on the url index.
func (s *Store) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	for _, it := range items {
		if it.URL == "" {
			return 0, fmt.Errorf("push: %w: frontier item with empty url", storage.ErrInvalid)
		}
		for _, v := range []string{it.URL, it.Site, it.Referer} {
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
				return 0, fmt.Errorf("push: %w: frontier item %q is not valid UTF-8 text without NUL bytes", storage.ErrInvalid, it.URL)
			}
		}
	}
	if len(items) == 0 {
		return 0, nil
	}
	urls := make([]string, len(items))
	sites := make([]string, len(items))
	depths := make([]int32, len(items))
	refs := make([]string, len(items))
	for i, it := range items {
		if it.Depth < 0 || it.Depth > math.MaxInt32 {
			return 0, fmt.Errorf("push: %w: frontier item %s has depth %d", storage.ErrInvalid, it.URL, it.Depth)
		}
		urls[i], sites[i], depths[i], refs[i] = it.URL, it.Site, int32(it.Depth), it.Referer
	}
	var added int64
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockPush, s.schemaKey); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO frontier(url, site, depth, referer, state)
			SELECT u, s, d, r, 'pending'
			FROM unnest($1::text[], $2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS x(u, s, d, r, i)
			WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.url = x.u
				AND (p.outcome IN ('stored', 'duplicate', 'part')
					OR (p.outcome = 'error' AND p.permanent AND (p.retry_at IS NULL OR p.retry_at > $5))
					OR p.fetched_at >= (`+fleetStartNanos("$6")+`)))
			ORDER BY i
			ON CONFLICT (url) DO NOTHING`, urls, sites, depths, refs, time.Now().UnixNano(), s.timeoutMicros())
		if err != nil {
			return err
		}
		added = tag.RowsAffected()
		// A shorter path to a pending URL lowers its depth: several
		// processes do not pop in breadth-first order, and a URL first
		// queued through a long path would otherwise lose its links to
		// max_depth.
		_, err = tx.Exec(ctx, `UPDATE frontier f SET depth = x.d, referer = x.r
			FROM (SELECT DISTINCT ON (u) u, d, r FROM unnest($1::text[], $2::int[], $3::text[]) AS y(u, d, r)
				ORDER BY u, d) AS x
			WHERE f.url = x.u AND f.state = 'pending' AND f.depth > x.d`, urls, depths, refs)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("push: %w", err)
	}
	return int(added), nil
}

// Pop leases up to n pending items of site (all sites when empty), oldest
// first, to this Store's owner. Leases of owners silent for the lease
// timeout are returned to the queue first, so a dead process's URLs are
// popped again in their original order. Rows being leased by another
// process are skipped (FOR UPDATE SKIP LOCKED), never handed out twice.
func (s *Store) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	if n <= 0 {
		return nil, nil
	}
	var got []storage.FrontierItem
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE frontier SET state = 'pending', owner = NULL, leased_at = NULL
			WHERE seq IN (SELECT seq FROM frontier f WHERE f.state = 'inflight' AND f.owner <> $1
				AND NOT `+liveOwner("f.owner", "$2")+` FOR UPDATE SKIP LOCKED)`, s.owner, s.timeoutMicros()); err != nil {
			return fmt.Errorf("return expired leases: %w", err)
		}
		filter, args := "", []any{s.owner, n}
		if site != "" {
			filter, args = "AND site = $3", append(args, site)
		}
		rows, err := tx.Query(ctx, `UPDATE frontier SET state = 'inflight', owner = $1, leased_at = clock_timestamp()
			WHERE seq IN (SELECT seq FROM frontier WHERE state = 'pending' `+filter+`
				ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
			RETURNING `+sqlcore.LeaseCols, args...)
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
	if _, err := s.pool.Exec(ctx, `DELETE FROM frontier WHERE url = $1`, u); err != nil {
		return fmt.Errorf("done %s: %w", u, err)
	}
	return nil
}

// Requeue makes pending again every item leased by this Store or by an
// owner silent for the lease timeout, and forgets such owners. Leases of
// other live processes are left alone: in a shared store, run start
// (crash recovery) must not take work from crawls that are running.
func (s *Store) Requeue(ctx context.Context) (int, error) {
	var n int64
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE frontier f SET state = 'pending', owner = NULL, leased_at = NULL
			WHERE f.state = 'inflight' AND (f.owner = $1 OR NOT `+liveOwner("f.owner", "$2")+`)`, s.owner, s.timeoutMicros())
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM owners WHERE id <> $1
			AND heartbeat_at <= clock_timestamp() - $2 * interval '1 microsecond'`, s.owner, s.timeoutMicros())
		return err
	})
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
		err = s.pool.QueryRow(ctx, `SELECT count(*) FROM frontier`).Scan(&n)
	} else {
		err = s.pool.QueryRow(ctx, `SELECT count(*) FROM frontier WHERE site = $1`, site).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("pending: %w", err)
	}
	return n, nil
}

// Reset forgets the frontier items that are no other live process's work:
// items leased by this Store or by silent owners, and pending items when no
// other live owner exists. A crawl that finishes while another still runs
// leaves that crawl's queue alone.
func (s *Store) Reset(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM frontier f
		WHERE (f.state = 'inflight' AND (f.owner = $1 OR NOT `+liveOwner("f.owner", "$2")+`))
		   OR (f.state = 'pending' AND NOT EXISTS (SELECT 1 FROM owners o WHERE o.id <> $1
				AND o.heartbeat_at > clock_timestamp() - $2 * interval '1 microsecond'))`, s.owner, s.timeoutMicros())
	if err != nil {
		return fmt.Errorf("reset frontier: %w", err)
	}
	return nil
}

// heldLock is one held session advisory lock (the shared crawl lock or the
// decision lock): a pool connection kept out of the pool until release.
// The server drops the lock when the session ends, so a killed process
// never leaves it behind.
type heldLock struct {
	s      *Store
	conn   *pgxpool.Conn
	unlock string // the unlock call, with parameters $1, $2 (class, schema key)
	class  int
	name   string
	once   sync.Once
	err    error
}

func (l *heldLock) release() error {
	l.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var ok bool
		err := l.conn.QueryRow(ctx, l.unlock, l.class, l.s.schemaKey).Scan(&ok)
		if err == nil && !ok {
			err = fmt.Errorf("the session did not hold it")
		}
		if err != nil {
			// Do not hand a session that may still hold the lock back
			// to the pool: closing it ends the session and the lock.
			_ = l.conn.Conn().Close(ctx)
			l.err = fmt.Errorf("unlock %s of %s: %w", l.name, l.s.schema, err)
		}
		l.conn.Release()
		l.s.mu.Lock()
		delete(l.s.locks, l)
		l.s.mu.Unlock()
	})
	return l.err
}

// hold registers a lock taken on conn so that Close releases it, and
// returns its release function.
func (s *Store) hold(conn *pgxpool.Conn, class int, unlock, name string) (func() error, error) {
	l := &heldLock{s: s, conn: conn, unlock: unlock, class: class, name: name}
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.locks[l] = struct{}{}
	}
	s.mu.Unlock()
	if closed {
		_ = l.release()
		return nil, fmt.Errorf("%s of %s: store is closed", name, s.schema)
	}
	return l.release, nil
}

// Lock takes the crawl lock in shared mode: any number of crawls hold it at
// once (this store is written by several processes), so it never reports
// ErrLocked because of another crawl. Its exclusive holder is a schema
// migration: while one runs, Lock(wait=false) returns ErrLocked and
// Lock(wait=true) polls every lockPoll until it ends or ctx does. The
// returned release is idempotent; Close releases locks still held.
func (s *Store) Lock(ctx context.Context, wait bool) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", s.schema, err)
	}
	for {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock_shared($1, $2)`, lockCrawl, s.schemaKey).Scan(&ok); err != nil {
			conn.Release()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("lock %s: %w", s.schema, err)
		}
		if ok {
			break
		}
		if !wait {
			conn.Release()
			return nil, fmt.Errorf("lock %s: a schema migration holds it: %w", s.schema, storage.ErrLocked)
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			conn.Release()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return s.hold(conn, lockCrawl, `SELECT pg_advisory_unlock_shared($1, $2)`, "crawl lock")
}
