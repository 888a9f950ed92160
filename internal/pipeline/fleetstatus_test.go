package pipeline

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// TestFleetOf: the latest fleet run is the latest run and the runs that
// overlap it in time, directly or through one another.
func TestFleetOf(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 1, 1, 0, m, 0, 0, time.UTC) }
	run := func(id int64, from, to int) storage.Run {
		r := storage.Run{ID: id, StartedAt: at(from)}
		if to >= 0 {
			r.FinishedAt = at(to)
		}
		return r
	}
	now := at(100)
	for _, tc := range []struct {
		name string
		runs []storage.Run
		want []int64
	}{
		{"none", nil, nil},
		{"one", []storage.Run{run(1, 0, 5)}, []int64{1}},
		{"three at once after an old run", []storage.Run{run(1, 0, 5), run(2, 10, 20), run(3, 10, 22), run(4, 11, 21)}, []int64{2, 3, 4}},
		{"a chain of overlaps", []storage.Run{run(1, 0, 10), run(2, 8, 30), run(3, 25, 40)}, []int64{1, 2, 3}},
		{"a dead run lasts until now", []storage.Run{run(1, 0, -1), run(2, 50, 60)}, []int64{1, 2}},
		{"the latest alone", []storage.Run{run(1, 0, 10), run(2, 20, 30)}, []int64{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int64
			for _, r := range fleetOf(tc.runs, now) {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("fleet runs %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFleetStatus: after three crawls at once, Fleet names their three
// runs, counts what they recorded from the store, and the finished runs'
// summaries add up to it; nothing is left in the frontier.
func TestFleetStatus(t *testing.T) {
	cfg, _ := countedFixture(t, pgSchema(t))
	fleetCrawl(t, cfg, 3)
	st, err := Fleet(context.Background(), cfg.Storage, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Runs) != 3 || st.Running != 0 {
		t.Fatalf("%d runs (%d running), want 3 finished", len(st.Runs), st.Running)
	}
	c := corpusOf(t, cfg.Storage)
	if st.Pages.Stored != c.Kept || st.Pages.Duplicates != c.Dropped {
		t.Errorf("pages recorded: %d stored, %d duplicates; the store exports %d and %d", st.Pages.Stored, st.Pages.Duplicates, c.Kept, c.Dropped)
	}
	if st.Summaries.Stored != st.Pages.Stored || st.Summaries.Duplicates != st.Pages.Duplicates {
		t.Errorf("summaries %+v, store %+v", st.Summaries, st.Pages)
	}
	if st.Left != 0 {
		t.Errorf("%d URLs left", st.Left)
	}
}
