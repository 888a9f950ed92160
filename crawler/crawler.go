// Package crawler is the fetch stage: it drains the persisted frontier of
// every configured site, fetches pages politely and robustly, discovers
// links, and hands article pages to a Processor (decode, extract, dedup,
// commit); list pages and failures it records itself.
//
// Method. A breadth-first crawl (the frontier pops oldest first) with the
// per-host politeness, robots.txt (RFC 9309) and trap guards of classic
// crawlers such as Heritrix and Mercator (Heydon & Najork 1999): one
// minimum delay between request starts per host (the site delay or the
// robots.txt Crawl-delay, whichever is larger), a parallelism limit per site
// and a global worker pool. gocolly/colly v2 is the HTTP engine for request
// building, User-Agent, cookies and the redirect hook; the scheduler,
// seen-set (the store's frontier plus an in-run set), robots.txt, body
// limits, decompression, timeouts and retries are ours, because colly's
// defaults are wrong for this crawler (see limitTransport).
//
// Crash safety: links are pushed to the frontier before their page is
// marked done, and a URL is marked done only after its outcome is committed,
// so an interrupted run loses nothing; the next run calls Requeue and
// resumes. A run whose frontier empties calls Reset, so the next run starts
// again from the start URLs (decided article URLs are skipped by Push).
//
// Decisions documented here:
//   - URLs disallowed by robots.txt are never fetched and not stored as
//     pages (they would clutter the store with URLs we never saw); they are
//     counted in SiteStats.RobotsBlocked. Redirects into disallowed space are
//     recorded as "redirect_disallowed" errors of the request URL.
//   - Hosts whose robots.txt is unreachable (5xx, timeout, network error),
//     or whose Crawl-delay exceeds fetch.max_crawl_delay, are skipped: each
//     queued URL of such a host is recorded as a transient error
//     ("robots_unavailable" / "crawl_delay_too_large") and a warning names
//     the host.
//   - A discovered URL is in a site's scope when its host is in
//     allowed_domains and its port is the scheme's default or the port of
//     one of the site's start URLs (sites served on one host, different
//     ports, stay apart).
//   - article_url and follow_url are matched against the canonical absolute
//     URL (see urlnorm.Canonical).
//   - robots.txt is read as Google reads it (package crawler/robots) and
//     matched against the URL that is requested.
//   - Permanent errors are final for article URLs only: start and list
//     pages are fetched again by every run they are due whatever their
//     last outcome, and a site whose start pages all fail gets a warning; a
//     run that fetched nothing at all says so (Summary.NothingFetched). A
//     URL that answered 404 or 410 is skipped until fetch.gone_retry has
//     passed; list pages are fetched conditionally, and less often while
//     they yield nothing new (incremental runs: surface.go).
//   - At most fetch.max_links_per_page links are read from a page (the rest
//     are counted); a <meta http-equiv="refresh"> to another URL is
//     followed like a redirect.
//   - A site's sitemaps, feeds and list APIs (and the Sitemap: lines of
//     its hosts' robots.txt) are read at the start of its work under the
//     page rules, their URLs pushed at depth 1 and counted per source
//     (sources.go, listing.go); `discover` reads them without crawling
//     (discover.go).
//   - A page's lead image is fetched only when the Processor asks
//     (Response.FetchImage), under the page rules (allowed_domains,
//     robots.txt, pacing, retries, timeouts) with its own body limit,
//     fetch.max_image. Images are not pages: they are counted in SiteStats
//     (images, images_too_large, images_skipped), never recorded or stored.
//   - The other pages of a multi-page article are fetched only when the
//     Processor asks (Response.FetchPage, pages.go), under the page rules,
//     at most MaxArticlePages per article, loops refused; they are claimed
//     for the run, so the frontier neither fetches nor processes them, and
//     the Processor records them as parts of their article.
package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
)

// Response is a fetched article page handed to the Processor.
type Response struct {
	URL        string // final canonical URL after redirects; the page is recorded under it
	RequestURL string // the frontier URL that was requested
	Site       *config.Site
	RunID      int64
	Depth      int
	Status     int
	Header     http.Header
	Body       []byte // decompressed, complete, at most fetch.max_body bytes; NOT charset-decoded
	FetchedAt  time.Time
	// Listed is the publication time a list surface (sitemap, feed, API)
	// gave for the URL; zero when none did. The Processor uses it when
	// the page itself gives no time.
	Listed time.Time
	// images fetches the page's lead image under the crawl's policy (nil
	// for a Response not made by a crawl); see FetchImage.
	images func(ctx context.Context, rawURL string) (*Image, error)
	// pages fetches the other pages of the page's article under the
	// crawl's policy (nil for a Response not made by a crawl); see
	// FetchPage. The Responses it returns share it.
	pages func(ctx context.Context, rawURL string) (*Response, error)
}

// Processor handles article pages (URLs matching the site's article_url).
// It decodes, extracts, dedups and commits the page outcome to the store
// itself (storage.Commit with Page plus Article or Duplicate, or a
// not_article or error page) and returns the outcome. A Commit answering
// storage.ErrAlreadyDecided is not an error (two URLs redirecting to one
// article race). An error return means the store failed: the crawl stops
// and the URL stays in the frontier.
type Processor interface {
	ProcessArticle(ctx context.Context, r *Response) (storage.Outcome, error)
}

// Store is what the crawler needs of a store: the persisted frontier, the
// commit of a page's outcome and whether a URL is already decided. It is
// declared here, by its consumer; storage.Store (storage/sqlite,
// storage/memory, a shared backend) implements it.
type Store interface {
	storage.Frontier
	Commit(ctx context.Context, c *storage.Commit) error
	Decided(ctx context.Context, url string) (o storage.Outcome, ok bool, err error)
	// PageOf reads a URL's last record (storage.ErrNotFound: none); the
	// crawler reopens start URLs that an older version closed for good.
	PageOf(ctx context.Context, url string) (storage.Page, error)
}

var _ Store = storage.Store(nil)

// Options tune a Crawler beyond the site file.
type Options struct {
	// Sites restricts the run to these site names (empty: every site).
	Sites []string
	// Workers bounds concurrent fetches over all sites (default: the sum of
	// the sites' parallelism, at most MaxWorkers).
	Workers int
	// Progress, when set, receives a snapshot every ProgressEvery (default
	// DefaultProgressEvery) and once when the run ends.
	Progress      func(Snapshot)
	ProgressEvery time.Duration
	Logger        *slog.Logger
	// Transport replaces the network transport (tests, proxies). The
	// crawler's limits (body size, decompression, timeouts) still apply on
	// top of it.
	Transport http.RoundTripper
	// Clock drives politeness delays and retry backoff (default: real time).
	Clock Clock
	// RetryBase is the first retry backoff (default DefaultRetryBase).
	RetryBase time.Duration
	// OnFetch, when set, is called after every HTTP attempt with the site,
	// the URL, the status (0: no response) and the attempt's duration
	// (politeness waits excluded). It must be quick and safe for
	// concurrent use (metrics).
	OnFetch func(site, url string, status int, d time.Duration)
	// Pacer, when set, paces hosts together with the other processes
	// sharing it (global politeness); nil: this process paces on its own.
	Pacer Pacer
	// Robots, when set, shares robots.txt answers with the other processes
	// (one fetch per origin while the answer is cached); nil: each run
	// fetches its own.
	Robots RobotsShare
	// Archive, when set, is given every exchange of the run whose body
	// was read (pages, surfaces, robots.txt, images, redirect hops), from
	// the fetching goroutines at once: it must be safe for concurrent
	// use. An error stops the run like a store failure.
	Archive func(Exchange) error
}

// Defaults for Options.
const (
	DefaultProgressEvery = 10 * time.Second
	DefaultRetryBase     = time.Second
	MaxWorkers           = 64
)

// Crawler fetches the configured sites into a store. One Crawler runs one
// crawl at a time.
type Crawler struct {
	cfg     *config.Config
	store   Store
	proc    Processor
	opts    Options
	log     *slog.Logger
	clock   Clock
	sites   []*config.Site
	net     http.RoundTripper
	workers int
	running atomic.Bool
}

// New checks the configuration and returns a Crawler for the selected sites.
func New(cfg *config.Config, store Store, proc Processor, opts Options) (*Crawler, error) {
	if cfg == nil || store == nil || proc == nil {
		return nil, errors.New("crawler: config, store and processor are required")
	}
	c := &Crawler{cfg: cfg, store: store, proc: proc, opts: opts, log: opts.Logger, clock: opts.Clock}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.clock == nil {
		c.clock = realClock{}
	}
	want := make(map[string]bool, len(opts.Sites))
	for _, s := range opts.Sites {
		want[s] = true
	}
	var problems []string
	found := make(map[string]bool, len(want))
	for i := range cfg.Sites {
		s := &cfg.Sites[i]
		if len(want) > 0 && !want[s.Name] {
			continue
		}
		found[s.Name] = true
		if _, err := compileSite(s); err != nil {
			problems = append(problems, err.Error())
		}
		c.sites = append(c.sites, s)
		c.workers += max(s.Parallelism, 1)
	}
	for _, s := range opts.Sites {
		if !found[s] {
			problems = append(problems, fmt.Sprintf("unknown site %q", s))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("crawler: %s", strings.Join(problems, "; "))
	}
	if len(c.sites) == 0 {
		return nil, errors.New("crawler: no site to crawl")
	}
	if opts.Workers > 0 {
		c.workers = opts.Workers
	}
	c.workers = min(c.workers, MaxWorkers)
	c.net = opts.Transport
	if c.net == nil {
		c.net = newNetTransport(fetchDefault(cfg.Fetch.ConnectTimeout.D(), config.DefaultConnectTO),
			fetchDefault(cfg.Fetch.Timeout.D(), config.DefaultTimeout))
	}
	return c, nil
}

func fetchDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
