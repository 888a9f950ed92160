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
