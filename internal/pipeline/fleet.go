package pipeline

import (
	"context"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// openCrawlStore opens the store of a crawl as OpenStore does, with the
// fleet's lease timeout (fleet.lease_timeout) for a shared store.
func openCrawlStore(ctx context.Context, cfg *config.Config) (storage.Store, error) {
	if !IsPostgres(cfg.Storage) {
		return OpenStore(ctx, cfg.Storage)
	}
	if err := CheckStoreName(cfg.Storage); err != nil {
		return nil, err
	}
	return postgres.Open(ctx, cfg.Storage, postgres.WithLeaseTimeout(cfg.Fleet.LeaseTimeout.D()))
}
