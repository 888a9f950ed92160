package config

import "time"

// Fleet settings: several crawl processes sharing one postgres:// store
// (and its Redis, when set).
const (
	// DefaultLeaseTimeout is how long a process may stay silent (no
	// heartbeat) before the URLs it leased are taken over by the others.
	DefaultLeaseTimeout = 30 * time.Second
	// MinLeaseTimeout bounds lease_timeout from below: heartbeats run every
	// sixth of it, and a shorter timeout would take the leases of a live
	// process stalled by a garbage collection or a busy server.
	MinLeaseTimeout = time.Second
	// DefaultOutageLimit is how long a crawl waits for PostgreSQL or Redis
	// to answer again before it stops with its URLs left for the next run.
	DefaultOutageLimit = 60 * time.Second
)

// Fleet tunes the crawls of a shared store.
type Fleet struct {
	// LeaseTimeout: a process whose heartbeat is this old is dead; its
	// leased URLs go back to the queue for the processes still running.
	LeaseTimeout Duration `yaml:"lease_timeout"`
	// OutageLimit: how long the store or Redis may be unreachable before
	// the crawl gives up (the crawl pauses meanwhile).
	OutageLimit Duration `yaml:"outage_limit"`
}

// DefaultFleet is the fleet section's defaults.
func DefaultFleet() Fleet {
	return Fleet{LeaseTimeout: Duration(DefaultLeaseTimeout), OutageLimit: Duration(DefaultOutageLimit)}
}

// validateFleet checks the fleet section.
func (c *Config) validateFleet(add addFunc) {
	if c.Fleet.LeaseTimeout < Duration(MinLeaseTimeout) {
		add("fleet.lease_timeout", "must be >= %s, got %s", MinLeaseTimeout, c.Fleet.LeaseTimeout.D())
	}
	if c.Fleet.OutageLimit < 0 {
		add("fleet.outage_limit", "must be >= 0 (0: stop at the first failure), got %s", c.Fleet.OutageLimit.D())
	}
}
