package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/metrics"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/serve"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// hostileSite serves a list page linking two articles whose title and body
// carry script: escaped markup that extraction turns into the literal text
// "<script>…", and a real script element.
func hostileSite(t *testing.T, extraYAML ...string) (siteFile, db string) {
	t.Helper()
	para := "新华社北京11月20日电 国务院总理今天主持召开国务院常务会议，部署进一步稳定就业的措施，确定支持小微企业发展的政策。会议指出，就业是最大的民生，要加大对企业的支持力度。"
	article := func(title, extra string) string {
		return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>` + title + `</title>` +
			`<script>window.stolen = document.cookie</script></head><body><div class="article"><h1>` + title + `</h1>` +
			`<p>` + para + `</p><p>&lt;script&gt;alert('body')&lt;/script&gt;` + extra + para + `</p><p>` + para + `</p>` +
			`<script>alert("inline")</script></div></body></html>`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><ul><li><a href="/art/1">a</a></li><li><a href="/art/2">b</a></li><li><a href="/art/3">gone</a></li></ul></body></html>`)
	})
	mux.HandleFunc("/art/3", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/art/1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article("&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;国务院常务会议", ""))
	})
	mux.HandleFunc("/art/2", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article("&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;国务院常务会议", "转载。"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db = filepath.Join(dir, "news.db")
	siteFile = filepath.Join(dir, "sites.yaml")
	yaml := strings.Join(extraYAML, "") + fmt.Sprintf("storage: %q\nuser_agent: \"newscrawl-test/1.0 (+https://example.org/newscrawl)\"\ndedup: {keep_duplicate_text: true}\nsites:\n"+
		"  - name: hostile\n    start_urls: [%q]\n    allowed_domains: [%q]\n    article_url: '/art/\\d+$'\n    delay: 0s\n",
		db, srv.URL+"/", strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(siteFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return siteFile, db
}

// TestServeCrawledScript crawls pages whose title and body carry <script>
// and checks that the web view serves them as text.
func TestServeCrawledScript(t *testing.T) {
	siteFile, db := hostileSite(t)
	r := runMain("crawl", "--site", siteFile, "--progress", "0")
	if r.code != ExitOK {
		t.Fatalf("crawl: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	a, err := store.Article(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Title, "<script>") || !strings.Contains(a.Text, "<script>alert('body')</script>") {
		t.Fatalf("the test pages did not put script into the stored text: %q %q", a.Title, a.Text)
	}
	h, err := serve.New(store, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	pages := []string{"/", "/article/1", "/cluster/1", "/search?q=script"}
	dupURL := ""
	if err := store.Duplicates(ctx, func(d storage.Duplicate) error { dupURL = d.URL; return nil }); err != nil {
		t.Fatal(err)
	}
	if dupURL != "" {
		pages = append(pages, "/pair?url="+dupURL)
	} else {
		t.Error("the reprint was not recorded as a duplicate")
	}
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			resp, err := http.Get(srv.URL + p)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body := string(b)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if strings.Contains(strings.ToLower(body), "<script") {
				t.Errorf("served a script element:\n%s", body)
			}
			if p != "/" && !strings.Contains(body, "&lt;script&gt;") {
				t.Errorf("the stored script text is not shown escaped:\n%s", body)
			}
		})
	}
}

// TestCrawlQuietAndVerbose: --progress 0 prints no progress line; -v with
// --log-format json logs one JSON line per skipped or failed URL.
func TestCrawlQuietAndVerbose(t *testing.T) {
	siteFile, _ := hostileSite(t)
	r := runMain("crawl", "--site", siteFile, "--progress", "0", "-v", "--log-format", "json")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "pages/s") {
		t.Errorf("--progress 0 printed progress:\n%s", r.stderr)
	}
	failed := false
	for _, l := range strings.Split(r.stderr, "\n") {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("not JSON: %s", l)
		}
		if m["msg"] == "failed" && m["kind"] == "http_404" && strings.HasSuffix(m["url"].(string), "/art/3") {
			failed = true
		}
	}
	if !failed {
		t.Errorf("-v did not log the 404:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "total") || !strings.Contains(r.stdout, " gone") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "total ") {
		t.Errorf("no summary:\n%s", r.stdout)
	}
	r = runMain("crawl", "--site", siteFile, "--progress", "0", "--log-format", "xml")
	if r.code != ExitUsage {
		t.Errorf("--log-format xml: exit %d", r.code)
	}
}

// TestCrawlMetrics: a crawl with metrics feeds every metric, and
// --metrics-addr serves them.
func TestCrawlMetrics(t *testing.T) {
	siteFile, _ := hostileSite(t)
	cfg, err := config.Load(siteFile)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	if _, err := pipeline.Crawl(context.Background(), &cfg, pipeline.CrawlOptions{ConfigPath: siteFile, Metrics: m}); err != nil {
		t.Fatal(err)
	}
	stop, addr, err := serveMetrics("127.0.0.1:0", m, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	for _, w := range []string{
		`newscrawl_pages_total{outcome="stored",site="hostile"} 1`,
		`newscrawl_pages_total{outcome="duplicate",site="hostile"} 1`,
		`newscrawl_pages_total{outcome="error",site="hostile"} 0`, // the 404 is gone, as in the summary
		`newscrawl_pages_total{outcome="gone",site="hostile"} 1`,
		`newscrawl_fetch_duration_seconds_count{site="hostile"} 4`,
		`newscrawl_decision_duration_seconds_count 2`,
		`newscrawl_index_fingerprints 2`,
		`newscrawl_queue_depth{site="hostile"} 0`,
		`newscrawl_robots_blocked_total{site="hostile"} 0`,
		`newscrawl_retries_total{site="hostile"} 0`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("missing %q", w)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

// TestKeepRawWARC: with fetch.keep_raw the crawl keeps the stored articles'
// responses and the WARC export writes them as response records.
func TestKeepRawWARC(t *testing.T) {
	siteFile, db := hostileSite(t, "fetch: {keep_raw: true}\n")
	if r := runMain("crawl", "--site", siteFile, "--progress", "0"); r.code != ExitOK {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "c.warc")
	if r := runMain("export", "--db", db, "--format", "warc", "--out", out); r.code != ExitOK {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	w := string(b)
	for what, want := range map[string]int{
		"WARC-Type: response\r\n": 1, "WARC-Type: conversion\r\n": 1, "WARC-Type: resource\r\n": 0,
		"WARC-Type: revisit\r\n": 1, "\r\n\r\nHTTP/1.1 200 OK\r\n": 1,
	} {
		if n := strings.Count(w, what); n != want {
			t.Errorf("%q: %d, want %d", what, n, want)
		}
	}
	if !strings.Contains(w, "<script>window.stolen") {
		t.Error("the response record does not hold the page as fetched")
	}
}
