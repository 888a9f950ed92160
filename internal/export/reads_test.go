package export_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// loadedView hides a store's one-cluster reads (export.ClusterLookup),
// so that an export loads the cluster view of the whole store first.
type loadedView struct{ storage.Store }

// TestClusterReadsExport: an export that reads each record's cluster
// when it writes the record prints the same JSONL and CSV as one that
// loaded the cluster view of the whole store first, on each backend:
// clusters of one to many copies, an article that joined a cluster, a
// partial reprint, a merge, 来源 the runs name or not, copies without a
// publication time, and (in memory) more copies than the clusters kept
// at once, so that clusters come back after being dropped.
func TestClusterReadsExport(t *testing.T) {
	ctx := context.Background()
	stores := []struct {
		name     string
		clusters int
		open     func(t *testing.T) storage.Store
	}{
		{"memory", 1100, func(t *testing.T) storage.Store { return memory.New() }},
		{"sqlite", 60, func(t *testing.T) storage.Store {
			s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "e.db"))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{"postgres", 60, func(t *testing.T) storage.Store {
			u, _ := pgtest.Schema(t, "nc_export_")
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
			if _, ok := s.(export.ClusterLookup); !ok {
				t.Fatalf("%T does not read one cluster at a time", s)
			}
			copies := fillReprints(t, s, st.clusters)
			if st.name == "memory" && copies <= 4096 {
				t.Fatalf("fixture of %d copies keeps every cluster at once", copies)
			}
			for _, format := range []string{"jsonl", "csv"} {
				got, want := exportAs(t, s, format), exportAs(t, loadedView{s}, format)
				if got != want {
					t.Errorf("%s: reading clusters one at a time changes the export:\n%s", format, firstDiff(got, want))
				}
				if !strings.Contains(got, `"verdict":"partial"`) && format == "jsonl" {
					t.Errorf("fixture has no partial reprint in a cluster")
				}
			}
		})
	}
}

func exportAs(t *testing.T, src export.Source, format string) string {
	t.Helper()
	var b bytes.Buffer
	var err error
	if format == "csv" {
		_, err = export.CSV(context.Background(), src, export.Filter{}, &b)
	} else {
		_, err = export.JSONL(context.Background(), src, export.Filter{}, &b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// fillReprints commits n clusters of 1 to 7 copies on four sites under a
// run that names xinhua's 来源, interleaved so that a cluster's copies
// are committed far apart, plus a bridge merging two clusters, and
// returns the number of copies.
func fillReprints(t *testing.T, s storage.Store, n int) int {
	t.Helper()
	ctx := context.Background()
	run, err := s.BeginRun(ctx, "sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sites := []string{"xinhua", "sina", "qq", "sohu"}
	sources := []string{"新华社", "", "人民日报", " 新华社 "}
	commit := func(c *storage.Commit) {
		t.Helper()
		if err := s.Commit(ctx, c); err != nil {
			t.Fatalf("commit %s: %v", c.Page.URL, err)
		}
	}
	firsts := make([]int64, n)
	copies := 0
	for round := range 7 {
		for k := range n {
			if round > k%7 {
				continue
			}
			copies++
			site := sites[(k+round)%len(sites)]
			u := fmt.Sprintf("http://%s.example/%d/%d", site, k, round)
			at := t0.Add(time.Duration(copies) * time.Second)
			pub := at.Add(-time.Duration((k*7+round*3)%11) * time.Minute)
			if (k+round)%5 == 0 {
				pub = time.Time{}
			}
			src := sources[(k*3+round)%len(sources)]
			pg := storage.Page{URL: u, Site: site, RunID: run.ID, Status: 200, FetchedAt: at}
			a := &storage.Article{URL: u, Site: site, RunID: run.ID, Title: "标题", Text: "正文 " + u, Source: src,
				PublishedAt: pub, FetchedAt: at, ContentHash: fmt.Sprintf("%064x", copies)}
			switch {
			case round == 0:
				pg.Outcome = storage.OutcomeStored
				commit(&storage.Commit{Page: pg, Article: a})
				firsts[k] = a.ID
			case round == 2 && k%3 == 0:
				// A partial reprint stored beside the cluster's article.
				pg.Outcome = storage.OutcomeStored
				a.Cluster, a.PartialOf, a.OwnShare, a.Passages = firsts[k], firsts[k], 0.5, []storage.Passage{{Start: 0, OtherStart: 0, Len: 4}}
				commit(&storage.Commit{Page: pg, Article: a})
			default:
				pg.Outcome = storage.OutcomeDuplicate
				commit(&storage.Commit{Page: pg, Duplicate: &storage.Duplicate{URL: u, Site: site, RunID: run.ID, DupOf: firsts[k],
					Reason: []string{"jaccard", "", "exact"}[round%3], Title: "转载", Text: "正文", Source: src, PublishedAt: pub, FetchedAt: at}})
			}
		}
	}
	u := "http://mirror.example/bridge"
	copies++
	commit(&storage.Commit{Page: storage.Page{URL: u, Site: "mirror", RunID: run.ID, Status: 200, FetchedAt: t0, Outcome: storage.OutcomeDuplicate},
		Duplicate: &storage.Duplicate{URL: u, Site: "mirror", RunID: run.ID, DupOf: firsts[6], Cluster: firsts[6], Merges: []int64{firsts[13]},
			Reason: "jaccard", FetchedAt: t0}})
	run.Status, run.Stats.Settings = storage.RunCompleted, &storage.RunSettings{SourceNames: map[string][]string{"xinhua": {"新华社"}}}
	if err := s.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	return copies
}
