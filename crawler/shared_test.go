package crawler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
)

// redisNamespace returns the test Redis server's URL and a fresh key
// namespace deleted after the test; without a server (NEWSCRAWL_TEST_REDIS)
// the test skips, or fails when CI is set.
func redisNamespace(t *testing.T) (url, ns string) {
	t.Helper()
	url = os.Getenv("NEWSCRAWL_TEST_REDIS")
	if url == "" {
		msg := "NEWSCRAWL_TEST_REDIS is not set: no Redis server to test against (start one with `eval \"$(.ci/services.sh)\"`)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	ns = "nccrawl:" + hex.EncodeToString(rnd[:]) + ":"
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() {
		ctx := context.Background()
		keys, err := rdb.Keys(ctx, ns+"*").Result()
		if err == nil && len(keys) > 0 {
			err = rdb.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("clean namespace %s: %v", ns, err)
		}
		rdb.Close()
	})
	return url, ns
}

// schedSlack is the scheduling slack allowed between a start reserved on
// the Redis clock and the request's arrival at the test server (goroutine
// wake-up, a GC pause or a new connection on a loaded machine, under the
// race detector). One gap may lose up to half the delay to it; the span of
// all requests may lose schedSlack.
const schedSlack = 50 * time.Millisecond

// TestGlobalPoliteness: three crawlers (three processes: each its own
// store and its own connection to Redis) crawl one host at once. With the
// Redis pacer and robots share, the requests the server receives are never
// closer than the host's delay (the site's, or robots.txt's larger
// Crawl-delay), less scheduling slack, and robots.txt is requested once.
func TestGlobalPoliteness(t *testing.T) {
	tests := []struct {
		name       string
		siteDelay  time.Duration
		robots     string
		wantGap    time.Duration
		robotsHits int
	}{
		{"site delay", 200 * time.Millisecond, "User-agent: *\nDisallow: /private/\n", 200 * time.Millisecond, 1},
		{"crawl-delay above the site delay", 50 * time.Millisecond, "User-agent: *\nCrawl-delay: 0.25\n", 250 * time.Millisecond, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url, ns := redisNamespace(t)
			var mu sync.Mutex
			var arrivals []time.Time
			var uris []string
			record := func(h http.HandlerFunc) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					arrivals = append(arrivals, time.Now())
					uris = append(uris, r.URL.RequestURI())
					mu.Unlock()
					h(w, r)
				}
			}
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": record(text(200, tc.robots)),
				"/":           record(listPage(artLinks(3)...)),
				"/art/*":      record(article("a")),
			})
			cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].Delay = config.Duration(tc.siteDelay) })
			ctx := context.Background()
			var wg sync.WaitGroup
			for range 3 {
				st := memory.New()
				defer st.Close()
				f, err := redisfrontier.Open(ctx, url, ns, st)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				c, err := New(cfg, st, &recProc{store: st}, Options{Pacer: f, Robots: f})
				if err != nil {
					t.Fatal(err)
				}
				wg.Go(func() {
					sum, err := c.Run(ctx, 1)
					if err != nil || sum.Totals().Stored != 3 {
						t.Errorf("run: %v, stored %d, want 3", err, sum.Totals().Stored)
					}
				})
			}
			wg.Wait()
			if n := ts.hit("/robots.txt"); n != tc.robotsHits {
				t.Errorf("robots.txt requested %d times, want %d", n, tc.robotsHits)
			}
			if want := 1 + 3*4; len(arrivals) != want {
				t.Errorf("server got %d requests, want %d (robots.txt, then a list page and 3 articles per crawler)", len(arrivals), want)
			}
			if t.Failed() {
				t.Logf("requests in arrival order: %q", uris)
			}
			slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
			minGap := time.Duration(-1)
			for i := 1; i < len(arrivals); i++ {
				if gap := arrivals[i].Sub(arrivals[i-1]); minGap < 0 || gap < minGap {
					minGap = gap
				}
			}
			t.Logf("%d requests from 3 crawlers, robots.txt %d time(s), smallest gap %v (delay %v)", len(arrivals), ts.hit("/robots.txt"), minGap.Round(time.Millisecond), tc.wantGap)
			for i := 1; i < len(arrivals); i++ {
				if gap := arrivals[i].Sub(arrivals[i-1]); gap < tc.wantGap/2 {
					t.Errorf("requests %d and %d arrived %v apart, want >= %v (less half of it for scheduling)", i-1, i, gap, tc.wantGap)
				}
			}
			if n := len(arrivals); n > 1 {
				span, want := arrivals[n-1].Sub(arrivals[0]), time.Duration(n-1)*tc.wantGap
				if span < want-schedSlack {
					t.Errorf("%d requests arrived within %v, want >= %v (%d gaps of %v, less %v)", n, span, want, n-1, tc.wantGap, schedSlack)
				}
			}
		})
	}
}

// failingPacer fails every call with err.
type failingPacer struct{ err error }

func (p failingPacer) Wait(context.Context, string, time.Duration) error { return p.err }
func (p failingPacer) Hold(context.Context, string, time.Duration) error { return p.err }

// fixedShare answers every key with value (or err) without calling fetch.
type fixedShare struct {
	value []byte
	err   error
}

func (s fixedShare) Once(context.Context, string, func(context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	return s.value, s.err
}

// TestSharedFailureStopsRun: when the shared pacer or robots.txt share
// fails (Redis unreachable) or returns an answer it cannot read, the run
// stops with an error naming it; nothing is fetched without it.
func TestSharedFailureStopsRun(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:6379: connection refused")
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"pacer down", Options{Pacer: failingPacer{down}}, "shared pacer: dial tcp"},
		{"robots share down", Options{Robots: fixedShare{err: down}}, "shared robots.txt of"},
		{"robots answer unreadable", Options{Robots: fixedShare{value: []byte("?garbage")}}, "unknown kind"},
		{"robots answer empty", Options{Robots: fixedShare{value: []byte{}}}, "empty shared robots.txt answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/":      listPage(artLinks(2)...),
				"/art/*": article("a"),
			})
			cfg := testConfig(t, ts.URL)
			st := memory.New()
			defer st.Close()
			_, err := runCrawl(t, context.Background(), cfg, st, &recProc{store: st}, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run error %v, want one containing %q", err, tc.want)
			}
			if n := len(ts.requests()); n != 0 {
				t.Errorf("%d requests sent without the shared pacer or robots.txt: %q", n, ts.requests())
			}
		})
	}
}
