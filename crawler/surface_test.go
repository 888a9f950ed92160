package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

func TestSurfaceKey(t *testing.T) {
	tests := []struct {
		name string
		key  surfaceKey
		want string
	}{
		{"page", surfaceKey{Kind: surfacePage, URL: "http://a/", Method: http.MethodGet}, "page GET http://a/"},
		{"method defaults to GET", surfaceKey{Kind: surfaceFeed, URL: "http://a/rss"}, "feed GET http://a/rss"},
		{"POST body hashed", surfaceKey{Kind: surfaceAPI, URL: "http://a/api", Method: http.MethodPost, Body: []byte(`{"page":1}`)},
			"api POST http://a/api #"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.key.String(); !strings.HasPrefix(got, tc.want) || (len(tc.key.Body) == 0 && got != tc.want) {
				t.Fatalf("String() = %q, want %q", got, tc.want)
			}
		})
	}
	a := surfaceKey{Kind: surfaceAPI, URL: "http://a/api", Method: http.MethodPost, Body: []byte(`{"page":1}`)}
	b := a
	b.Body = []byte(`{"page":2}`)
	if a.String() == b.String() || len(a.String()) != len("api POST http://a/api #")+2*surfaceBodyHash {
		t.Fatalf("POST keys %q and %q: want distinct, with a %d-byte hash", a, b, surfaceBodyHash)
	}
}

func TestSurfaceBackoff(t *testing.T) {
	tests := []struct {
		name     string
		interval time.Duration
		empty    int
		want     time.Duration
	}{
		{"new URLs last time", 0, 0, 0},
		{"one empty fetch", 0, 1, 0},
		{"two empty fetches: base", 0, 2, 15 * time.Minute},
		{"three: doubled", 0, 3, 30 * time.Minute},
		{"five", 0, 5, 2 * time.Hour},
		{"seven: capped", 0, 7, 6 * time.Hour},
		{"many: capped", 0, 1000, 6 * time.Hour},
		{"list_interval is the least", 20 * time.Minute, 0, 20 * time.Minute},
		{"list_interval below the back-off", 20 * time.Minute, 3, 30 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Fetch.ListInterval = config.Duration(tc.interval)
			r := &run{Crawler: &Crawler{cfg: &cfg}}
			if got := r.surfaceBackoff(tc.empty); got != tc.want {
				t.Fatalf("surfaceBackoff(%d) = %s, want %s", tc.empty, got, tc.want)
			}
		})
	}
}

// versioned answers an HTML page with an ETag, and 304 to a request that
// names it; body() gives the current page (its ETag is its length and
// first link).
func versioned(notModified *atomic.Int64, body func() string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b := body()
		etag := fmt.Sprintf(`"%d"`, len(b))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, b)
	}
}

func linksPage(links ...string) string {
	var b strings.Builder
	b.WriteString("<html><body>")
	for _, l := range links {
		fmt.Fprintf(&b, "<a href=%q>x</a>", l)
	}
	b.WriteString("</body></html>")
	return b.String()
}

// TestIncrementalListPages: runs on one store, a fake clock that moves only
// when told. Run 2 gets 304 for both list pages (the second one is still
// reached, from the links kept for the first) and fetches no article; runs
// 2 and 3 yield nothing new, so run 4 at the same time fetches no list
// (and both count as not due: the front page's kept links lead to the
// second); 15 minutes later run 5 fetches both and the front page has a
// new article, so run 6 fetches the front page again at once while the
// second, empty a third time, waits 30 minutes.
func TestIncrementalListPages(t *testing.T) {
	var notMod atomic.Int64
	var published atomic.Bool
	front := func() string {
		if published.Load() {
			return linksPage("/more", "/art/1", "/art/2")
		}
		return linksPage("/more", "/art/1")
	}
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/":      versioned(&notMod, front),
		"/more":  versioned(&notMod, func() string { return linksPage("/art/3") }),
		"/art/1": article("one"),
		"/art/3": article("three"),
		"/art/2": article("two"),
	})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	clk := newFakeClock()
	crawl := func(step string) SiteStats {
		t.Helper()
		sum, err := runCrawl(t, context.Background(), cfg, st, &recProc{store: st}, Options{Clock: clk})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return sum.Total
	}
	steps := []struct {
		name                    string
		before                  func()
		lists, notModified, art int // requests of / and /more, 304s among them, article requests
		notDue                  int64
	}{
		{"first run", nil, 2, 0, 2, 0},
		{"nothing new: 304s", nil, 2, 2, 0, 0},
		{"nothing new again", nil, 2, 2, 0, 0},
		{"backed off", nil, 0, 0, 0, 2},
		{"due after 15 minutes", func() { clk.Sleep(context.Background(), 15*time.Minute); published.Store(true) }, 2, 1, 1, 0},
		{"new article: every run again", nil, 1, 1, 0, 1},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		before := map[string]int{"/": ts.hit("/"), "/more": ts.hit("/more"), "/art/1": ts.hit("/art/1"), "/art/2": ts.hit("/art/2"), "/art/3": ts.hit("/art/3")}
		nm := notMod.Load()
		tot := crawl(s.name)
		lists := ts.hit("/") + ts.hit("/more") - before["/"] - before["/more"]
		arts := ts.hit("/art/1") + ts.hit("/art/2") + ts.hit("/art/3") - before["/art/1"] - before["/art/2"] - before["/art/3"]
		got304 := notMod.Load() - nm
		if lists != s.lists || int(got304) != s.notModified || arts != s.art || tot.SurfacesNotDue != s.notDue || tot.NotModified != got304 {
			t.Fatalf("%s: %d list requests (%d answered 304, counted %d), %d article requests, %d not due; want %d, %d, %d, %d",
				s.name, lists, got304, tot.NotModified, arts, tot.SurfacesNotDue, s.lists, s.notModified, s.art, s.notDue)
		}
	}
}

// TestGoneBackoff: a 404 or 410 URL, article or list page, is recorded
// permanent with RetryAt fetch.gone_retry later (zero for 0: never) and
// is not requested again until then; other permanent errors of list pages
// are retried by the next run, as before.
func TestGoneBackoff(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		handler   http.HandlerFunc
		goneRetry time.Duration
		clockAgo  time.Duration // the crawl's clock runs this far behind the store's
		permanent bool
		retryIn   time.Duration // RetryAt - FetchedAt (0: zero RetryAt)
		refetched bool
	}{
		{"article 404, retry in 7 days", "/art/gone", text(404, "no"), 7 * 24 * time.Hour, 0, true, 7 * 24 * time.Hour, false},
		{"article 410, never", "/art/gone", text(410, "gone"), 0, 0, true, 0, false},
		{"list 404, retry in 7 days", "/list/gone", text(404, "no"), 7 * 24 * time.Hour, 0, true, 7 * 24 * time.Hour, false},
		{"list 404, back-off passed", "/list/gone", text(404, "no"), time.Hour, 2 * time.Hour, true, time.Hour, true},
		{"article 404, back-off passed", "/art/gone", text(404, "no"), time.Hour, 2 * time.Hour, true, time.Hour, true},
		{"list 403: next run", "/list/gone", text(403, "forbidden"), 7 * 24 * time.Hour, 0, false, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{"/": listPage(tc.path), tc.path: tc.handler})
			cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Fetch.GoneRetry = config.Duration(tc.goneRetry) })
			st := memory.New()
			clk := &fakeClock{now: time.Now().Add(-tc.clockAgo)}
			for run := 1; run <= 2; run++ {
				if _, err := runCrawl(t, context.Background(), cfg, st, &recProc{store: st}, Options{Clock: clk}); err != nil {
					t.Fatal(err)
				}
				if run == 1 {
					p := pageOf(t, st, ts.URL+tc.path)
					retryIn := time.Duration(0)
					if !p.RetryAt.IsZero() {
						retryIn = p.RetryAt.Sub(p.FetchedAt)
					}
					if p.Outcome != storage.OutcomeError || p.Permanent != tc.permanent || retryIn != tc.retryIn {
						t.Fatalf("run 1 recorded %+v; want permanent %v, retry %s after the fetch", p, tc.permanent, tc.retryIn)
					}
				}
			}
			want := 1
			if tc.refetched {
				want = 2
			}
			if n := ts.hit(tc.path); n != want {
				t.Fatalf("%s requested %d times in two runs, want %d", tc.path, n, want)
			}
		})
	}
}

// TestStartURLGoneStillFetched: a start URL answering 404 is fetched by
// every run (it is the user's, and the run says it failed).
func TestStartURLGoneStillFetched(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	for run := 1; run <= 2; run++ {
		sum, err := runCrawl(t, context.Background(), cfg, st, &recProc{store: st}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Warnings) == 0 {
			t.Errorf("run %d: no warning for the failing start page", run)
		}
	}
	if n := ts.hit("/"); n != 2 {
		t.Fatalf("the 404 start URL was requested %d times in two runs, want 2", n)
	}
}

// TestDecidedArticlesNeverRefetched: stored articles, reached directly or
// through a short link, are not requested by later runs, however often
// the lists link to them.
func TestDecidedArticlesNeverRefetched(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/":      listPage("/art/1", "/r/2", "/art/1?from=list"),
		"/art/1": article("one"),
		"/art/2": article("two"),
		"/r/2":   redirect(http.StatusMovedPermanently, "/art/2"),
	})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	for run := 1; run <= 3; run++ {
		if _, err := runCrawl(t, context.Background(), cfg, st, &recProc{store: st}, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/art/1", "/art/2", "/r/2"} {
		if n := ts.hit(p); n != 1 {
			t.Errorf("%s requested %d times in three runs, want 1", p, n)
		}
	}
	if n := ts.hit("/"); n != 3 {
		t.Errorf("the start page was requested %d times in three runs, want 3 (no validators: no back-off yet)", n)
	}
}

// TestHostileValidators: validators that cannot be kept (not printable
// ASCII, or absurdly long) are dropped: the run goes on, nothing invalid
// reaches the store, and the next request is unconditional.
func TestHostileValidators(t *testing.T) {
	tests := []struct {
		name, etag, lastModified string
		kept                     bool
	}{
		{"plain", `W/"5f3a-1c2"`, "Tue, 05 Nov 2024 12:00:00 GMT", true},
		{"invalid UTF-8", "\"\xff\xfe\"", "\xff", false},
		{"tabs", "\"a\tb\"", "Tue,\t05 Nov 2024 12:00:00 GMT", false},
		{"too long", `"` + strings.Repeat("a", 5000) + `"`, strings.Repeat("x", 600), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var conditional atomic.Int64
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/": func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
						conditional.Add(1)
					}
					w.Header()["Etag"] = []string{tc.etag}
					w.Header()["Last-Modified"] = []string{tc.lastModified}
					listPage("/art/1")(w, r)
				},
				"/art/1": article("one"),
			})
			cfg := testConfig(t, ts.URL)
			st := memory.New()
			for run := 1; run <= 2; run++ {
				if _, err := runCrawl(t, context.Background(), cfg, st, &recProc{store: st}, Options{}); err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
			}
			if got := conditional.Load() == 1; got != tc.kept {
				t.Fatalf("second request conditional: %v, want %v", got, tc.kept)
			}
			s, err := st.Surface(context.Background(), (surfaceKey{Kind: surfacePage, URL: ts.URL + "/"}).String())
			if err != nil || (s.ETag != "") != tc.kept || (s.LastModified != "") != tc.kept {
				t.Fatalf("surface kept %q, %q (%v)", s.ETag, s.LastModified, err)
			}
		})
	}
}
