package crawler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Clock is the crawler's source of time for politeness delays and retry
// backoff. Tests inject a fake clock; network timeouts always use real time.
type Clock interface {
	Now() time.Time
	// Sleep waits for d (returning at once when d <= 0) or until ctx ends.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pacer spaces request starts per host. Each call to wait reserves the next
// start time of the host (at least delay after the previous reservation),
// so the spacing holds whatever the number of concurrent workers. When a
// request's response has come, the run holds the host for delay again (as
// colly's LimitRule sleeps after a response): the host then sees requests
// at least delay apart however late a request left after its claim (a new
// connection, a descheduled process).
type pacer struct {
	clock Clock
	mu    sync.Mutex
	next  map[string]time.Time // earliest start of the next request, by host[:port]
}

func newPacer(c Clock) *pacer { return &pacer{clock: c, next: make(map[string]time.Time)} }

// wait blocks until a request to host may start and reserves that start.
func (p *pacer) wait(ctx context.Context, host string, delay time.Duration) error {
	t, now := p.reserve(host, delay)
	return p.clock.Sleep(ctx, t.Sub(now))
}

// reserve returns the start time reserved for the next request to host
// (never before now) and the current time.
func (p *pacer) reserve(host string, delay time.Duration) (start, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now = p.clock.Now()
	start = p.next[host]
	if start.Before(now) {
		start = now
	}
	p.next[host] = start.Add(delay)
	return start, now
}

// holdUntil delays every later request to host until t (Retry-After, or the
// Crawl-delay learned from robots.txt after its own request).
func (p *pacer) holdUntil(host string, t time.Time) {
	p.mu.Lock()
	if p.next[host].Before(t) {
		p.next[host] = t
	}
	p.mu.Unlock()
}

// Retry backoff.
const (
	// maxBackoff caps the exponential backoff between attempts.
	maxBackoff = 30 * time.Second
	// maxRetryAfter caps how long a Retry-After is honoured; a server asking
	// for more is given up on for this run and the failure recorded.
	maxRetryAfter = 60 * time.Second
)

// backoff returns the wait before retry number attempt (0-based):
// base·2^attempt with "equal jitter" (half fixed, half random), capped.
func backoff(base time.Duration, attempt int) time.Duration {
	d := base << min(attempt, 20)
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	half := d / 2
	return half + rand.N(half+1)
}

// Pacer spaces request starts to a host across every process that shares
// it (global politeness): Wait blocks until a request to host may start
// and reserves that start, at least delay after the previous reservation
// of any process; Hold makes every later request to host wait at least d
// from now (Retry-After, a Crawl-delay learned from robots.txt).
// storage/redisfrontier.Frontier is one, on the Redis server's clock.
type Pacer interface {
	Wait(ctx context.Context, host string, delay time.Duration) error
	Hold(ctx context.Context, host string, d time.Duration) error
}

// hostPacer is what a run needs of a pacer: the in-process pacer, or a
// shared Pacer through sharedPacer.
type hostPacer interface {
	wait(ctx context.Context, host string, delay time.Duration) error
	holdUntil(host string, t time.Time)
}

// sharedPacer adapts a Pacer to a run. A failure of the shared pacer (its
// server unreachable) stops the run with that error: crawling on without
// it would break the politeness other processes count on.
type sharedPacer struct {
	p     Pacer
	clock Clock
	fail  func(error)
}

func (s sharedPacer) wait(ctx context.Context, host string, delay time.Duration) error {
	err := s.p.Wait(ctx, host, delay)
	if err != nil && ctx.Err() == nil {
		s.fail(fmt.Errorf("shared pacer: %w", err))
	}
	return err
}

func (s sharedPacer) holdUntil(host string, t time.Time) {
	if err := s.p.Hold(context.Background(), host, t.Sub(s.clock.Now())); err != nil {
		s.fail(fmt.Errorf("shared pacer: %w", err))
	}
}
