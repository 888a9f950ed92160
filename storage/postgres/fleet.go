package postgres

import (
	"context"
	"fmt"
	"time"
)

// minHeartbeat bounds the heartbeat interval WithLeaseTimeout derives.
const minHeartbeat = 100 * time.Millisecond

// WithLeaseTimeout sets how long an owner may stay silent before its
// leases are taken back (default LeaseTimeout); the heartbeat runs every
// sixth of it, as with the default.
func WithLeaseTimeout(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			return
		}
		o.leaseTimeout = d
		o.heartbeatEvery = max(d/(leaseTimeout/heartbeatEvery), minHeartbeat)
	}
}

// FleetPending counts the items of site (all sites when empty) that are
// still to be done by someone other than this Store: pending, or leased
// by another owner, live or not yet found dead. A crawl whose own work is
// done waits while it is above zero: a live owner may push more links, a
// dead owner's leases come back to the queue at a Pop after the lease
// timeout.
func (s *Store) FleetPending(ctx context.Context, site string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM frontier
		WHERE ($1 = '' OR site = $1) AND (state = 'pending' OR owner IS DISTINCT FROM $2)`, site, s.owner).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("fleet pending: %w", err)
	}
	return n, nil
}

// fleetStartNanos is the SQL of the start of the fleet's run, in Unix
// nanoseconds: the earliest start of the live owners (timeout bound to
// timeoutParam), NULL when none is live. A page fetched since then was
// fetched by this run of the fleet (a process that starts while others
// run joins their run), so Push does not queue it again: every URL is
// fetched once per run fleet-wide, whichever process found its link.
func fleetStartNanos(timeoutParam string) string {
	return `SELECT (extract(epoch FROM min(o.started_at)) * 1000000000)::bigint FROM owners o
		WHERE o.heartbeat_at > clock_timestamp() - ` + timeoutParam + ` * interval '1 microsecond'`
}
