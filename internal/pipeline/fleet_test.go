package pipeline

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture"
)

// pathCounter counts the requests of a fixture portal per path.
type pathCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *pathCounter) wrap(site string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n[site+" "+r.URL.Path]++
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (c *pathCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// TestFleetListSurfaces: three crawls of one postgres:// store (with and
// without the shared Redis frontier) run at once with fetch.list_interval
// 1m: each list page (and the short link) is requested by one of them
// only; a crawl started straight after requests no list page at all.
func TestFleetListSurfaces(t *testing.T) {
	for _, tc := range []struct {
		name  string
		redis bool
	}{{"postgres", false}, {"postgres+redis", true}} {
		t.Run(tc.name, func(t *testing.T) {
			db := pgSchema(t)
			counter := &pathCounter{n: map[string]int{}}
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
			cfg.Storage, cfg.Fetch.ListInterval = db, config.Duration(time.Minute)
			if tc.redis {
				cfg.Redis = redisURL(t)
			}
			seg, err := NewSegmenter(cfg.Segment)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var wg sync.WaitGroup
			var errs [3]error
			for k := range errs {
				wg.Go(func() {
					_, errs[k] = Crawl(ctx, &cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg})
				})
			}
			wg.Wait()
			for k, err := range errs {
				if err != nil {
					t.Fatalf("crawl %d: %v", k, err)
				}
			}
			article := regexp.MustCompile(`/news/\d{4}/\d{4}/[a-z0-9]+\.html$|/a/\d{8}/\d+\.htm$`)
			lists := 0
			for k, n := range counter.take() {
				if strings.HasSuffix(k, "/robots.txt") || article.MatchString(k) {
					continue
				}
				lists++
				if n != 1 {
					t.Errorf("%s requested %d times by the fleet, want once", k, n)
				}
			}
			if lists < 4 {
				t.Errorf("the fleet requested %d list surfaces, want the fixture's 5", lists)
			}
			res, err := Crawl(ctx, &cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg})
			if err != nil {
				t.Fatal(err)
			}
			for k := range counter.take() {
				if !strings.HasSuffix(k, "/robots.txt") {
					t.Errorf("a crawl within fetch.list_interval requested %s", k)
				}
			}
			if res.Summary.Total.SurfacesNotDue == 0 {
				t.Errorf("the later crawl's summary counts no surface not due: %+v", res.Summary.Total)
			}
		})
	}
}
