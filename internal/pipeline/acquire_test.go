package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestAcquire: pages share an extraction budget of extractPages pages of
// fetch.max_body; a page waits while the budget is taken, small pages do
// not wait for each other, and a page larger than the budget takes all of
// it instead of waiting forever.
func TestAcquire(t *testing.T) {
	cfg := config.Default()
	cfg.Fetch.MaxBody = 1000
	p, err := NewProcessor(&cfg, memory.New(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.workSize != extractPages*1000 {
		t.Fatalf("budget %d bytes, want %d", p.workSize, extractPages*1000)
	}
	for _, tc := range []struct {
		name   string
		held   []int // pages being extracted
		page   int
		blocks bool
	}{
		{"first page", nil, 1000, false},
		{"budget full of max-size pages", []int{1000, 1000}, 1000, true},
		{"room left", []int{1000}, 1000, false},
		{"small pages", []int{10, 10, 10, 10}, 10, false},
		{"page larger than the budget, budget free", nil, 5000, false},
		{"page larger than the budget, budget in use", []int{1}, 5000, true},
		{"empty page", []int{1000, 1000}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var releases []func()
			for _, n := range tc.held {
				r, err := p.acquire(context.Background(), n)
				if err != nil {
					t.Fatal(err)
				}
				releases = append(releases, r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			r, err := p.acquire(ctx, tc.page)
			if blocked := err != nil; blocked != tc.blocks {
				t.Errorf("blocked %v (%v), want %v", blocked, err, tc.blocks)
			}
			if r != nil {
				r()
				r() // a second call must not release twice
			}
			for _, r := range releases {
				r()
			}
			// The whole budget is free again.
			if r, err := p.acquire(context.Background(), int(p.workSize)); err != nil {
				t.Fatal(err)
			} else {
				r()
			}
		})
	}
}
