package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage/postgres"
)

// TestClaimSurfaceAcrossStores: processes sharing one schema (here three
// stores, each with its own connection pool) claim the same due surfaces
// at the same instant; each surface is won by exactly one claim per
// round, and none while it is held.
func TestClaimSurfaceAcrossStores(t *testing.T) {
	u, _ := freshSchema(t)
	stores := []*postgres.Store{openStore(t, u), openStore(t, u), openStore(t, u)}
	ctx := context.Background()
	base := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	const surfaces, claimersPerStore = 5, 4
	for round := range 3 {
		now := base.Add(time.Duration(round) * time.Hour)
		wins := make([]atomic.Int32, surfaces)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for _, s := range stores {
			for range claimersPerStore {
				for k := range surfaces {
					wg.Go(func() {
						<-start
						ok, err := s.ClaimSurface(ctx, fmt.Sprintf("page GET http://fleet/%d", k), now, 30*time.Minute)
						if err != nil {
							t.Error(err)
						}
						if ok {
							wins[k].Add(1)
						}
					})
				}
			}
		}
		close(start)
		wg.Wait()
		for k := range wins {
			if n := wins[k].Load(); n != 1 {
				t.Errorf("round %d, surface %d: %d claims won, want 1", round, k, n)
			}
		}
		// Held for 30 minutes: nobody wins it 10 minutes later.
		for _, s := range stores {
			if ok, err := s.ClaimSurface(ctx, "page GET http://fleet/0", now.Add(10*time.Minute), time.Hour); err != nil || ok {
				t.Fatalf("round %d: claim of a held surface = %v, %v", round, ok, err)
			}
		}
	}
}
