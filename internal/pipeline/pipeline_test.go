package pipeline

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestPipelineMergesClusters: an article that matches two stored articles
// of different clusters is recorded as a duplicate, both clusters become
// one in the store, and an engine rebuilt from the store (the next run)
// sees the merged cluster.
func TestPipelineMergesClusters(t *testing.T) {
	ctx := context.Background()
	var st fixture.Story
	for _, s := range fixture.Stories() {
		if s.ID == "s4" {
			st = s
		}
	}
	if len(st.Paragraphs) < 5 {
		t.Fatalf("fixture story s4 has %d paragraphs, want 5", len(st.Paragraphs))
	}
	p := st.Paragraphs
	// As in dedup.TestClusterMerge: a and b share nothing, the bridge
	// reaches Jaccard 0.38 and 0.39 with them.
	texts := []string{strings.Join(p[:3], "\n"), strings.Join(p[3:5], "\n"), strings.Join(p[1:4], "\n")}
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	eng, _, err := NewEngine(ctx, &cfg, seg, store, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewProcessor(&cfg, store, eng, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	commit := func(url, text string) storage.Outcome {
		t.Helper()
		art := &extract.Article{Title: st.Title, Text: text}
		page := storage.Page{URL: url, Site: "s", RunID: 1, Status: 200, FetchedAt: time.Now()}
		out, err := pl.decideAndCommit(ctx, page, art, eng.Fingerprint(art.Title, art.Text))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for i, want := range []storage.Outcome{storage.OutcomeStored, storage.OutcomeStored, storage.OutcomeDuplicate} {
		if got := commit([]string{"http://x/a", "http://x/b", "http://x/bridge"}[i], texts[i]); got != want {
			t.Fatalf("text %d: %s, want %s", i, got, want)
		}
	}
	a, err := store.ArticleByURL(ctx, "http://x/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.ArticleByURL(ctx, "http://x/b")
	if err != nil {
		t.Fatal(err)
	}
	if a.Cluster != a.ID || b.Cluster != a.ID {
		t.Fatalf("after the bridge: a in cluster %d, b (id %d) in cluster %d; want both in %d", a.Cluster, b.ID, b.Cluster, a.ID)
	}
	// The next run: a fresh engine from the store puts b's copy in a's cluster.
	eng2, _, err := NewEngine(ctx, &cfg, seg, store, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if v := eng2.Decide(eng2.Fingerprint(st.Title, texts[1])); !v.Duplicate || v.Cluster != uint64(a.ID) {
		t.Fatalf("copy of b after restart: %+v, want a duplicate in cluster %d", v, a.ID)
	}
	if err := store.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
