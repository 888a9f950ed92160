package pipeline

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture"
)

// maxExtraFetches is the share of requests a fleet may add over one
// process crawling the same web: every URL is fetched once per run
// fleet-wide, so only a URL queued again in the instant between another
// process's commit and its Done may be fetched twice.
const maxExtraFetches = 0.01

// fleetFetchDelay is the fixture sites' delay in TestFleetFetchesOnce.
const fleetFetchDelay = 100 * time.Millisecond

// arrivalCounter counts a fixture's requests per path and keeps the time
// the last page request arrived (robots.txt, which a process reads when
// it starts, even after the others have crawled everything, is not work
// left in the fleet).
type arrivalCounter struct {
	pathCounter
	last     time.Time
	lastPath string
	times    map[string][]time.Time // arrivals by site (one host each)
}

func (c *arrivalCounter) wrap(site string, h http.Handler) http.Handler {
	next := c.pathCounter.wrap(site, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		c.mu.Lock()
		if r.URL.Path != "/robots.txt" {
			c.last, c.lastPath = now, site+r.URL.RequestURI()
		}
		c.times[site] = append(c.times[site], now)
		c.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (c *arrivalCounter) lastArrival() (time.Time, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last, c.lastPath
}

// countedFixture serves the fixture portals through one request counter.
func countedFixture(t *testing.T, db string) (*config.Config, *arrivalCounter) {
	t.Helper()
	counter := &arrivalCounter{pathCounter: pathCounter{n: map[string]int{}}, times: map[string][]time.Time{}}
	var sites []fixture.Site
	for name, h := range fixture.Handlers() {
		srv := httptest.NewServer(counter.wrap(name, h))
		t.Cleanup(srv.Close)
		sites = append(sites, fixture.Site{Name: name, URL: srv.URL, Handler: h})
	}
	cfg, err := config.Parse(bytes.NewReader(fixture.SiteYAML(sites, "unused.db")))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage = db
	for i := range cfg.Sites {
		// Long enough for every crawl to start while the others
		// still hold the web's URLs.
		cfg.Sites[i].Delay = config.Duration(fleetFetchDelay)
	}
	return &cfg, counter
}

// fleetCrawl runs n crawls of cfg at once and returns their results and
// when each returned.
func fleetCrawl(t *testing.T, cfg *config.Config, n int) ([]CrawlResult, []time.Time) {
	t.Helper()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]CrawlResult, n)
	ended := make([]time.Time, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			res[k], errs[k] = Crawl(context.Background(), cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg})
			ended[k] = time.Now()
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("crawl %d of %d: %v", k, n, err)
		}
	}
	return res, ended
}

// pageRequests are the counted requests other than robots.txt (read by
// every process without Redis).
func pageRequests(counts map[string]int) (total int, byPath map[string]int) {
	byPath = map[string]int{}
	for k, n := range counts {
		if strings.HasSuffix(k, "/robots.txt") {
			continue
		}
		byPath[k] = n
		total += n
	}
	return total, byPath
}

// TestFleetFetchesOnce: three crawls started at once on one store (with
// the PostgreSQL or the Redis frontier) request the fixture web's pages as
// one crawl does, counted by the server: at most maxExtraFetches more
// requests; every crawl completes, and none returns before the fleet's
// last request arrived (no idle exit while the others seed or crawl); the
// crawls' summaries add up to the store's articles and duplicates.
func TestFleetFetchesOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		redis bool
	}{{"postgres", false}, {"postgres+redis", true}} {
		t.Run(tc.name, func(t *testing.T) {
			one, oneCount := countedFixture(t, pgSchema(t))
			fleet, fleetCount := countedFixture(t, pgSchema(t))
			if tc.redis {
				one.Redis = redisURL(t)
				fleet.Redis = one.Redis
			}
			fleetCrawl(t, one, 1)
			res, ended := fleetCrawl(t, fleet, 3)
			last, lastPath := fleetCount.lastArrival()
			want, wantBy := pageRequests(oneCount.take())
			got, gotBy := pageRequests(fleetCount.take())
			var twice []string
			for k, n := range gotBy {
				if n > wantBy[k] {
					twice = append(twice, k)
				}
			}
			slices.Sort(twice)
			t.Logf("one crawl: %d requests; three: %d; fetched more often by the fleet: %v", want, got, twice)
			if float64(got) > float64(want)*(1+maxExtraFetches) {
				t.Errorf("three crawls sent %d requests, one sent %d: over %.0f%% more", got, want, 100*maxExtraFetches)
			}
			// The processes' summaries add up to what the store holds.
			stored, dups := 0, 0
			for _, r := range res {
				stored += r.Summary.Totals().Stored
				dups += r.Summary.Totals().Duplicates
			}
			if c := corpusOf(t, fleet.Storage); stored != c.Kept || dups != c.Dropped {
				t.Errorf("the crawls' summaries count %d stored and %d duplicates, the store holds %d and %d", stored, dups, c.Kept, c.Dropped)
			}
			for k, r := range res {
				if !r.Summary.Completed {
					t.Errorf("crawl %d ended with %d URLs left", k, r.Summary.FrontierLeft)
				}
				if ended[k].Before(last) {
					t.Errorf("crawl %d (%d requests) returned %s before the fleet's last page request (%s)", k, r.Summary.Total.Requests, last.Sub(ended[k]), lastPath)
				}
			}
		})
	}
}

// snapshot copies the counts so far.
func (c *arrivalCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}
