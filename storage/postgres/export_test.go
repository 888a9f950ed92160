package postgres

import (
	"context"
	"time"
)

// OpenWith opens a store with test timings: leases of owners silent for
// lease are pending again, the heartbeat runs every beat, and a migration
// waits migrateWait for running crawls.
func OpenWith(ctx context.Context, url string, lease, beat, migrateWait time.Duration) (*Store, error) {
	return open(ctx, url, options{leaseTimeout: lease, heartbeatEvery: beat, migrateLockWait: migrateWait})
}

// Migrations exposes the schema migrations, so that a test can build a
// schema of an older version.
var Migrations = migrations
