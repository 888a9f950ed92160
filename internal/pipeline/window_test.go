package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestIndexSnapshotWindow: with dedup.window set, the index snapshot is
// used (not rebuilt every run) and decides every page like the index
// rebuilt from the store's entries within the window: its entries that
// left the window since it was written are skipped, and a new base
// (compaction) drops them.
func TestIndexSnapshotWindow(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Storage = filepath.Join(t.TempDir(), "news.db")
	cfg.Dedup.Window = config.Duration(30 * 24 * time.Hour)
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	partA, partB, queries := snapCorpus()
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	at := func(days int) func() time.Time {
		return func() time.Time { return t0.Add(time.Duration(days) * 24 * time.Hour) }
	}
	st, err := Import(ctx, &cfg, "a", seqOf(partA), ImportOptions{Segmenter: seg, Now: at(0)})
	if err != nil || st.Saved.Bytes == 0 || st.Saved.Delta {
		t.Fatalf("first import: %v, saved %+v; want a base snapshot", err, st.Saved)
	}
	st, err = Import(ctx, &cfg, "b", seqOf(partB), ImportOptions{Segmenter: seg, Now: at(20)})
	if err != nil || st.Index.Rebuilt || !st.Saved.Delta || st.Duplicates == 0 {
		t.Fatalf("second import: %v, index %+v, saved %+v, %d duplicates; want the snapshot loaded, a delta saved", err, st.Index, st.Saved, st.Duplicates)
	}
	engine := func(t *testing.T, snapshot string, days int) ([]string, IndexLoad) {
		t.Helper()
		store, err := sqlite.Open(ctx, cfg.Storage)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		eng, load, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Snapshot: snapshot, Now: at(days)()})
		if err != nil {
			t.Fatal(err)
		}
		return decideAll(t, eng, queries), load
	}
	compare := func(t *testing.T, got, want []string) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("query %d:\n snapshot: %s\n rebuilt:  %s", i, got[i], want[i])
			}
		}
	}
	// Day 10: everything is within the window; day 40: part a has left
	// it (the verdicts differ from day 10's), part b has not.
	day10, _ := engine(t, "", 10)
	for _, days := range []int{10, 40} {
		t.Run(map[int]string{10: "all_within", 40: "part_a_outside"}[days], func(t *testing.T) {
			want, full := engine(t, "", days)
			got, load := engine(t, st.Saved.Path, days)
			if load.Rebuilt || load.Deltas != 1 {
				t.Fatalf("load %+v; want the snapshot and its delta", load)
			}
			if !full.Rebuilt {
				t.Fatalf("rebuild %+v", full)
			}
			compare(t, got, want)
			dups, moved := 0, 0
			for i := range want {
				if strings.Contains(want[i], "dup=true") {
					dups++
				}
				if want[i] != day10[i] {
					moved++
				}
			}
			if dups == 0 || dups == len(want) || (days == 40) != (moved > 0) {
				t.Fatalf("%d of %d duplicates, %d verdicts changed by the window: the test needs both kinds and a window that matters", dups, len(want), moved)
			}
		})
	}
	t.Run("compaction", func(t *testing.T) {
		store, err := sqlite.Open(ctx, cfg.Storage)
		if err != nil {
			t.Fatal(err)
		}
		ir, err := startIndex(ctx, &cfg, seg, store, at(40)(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ir.load.Rebuilt = true // a new base instead of a delta
		var status strings.Builder
		ir.save(ctx, &cfg, store, &status, nil)
		store.Close()
		if ir.saved.Delta || ir.saved.Bytes == 0 || ir.saved.Expired == 0 || !strings.Contains(status.String(), "dropped outside the window") {
			t.Fatalf("saved %+v (%s); want a new base without part a", ir.saved, status.String())
		}
		want, full := engine(t, "", 40)
		got, load := engine(t, st.Saved.Path, 40)
		if load.Rebuilt || load.Snapshot != full.Entries {
			t.Fatalf("load %+v, rebuild %+v: want the compacted snapshot of the window's entries", load, full)
		}
		compare(t, got, want)
	})
}
