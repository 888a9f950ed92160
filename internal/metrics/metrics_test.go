package metrics_test

import (
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/newsdedup/newscrawl/internal/metrics"
)

func TestObserveSites(t *testing.T) {
	m := metrics.New()
	m.ObserveSites([]metrics.SiteCounts{{Site: "sina", Stored: 3, Duplicates: 1, Errors: 2, RobotsBlocked: 4, Retries: 1, Bytes: 100}})
	m.ObserveSites([]metrics.SiteCounts{{Site: "sina", Stored: 5, Duplicates: 1, Errors: 2, Gone: 6, Parts: 2, RobotsBlocked: 4, Retries: 3, Bytes: 150},
		{Site: "qq", NotArticle: 7}})
	want := `
# HELP newscrawl_pages_total Pages recorded, by site and outcome (stored, duplicate, not_article, error: the site or the network failed, gone: a 4xx answer, part: a later page of a multi-page article).
# TYPE newscrawl_pages_total counter
newscrawl_pages_total{outcome="duplicate",site="qq"} 0
newscrawl_pages_total{outcome="duplicate",site="sina"} 1
newscrawl_pages_total{outcome="error",site="qq"} 0
newscrawl_pages_total{outcome="error",site="sina"} 2
newscrawl_pages_total{outcome="gone",site="qq"} 0
newscrawl_pages_total{outcome="gone",site="sina"} 6
newscrawl_pages_total{outcome="not_article",site="qq"} 7
newscrawl_pages_total{outcome="not_article",site="sina"} 0
newscrawl_pages_total{outcome="part",site="qq"} 0
newscrawl_pages_total{outcome="part",site="sina"} 2
newscrawl_pages_total{outcome="stored",site="qq"} 0
newscrawl_pages_total{outcome="stored",site="sina"} 5
# HELP newscrawl_retries_total Extra fetch attempts after transient failures (5xx, 429, timeouts, resets).
# TYPE newscrawl_retries_total counter
newscrawl_retries_total{site="qq"} 0
newscrawl_retries_total{site="sina"} 3
# HELP newscrawl_robots_blocked_total URLs not fetched because robots.txt disallows them.
# TYPE newscrawl_robots_blocked_total counter
newscrawl_robots_blocked_total{site="qq"} 0
newscrawl_robots_blocked_total{site="sina"} 4
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"newscrawl_pages_total", "newscrawl_retries_total", "newscrawl_robots_blocked_total"); err != nil {
		t.Fatal(err)
	}
}

func TestCounterRestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []int64
		want  float64
	}{
		{"growing", []int64{1, 4, 9}, 9},
		{"restart", []int64{5, 2}, 7},
		{"unchanged", []int64{3, 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := metrics.New()
			for _, n := range tc.steps {
				m.ObserveSites([]metrics.SiteCounts{{Site: "s", Stored: n}})
			}
			const metric = "newscrawl_pages_total"
			want := "# HELP newscrawl_pages_total Pages recorded, by site and outcome (stored, duplicate, not_article, error: the site or the network failed, gone: a 4xx answer, part: a later page of a multi-page article).\n# TYPE newscrawl_pages_total counter\n" +
				`newscrawl_pages_total{outcome="duplicate",site="s"} 0` + "\n" +
				`newscrawl_pages_total{outcome="error",site="s"} 0` + "\n" +
				`newscrawl_pages_total{outcome="gone",site="s"} 0` + "\n" +
				`newscrawl_pages_total{outcome="not_article",site="s"} 0` + "\n" +
				`newscrawl_pages_total{outcome="part",site="s"} 0` + "\n" +
				`newscrawl_pages_total{outcome="stored",site="s"} ` + ftoa(tc.want) + "\n"
			if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), metric); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestHandler(t *testing.T) {
	m := metrics.New()
	m.ObserveFetch("sina", 30*time.Millisecond)
	m.ObserveFetch("sina", 3*time.Second)
	m.ObserveDecision(4 * time.Millisecond)
	m.SetIndexSize(585)
	m.SetQueueDepth("sina", 12)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	for _, w := range []string{
		`newscrawl_fetch_duration_seconds_bucket{site="sina",le="0.05"} 1`,
		`newscrawl_fetch_duration_seconds_bucket{site="sina",le="5"} 2`,
		`newscrawl_fetch_duration_seconds_count{site="sina"} 2`,
		`newscrawl_decision_duration_seconds_bucket{le="0.005"} 1`,
		`newscrawl_index_fingerprints 585`,
		`newscrawl_queue_depth{site="sina"} 12`,
		"go_goroutines",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("missing %q", w)
		}
	}
}

// TestRegistryPerCrawl: two crawls in one process do not share figures.
func TestRegistryPerCrawl(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	a.SetIndexSize(10)
	b.SetIndexSize(20)
	if n, _ := testutil.GatherAndCount(a.Registry(), "newscrawl_index_fingerprints"); n != 1 {
		t.Fatalf("count %d", n)
	}
	want := "# HELP newscrawl_index_fingerprints Fingerprints in the near-duplicate index (stored articles and indexed duplicates).\n# TYPE newscrawl_index_fingerprints gauge\nnewscrawl_index_fingerprints 10\n"
	if err := testutil.GatherAndCompare(a.Registry(), strings.NewReader(want), "newscrawl_index_fingerprints"); err != nil {
		t.Fatal(err)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestIncrementalMetrics: requests, 304s and lists not due are counted per
// site from the cumulative snapshots; discovery delays go to their
// histogram.
func TestIncrementalMetrics(t *testing.T) {
	m := metrics.New()
	m.ObserveSites([]metrics.SiteCounts{{Site: "sina", Requests: 10, NotModified: 4, SurfacesNotDue: 1}})
	m.ObserveSites([]metrics.SiteCounts{{Site: "sina", Requests: 25, NotModified: 9, SurfacesNotDue: 3}})
	m.ObserveDiscovery("sina", 10*time.Minute)
	m.ObserveDiscovery("sina", 2*time.Hour)
	want := `
# HELP newscrawl_not_modified_total List surfaces (list pages, sitemaps, feeds, APIs) answered 304 Not Modified.
# TYPE newscrawl_not_modified_total counter
newscrawl_not_modified_total{site="sina"} 9
# HELP newscrawl_requests_total HTTP requests sent (attempts, robots.txt included).
# TYPE newscrawl_requests_total counter
newscrawl_requests_total{site="sina"} 25
# HELP newscrawl_surfaces_not_due_total List surfaces not fetched: backed off after runs with nothing new, or claimed by another process.
# TYPE newscrawl_surfaces_not_due_total counter
newscrawl_surfaces_not_due_total{site="sina"} 3
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"newscrawl_requests_total", "newscrawl_not_modified_total", "newscrawl_surfaces_not_due_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.Registry(), "newscrawl_discovery_delay_seconds"); n != 1 {
		t.Fatalf("discovery_delay_seconds series: %d, want 1", n)
	}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(`
# HELP newscrawl_discovery_delay_seconds Time from an article's published_at to its fetch, for stored articles.
# TYPE newscrawl_discovery_delay_seconds histogram
newscrawl_discovery_delay_seconds_bucket{site="sina",le="60"} 0
newscrawl_discovery_delay_seconds_bucket{site="sina",le="300"} 0
newscrawl_discovery_delay_seconds_bucket{site="sina",le="900"} 1
newscrawl_discovery_delay_seconds_bucket{site="sina",le="1800"} 1
newscrawl_discovery_delay_seconds_bucket{site="sina",le="3600"} 1
newscrawl_discovery_delay_seconds_bucket{site="sina",le="7200"} 2
newscrawl_discovery_delay_seconds_bucket{site="sina",le="21600"} 2
newscrawl_discovery_delay_seconds_bucket{site="sina",le="43200"} 2
newscrawl_discovery_delay_seconds_bucket{site="sina",le="86400"} 2
newscrawl_discovery_delay_seconds_bucket{site="sina",le="259200"} 2
newscrawl_discovery_delay_seconds_bucket{site="sina",le="604800"} 2
newscrawl_discovery_delay_seconds_bucket{site="sina",le="+Inf"} 2
newscrawl_discovery_delay_seconds_sum{site="sina"} 7800
newscrawl_discovery_delay_seconds_count{site="sina"} 2
`), "newscrawl_discovery_delay_seconds"); err != nil {
		t.Fatal(err)
	}
}
