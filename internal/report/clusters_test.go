package report_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/progress"
	"github.com/newsdedup/newscrawl/internal/report"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// plainSource hides every method of a store but report.Source's, so that
// Build counts the clusters itself instead of asking the store.
type plainSource struct{ report.Source }

// TestStoreCountedClusters: the cluster figures a store counts
// (ClusterSizes, ClusterMembers) are those the report counts itself from
// every article and duplicate, on each backend, for the sample crawl
// plus clusters of many sizes, a merge, articles without a title and an
// article of another site in a cluster.
func TestStoreCountedClusters(t *testing.T) {
	ctx := context.Background()
	stores := []struct {
		name string
		open func(t *testing.T) storage.Store
	}{
		{"memory", func(t *testing.T) storage.Store { return memory.New() }},
		{"sqlite", func(t *testing.T) storage.Store {
			s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{"postgres", func(t *testing.T) storage.Store {
			u, _ := pgtest.Schema(t, "nc_report_")
			s, err := postgres.Open(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			t.Cleanup(func() { s.Close() })
			if err := sample.Fill(ctx, s); err != nil {
				t.Fatal(err)
			}
			fillClusters(t, s)
			got, err := report.Build(ctx, s, explain.Default(), now)
			if err != nil {
				t.Fatal(err)
			}
			want, err := report.Build(ctx, plainSource{s}, explain.Default(), now)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Largest) != report.LargestClusters {
				t.Fatalf("fixture lists %d clusters, want %d", len(want.Largest), report.LargestClusters)
			}
			if !reflect.DeepEqual(got.ClusterSizes, want.ClusterSizes) {
				t.Errorf("cluster sizes %v, counted here %v", got.ClusterSizes, want.ClusterSizes)
			}
			for i := range want.Largest {
				if got.Largest[i] != want.Largest[i] {
					t.Errorf("largest[%d] = %+v, counted here %+v", i, got.Largest[i], want.Largest[i])
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("reports differ beyond the clusters")
			}
		})
	}
}

// fillClusters adds 40 clusters of 1 to 40 members on three sites:
// articles (the first of every fourth cluster and every third of the
// others without a title), then duplicates, and a bridge
// that merges two of them.
func fillClusters(t *testing.T, s storage.Store) {
	t.Helper()
	ctx := context.Background()
	at := sample.Start.Add(72 * time.Hour)
	sites := []string{"sina", "qq", "sohu"}
	n := 0
	commit := func(c *storage.Commit) {
		t.Helper()
		if err := s.Commit(ctx, c); err != nil {
			t.Fatalf("commit %s: %v", c.Page.URL, err)
		}
	}
	var firsts []int64
	for k := 1; k <= 40; k++ {
		var first int64
		for m := range k {
			n++
			site := sites[(k+m)%len(sites)]
			u := fmt.Sprintf("http://%s.example/c/%d", site, n)
			p := storage.Page{URL: u, Site: site, RunID: 1, Status: 200, FetchedAt: at}
			if first == 0 || m%4 == 1 {
				title := fmt.Sprintf("第%d组新闻", k)
				if (m == 0 && k%4 == 0) || (m > 0 && n%3 == 0) {
					title = ""
				}
				p.Outcome = storage.OutcomeStored
				a := &storage.Article{URL: u, Site: site, RunID: 1, Title: title, Text: "x", ContentHash: fmt.Sprintf("%064x", n),
					Cluster: first, PublishedAt: at.Add(-time.Duration(n) * time.Minute), FetchedAt: at}
				commit(&storage.Commit{Page: p, Article: a})
				if first == 0 {
					first = a.ID
				}
				continue
			}
			p.Outcome = storage.OutcomeDuplicate
			commit(&storage.Commit{Page: p, Duplicate: &storage.Duplicate{URL: u, Site: site, RunID: 1, DupOf: first,
				Distance: m % 40, Jaccard: float64(m%10) / 10, Reason: "jaccard", Title: "转载", FetchedAt: at}})
		}
		firsts = append(firsts, first)
	}
	u := "http://mirror.example/bridge"
	commit(&storage.Commit{Page: storage.Page{URL: u, Site: "mirror", RunID: 1, Status: 200, FetchedAt: at, Outcome: storage.OutcomeDuplicate},
		Duplicate: &storage.Duplicate{URL: u, Site: "mirror", RunID: 1, DupOf: firsts[20], Cluster: firsts[20], Merges: []int64{firsts[30]},
			Jaccard: 0.5, Reason: "jaccard", FetchedAt: at}})
}

// TestDelayTally: the discovery delays binned by the value the page shows
// give the page the same median and 90th percentile as sorting every
// delay (crawler.Delays), around each unit's edge and over spreads of
// seconds to months.
func TestDelayTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	spread := func(n int, lo, hi time.Duration) []time.Duration {
		ds := make([]time.Duration, n)
		for i := range ds {
			ds[i] = lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
		}
		return ds
	}
	edges := func(at time.Duration) []time.Duration {
		var ds []time.Duration
		for _, d := range []time.Duration{-time.Second, -1, 0, 1, time.Second} {
			ds = append(ds, at+d, at+d, at+d)
		}
		return ds
	}
	tests := []struct {
		name string
		ds   []time.Duration
	}{
		{"one", []time.Duration{90 * time.Second}},
		{"ties", []time.Duration{time.Minute, time.Minute, time.Minute, time.Hour}},
		{"seconds", spread(101, 0, time.Minute)},
		{"minute edge", edges(time.Minute)},
		{"hour edge", edges(time.Hour)},
		{"tenth of an hour edge", edges(time.Hour + 3*time.Minute)},
		{"two days edge", edges(48 * time.Hour)},
		{"tenth of a day edge", edges(72*time.Hour + 72*time.Minute)},
		{"minutes to hours", spread(999, 30*time.Second, 5*time.Hour)},
		{"hours to days", spread(1000, time.Hour, 7*24*time.Hour)},
		{"months", spread(5000, 0, 90*24*time.Hour)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := report.DelayStats(tc.ds)
			want := crawler.Delays(append([]time.Duration(nil), tc.ds...))
			show := func(s crawler.DelayStats) string {
				return fmt.Sprintf("n=%d median %s p90 %s", s.N, progress.FormatDelay(s.Median), progress.FormatDelay(s.P90))
			}
			if show(got) != show(want) {
				t.Errorf("binned %s, sorted %s", show(got), show(want))
			}
		})
	}
}
