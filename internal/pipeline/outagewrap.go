package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/storage"
)

// guardedStore is the crawler's view of a shared store through an
// outageGuard: every call the crawler makes waits out an outage of the
// store (or of the Redis frontier behind it) up to the guard's limit.
type guardedStore struct {
	storage.Store
	g *outageGuard
}

var (
	_ crawler.Store         = guardedStore{}
	_ crawler.FleetFrontier = guardedStore{}
	_ crawler.SurfaceStore  = guardedStore{}
)

// guard1 runs fn through g and returns its value.
func guard1[T any](ctx context.Context, g *outageGuard, what string, fn func() (T, error)) (T, error) {
	var v T
	err := g.do(ctx, what, func() error {
		var err error
		v, err = fn()
		return err
	})
	return v, err
}

func (s guardedStore) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	return guard1(ctx, s.g, "push", func() (int, error) { return s.Store.Push(ctx, items) })
}

func (s guardedStore) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	return guard1(ctx, s.g, "pop", func() ([]storage.FrontierItem, error) { return s.Store.Pop(ctx, site, n) })
}

func (s guardedStore) Done(ctx context.Context, url string) error {
	return s.g.do(ctx, "done", func() error { return s.Store.Done(ctx, url) })
}

func (s guardedStore) Requeue(ctx context.Context) (int, error) {
	return guard1(ctx, s.g, "requeue", func() (int, error) { return s.Store.Requeue(ctx) })
}

func (s guardedStore) Pending(ctx context.Context, site string) (int, error) {
	return guard1(ctx, s.g, "pending", func() (int, error) { return s.Store.Pending(ctx, site) })
}

func (s guardedStore) Reset(ctx context.Context) error {
	return s.g.do(ctx, "reset", func() error { return s.Store.Reset(ctx) })
}

// FleetPending is the wrapped store's, when it has one (0 otherwise: the
// frontier is this process's alone).
func (s guardedStore) FleetPending(ctx context.Context, site string) (int, error) {
	ff, ok := s.Store.(crawler.FleetFrontier)
	if !ok {
		return 0, nil
	}
	return guard1(ctx, s.g, "fleet pending", func() (int, error) { return ff.FleetPending(ctx, site) })
}

// Commit retries a commit cut by an outage; one that was written before
// the connection dropped reports storage.ErrAlreadyDecided on the retry,
// which the crawler takes as decided.
func (s guardedStore) Commit(ctx context.Context, c *storage.Commit) error {
	return s.g.do(ctx, "commit", func() error { return s.Store.Commit(ctx, c) })
}

func (s guardedStore) Decided(ctx context.Context, url string) (storage.Outcome, bool, error) {
	var o storage.Outcome
	var ok bool
	err := s.g.do(ctx, "decided", func() error {
		var err error
		o, ok, err = s.Store.Decided(ctx, url)
		return err
	})
	return o, ok, err
}

func (s guardedStore) PageOf(ctx context.Context, url string) (storage.Page, error) {
	return guard1(ctx, s.g, "page", func() (storage.Page, error) { return s.Store.PageOf(ctx, url) })
}

func (s guardedStore) Surface(ctx context.Context, key string) (storage.SurfaceState, error) {
	return guard1(ctx, s.g, "surface", func() (storage.SurfaceState, error) { return s.Store.Surface(ctx, key) })
}

func (s guardedStore) ClaimSurface(ctx context.Context, key string, now time.Time, hold time.Duration) (bool, error) {
	return guard1(ctx, s.g, "claim surface", func() (bool, error) { return s.Store.ClaimSurface(ctx, key, now, hold) })
}

func (s guardedStore) SaveSurface(ctx context.Context, st storage.SurfaceState) error {
	return s.g.do(ctx, "save surface", func() error { return s.Store.SaveSurface(ctx, st) })
}

// guardedPacer is the fleet's host pacer (Redis's, or the PostgreSQL
// store's) through an outageGuard.
type guardedPacer struct {
	p crawler.Pacer
	g *outageGuard
}

func (s guardedPacer) Wait(ctx context.Context, host string, delay time.Duration) error {
	return s.g.do(ctx, "shared pacer", func() error { return s.p.Wait(ctx, host, delay) })
}

func (s guardedPacer) Hold(ctx context.Context, host string, d time.Duration) error {
	return s.g.do(ctx, "shared pacer", func() error { return s.p.Hold(ctx, host, d) })
}

// guardedShared is the Redis pacer and robots.txt share through an
// outageGuard.
type guardedShared struct {
	guardedPacer
	r crawler.RobotsShare
}

// fetchError marks an error of Once's fetch (the robots.txt request to the
// site), which the guard must not take for an outage of Redis.
type fetchError struct{ err error }

func (e fetchError) Error() string { return e.err.Error() }

// Once retries Redis's failures only: an error of fetch (the site's
// answer, not Redis's) is returned as it came.
func (s guardedShared) Once(ctx context.Context, key string, fetch func(context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	b, err := guard1(ctx, s.g, "shared robots.txt", func() ([]byte, error) {
		return s.r.Once(ctx, key, func(ctx context.Context) ([]byte, time.Duration, error) {
			b, ttl, err := fetch(ctx)
			if err != nil {
				return nil, 0, fetchError{err} // no Unwrap: never taken for an outage
			}
			return b, ttl, nil
		})
	})
	if fe, ok := errors.AsType[fetchError](err); ok {
		return nil, fe.err
	}
	return b, err
}

// guardedProcessor runs the article stage through an outageGuard: a
// decision or commit cut by an outage of the store is made again once it
// is back (a commit that was written reports the URL decided).
type guardedProcessor struct {
	p crawler.Processor
	g *outageGuard
}

func (p guardedProcessor) ProcessArticle(ctx context.Context, r *crawler.Response) (storage.Outcome, error) {
	return guard1(ctx, p.g, "article", func() (storage.Outcome, error) { return p.p.ProcessArticle(ctx, r) })
}

// outageError is err with the outage named for the summary: how long the
// crawl waited and what it leaves.
func outageError(err error, left int) error {
	return fmt.Errorf("%w; the run is interrupted with %d URLs left in the frontier for the next run", err, left)
}
