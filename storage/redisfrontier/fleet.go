package redisfrontier

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// minHeartbeat bounds the heartbeat interval WithLeaseTimeout derives.
const minHeartbeat = 100 * time.Millisecond

// Option changes how Open opens a frontier.
type Option func(*options)

// WithLeaseTimeout sets how long an owner may stay silent before its
// leases are taken back (default LeaseTimeout); the owner key is
// refreshed every sixth of it, as with the default.
func WithLeaseTimeout(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			return
		}
		o.leaseTimeout = d
		o.heartbeatEvery = max(d/(leaseTimeout/heartbeatEvery), minHeartbeat)
	}
}

// fleetPendingScript: ARGV = ns, site (” for all), owner. Items pending,
// plus items leased by an owner other than ARGV[3].
var fleetPendingScript = redis.NewScript(common + `
local site, me = ARGV[2], ARGV[3]
if site == '' then
	local n = redis.call('HLEN', k('items'))
	local leases = redis.call('HGETALL', k('leases'))
	for i = 2, #leases, 2 do
		if leases[i] == me then n = n - 1 end
	end
	return n
end
local n = redis.call('ZCARD', k('pending:') .. site)
for _, url in ipairs(redis.call('SMEMBERS', k('inflight:') .. site)) do
	if redis.call('HGET', k('leases'), url) ~= me then n = n + 1 end
end
return n
`)

// FleetPending counts the items of site (all sites when empty) still to be
// done by someone other than this Frontier: pending, or leased by another
// owner, live or not yet found dead (its leases return at a Pop once its
// owner key has expired).
func (f *Frontier) FleetPending(ctx context.Context, site string) (int, error) {
	n, err := fleetPendingScript.Run(ctx, f.rdb, nil, f.ns, site, f.owner).Int()
	if err != nil {
		return 0, fmt.Errorf("fleet pending: %w", err)
	}
	return n, nil
}

// minStartMicros is the smallest owner key value read as a start time
// (2001-09-09): owner keys written by an older version hold 1.
const minStartMicros = 1_000_000_000_000_000

// register reads the server's clock as this owner's start and writes the
// owner key (beat).
func (f *Frontier) register(ctx context.Context) error {
	now, err := f.rdb.Time(ctx).Result()
	if err != nil {
		return err
	}
	f.started = now.UnixMicro()
	return f.beat(ctx)
}

// fleetStartScript: ARGV = ns, minimum start. The earliest start of the
// live owners (their owner keys' values), 0 when none is known.
var fleetStartScript = redis.NewScript(common + `
local least = 0
for _, owner in ipairs(redis.call('SMEMBERS', k('owners'))) do
	local v = tonumber(redis.call('GET', k('owner:') .. owner) or '')
	if v and v >= tonumber(ARGV[2]) and (least == 0 or v < least) then least = v end
end
return least
`)

// fleetStart is the start of the fleet's run in microseconds: the earliest
// start of the live owners (a process that starts while others run joins
// their run). A page fetched since then was fetched by this run of the
// fleet, so Push does not queue it again: every URL is fetched once per
// run fleet-wide, whichever process found its link.
func (f *Frontier) fleetStart(ctx context.Context) (int64, error) {
	n, err := fleetStartScript.Run(ctx, f.rdb, nil, f.ns, minStartMicros).Int64()
	if err != nil {
		return 0, fmt.Errorf("fleet start: %w", err)
	}
	return n, nil
}
