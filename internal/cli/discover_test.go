package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// discoverWeb is a small portal: robots.txt (disallowing /private/), a
// start page, a JSON list API (NetEase's cm_ JSONP form:
// data_callback([{"title","docurl","time"},…]) with a trailing comma, as
// the issue quotes it) and a list API under /private/. It records every
// request path.
type discoverWeb struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newDiscoverWeb(t *testing.T, apiStatus int) *discoverWeb {
	w := &discoverWeb{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprint(rw, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, `<html><body><a href="/art/1">1</a><a href="/art/2">2</a><a href="https://elsewhere.example/art/9">x</a></body></html>`)
	})
	mux.HandleFunc("/special/cm_yaowen/", func(rw http.ResponseWriter, r *http.Request) {
		if apiStatus != http.StatusOK {
			http.Error(rw, "oops", apiStatus)
			return
		}
		rw.Header().Set("Content-Type", "application/javascript; charset=utf-8")
		fmt.Fprintf(rw, "data_callback([\n{\"title\":\"a\",\"docurl\":\"%[1]s/art/2\",\"time\":\"05/20/2024 10:00:00\"},\n{\"title\":\"b\",\"docurl\":\"%[1]s/art/3\",\"time\":\"05/20/2024 11:00:00\"},\n{\"title\":\"c\",\"docurl\":\"https://elsewhere.example/art/4\",\"time\":\"05/20/2024 11:00:00\"},\n])", w.URL)
	})
	mux.HandleFunc("/private/", func(rw http.ResponseWriter, r *http.Request) { fmt.Fprint(rw, "[]") })
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.hits = append(w.hits, r.URL.Path)
		w.mu.Unlock()
		mux.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *discoverWeb) requested(prefix string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, h := range w.hits {
		if strings.HasPrefix(h, prefix) {
			n++
		}
	}
	return n
}

// discoverSite writes a site file for web (its store at db).
func discoverSite(t *testing.T, web *discoverWeb, db string) string {
	host := strings.TrimPrefix(web.URL, "http://")
	yaml := fmt.Sprintf(`storage: %q
fetch: {retries: 0, timeout: 2s}
sites:
  - name: netease
    start_urls: ["%[2]s/"]
    allowed_domains: ["%[3]s"]
    article_url: '/art/\d+$'
    delay: 0s
    apis:
      - url: "%[2]s/special/cm_yaowen/?callback=data_callback"
        url: docurl
        time: time
      - url: "%[2]s/private/list"
        url: url
  - name: other
    start_urls: ["%[2]s/"]
    allowed_domains: ["%[3]s"]
    article_url: '/art/\d+$'
`, db, web.URL, host)
	path := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decidedStore writes a SQLite store in which url is a stored article.
func decidedStore(t *testing.T, url string) string {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "news.db")
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.BeginRun(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	c := &storage.Commit{Page: storage.Page{URL: url, Site: "netease", RunID: run.ID, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: now},
		Article: &storage.Article{URL: url, Site: "netease", RunID: run.ID, Title: "t", Text: "正文", FetchedAt: now, ContentHash: "00"}}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

// row returns the fields of the table row of source kind whose url
// contains u.
func row(t *testing.T, out, kind, u string) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 8 && f[0] == kind && strings.Contains(f[1], u) {
			return f
		}
	}
	t.Fatalf("no %s row for %s in\n%s", kind, u, out)
	return nil
}

func TestDiscoverCommand(t *testing.T) {
	web := newDiscoverWeb(t, http.StatusOK)
	db := decidedStore(t, web.URL+"/art/2")
	site := discoverSite(t, web, db)
	r := runMain("discover", "--site", site, "--only", "netease")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("discover output:\n%s", r.stdout)
	if !strings.Contains(r.stdout, "store "+db+" (read-only)") || !strings.Contains(r.stdout, "site netease:") || strings.Contains(r.stdout, "site other") {
		t.Errorf("output:\n%s", r.stdout)
	}
	// source url found matched articles new decided skipped
	page := row(t, r.stdout, "page", web.URL+"/")
	if got := strings.Join(page[2:7], " "); got != "3 2 2 1 1" || page[7] != "off_domain" {
		t.Errorf("start page row %q", page)
	}
	api := row(t, r.stdout, "api", "/special/cm_yaowen/")
	if got := strings.Join(api[2:7], " "); got != "3 2 2 1 0" || !strings.Contains(strings.Join(api[7:], " "), "off_domain 1, seen 1") {
		t.Errorf("api row %q", api)
	}
	if !regexp.MustCompile(`error: api \S+/private/list: robots 1`).MatchString(r.stdout) {
		t.Errorf("robots-disallowed API not reported:\n%s", r.stdout)
	}
	if n := web.requested("/art/"); n != 0 {
		t.Errorf("%d article requests; discover fetches no article", n)
	}
	if n := web.requested("/private/"); n != 0 {
		t.Errorf("%d requests under /private/, disallowed by robots.txt", n)
	}
	if n := web.requested("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
	if r := runMain("discover", "--site", site, "--only", "netease", "--json"); r.code != ExitOK || !strings.Contains(r.stdout, `"kind": "api"`) {
		t.Errorf("--json: exit %d\n%s", r.code, r.stdout)
	}
}

func TestDiscoverCommandErrors(t *testing.T) {
	web := newDiscoverWeb(t, http.StatusOK)
	down := newDiscoverWeb(t, http.StatusInternalServerError)
	noStore := filepath.Join(t.TempDir(), "none.db")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("sites:\n  - name: x\n    feeds: [\"ftp://x\"]\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"without a store", []string{"--site", discoverSite(t, web, noStore)}, ExitOK, "every URL counts as new"},
		{"invalid site file", []string{"--site", bad}, ExitUsage, "feeds[0] (line 3)"},
		{"unknown site", []string{"--site", discoverSite(t, web, noStore), "--only", "nope"}, ExitUsage, `no site named "nope"`},
		{"stray argument", []string{"--site", discoverSite(t, web, noStore), "x"}, ExitUsage, "unexpected arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"discover"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Errorf("exit %d (want %d), want %q in\n%s%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
	if _, err := os.Stat(noStore); err == nil {
		t.Error("discover created a store")
	}
	t.Run("nothing could be read", func(t *testing.T) {
		site := discoverSite(t, down, noStore)
		// The start page answers; make it fail too by pointing it at the API.
		b, _ := os.ReadFile(site)
		os.WriteFile(site, []byte(strings.ReplaceAll(string(b), `start_urls: ["`+down.URL+`/"]`, `start_urls: ["`+down.URL+`/special/cm_yaowen/"]`)), 0o644)
		r := runMain("discover", "--site", site)
		if r.code != ExitNothingFetched {
			t.Errorf("exit %d, want %d\n%s%s", r.code, ExitNothingFetched, r.stdout, r.stderr)
		}
	})
}
