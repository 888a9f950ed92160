package report_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/report"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.html")

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func build(t *testing.T) *report.Report {
	t.Helper()
	s := memory.New()
	if err := sample.Fill(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r, err := report.Build(context.Background(), s, explain.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBuild(t *testing.T) {
	r := build(t)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"runs", len(r.Runs), 2},
		{"sites", r.Sites, []string{sample.ScriptSite, "qq", "sina", "sohu"}},
		// The 404 is gone, not an error, as the crawl summary counts it.
		{"total", r.Total, report.Counts{Pages: 19, Stored: 5, Duplicates: 6, NotArticle: 4, Errors: 3, Gone: 1}},
		{"sohu run 1", r.BySiteRun["sohu"][0], report.Counts{Pages: 5, Duplicates: 4, Gone: 1}},
		{"sohu run 2", r.BySiteRun["sohu"][1], report.Counts{}},
		{"qq run 2", r.BySiteRun["qq"][1], report.Counts{Pages: 5, Duplicates: 2, Errors: 3}},
		{"cluster sizes", r.ClusterSizes, map[int]int{1: 1, 2: 2, 3: 2}},
		{"largest first", r.Largest[0], report.Cluster{ID: 1, Size: 3, Articles: 1, Sites: 2, Title: "国务院部署稳就业措施",
			URL: "https://news.sina.com.cn/c/2026-11-20/doc-0.shtml"}},
		{"largest count", len(r.Largest), 5},
		{"hamming 0,1,2,9", []int{r.HammingHist[0], r.HammingHist[1], r.HammingHist[2], r.HammingHist[9]}, []int{2, 2, 1, 1}},
		{"jaccard 0.28, 0.8, 1.0", []int{r.JaccardHist[5], r.JaccardHist[16], r.JaccardHist[19]}, []int{1, 1, 1}},
		{"jaccard total", sum(r.JaccardHist), 6},
		{"error kinds", r.ErrorKinds, []report.Kind{{"timeout", 2}, {"http_404", 1}, {"too_large", 1}}},
		{"reasons", r.Reasons, []report.Kind{{"jaccard", 4}, {"containment", 1}, {"exact", 1}}},
		{"duplicate rate", r.DuplicateRate, 6.0 / 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !equal(tc.got, tc.want) {
				t.Errorf("got %#v, want %#v", tc.got, tc.want)
			}
		})
	}
}

// TestHTML: the page is self-contained (nothing loaded, no script), shows
// stored markup as text, marks the thresholds and matches the golden file.
func TestHTML(t *testing.T) {
	r := build(t)
	// The memory store stamps runs with the wall clock; fix them for the
	// golden file.
	for i := range r.Runs {
		r.Runs[i].StartedAt = sample.Start.Add(time.Duration(i) * 24 * time.Hour)
	}
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var svgs []string
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "script", "img", "link", "iframe", "object", "embed", "image", "use", "foreignObject":
			t.Errorf("element <%s> in a self-contained page", n.Data)
		case "svg":
			if id := n.Parent.Attr; len(id) > 0 {
				svgs = append(svgs, id[0].Val)
			}
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if k == "src" || k == "href" || strings.HasPrefix(k, "on") || (k == "style" && strings.Contains(a.Val, "url(")) {
				t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
		}
	}
	wantPlots := []string{"runs", "site-0", "site-1", "site-2", "site-3", "cluster-sizes", "jaccard", "hamming", "errors"}
	if !slices.Equal(svgs, wantPlots) {
		t.Errorf("plots %v, want %v", svgs, wantPlots)
	}
	for _, w := range []string{"τ = 0.35", "k = 3", "&lt;img src=x onerror=alert(1)&gt;", "timeout", "54.5%"} {
		if !strings.Contains(page, w) {
			t.Errorf("missing %q", w)
		}
	}
	golden := filepath.Join("testdata", "sample.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != page {
		t.Errorf("page differs from %s (run go test -update and review the diff)", golden)
	}
}

func TestEmptyStore(t *testing.T) {
	s := memory.New()
	defer s.Close()
	r, err := report.Build(context.Background(), s, explain.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No errors.") || strings.Contains(b.String(), "NaN") {
		t.Errorf("empty report:\n%s", b.String())
	}
}

func TestAxisTop(t *testing.T) {
	for _, tc := range []struct{ v, top, step float64 }{
		{0, 1, 1}, {1, 1, 1}, {4, 4, 1}, {5, 6, 2}, {13, 15, 5}, {585, 600, 200}, {1000, 1000, 500},
	} {
		t.Run(fmt.Sprint(tc.v), func(t *testing.T) {
			if top, step := report.AxisTop(tc.v); top != tc.top || step != tc.step {
				t.Errorf("AxisTop(%v) = %v, %v; want %v, %v", tc.v, top, step, tc.top, tc.step)
			}
		})
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func equal(a, b any) bool {
	return strings.TrimSpace(sprint(a)) == strings.TrimSpace(sprint(b))
}

func sprint(v any) string { return fmt.Sprintf("%#v", v) }

// TestCounters: the per-site counters a run recorded are listed.
func TestCounters(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	defer s.Close()
	for i, sites := range [][]storage.SiteCounters{
		{{Site: "sina", Counters: map[string]int64{"requests": 1}}},
		{{Site: "sina", Counters: map[string]int64{"requests": 40, "robots_blocked": 3}}, {Site: "qq", Counters: map[string]int64{"gone": 2}}},
		nil, // a run that recorded none (an older program)
	} {
		r, err := s.BeginRun(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		r.Status, r.FinishedAt, r.Stats.Sites = storage.RunCompleted, sample.Start.Add(time.Duration(i)*time.Hour), sites
		if err := s.FinishRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	r, err := report.Build(ctx, s, explain.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	want := []report.CounterRow{{"gone", []int64{0, 2}}, {"requests", []int64{40, 0}}, {"robots_blocked", []int64{3, 0}}}
	if r.CountersRun != 2 || !equal(r.CounterSites, []string{"sina", "qq"}) || !equal(r.Counters, want) {
		t.Fatalf("run %d sites %v counters %v", r.CountersRun, r.CounterSites, r.Counters)
	}
	var b strings.Builder
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<tr><td>robots_blocked</td><td class="n">3</td><td class="n">0</td></tr>`) {
		t.Errorf("counter table missing:\n%s", b.String())
	}
}

// TestLaterPages: later pages of multi-page articles (outcome part) are
// counted by site in their own column, not as articles or errors.
func TestLaterPages(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	pages := []string{"http://m/1.html", "http://m/1-2.html", "http://m/1-3.html"}
	c := &storage.Commit{Page: storage.Page{URL: pages[0], Site: "people", RunID: 1, Outcome: storage.OutcomeStored, FetchedAt: now},
		Article: &storage.Article{Site: "people", RunID: 1, Title: "t", Text: "x", ContentHash: "00", FetchedAt: now, Pages: pages},
		Parts:   pages[1:]}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(ctx, s, explain.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (report.Counts{Pages: 3, Stored: 1, Parts: 2}); r.Total != want || r.BySite["people"] != want {
		t.Fatalf("total %+v, people %+v; want %+v", r.Total, r.BySite["people"], want)
	}
}
