package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/metrics"
	"github.com/newsdedup/newscrawl/storage"
)

// discoveryFrom is where a run's stored articles begin in the store's
// change feed (ok false: the store has none).
func discoveryFrom(ctx context.Context, store storage.Store) (from storage.Cursor, ok bool, err error) {
	feed, ok := store.(changeFeed)
	if !ok {
		return storage.Cursor{}, false, nil
	}
	from, err = feed.Head(ctx)
	if err != nil {
		return storage.Cursor{}, false, fmt.Errorf("discovery delay: %w", err)
	}
	return from, true, nil
}

// addDiscovery fills in each site's discovery delay: for every article
// run runID stored (read back from the change feed after from; other
// processes' commits are left out) with a published time, the time from
// publication to its fetch. m, when set, observes each delay.
func addDiscovery(ctx context.Context, store storage.Store, from storage.Cursor, runID int64, sum *crawler.Summary, m *metrics.Metrics) error {
	feed, ok := store.(changeFeed)
	if !ok {
		return nil
	}
	delays := map[string][]time.Duration{}
	_, err := feed.Changes(ctx, from, func(c storage.Change) error {
		a := c.Article
		if a == nil || a.RunID != runID || a.PublishedAt.IsZero() || a.FetchedAt.IsZero() {
			return nil
		}
		d := max(a.FetchedAt.Sub(a.PublishedAt), 0)
		delays[a.Site] = append(delays[a.Site], d)
		if m != nil {
			m.ObserveDiscovery(a.Site, d)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("discovery delay: %w", err)
	}
	for i := range sum.Sites {
		sum.Sites[i].Discovery = crawler.Delays(delays[sum.Sites[i].Name])
	}
	return nil
}
