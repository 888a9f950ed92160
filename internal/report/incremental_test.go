package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/report"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestIncrementalFigures: the report sums the runs' per-site requests,
// 304s, lists not due and stored articles, divides requests by new
// articles, and takes the discovery delay of the stored articles that have
// a published time.
func TestIncrementalFigures(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	defer s.Close()
	site := func(name string, req, nm, nd, stored int64) storage.SiteCounters {
		return storage.SiteCounters{Site: name, Counters: map[string]int64{"requests": req, "not_modified": nm, "surfaces_not_due": nd, "stored": stored}}
	}
	runs := [][]storage.SiteCounters{
		{site("sina", 40, 0, 0, 4), site("qq", 10, 0, 0, 0)},
		{site("sina", 8, 5, 2, 0), site("qq", 6, 4, 1, 0)},
	}
	for _, sites := range runs {
		run, err := s.BeginRun(ctx, "sites.yaml")
		if err != nil {
			t.Fatal(err)
		}
		run.Status, run.Stats.Sites = storage.RunCompleted, sites
		if err := s.FinishRun(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	pub := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	for i, d := range []time.Duration{10 * time.Minute, 20 * time.Minute, 30 * time.Minute, 5 * time.Hour} {
		u := "http://sina/a/" + string(rune('1'+i))
		a := &storage.Article{URL: u, Site: "sina", RunID: 1, Title: "t", Text: "x", ContentHash: u, PublishedAt: pub, FetchedAt: pub.Add(d)}
		c := &storage.Commit{Page: storage.Page{URL: u, Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: a.FetchedAt}, Article: a}
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	r, err := report.Build(ctx, s, explain.Default(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []report.SiteFetch{
		{Site: "qq", Runs: 2, Requests: 16, NotModified: 4, NotDue: 1},
		{Site: "sina", Runs: 2, Requests: 48, NotModified: 5, NotDue: 2, Fresh: 4, PerNew: 12,
			Delay: crawler.DelayStats{N: 4, Median: 20 * time.Minute, P90: 5 * time.Hour}},
	}
	if len(r.Fetching) != len(want) {
		t.Fatalf("Fetching = %+v, want %+v", r.Fetching, want)
	}
	for i := range want {
		if r.Fetching[i] != want[i] {
			t.Errorf("Fetching[%d] = %+v, want %+v", i, r.Fetching[i], want[i])
		}
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<td class="n">12.0</td><td class="n">20m</td><td class="n">5.0h</td>`) {
		t.Errorf("the page does not show sina's requests per new article and delays")
	}
}
