package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// pacePollMax bounds one sleep of Wait, so that a Hold placed meanwhile by
// another process is seen without waiting out a long delay first.
const pacePollMax = time.Second

// paceRetry is the wait before claiming again when another process's
// claim raced this one and its next start could not be read.
const paceRetry = time.Millisecond

// claimHost claims host for a request starting now when its next start has
// come (wait 0; the next start is then now + delay), and otherwise returns
// how long to wait; one statement on the server's clock (clock_timestamp),
// the row lock of ON CONFLICT DO UPDATE serialising the claims of every
// process, as redisfrontier's pace script does in Redis.
func (s *Store) claimHost(ctx context.Context, host string, delay time.Duration) (time.Duration, error) {
	if delay < 0 {
		return 0, fmt.Errorf("pace %s: %w: negative delay %v", host, storage.ErrInvalid, delay)
	}
	var claimed bool
	var now, next int64
	err := s.pool.QueryRow(ctx, `WITH c AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS t),
		ins AS (INSERT INTO host_pace AS h(host, next_start) SELECT $1, c.t + $2 FROM c
			ON CONFLICT (host) DO UPDATE SET next_start = EXCLUDED.next_start
			WHERE h.next_start <= EXCLUDED.next_start - $2
			RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM ins), (SELECT t FROM c),
			COALESCE((SELECT next_start FROM host_pace WHERE host = $1), 0)`, host, delay.Microseconds()).Scan(&claimed, &now, &next)
	if err != nil {
		return 0, fmt.Errorf("pace %s: %w", host, err)
	}
	switch {
	case claimed:
		return 0, nil
	case next <= now:
		// Another process claimed the host after this statement's
		// snapshot was taken: its next start is not visible here.
		return paceRetry, nil
	}
	return time.Duration(next-now) * time.Microsecond, nil
}

// Wait blocks until a request to host may start and claims that start
// (crawler.Pacer): request starts to one host are at least delay apart
// across every process of the store, on the server's clock; the claim is
// made when the request is about to start, never booked ahead. It is the
// fleet's politeness when the crawls share no Redis.
func (s *Store) Wait(ctx context.Context, host string, delay time.Duration) error {
	for {
		wait, err := s.claimHost(ctx, host, delay)
		if err != nil {
			return err
		}
		if wait == 0 {
			return ctx.Err()
		}
		t := time.NewTimer(min(wait, pacePollMax))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// Hold moves host's next start to at least d from now, for every process
// (a Retry-After, a Crawl-delay learned from robots.txt).
func (s *Store) Hold(ctx context.Context, host string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO host_pace AS h(host, next_start)
		VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint + $2)
		ON CONFLICT (host) DO UPDATE SET next_start = greatest(h.next_start, EXCLUDED.next_start)`, host, d.Microseconds())
	if err != nil {
		return fmt.Errorf("hold %s: %w", host, err)
	}
	return nil
}
