package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
)

// RedisNamespace is the key prefix in Redis of the corpus a postgres://
// URL names: a hash of its server, database and search_path, so that the
// crawls of one corpus share one frontier (whatever credentials each uses)
// and several corpora can share one Redis server.
func RedisNamespace(db string) string {
	u, err := url.Parse(db)
	if err != nil {
		return ""
	}
	h := sha256.Sum256([]byte(u.Host + u.Path + "?search_path=" + u.Query().Get("search_path")))
	return "newscrawl:" + hex.EncodeToString(h[:8]) + ":"
}

// openRedis opens the Redis frontier of the store db names at redisURL.
// Redis is shared by the crawls of one PostgreSQL store; a SQLite store
// (one crawl at a time, its frontier in its file) is refused.
func openRedis(ctx context.Context, redisURL, db string, store storage.Store, opts ...redisfrontier.Option) (*redisfrontier.Frontier, error) {
	if !IsPostgres(db) {
		return nil, fmt.Errorf("redis: %w: Redis is shared by the crawls of one postgres:// store, and the store is the SQLite file %s", storage.ErrInvalid, db)
	}
	quietRedis()
	f, err := redisfrontier.Open(ctx, redisURL, RedisNamespace(db), store, opts...)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	return f, nil
}

// redisStore is a store whose frontier is in Redis: pages, articles,
// verdicts and runs stay in the store.
type redisStore struct {
	storage.Store
	f *redisfrontier.Frontier
}

func (s redisStore) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	return s.f.Push(ctx, items)
}

func (s redisStore) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	return s.f.Pop(ctx, site, n)
}

func (s redisStore) Done(ctx context.Context, url string) error { return s.f.Done(ctx, url) }

func (s redisStore) Requeue(ctx context.Context) (int, error) { return s.f.Requeue(ctx) }

func (s redisStore) Pending(ctx context.Context, site string) (int, error) {
	return s.f.Pending(ctx, site)
}

func (s redisStore) Reset(ctx context.Context) error { return s.f.Reset(ctx) }

// FleetPending is the Redis frontier's (crawler.FleetFrontier).
func (s redisStore) FleetPending(ctx context.Context, site string) (int, error) {
	return s.f.FleetPending(ctx, site)
}
