package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
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

// guardFleet puts the crawler's calls to a shared store (and to Redis)
// behind one outageGuard of fleet.outage_limit: an outage pauses the crawl
// instead of ending it. Without Redis, hosts are paced through the store
// (postgres.Store.Wait), so that politeness holds for the whole fleet.
// Other stores are returned as they are.
func guardFleet(cfg *config.Config, store storage.Store, proc crawler.Processor, copts *crawler.Options, log *slog.Logger) (storage.Store, crawler.Processor) {
	if !IsPostgres(cfg.Storage) {
		return store, proc
	}
	g := newOutageGuard(cfg.Fleet.OutageLimit.D(), log)
	switch p := copts.Pacer.(type) {
	case *redisfrontier.Frontier:
		gs := guardedShared{guardedPacer: guardedPacer{p: p, g: g}, r: p}
		copts.Pacer, copts.Robots = gs, gs
	case nil:
		// Without Redis the store paces hosts for the whole fleet.
		if pp, ok := store.(crawler.Pacer); ok {
			copts.Pacer = guardedPacer{p: pp, g: g}
		}
	}
	return guardedStore{Store: store, g: g}, guardedProcessor{p: proc, g: g}
}

// outageLeftTimeout bounds the count of the URLs left after an outage
// ended the crawl (the server may still be down).
const outageLeftTimeout = 5 * time.Second

// outageEnd, for a crawl ended by an outage (ErrOutage), counts the URLs
// left when the frontier answers, and says so in the error.
func outageEnd(ctx context.Context, store storage.Store, sum *crawler.Summary, runErr error) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), outageLeftTimeout)
	defer cancel()
	left, err := store.Pending(cctx, "")
	if err != nil {
		return fmt.Errorf("%w; the run is interrupted, its URLs left in the frontier for the next run", runErr)
	}
	sum.FrontierLeft = left
	return outageError(runErr, left)
}

// quietRedis stops go-redis's own log lines (one per failed dial of each
// pooled connection, on stderr, many a second while Redis is down): the
// crawl's outage guard logs an outage once, when it starts and ends.
func quietRedis() { redis.SetLogger(discardRedisLog{}) }

type discardRedisLog struct{}

func (discardRedisLog) Printf(context.Context, string, ...any) {}
