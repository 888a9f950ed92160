package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
)

// redisIndexPrefix is the key prefix of the shared index of the corpus db.
func redisIndexPrefix(db string) string { return RedisNamespace(db) + "index:" }

// openRedisIndex opens a client for the shared index at redisURL (the
// caller closes it).
func openRedisIndex(ctx context.Context, redisURL string) (*redis.Client, error) {
	opt, err := redisfrontier.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	rdb := redis.NewClient(opt)
	octx, cancel := context.WithTimeout(ctx, redisfrontier.OpenTimeout)
	defer cancel()
	if err := redisfrontier.OpenError(ctx, rdb.Ping(octx).Err()); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("redis: %w", err)
	}
	return rdb, nil
}

// newRedisEngine builds a crawl's engine over the index shared in Redis.
// Nothing is loaded into the process. Under the decision lock, the index
// is brought up to the store's head: the first crawl of a corpus loads the
// store's articles and duplicates once (dedup.window applies), later
// starts index what was committed since the store cursor kept in Redis
// (Add ignores ids already indexed: this repairs an Add that failed after
// its commit), and the cursor moves to the head. Decisions then follow
// the shared protocol (sharedDecisions.decide): the feed since the cursor
// is replayed into the index before each decision and the tail under the
// decision lock, since a process adds its verdict to Redis only after its
// commit; an entry already in Redis is not added again.
func newRedisEngine(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, pg sharedStore, rdb *redis.Client, now time.Time) (*dedup.Engine, int, *sharedDecisions, error) {
	d := cfg.Dedup
	d.Index = DefaultIndex // the options of its local equivalent
	opts, err := EngineOptions(d)
	if err != nil {
		return nil, 0, nil, err
	}
	prefix := redisIndexPrefix(cfg.Storage)
	if opts.NewIndex, err = newIndexFunc(RedisIndex, &sharedIndex{ctx: ctx, rdb: rdb, prefix: prefix}); err != nil {
		return nil, 0, nil, err
	}
	eng, err := dedup.New(seg, opts)
	if err != nil {
		return nil, 0, nil, err
	}
	release, err := pg.LockDecisions(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	defer release()
	var since time.Time
	if w := cfg.Dedup.Window.D(); w > 0 {
		since = now.Add(-w)
	}
	head, err := catchUpRedis(ctx, eng, pg, rdb, prefix+"cursor", since)
	if err != nil {
		return nil, 0, nil, err
	}
	if eng.Options().Research.NeedsDocFreqs() {
		df := map[string]int{}
		docs, err := pg.DocFreqs(ctx, func(term string, n int) error { df[term] = n; return nil })
		if err != nil {
			return nil, 0, nil, fmt.Errorf("load document frequencies: %w", err)
		}
		eng.SetDocFreqs(docs, df)
	}
	// The count read when the index was opened, plus this process's own
	// catch-up (Len): what the start-up line reports.
	return eng, eng.Len(), &sharedDecisions{store: pg, cursor: head}, nil
}

// catchUpRedis brings the shared index to the store's head (see
// newRedisEngine); the caller holds the decision lock.
func catchUpRedis(ctx context.Context, eng *dedup.Engine, pg sharedStore, rdb *redis.Client, key string, since time.Time) (storage.Cursor, error) {
	s, err := rdb.Get(ctx, key).Result()
	switch {
	case errors.Is(err, redis.Nil):
		if _, err := rebuild(ctx, eng, pg, since); err != nil {
			return storage.Cursor{}, err
		}
	case err != nil:
		return storage.Cursor{}, fmt.Errorf("dedup index in redis: %w", err)
	default:
		cur, err := parseCursor(s)
		if err != nil {
			return storage.Cursor{}, fmt.Errorf("dedup index in redis: store cursor %q: %w", s, err)
		}
		if head, err := pg.Head(ctx); err != nil {
			return storage.Cursor{}, err
		} else if cur.Article > head.Article || cur.Duplicate > head.Duplicate || cur.Merge > head.Merge {
			return storage.Cursor{}, fmt.Errorf("dedup index in redis: its store cursor %q is past the store's head %q: the index is of another corpus (delete the keys %s*)",
				s, formatCursor(head), strings.TrimSuffix(key, "cursor"))
		}
		if _, err := pg.Changes(ctx, cur, func(c storage.Change) error {
			_, _, err := applyChange(ctx, eng, c)
			return err
		}); err != nil {
			return storage.Cursor{}, fmt.Errorf("dedup index in redis: catch up with the store: %w", err)
		}
	}
	head, err := pg.Head(ctx)
	if err != nil {
		return storage.Cursor{}, err
	}
	if err := rdb.Set(ctx, key, formatCursor(head), 0).Err(); err != nil {
		return storage.Cursor{}, fmt.Errorf("dedup index in redis: %w", err)
	}
	return head, nil
}

func formatCursor(c storage.Cursor) string {
	return fmt.Sprintf("%d %d %d", c.Article, c.Duplicate, c.Merge)
}

func parseCursor(s string) (storage.Cursor, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return storage.Cursor{}, errors.New("want three numbers")
	}
	var v [3]int64
	for i := range f {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return storage.Cursor{}, fmt.Errorf("field %d: %q", i+1, f[i])
		}
		v[i] = n
	}
	return storage.Cursor{Article: v[0], Duplicate: v[1], Merge: v[2]}, nil
}
