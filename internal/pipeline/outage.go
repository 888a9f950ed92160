package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// ErrOutage marks a crawl stopped because PostgreSQL or Redis stayed
// unreachable for longer than fleet.outage_limit. The run is interrupted,
// not failed: its URLs stay in the frontier for the next run.
var ErrOutage = errors.New("server unreachable for longer than fleet.outage_limit")

// Retry pacing while a server is unreachable.
const (
	outageRetryFirst = 100 * time.Millisecond
	outageRetryMax   = 2 * time.Second
)

// outageGuard rides out a PostgreSQL or Redis outage: a call that fails
// because its server cannot be reached (unavailable) is retried until it
// succeeds or the outage has lasted limit, measured from the first
// failure of any call since the last success. The crawl pauses meanwhile
// (every call to the server waits); the first failure and the recovery
// are logged.
type outageGuard struct {
	limit time.Duration
	log   *slog.Logger

	mu    sync.Mutex
	since time.Time // first failure of the current outage; zero: none
	cause string    // what failed first, for the recovery line
}

func newOutageGuard(limit time.Duration, log *slog.Logger) *outageGuard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &outageGuard{limit: limit, log: log}
}

// do runs fn until it returns nil or an error other than unavailable, or
// the outage has lasted the limit (then its error wraps ErrOutage), or ctx
// ends.
func (g *outageGuard) do(ctx context.Context, what string, fn func() error) error {
	wait := outageRetryFirst
	for {
		err := fn()
		if err == nil || !unavailable(err) || ctx.Err() != nil {
			if err == nil {
				g.recovered()
			}
			return err
		}
		lasted := g.failed(what, err)
		if lasted > g.limit {
			return fmt.Errorf("%s: %w (%s, unreachable for %s): %w", what, ErrOutage, g.limit, lasted.Round(time.Second), err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, outageRetryMax)
	}
}

// failed records a failure and returns how long the outage has lasted.
func (g *outageGuard) failed(what string, err error) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if g.since.IsZero() {
		g.since, g.cause = now, what
		g.log.Warn("server unreachable: crawl paused", "call", what, "err", err, "outage_limit", g.limit)
	}
	return now.Sub(g.since)
}

func (g *outageGuard) recovered() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.since.IsZero() {
		return
	}
	g.log.Info("server reachable again: crawl resumed", "call", g.cause, "paused", time.Since(g.since).Round(time.Millisecond))
	g.since, g.cause = time.Time{}, ""
}

// unavailable reports whether err means the server could not be reached
// or dropped the connection (refused, reset, closed, shut down, starting
// up, still loading its data), as opposed to an answer (a constraint, a
// bad statement) that retrying would repeat.
func unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception; 57P01-57P03: the server is
		// shutting down, crashed or is starting up.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connErr *pgconn.ConnectError
	var netErr *net.OpError
	var redisErr redis.Error
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr), pgconn.SafeToRetry(err):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, redis.ErrPoolTimeout):
		return true
	case errors.As(err, &redisErr):
		msg := redisErr.Error()
		return strings.HasPrefix(msg, "LOADING") || strings.HasPrefix(msg, "MASTERDOWN") || strings.HasPrefix(msg, "TRYAGAIN")
	}
	return false
}
