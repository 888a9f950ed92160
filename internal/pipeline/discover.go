package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// DiscoverResult is what Discover found, and whether a store told new
// URLs from decided ones.
type DiscoverResult struct {
	Sites []crawler.SiteSources
	Store string // the store read ("" when there was none: every URL counts as new)
}

// Discover fetches the list surfaces of the selected sites once
// (crawler.Discover). The store of cfg.Storage is opened read-only when it
// exists, to tell new URLs from decided ones; without one every URL counts
// as new. With redis: and a postgres:// store, hosts are paced and
// robots.txt answers shared with the running crawls.
func Discover(ctx context.Context, cfg *config.Config, sites []string, log *slog.Logger) (DiscoverResult, error) {
	var res DiscoverResult
	var store storage.Store
	s, err := OpenExisting(ctx, cfg.Storage)
	switch {
	case errors.Is(err, storage.ErrNoStore):
		store = memory.New()
	case err != nil:
		return res, fmt.Errorf("open %s: %w", StoreName(cfg.Storage), err)
	default:
		store, res.Store = s, StoreName(cfg.Storage)
	}
	defer store.Close()
	opts := crawler.Options{Sites: sites, Logger: log}
	if cfg.Redis != "" && res.Store != "" {
		shared, err := openRedis(ctx, cfg.Redis, cfg.Storage, store)
		if err != nil {
			return res, err
		}
		defer shared.Close()
		opts.Pacer, opts.Robots = shared, shared
	}
	res.Sites, err = crawler.Discover(ctx, cfg, store, opts)
	return res, err
}
