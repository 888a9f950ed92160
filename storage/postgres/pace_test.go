package postgres_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage/postgres"
)

// TestWaitFleetPoliteness: three stores (three processes) pacing one host
// through PostgreSQL get their claims at least the delay apart, measured
// when Wait returns; a Hold by one moves every store's next start; a new
// host is claimed at once.
func TestWaitFleetPoliteness(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	stores := []*postgres.Store{openStore(t, u), openStore(t, u), openStore(t, u)}
	const delay, per = 50 * time.Millisecond, 8
	var mu sync.Mutex
	var starts []time.Time
	var wg sync.WaitGroup
	for _, s := range stores {
		wg.Go(func() {
			for range per {
				if err := s.Wait(ctx, "news.example:80", delay); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				starts = append(starts, time.Now())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	span, want := starts[len(starts)-1].Sub(starts[0]), time.Duration(len(starts)-1)*delay
	if span < want-20*time.Millisecond {
		t.Errorf("%d claims within %v, want >= %v (%d delays)", len(starts), span, want, len(starts)-1)
	}
	t0 := time.Now()
	if err := stores[0].Wait(ctx, "other.example", time.Second); err != nil || time.Since(t0) > 500*time.Millisecond {
		t.Errorf("first claim of a new host took %v (%v)", time.Since(t0), err)
	}
	if err := stores[1].Hold(ctx, "held.example", 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if err := stores[2].Wait(ctx, "held.example", 0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t1); d < 350*time.Millisecond {
		t.Errorf("Wait on a host held for 400ms returned after %v", d)
	}
}
