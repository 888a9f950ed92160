package crawler

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

type benchPage struct {
	URL        string `json:"url"`
	Site       string `json:"site"`
	Path       string `json:"path"`
	Kind       string `json:"kind"`
	Disallowed bool   `json:"disallowed"`
	Behavior   any    `json:"behavior"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadBenchConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load(filepath.Join(devdatatest.RootDir(t), "configs", "bench-dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &cfg
}

// TestBenchDevPatterns checks configs/bench-dev.yaml against the dev split:
// every allowed article URL matches its site's article_url and no list,
// other or special page does (except the article-shaped links that answer
// 404, which are meant to look like articles).
func TestBenchDevPatterns(t *testing.T) {
	dir := devdatatest.Dir(t)
	cfg := loadBenchConfig(t)
	sites := map[string]*config.Site{}
	for i := range cfg.Sites {
		sites[cfg.Sites[i].Name] = &cfg.Sites[i]
	}
	pages := readJSONL[benchPage](t, filepath.Join(dir, "bench", "dev", "pages.jsonl"))
	articles := 0
	for _, p := range pages {
		s := sites[p.Site]
		if s == nil {
			t.Fatalf("site %q of %s not in bench-dev.yaml", p.Site, p.URL)
		}
		match := s.ArticleRe.MatchString(p.URL)
		switch {
		case p.Kind == "article" && !p.Disallowed:
			articles++
			if !match {
				t.Errorf("allowed article %s does not match %s", p.URL, s.ArticleURL)
			}
		case p.Kind == "special" && strings.Contains(fmt.Sprint(p.Behavior), "not_found"):
		case p.Kind != "article" && match:
			t.Errorf("%s page %s matches article_url", p.Kind, p.URL)
		}
	}
	if articles < 500 {
		t.Fatalf("only %d allowed articles in pages.jsonl", articles)
	}
}

// recordingTransport logs every request the crawler sends and its timing.
type recordingTransport struct {
	next *http.Transport
	mu   sync.Mutex
	reqs []recordedRequest
}

type recordedRequest struct {
	url        string
	start, end time.Time
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := rt.next.RoundTrip(r)
	rt.mu.Lock()
	rt.reqs = append(rt.reqs, recordedRequest{url: r.URL.String(), start: start, end: time.Now()})
	rt.mu.Unlock()
	return resp, err
}

func (rt *recordingTransport) CloseIdleConnections() { rt.next.CloseIdleConnections() }

// TestBenchDevCrawl crawls the running dev fixture web (start it first:
// cd ../shared/bench/server && go run . --root ../dev) and reports coverage,
// robots violations and the fault outcomes. Enabled with NEWSCRAWL_BENCH_LIVE=1.
func TestBenchDevCrawl(t *testing.T) {
	if os.Getenv("NEWSCRAWL_BENCH_LIVE") == "" {
		t.Skip("set NEWSCRAWL_BENCH_LIVE=1 with the dev bench server running")
	}
	dir := devdatatest.Dir(t)
	cfg := loadBenchConfig(t)
	if resp, err := http.Get("http://127.0.0.1:18480/robots.txt"); err != nil {
		t.Fatalf("bench server not running: %v", err)
	} else {
		resp.Body.Close()
	}
	var routes struct {
		Sites []struct {
			Name           string   `json:"name"`
			DefaultPort    int      `json:"default_port"`
			RobotsDisallow []string `json:"robots_disallow"`
		} `json:"sites"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "bench", "dev", "routes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &routes); err != nil {
		t.Fatal(err)
	}
	type truthLine struct {
		URL        string         `json:"url"`
		Site       string         `json:"site"`
		Disallowed bool           `json:"disallowed"`
		Behavior   map[string]any `json:"behavior"`
	}
	truth := readJSONL[truthLine](t, filepath.Join(dir, "bench", "dev", "truth.jsonl"))

	rt := &recordingTransport{next: newNetTransport(5*time.Second, 10*time.Second)}
	st := memory.New()
	proc := &recProc{store: st}
	c, err := New(cfg, st, proc, Options{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sum, err := c.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	got := proc.urls()

	allowed, covered := 0, 0
	var missing []string
	for _, l := range truth {
		if l.Disallowed {
			if got[l.URL] != nil {
				t.Errorf("disallowed article processed: %s", l.URL)
			}
			continue
		}
		allowed++
		if got[l.URL] != nil {
			covered++
		} else {
			missing = append(missing, l.URL)
		}
	}
	coverage := float64(covered) / float64(allowed)
	t.Logf("coverage %d/%d = %.4f in %s (%d requests)", covered, allowed, coverage, elapsed.Round(time.Millisecond), len(rt.reqs))
	if coverage < 0.99 {
		t.Errorf("coverage %.4f < 0.99; missing %v", coverage, missing)
	}

	violations, maxCal := 0, 0
	byPort := map[string][]string{}
	for _, s := range routes.Sites {
		byPort[strconv.Itoa(s.DefaultPort)] = s.RobotsDisallow
	}
	for _, r := range rt.reqs {
		port, path, _ := strings.Cut(strings.TrimPrefix(r.url, "http://127.0.0.1:"), "/")
		path = "/" + path
		for _, d := range byPort[port] {
			if strings.HasPrefix(path, d) {
				violations++
				t.Errorf("robots violation: %s", r.url)
			}
		}
		if n, ok := strings.CutPrefix(path, "/calendar/"); ok {
			v, _ := strconv.Atoi(n)
			maxCal = max(maxCal, v)
		}
	}
	t.Logf("robots violations %d; deepest calendar page %d (max_depth %d)", violations, maxCal, cfg.Sites[0].MaxDepth)
	if maxCal > cfg.Sites[0].MaxDepth {
		t.Errorf("calendar trap followed to /calendar/%d", maxCal)
	}

	var tooLarge []string
	st.Pages(context.Background(), func(p storage.Page) error {
		if p.ErrKind == KindTooLarge {
			tooLarge = append(tooLarge, p.URL)
		}
		return nil
	})
	slices.Sort(tooLarge)
	bigs, bombs := 0, 0
	for _, u := range tooLarge {
		switch {
		case strings.Contains(u, "/big/"):
			bigs++
		case strings.Contains(u, "/download/"):
			bombs++
		}
	}
	t.Logf("too_large: %d oversized, %d gzip bombs", bigs, bombs)
	if bigs != len(routes.Sites) || bombs != len(routes.Sites) {
		t.Errorf("too_large pages %v, want every /big/ and /download/ page", tooLarge)
	}

	for _, l := range truth {
		if l.Behavior == nil {
			continue
		}
		if got[l.URL] == nil {
			t.Errorf("%v article %s not processed", l.Behavior, l.URL)
			continue
		}
		if _, slow := l.Behavior["delay_ms"]; slow {
			var slowReq recordedRequest
			for _, r := range rt.reqs {
				if r.url == l.URL {
					slowReq = r
				}
			}
			port := strings.Split(strings.TrimPrefix(l.URL, "http://127.0.0.1:"), "/")[0]
			during := 0
			for _, r := range rt.reqs {
				if r.url != l.URL && strings.Contains(r.url, ":"+port+"/") && r.start.After(slowReq.start) && r.end.Before(slowReq.end) {
					during++
				}
			}
			t.Logf("slow page %s took %s; %d other requests of its site completed meanwhile", l.URL, slowReq.end.Sub(slowReq.start).Round(time.Millisecond), during)
			if during == 0 {
				t.Errorf("slow page %s stalled its site", l.URL)
			}
		}
	}
	t.Logf("summary total: %+v", sum.Total)
	for _, w := range sum.Warnings {
		t.Logf("warning: %s", w)
	}
}

// BenchmarkExtractLinks measures link extraction on a real portal list page
// (NetEase rolling news, GBK, from the dev split).
func BenchmarkExtractLinks(b *testing.B) {
	page, err := os.ReadFile(devdatatest.Path(b, "bench", "dev", "sites", "netease", "index.html"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		hrefs := extractLinks(page, config.DefaultMaxLinksPerPage).hrefs
		if len(hrefs) < 100 || !slices.Contains(hrefs, "/index_02.html") {
			b.Fatalf("extracted %d links, pager missing", len(hrefs))
		}
	}
}

// BenchmarkCrawlLocal measures the fetch stage end to end (scheduler,
// colly, limitTransport, link discovery, memory store, Discard processor)
// on a loopback server answering one real article page for 200 URLs.
func BenchmarkCrawlLocal(b *testing.B) {
	body, err := os.ReadFile(devdatatest.Path(b, "bench", "dev", "sites", "netease", "09", "0118", "00", "5LTN20GK002543TT.html"))
	if err != nil {
		b.Fatal(err)
	}
	const n = 200
	links := artLinks(n)
	ts := newTestServer(b, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(links...),
		"/art/*": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=gbk")
			w.Write(body)
		},
	})
	cfg := testConfig(b, ts.URL, func(c *config.Config) {
		c.Sites[0].Parallelism = 8
		c.Sites[0].MaxDepth = 1
	})
	pages := 0
	for b.Loop() {
		st := memory.New()
		c, err := New(cfg, st, Discard{Store: st}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		sum, err := c.Run(context.Background(), 1)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Total.Articles != n || sum.Total.Fetched != n+1 {
			b.Fatalf("articles %d fetched %d, want %d and %d", sum.Total.Articles, sum.Total.Fetched, n, n+1)
		}
		pages += n + 1
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
