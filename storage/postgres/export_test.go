package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
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

// StatementTimeout reads the statement_timeout of one of the store's
// connections as the server reports it.
func (s *Store) StatementTimeout(ctx context.Context) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&v)
	return v, err
}

// ParseConfig parses url as Open does, timeouts applied.
func ParseConfig(url string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	applyTimeouts(cfg)
	return cfg, nil
}
