package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// TestRacingNearDuplicates races a story and its reprint through two
// deciders (two stores, two engines: two processes) on one PostgreSQL
// schema, round after round. Each decider decides optimistically, and both
// wait for each other after deciding and before committing, so that both
// verdicts are "new" every round: only the re-check under the decision
// lock (CommitDecision's tail, dedup.Engine.Stale) turns the later commit
// into a duplicate. Every round must end as one stored article and one
// duplicate; without the re-check every round ends as two stored.
func TestRacingNearDuplicates(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	var stories []fixture.Story // full stories (a one-line brief and its reprint are not near-duplicates)
	for _, st := range fixture.Stories() {
		if len(st.Paragraphs) >= 3 {
			stories = append(stories, st)
		}
	}
	const rounds = 12
	for r := range rounds {
		st := stories[r%len(stories)]
		text := strings.Join(st.Paragraphs, "\n")
		arts := []*extract.Article{
			{Title: st.Title, Text: text},
			{Title: st.Title, Text: text + "\n（责任编辑：王明）"}, // a reprint
		}
		t.Run(fmt.Sprintf("round_%02d_%s", r, st.ID), func(t *testing.T) {
			db := pgSchema(t)
			var both sync.WaitGroup // both deciders have decided
			both.Add(2)
			procs := make([]*Processor, 2)
			for i := range procs {
				procs[i] = sharedProcessor(t, &cfg, seg, db)
				procs[i].shared.decided = func() { both.Done(); both.Wait() }
			}
			outs := make([]storage.Outcome, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, p := range procs {
				// Alternate which decider gets which copy.
				art := arts[(i+r)%2]
				page := storage.Page{URL: fmt.Sprintf("http://race/%d/%d", r, i), Site: "s", RunID: 1, Status: 200, FetchedAt: time.Now()}
				wg.Go(func() {
					outs[i], errs[i] = p.decideAndCommit(ctx, page, art, p.engine.Fingerprint(art.Title, art.Text), nil)
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(outs)
			if want := []storage.Outcome{storage.OutcomeDuplicate, storage.OutcomeStored}; !slices.Equal(outs, want) {
				t.Fatalf("outcomes %v, want one stored and one duplicate", outs)
			}
			var stored, dups int
			if err := procs[0].store.Pages(ctx, func(p storage.Page) error {
				stored += btoi(p.Outcome == storage.OutcomeStored)
				dups += btoi(p.Outcome == storage.OutcomeDuplicate)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if stored != 1 || dups != 1 {
				t.Fatalf("store holds %d stored, %d duplicates; want 1, 1", stored, dups)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sharedProcessor is a crawl's article stage on the PostgreSQL store db as
// one process has it: its own store (pool), engine and shared decisions.
func sharedProcessor(t *testing.T, cfg *config.Config, seg dedup.Segmenter, db string) *Processor {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	eng, _, shared, err := newEngineShared(ctx, func() (*dedup.Engine, IndexLoad, error) {
		return NewEngine(ctx, cfg, seg, store, EngineConfig{Now: time.Now()})
	}, store)
	if err != nil {
		t.Fatal(err)
	}
	if shared == nil {
		t.Fatal("no shared decisions on a PostgreSQL store")
	}
	p, err := NewProcessor(cfg, store, eng, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p.shared = shared
	return p
}
