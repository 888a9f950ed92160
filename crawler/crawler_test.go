package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

func TestBasicCrawl(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, "not found"),
		"/":           listPage("/list/2", "/art/1", "/art/2", "mailto:x@example.com", "javascript:void(0)", "/style.css"),
		"/list/2":     listPage("/", "/art/3", "/art/1"),
		"/art/*":      article("a"),
	})
	sum, st, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
	got := proc.urls()
	for _, n := range []string{"1", "2", "3"} {
		u := ts.URL + "/art/" + n
		if got[u] == nil {
			t.Errorf("article %s not processed", u)
		}
		if ts.hit("/art/"+n) != 1 {
			t.Errorf("/art/%s fetched %d times, want 1", n, ts.hit("/art/"+n))
		}
	}
	if ts.hit("/") != 1 || ts.hit("/list/2") != 1 {
		t.Errorf("list pages fetched %d and %d times, want once each", ts.hit("/"), ts.hit("/list/2"))
	}
	if ts.hit("/style.css") != 0 {
		t.Error("stylesheet link followed")
	}
	if p := pageOf(t, st, ts.URL+"/list/2"); p.Outcome != storage.OutcomeNotArticle || p.Status != 200 {
		t.Errorf("list page recorded as %+v", p)
	}
	r := got[ts.URL+"/art/1"]
	if r.Status != 200 || !bytes.Contains(r.Body, []byte("body text")) || r.Header.Get("Content-Type") != "text/html; charset=gbk" || r.Site.Name != "t" {
		t.Errorf("response %+v", r)
	}
	if !sum.Completed || sum.Interrupted || sum.FrontierLeft != 0 {
		t.Errorf("summary completed=%v interrupted=%v left=%d", sum.Completed, sum.Interrupted, sum.FrontierLeft)
	}
	if s := sum.Total; s.Articles != 3 || s.Stored != 3 || s.NotArticle != 2 || s.Fetched != 5 || s.Errors != 0 {
		t.Errorf("stats %+v", s)
	}
	if sum.Total.SkippedExtension != 1 {
		t.Errorf("SkippedExtension = %d, want 1", sum.Total.SkippedExtension)
	}
}

func TestRobotsDisallow(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: Baiduspider\nAllow: /\n\nUser-agent: *\nDisallow: /private/\nDisallow: /api/\n"),
		"/":           listPage("/art/1", "/private/art/2", "/private/list", "/api/vote?id=1"),
		"/art/*":      article("a"),
		"/private/*":  article("secret"),
		"/api/*":      text(200, "{}"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].StartURLs = append(c.Sites[0].StartURLs, ts.URL+"/private/start")
	})
	sum, st, proc := crawlOnce(t, cfg, Options{})
	for _, uri := range ts.requests() {
		if strings.HasPrefix(uri, "/private/") || strings.HasPrefix(uri, "/api/") {
			t.Errorf("robots violation: fetched %s", uri)
		}
	}
	if proc.urls()[ts.URL+"/art/1"] == nil {
		t.Error("allowed article not processed")
	}
	// 3 links blocked at discovery, 1 start URL blocked when popped.
	if sum.Total.RobotsBlocked != 4 {
		t.Errorf("RobotsBlocked = %d, want 4", sum.Total.RobotsBlocked)
	}
	if _, err := st.PageOf(context.Background(), ts.URL+"/private/start"); err == nil {
		t.Error("disallowed URL stored as a page")
	}
	if ts.hit("/robots.txt") != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", ts.hit("/robots.txt"))
	}
}

func TestRobots404AllowsAll(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, "no robots here"),
		"/":           listPage("/private/art/1"),
		"/private/*":  article("a"),
	})
	_, _, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
	if proc.count() != 1 {
		t.Fatalf("processed %d articles, want 1", proc.count())
	}
}

func TestRobots500NothingFetched(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(500, "oops"),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
	})
	sum, st, _ := crawlOnce(t, testConfig(t, ts.URL), Options{})
	if reqs := ts.requests(); !slices.Equal(reqs, []string{"/robots.txt"}) {
		t.Errorf("requests %v, want only /robots.txt", reqs)
	}
	wantErrorPage(t, st, ts.URL+"/", KindRobotsUnavailable, false)
	if len(sum.Warnings) != 2 || !strings.Contains(sum.Warnings[0], "robots.txt answered http 500") ||
		!strings.Contains(sum.Warnings[1], "no start page could be fetched") {
		t.Errorf("warnings %q", sum.Warnings)
	}
	if !sum.NothingFetched {
		t.Error("summary does not say that nothing could be fetched")
	}
}

func TestRobotsTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
		"/": listPage("/art/1"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Fetch.Timeout = config.Duration(300 * time.Millisecond) })
	start := time.Now()
	sum, st, _ := crawlOnce(t, cfg, Options{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("run took %s", d)
	}
	if ts.hit("/") != 0 {
		t.Error("page fetched although robots.txt timed out")
	}
	p := wantErrorPage(t, st, ts.URL+"/", KindRobotsUnavailable, false)
	if !strings.Contains(p.Err, "timeout") {
		t.Errorf("error %q does not mention the timeout", p.Err)
	}
	if len(sum.Warnings) != 2 || !strings.Contains(sum.Warnings[1], "no start page could be fetched") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

func TestRobotsRedirectFollowed(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt":  redirect(301, "/robots2.txt"),
		"/robots2.txt": text(200, "User-agent: *\nDisallow: /art/2\n"),
		"/":            listPage("/art/1", "/art/2"),
		"/art/*":       article("a"),
	})
	_, _, _ = crawlOnce(t, testConfig(t, ts.URL), Options{})
	if ts.hit("/art/2") != 0 || ts.hit("/art/1") != 1 {
		t.Errorf("hits art/1=%d art/2=%d; robots.txt redirect not followed", ts.hit("/art/1"), ts.hit("/art/2"))
	}
}

func TestCrawlDelayHonoured(t *testing.T) {
	clk := newFakeClock()
	var mu sync.Mutex
	var starts []time.Time
	record := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			starts = append(starts, clk.Now())
			mu.Unlock()
			h(w, r)
		}
	}
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": record(text(200, "User-agent: *\nCrawl-delay: 5\n")),
		"/":           record(listPage("/art/1", "/art/2", "/art/3")),
		"/art/*":      record(article("a")),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].Delay = config.Duration(time.Second) // the larger Crawl-delay wins
		c.Sites[0].Parallelism = 1
	})
	_, _, proc := crawlOnce(t, cfg, Options{Clock: clk})
	if proc.count() != 3 {
		t.Fatalf("processed %d, want 3", proc.count())
	}
	if len(starts) != 5 {
		t.Fatalf("%d requests, want 5", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < 5*time.Second {
			t.Errorf("request %d started %s after the previous one, want >= 5s", i, gap)
		}
	}
}

func TestPacerSpacingUnderConcurrency(t *testing.T) {
	clk := newFakeClock()
	p := newPacer(clk)
	const n, delay = 50, 2 * time.Second
	var mu sync.Mutex
	var got []time.Time
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := p.reserve("h:1", delay)
			mu.Lock()
			got = append(got, s)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.SortFunc(got, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < n; i++ {
		if d := got[i].Sub(got[i-1]); d < delay {
			t.Fatalf("reservations %d and %d are %s apart, want >= %s", i-1, i, d, delay)
		}
	}
	if s, _ := p.reserve("other:1", delay); !s.Equal(clk.Now()) {
		t.Errorf("another host waited: %s", s.Sub(clk.Now()))
	}
}

func TestCrawlDelayTooLargeSkipsHost(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nCrawl-delay: 3600\nDisallow: /private/\n"),
		"/":           listPage("/art/1"),
	})
	start := time.Now()
	sum, st, _ := crawlOnce(t, testConfig(t, ts.URL), Options{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("run took %s: a large Crawl-delay must not hang the crawl", d)
	}
	if ts.hit("/") != 0 {
		t.Error("page fetched from a host whose Crawl-delay is too large")
	}
	wantErrorPage(t, st, ts.URL+"/", KindCrawlDelay, false)
	if len(sum.Warnings) != 2 || !strings.Contains(sum.Warnings[0], "Crawl-delay 1h0m0s exceeds") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

func TestGzipBomb(t *testing.T) {
	// 64 gzip members of 1 MiB of zeros each (a valid multi-member gzip
	// stream, about 64 KiB) inflate to 64 MiB; the limit is 1 MiB.
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	bomb := bytes.NewBuffer(bytes.Repeat(member.Bytes(), 64))
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/bomb"),
		"/art/bomb": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
		},
	})
	cfg := testConfig(t, ts.URL)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, st, _ := crawlOnce(t, cfg, Options{})
	runtime.ReadMemStats(&after)
	p := wantErrorPage(t, st, ts.URL+"/art/bomb", KindTooLarge, true)
	if !strings.Contains(p.Err, "after decompression") {
		t.Errorf("error %q", p.Err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
		t.Errorf("crawl allocated %d MiB for a 64 MiB bomb with a 1 MiB limit", alloc>>20)
	}
	if ts.hit("/art/bomb") != 1 {
		t.Errorf("bomb fetched %d times: too_large must not be retried", ts.hit("/art/bomb"))
	}
}

func TestOversizedPage(t *testing.T) {
	big := bytes.Repeat([]byte("<p>新闻段落重复出现。</p>\n"), 12<<20/30)
	tests := []struct {
		name    string
		chunked bool
	}{
		{"content-length", false},
		{"chunked", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(404, ""),
				"/":           listPage("/art/big"),
				"/art/big": func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					if !tc.chunked {
						w.Header().Set("Content-Length", fmt.Sprint(len(big)))
					}
					for i := 0; i < len(big); i += 1 << 20 {
						w.Write(big[i:min(i+1<<20, len(big))])
						if tc.chunked {
							w.(http.Flusher).Flush()
						}
					}
				},
			})
			cfg := testConfig(t, ts.URL, func(c *config.Config) {
				c.Fetch.MaxBody = 10 << 20
				c.Fetch.Timeout = config.Duration(10 * time.Second)
			})
			_, st, proc := crawlOnce(t, cfg, Options{})
			if proc.count() != 0 {
				t.Fatal("oversized page handed to the processor (truncated?)")
			}
			wantErrorPage(t, st, ts.URL+"/art/big", KindTooLarge, true)
		})
	}
}

func TestServerError500OnceThenOK(t *testing.T) {
	var calls atomic.Int32
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/1": func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				text(500, "try again")(w, r)
				return
			}
			article("ok")(w, r)
		},
	})
	clk := newFakeClock()
	sum, st, proc := crawlOnce(t, testConfig(t, ts.URL), Options{Clock: clk})
	if proc.count() != 1 || pageOf(t, st, ts.URL+"/art/1").Outcome != storage.OutcomeStored {
		t.Fatalf("article not processed after retry")
	}
	if sum.Total.Retries != 1 || calls.Load() != 2 {
		t.Errorf("retries %d, calls %d; want 1 and 2", sum.Total.Retries, calls.Load())
	}
}

func TestTooManyRequestsRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		wantCalls  int32
		wantStored bool
	}{
		{"seconds honoured", "7", 2, true},
		{"http date honoured", "", 2, true}, // filled in below: now + 7s
		{"too long given up", "3600", 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			ra := tc.retryAfter
			if ra == "" {
				ra = clk.Now().Add(7 * time.Second).Format(http.TimeFormat)
			}
			var calls atomic.Int32
			var retryAt time.Time
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(404, ""),
				"/":           listPage("/art/1"),
				"/art/1": func(w http.ResponseWriter, r *http.Request) {
					if calls.Add(1) == 1 {
						w.Header().Set("Retry-After", ra)
						text(429, "slow down")(w, r)
						return
					}
					retryAt = clk.Now()
					article("ok")(w, r)
				},
			})
			start := clk.Now()
			_, st, proc := crawlOnce(t, testConfig(t, ts.URL), Options{Clock: clk})
			if calls.Load() != tc.wantCalls {
				t.Errorf("calls = %d, want %d", calls.Load(), tc.wantCalls)
			}
			if tc.wantStored {
				if proc.count() != 1 {
					t.Fatal("article not processed")
				}
				if d := retryAt.Sub(start); d < 7*time.Second {
					t.Errorf("retried %s after the 429, want >= 7s", d)
				}
				return
			}
			p := wantErrorPage(t, st, ts.URL+"/art/1", "http_429", false)
			if !strings.Contains(p.Err, "Retry-After") {
				t.Errorf("error %q", p.Err)
			}
		})
	}
}

func TestRedirectToArticle(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/r/abc", "/r/again"),
		"/r/abc":      redirect(302, "/art/1?utm_source=x"),
		"/r/again":    redirect(301, "/art/1"),
		"/art/1":      article("a"),
	})
	sum, st, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
	got := proc.urls()
	r := got[ts.URL+"/art/1"]
	if r == nil || proc.count() != 1 {
		t.Fatalf("processed %d responses, want the article once under its final URL", proc.count())
	}
	if !strings.HasPrefix(r.RequestURL, ts.URL+"/r/") {
		t.Errorf("RequestURL = %q", r.RequestURL)
	}
	if pageOf(t, st, ts.URL+"/art/1").Outcome != storage.OutcomeStored {
		t.Error("article not stored under the final URL")
	}
	if sum.FrontierLeft != 0 || !sum.Completed {
		t.Errorf("frontier left %d", sum.FrontierLeft)
	}
	if ts.hit("/r/abc")+ts.hit("/r/again") != 2 {
		t.Errorf("redirects requested %d+%d times", ts.hit("/r/abc"), ts.hit("/r/again"))
	}
}

func TestRedirectErrors(t *testing.T) {
	other := newTestServer(t, map[string]http.HandlerFunc{"/*": article("elsewhere")})
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
		"/":           listPage("/loop/a", "/chain/0", "/away", "/sneak"),
		"/loop/a":     redirect(302, "/loop/b"),
		"/loop/b":     redirect(302, "/loop/a"),
		"/chain/*": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/chain/"), "%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusFound)
		},
		"/away":      redirect(302, otherURL+"/art/9"),
		"/sneak":     redirect(301, "/private/art/1"),
		"/private/*": article("secret"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Fetch.MaxRedirects = 3 })
	_, st, proc := crawlOnce(t, cfg, Options{})
	tests := []struct {
		uri, kind string
	}{
		{"/loop/a", KindRedirectLoop},
		{"/chain/0", KindTooManyRedirects},
		{"/away", KindRedirectDisallowed},
		{"/sneak", KindRedirectDisallowed},
	}
	for _, tc := range tests {
		// Not article URLs: their errors are retried by the next run.
		wantErrorPage(t, st, ts.URL+tc.uri, tc.kind, false)
	}
	if proc.count() != 0 {
		t.Errorf("processor got %d pages", proc.count())
	}
	if len(other.requests()) != 0 || ts.hit("/private/art/1") != 0 {
		t.Errorf("disallowed redirect targets were fetched: other=%v private=%d", other.requests(), ts.hit("/private/art/1"))
	}
	if n := ts.hit("/chain/4"); n != 0 {
		t.Errorf("followed more than max_redirects hops")
	}
}

func TestSlowPageDoesNotStallOthers(t *testing.T) {
	const others = 10
	var served atomic.Int32
	othersDone := make(chan struct{})
	stalled := make(chan struct{}, 1)
	links := append([]string{"/art/slow"}, artLinks(others)...)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(links...),
		"/art/slow": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-othersDone:
			case <-time.After(3 * time.Second):
				stalled <- struct{}{}
			}
			article("slow")(w, r)
		},
		"/art/*": func(w http.ResponseWriter, r *http.Request) {
			article("fast")(w, r)
			if served.Add(1) == others {
				close(othersDone)
			}
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Fetch.Timeout = config.Duration(5 * time.Second) })
	_, _, proc := crawlOnce(t, cfg, Options{})
	select {
	case <-stalled:
		t.Fatal("the other pages were not fetched while the slow page was in flight")
	default:
	}
	if proc.count() != others+1 {
		t.Errorf("processed %d, want %d", proc.count(), others+1)
	}
}

func TestSlowLorisTimeout(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/trickle"),
		"/art/trickle": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(200)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
					w.Write([]byte("x"))
					w.(http.Flusher).Flush()
				}
			}
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Fetch.Timeout = config.Duration(400 * time.Millisecond)
		c.Fetch.ConnectTimeout = config.Duration(200 * time.Millisecond) // idle timeout: never reached by the trickle
		c.Fetch.Retries = 1
	})
	start := time.Now()
	_, st, proc := crawlOnce(t, cfg, Options{Clock: newFakeClock()})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("run took %s", d)
	}
	p := wantErrorPage(t, st, ts.URL+"/art/trickle", KindTimeout, false)
	if !strings.Contains(p.Err, "request timeout") {
		t.Errorf("error %q: want the overall timeout", p.Err)
	}
	if proc.count() != 0 {
		t.Error("trickled page processed")
	}
}

func TestIdleReadTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/stall"),
		"/art/stall": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(200)
			w.Write([]byte("<html>"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Fetch.Timeout = config.Duration(5 * time.Second)
		c.Fetch.ConnectTimeout = config.Duration(200 * time.Millisecond)
		c.Fetch.Retries = 0
	})
	start := time.Now()
	_, st, _ := crawlOnce(t, cfg, Options{})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stalled body detected after %s; the idle timeout is 200ms", d)
	}
	p := wantErrorPage(t, st, ts.URL+"/art/stall", KindTimeout, false)
	if !strings.Contains(p.Err, "idle read timeout") {
		t.Errorf("error %q", p.Err)
	}
}

func TestConnectionResetMidBody(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/reset"),
		"/art/reset": func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<html><body>partial")
			buf.Flush()
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // close with RST
			}
			conn.Close()
		},
	})
	sum, st, proc := crawlOnce(t, testConfig(t, ts.URL), Options{Clock: newFakeClock()})
	wantErrorPage(t, st, ts.URL+"/art/reset", KindNetwork, false)
	if proc.count() != 0 {
		t.Error("partial body processed")
	}
	if sum.Total.Retries != 2 || ts.hit("/art/reset") != 3 {
		t.Errorf("retries %d, hits %d; want 2 and 3", sum.Total.Retries, ts.hit("/art/reset"))
	}
}

func TestDNSFailure(t *testing.T) {
	tests := []struct {
		name   string
		robots bool
		kind   string
	}{
		{"page", false, KindDNS},
		{"robots", true, KindRobotsUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "http://no-such-host.invalid", func(c *config.Config) {
				c.Sites[0].AllowedDomains = []string{"no-such-host.invalid"}
				c.Fetch.IgnoreRobots = !tc.robots
			})
			_, st, _ := crawlOnce(t, cfg, Options{Clock: newFakeClock()})
			wantErrorPage(t, st, "http://no-such-host.invalid/", tc.kind, false)
		})
	}
}

func TestCalendarTrapBoundedByMaxDepth(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/calendar/1"),
		"/calendar/*": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/calendar/"), "%d", &n)
			links := []string{fmt.Sprintf("/calendar/%d", n+1), "/"}
			if n > 1 {
				links = append(links, fmt.Sprintf("/calendar/%d", n-1))
			}
			listPage(links...)(w, r)
		},
	})
	sum, _, _ := crawlOnce(t, testConfig(t, ts.URL), Options{})
	for n := 1; n <= 3; n++ {
		if ts.hit(fmt.Sprintf("/calendar/%d", n)) != 1 {
			t.Errorf("/calendar/%d fetched %d times", n, ts.hit(fmt.Sprintf("/calendar/%d", n)))
		}
	}
	if ts.hit("/calendar/4") != 0 {
		t.Error("calendar trap followed beyond max_depth")
	}
	if sum.Total.SkippedDepth != 1 {
		t.Errorf("SkippedDepth = %d, want 1", sum.Total.SkippedDepth)
	}
}

func TestTrapAndLengthGuards(t *testing.T) {
	long := "/art/" + strings.Repeat("a", 200)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/a/b/a/b/a/list", "/1/2/3/4/5/6/7/8/9/10/11/12/13", long, "/ok"),
		"/*":          listPage(),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Fetch.MaxURLLength = 128 })
	sum, _, _ := crawlOnce(t, cfg, Options{})
	if got := ts.requests(); !slices.Equal(got, []string{"/robots.txt", "/", "/ok"}) {
		t.Errorf("requests %v", got)
	}
	if s := sum.Total; s.SkippedTrap != 2 || s.SkippedURLLength != 1 {
		t.Errorf("SkippedTrap %d SkippedURLLength %d, want 2 and 1", s.SkippedTrap, s.SkippedURLLength)
	}
}

func TestURLVariantsFetchedOnce(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1?utm_source=weibo", "/art/1#comments", "art/1?utm_medium=x&spm=1.2", "/art/1", "./art/../art/./1"),
		"/art/*":      article("a"),
	})
	_, _, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
	if reqs := ts.requests(); slices.Index(reqs, "/art/1") < 0 || len(reqs) != 3 {
		t.Errorf("requests %v, want robots, / and /art/1 once", reqs)
	}
	if proc.count() != 1 {
		t.Errorf("processed %d", proc.count())
	}
}

// TestSessionIDsFetchedOnce: a site that writes a fresh session id into
// every link of every response (";jsessionid=", PHPSESSID) is not an
// endless supply of new URLs: each list page and article is fetched once.
func TestSessionIDsFetchedOnce(t *testing.T) {
	var n atomic.Int64
	session := func(w http.ResponseWriter, r *http.Request) {
		id := n.Add(1)
		listPage(
			fmt.Sprintf("/list;jsessionid=%08X", id),
			fmt.Sprintf("/list2?PHPSESSID=%d", id),
			fmt.Sprintf("/art/1;jsessionid=%08X", id),
			fmt.Sprintf("/art/2?PHPSESSID=%d&sessionid=%d", id, id),
		)(w, r)
	}
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           session,
		"/list*":      session,
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].FollowURL = `/list`
		c.Sites[0].MaxDepth = 4
	})
	crawlOnce(t, cfg, Options{})
	counts := map[string]int{}
	for _, r := range ts.requests() {
		counts[r]++
	}
	for _, want := range []string{"/", "/list", "/list2", "/art/1", "/art/2"} {
		if counts[want] != 1 {
			t.Errorf("%s requested %d times, want once (requests %v)", want, counts[want], ts.requests())
		}
	}
	if len(ts.requests()) != 6 {
		t.Errorf("%d requests, want 6 (robots.txt and five pages): %v", len(ts.requests()), ts.requests())
	}
}

func TestSitesOnOneHostStayApart(t *testing.T) {
	b := newTestServer(t, map[string]http.HandlerFunc{"/*": article("b")})
	a := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(b.URL+"/art/1", "/art/2"),
		"/art/*":      article("a"),
	})
	_, _, proc := crawlOnce(t, testConfig(t, a.URL), Options{})
	if len(b.requests()) != 0 {
		t.Errorf("site on another port fetched: %v", b.requests())
	}
	if proc.count() != 1 {
		t.Errorf("processed %d", proc.count())
	}
}

func TestEmptyBody(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/empty", "/art/gzempty"),
		"/art/empty": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
		},
		"/art/gzempty": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
		},
	})
	_, st, proc := crawlOnce(t, testConfig(t, ts.URL), Options{Clock: newFakeClock()})
	wantErrorPage(t, st, ts.URL+"/art/empty", KindEmptyBody, false)
	wantErrorPage(t, st, ts.URL+"/art/gzempty", KindEmptyBody, false)
	if proc.count() != 0 {
		t.Error("empty page processed")
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/gone", "/art/forbidden", "/art/down", "/art/pdf"),
		"/art/gone":   text(404, "gone"),
		"/art/forbidden": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(403)
		},
		"/art/down": text(503, "maintenance"),
		"/art/pdf": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4"))
		},
	})
	sum, st, _ := crawlOnce(t, testConfig(t, ts.URL), Options{Clock: newFakeClock()})
	wantErrorPage(t, st, ts.URL+"/art/gone", "http_404", true)
	wantErrorPage(t, st, ts.URL+"/art/forbidden", "http_403", true)
	wantErrorPage(t, st, ts.URL+"/art/down", "http_503", false)
	wantErrorPage(t, st, ts.URL+"/art/pdf", KindNotHTML, true)
	if ts.hit("/art/gone") != 1 || ts.hit("/art/down") != 3 {
		t.Errorf("404 fetched %d times (want 1), 503 %d times (want 1+2 retries)", ts.hit("/art/gone"), ts.hit("/art/down"))
	}
	if sum.Total.ErrorKinds["http_404"] != 1 || sum.Total.Errors != 4 {
		t.Errorf("errors %d %v", sum.Total.Errors, sum.Total.ErrorKinds)
	}
}

func TestBaseHref(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<html><head><base href="/news/"></head><body><a href="art/1">x</a><A HREF='../art/2'>y</A></body></html>`)
		},
		"/news/art/1": article("1"),
		"/art/2":      article("2"),
	})
	_, _, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
	if proc.count() != 2 {
		t.Errorf("processed %d, want 2 (links resolved against <base href>)", proc.count())
	}
}

func TestMaxPages(t *testing.T) {
	links := artLinks(10)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(links...),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].MaxPages = 4 })
	sum, st, proc := crawlOnce(t, cfg, Options{})
	if proc.count() != 3 {
		t.Errorf("processed %d articles, want 3 (start page + 3 = max_pages 4)", proc.count())
	}
	if sum.Completed || sum.FrontierLeft != 7 {
		t.Errorf("completed %v, frontier left %d; want false and 7", sum.Completed, sum.FrontierLeft)
	}
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "max_pages 4") {
		t.Errorf("warnings %q", sum.Warnings)
	}
	// The next run resumes from the frontier.
	sum2, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// It pops the 4 oldest pending articles; the start page, pushed again,
	// waits behind the other 3.
	if proc.count() != 7 || sum2.FrontierLeft != 4 {
		t.Errorf("after 2nd run: processed %d, left %d; want 7 and 4", proc.count(), sum2.FrontierLeft)
	}
}

func TestNoArticleMatchWarning(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/story/1"),
		"/story/1":    article("a"),
	})
	sum, _, _ := crawlOnce(t, testConfig(t, ts.URL), Options{})
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "no URL matched article_url") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

func TestFollowURLRestrictsListPages(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/list/2", "/video/1.html", "/art/1"),
		"/list/2":     listPage("/art/2"),
		"/*":          article("x"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].FollowURL = `/(list/\d+)?$` })
	_, _, proc := crawlOnce(t, cfg, Options{})
	if ts.hit("/video/1.html") != 0 {
		t.Error("URL matching neither article_url nor follow_url fetched")
	}
	if proc.count() != 2 {
		t.Errorf("processed %d, want 2", proc.count())
	}
}

func TestResetAfterCompletedRun(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1", "/art/2"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL)
	sum, st, proc := crawlOnce(t, cfg, Options{})
	if !sum.Completed {
		t.Fatal("first run did not complete")
	}
	if n, _ := st.Pending(context.Background(), ""); n != 0 {
		t.Fatalf("frontier not reset: %d pending", n)
	}
	if _, err := runCrawl(t, context.Background(), cfg, st, proc, Options{}); err != nil {
		t.Fatal(err)
	}
	if ts.hit("/") != 2 {
		t.Errorf("start page fetched %d times over two runs, want 2", ts.hit("/"))
	}
	if ts.hit("/art/1") != 1 || proc.count() != 2 {
		t.Errorf("decided article re-fetched: hits %d, processed %d", ts.hit("/art/1"), proc.count())
	}
}

func TestCancellationAndResume(t *testing.T) {
	const total = 30
	links := artLinks(total)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served atomic.Int32
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(links...),
		"/art/*": func(w http.ResponseWriter, r *http.Request) {
			if served.Add(1) == 5 {
				cancel()
			}
			time.Sleep(10 * time.Millisecond)
			article("a")(w, r)
		},
	})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	proc := &recProc{store: st}
	start := time.Now()
	sum, err := runCrawl(t, ctx, cfg, st, proc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancelled run took %s to return", d)
	}
	if !sum.Interrupted || sum.Completed || sum.FrontierLeft == 0 {
		t.Fatalf("summary interrupted=%v completed=%v left=%d", sum.Interrupted, sum.Completed, sum.FrontierLeft)
	}
	first := proc.count()
	if first >= total {
		t.Fatalf("all %d articles processed before the cancellation took effect", first)
	}
	sum2, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sum2.Completed {
		t.Error("resumed run did not complete")
	}
	seen := map[string]int{}
	for _, r := range proc.got {
		seen[r.URL]++
	}
	if len(seen) != total {
		t.Errorf("%d distinct articles processed over both runs, want %d", len(seen), total)
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s processed %d times", u, n)
		}
	}
}

// orderStore records the order of frontier and commit operations.
type orderStore struct {
	*memory.Store
	mu  sync.Mutex
	ops []string
}

func (s *orderStore) log(op string) {
	s.mu.Lock()
	s.ops = append(s.ops, op)
	s.mu.Unlock()
}

func (s *orderStore) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	for _, it := range items {
		s.log("push-from " + it.Referer)
	}
	return s.Store.Push(ctx, items)
}

func (s *orderStore) Commit(ctx context.Context, c *storage.Commit) error {
	s.log("commit " + c.Page.URL)
	return s.Store.Commit(ctx, c)
}

func (s *orderStore) Done(ctx context.Context, u string) error {
	s.log("done " + u)
	return s.Store.Done(ctx, u)
}

func TestLinksPushedAndPageCommittedBeforeDone(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/list/2", "/art/1"),
		"/list/2":     listPage("/art/2"),
		"/art/1":      listPage("/art/3"),
		"/art/*":      article("a"),
	})
	st := &orderStore{Store: memory.New()}
	if _, err := runCrawl(t, context.Background(), testConfig(t, ts.URL), st, &recProc{store: st}, Options{}); err != nil {
		t.Fatal(err)
	}
	idx := func(op string) int { return slices.Index(st.ops, op) }
	for _, page := range []string{"/", "/list/2", "/art/1"} {
		u := ts.URL + page
		d := idx("done " + u)
		if d < 0 {
			t.Fatalf("%s never done; ops %q", u, st.ops)
		}
		if p := idx("push-from " + u); p < 0 || p > d {
			t.Errorf("links of %s pushed at %d, done at %d", u, p, d)
		}
		if c := idx("commit " + u); c < 0 || c > d {
			t.Errorf("%s committed at %d, done at %d", u, c, d)
		}
	}
}

func TestProcessorErrorIsFatal(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
	})
	st := memory.New()
	proc := &recProc{store: st, fail: ts.URL + "/art/1"}
	sum, err := runCrawl(t, context.Background(), testConfig(t, ts.URL), st, proc, Options{})
	if err == nil || !strings.Contains(err.Error(), "simulated store failure") {
		t.Fatalf("Run error = %v, want the processor's failure", err)
	}
	if sum.Completed {
		t.Error("failed run reported as completed")
	}
	if n, _ := st.Pending(context.Background(), ""); n != 1 {
		t.Errorf("pending %d, want the failed article to stay in the frontier", n)
	}
	if _, err := st.PageOf(context.Background(), ts.URL+"/art/1"); err == nil {
		t.Error("failed article recorded")
	}
}

func TestDiscardProcessor(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
	})
	st := memory.New()
	sum, err := runCrawl(t, context.Background(), testConfig(t, ts.URL), st, Discard{Store: st}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := pageOf(t, st, ts.URL+"/art/1"); p.Outcome != storage.OutcomeNotArticle {
		t.Errorf("outcome %q", p.Outcome)
	}
	if sum.Total.Articles != 1 || sum.Total.NotArticle != 2 {
		t.Errorf("stats %+v", sum.Total)
	}
}

func TestProgressAndSiteFilter(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		other := c.Sites[0]
		other.Name = "other"
		other.StartURLs = []string{"http://no-such-host.invalid/"}
		other.AllowedDomains = []string{"no-such-host.invalid"}
		c.Sites = append(c.Sites, other)
	})
	var mu sync.Mutex
	var snaps []Snapshot
	progress := func(s Snapshot) {
		mu.Lock()
		snaps = append(snaps, s)
		mu.Unlock()
	}
	sum, _, _ := crawlOnce(t, cfg, Options{Sites: []string{"t"}, Progress: progress, ProgressEvery: time.Millisecond})
	mu.Lock()
	defer mu.Unlock()
	if len(snaps) == 0 || snaps[len(snaps)-1].Total.Articles != 1 {
		t.Fatalf("progress snapshots %+v", snaps)
	}
	if len(sum.Sites) != 1 || sum.Sites[0].Name != "t" {
		t.Errorf("summary sites %+v", sum.Sites)
	}
	if _, err := New(cfg, memory.New(), Discard{}, Options{Sites: []string{"nope"}}); err == nil {
		t.Error("unknown site accepted")
	}
}

func TestConcurrentRedirectsToOneArticleProcessedOnce(t *testing.T) {
	links := []string{"/art/1"}
	for i := range 8 {
		links = append(links, fmt.Sprintf("/r/%d", i))
	}
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(links...),
		"/r/*":        redirect(302, "/art/1"),
		"/art/1":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].Parallelism = 8 })
	st := memory.New()
	proc := &recProc{store: st, delay: 50 * time.Millisecond} // widen the race window
	sum, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if proc.count() != 1 {
		t.Errorf("article processed %d times, want once", proc.count())
	}
	if sum.Total.SkippedDecided == 0 {
		t.Error("no redirect skipped as already decided")
	}
}
