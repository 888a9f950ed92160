package redisfrontier

import (
	"context"
	"time"
)

// OpenWith opens a frontier with test timings.
func OpenWith(ctx context.Context, url, namespace string, pages Pages, lease, beat time.Duration) (*Frontier, error) {
	return open(ctx, url, namespace, pages, options{leaseTimeout: lease, heartbeatEvery: beat})
}

// Kill stops f's heartbeat and connection without returning its leases or
// removing its owner key, as a kill -9 of its process would.
func Kill(f *Frontier) {
	f.closeMu.Lock()
	defer f.closeMu.Unlock()
	f.closed = true
	f.stopBeat()
	<-f.beatDone
	f.rdb.Close()
}

// Claim exposes the pacer's claim: how long to wait before the host may be
// claimed (0: claimed now, for delay).
func Claim(ctx context.Context, f *Frontier, host string, delay time.Duration) (time.Duration, error) {
	w, _, err := f.claim(ctx, host, delay)
	return w, err
}

// ClaimAt is Claim, also returning the server's time of the call in
// microseconds.
func ClaimAt(ctx context.Context, f *Frontier, host string, delay time.Duration) (time.Duration, int64, error) {
	return f.claim(ctx, host, delay)
}

// WaitAt is Wait, returning the server's time of the claim in microseconds.
func WaitAt(ctx context.Context, f *Frontier, host string, delay time.Duration) (int64, error) {
	return f.waitAt(ctx, host, delay)
}

// OpenWithWakeHook opens a frontier whose Wait calls afterWake when it
// wakes, before it checks whether it is late.
func OpenWithWakeHook(ctx context.Context, url, namespace string, pages Pages, afterWake func()) (*Frontier, error) {
	return open(ctx, url, namespace, pages, options{leaseTimeout: leaseTimeout, heartbeatEvery: heartbeatEvery, afterWake: afterWake})
}
