package crawler

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// BenchmarkSitemap50k: one sitemaps.org-limit sitemap (50,000 news URLs,
// each with a publication date) read by the crawler's source path: fetch
// over loopback, parse, canonicalise, filter, note the times and push
// into a memory frontier.
func BenchmarkSitemap50k(b *testing.B) {
	var ts *testServer
	var doc string
	ts = newTestServer(b, map[string]http.HandlerFunc{
		"/robots.txt":  text(404, ""),
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) { xmlDoc(doc)(w, r) },
	})
	urls := make([]newsURL, 50000)
	for i := range urls {
		urls[i] = newsURL{fmt.Sprintf("%s/art/%d", ts.URL, i), "2024-05-20T10:00:00+08:00"}
	}
	doc = newsSitemap(urls...)
	cfg := testConfig(b, ts.URL, func(c *config.Config) {
		c.Fetch.MaxBody = 64 << 20
		c.Sites[0].Sitemaps = []string{ts.URL + "/sitemap.xml"}
	})
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		st := memory.New()
		c, err := New(cfg, st, &recProc{store: st}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r := c.newRun(1)
		r.fetchSources(context.Background(), r.sites[0])
		r.closeIdle()
		if n, _ := st.Pending(context.Background(), ""); n != len(urls) {
			b.Fatalf("%d URLs pending, want %d", n, len(urls))
		}
	}
}
