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
//   - robots.txt is read as Google reads it (robotsmatch.go) and matched
//     against the URL that is requested.
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
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/gocolly/colly/v2"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
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

// siteState is one site's configuration and live state during a run.
type siteState struct {
	cfg       *config.Site
	name      string
	articleRe *regexp.Regexp
	followRe  *regexp.Regexp // nil: follow every in-scope non-article URL
	ports     map[string]bool
	delay     time.Duration
	stats     *siteCounters

	started   int // items taken from the frontier (site loop only)
	budgetHit bool
}

func compileSite(s *config.Site) (*siteState, error) {
	st := &siteState{cfg: s, name: s.Name, articleRe: s.ArticleRe, followRe: s.FollowRe,
		ports: make(map[string]bool), delay: max(s.Delay.D(), 0), stats: newSiteCounters()}
	var err error
	if st.articleRe == nil {
		if st.articleRe, err = regexp.Compile(s.ArticleURL); err != nil || s.ArticleURL == "" {
			return nil, fmt.Errorf("site %s: article_url %q is not a usable regexp", s.Name, s.ArticleURL)
		}
	}
	if st.followRe == nil && s.FollowURL != "" {
		if st.followRe, err = regexp.Compile(s.FollowURL); err != nil {
			return nil, fmt.Errorf("site %s: follow_url: %w", s.Name, err)
		}
	}
	if len(s.StartURLs) == 0 && !s.HasSources() {
		return nil, fmt.Errorf("site %s: no start URL and no sitemap, feed or api", s.Name)
	}
	sourcePorts(s, st.ports)
	for _, raw := range s.StartURLs {
		cu, err := urlnorm.Canonical(raw, nil)
		if err != nil {
			return nil, fmt.Errorf("site %s: start URL %q: %w", s.Name, raw, err)
		}
		u, _ := url.Parse(cu)
		if p := u.Port(); p != "" {
			st.ports[p] = true
		}
		if !st.inScope(u) {
			return nil, fmt.Errorf("site %s: start URL %q is outside allowed_domains", s.Name, raw)
		}
	}
	return st, nil
}

// inScope reports whether a canonical URL belongs to the site.
func (st *siteState) inScope(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if !config.HostAllowed(u.Host, st.cfg.AllowedDomains) {
		return false
	}
	p := u.Port()
	return p == "" || st.ports[p]
}

func (st *siteState) classify(canonical string) linkKind {
	switch {
	case st.articleRe.MatchString(canonical):
		return linkArticle
	case st.followRe == nil || st.followRe.MatchString(canonical):
		return linkFollow
	}
	return linkIgnore
}

// seenSet holds the 64-bit hashes of URLs queued or fetched in this run
// (the store forgets a frontier item once it is done, and list pages are
// never decided, so the frontier alone would let them be queued again).
type seenSet struct {
	mu sync.Mutex
	m  map[uint64]struct{}
}

func (s *seenSet) add(u string) bool {
	h := xxhash.Sum64String(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[h]; ok {
		return false
	}
	s.m[h] = struct{}{}
	return true
}

func (s *seenSet) has(u string) bool {
	h := xxhash.Sum64String(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[h]
	return ok
}

// run is the state of one Run.
type run struct {
	*Crawler
	runID         int64
	start         time.Time
	token         string
	retryBase     time.Duration
	maxURLLength  int
	maxLinks      int
	pagesOK       atomic.Int64 // pages fetched as 2xx HTML (or list pages unchanged or not due) this run
	maxCrawlDelay time.Duration
	pacer         hostPacer
	robots        *robotsCache
	robotsClient  *http.Client
	cols          chan *colly.Collector
	workerSem     chan struct{}
	seen          *seenSet // URLs queued or fetched in this run
	listed        *listedTimes
	dry           bool     // a discover run: surfaces are read, nothing is pushed or recorded
	claimed       *seenSet // URLs whose outcome this run has recorded or is recording
	sites         []*siteState
	headers       http.Header
	surfaces      surfaceBook // states of the list surfaces this run claimed

	cancel   context.CancelCauseFunc
	fatalMu  sync.Mutex
	fatalErr error
}

// Run crawls until the frontier of the selected sites is empty, ctx is
// cancelled (the Summary then has Interrupted set and a nil error), or the
// store or Processor fails (the error is returned with the Summary so far).
func (c *Crawler) Run(ctx context.Context, runID int64) (Summary, error) {
	if !c.running.CompareAndSwap(false, true) {
		return Summary{}, errors.New("crawler: a run is already in progress")
	}
	defer c.running.Store(false)
	r := c.newRun(runID)
	defer r.closeIdle()

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.cancel = cancel

	if n, err := c.store.Requeue(ctx); err != nil {
		return r.summary(), fmt.Errorf("crawler: requeue: %w", err)
	} else if n > 0 {
		c.log.Info("resuming interrupted crawl", "requeued", n)
	}
	if err := r.pushStarts(ctx); err != nil {
		return r.summary(), err
	}

	stopProgress := r.startProgress()
	var wg sync.WaitGroup
	for _, st := range r.sites {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.siteLoop(runCtx, st)
		}()
	}
	wg.Wait()
	stopProgress()

	sum := r.summary()
	sum.Interrupted = ctx.Err() != nil
	sum.NothingFetched = !sum.Interrupted && sum.Total.Requests > 0 && r.pagesOK.Load() == 0
	if err := r.fatal(); err != nil {
		return sum, err
	}
	bg := context.WithoutCancel(ctx)
	left, err := c.store.Pending(bg, "")
	if err != nil {
		return sum, fmt.Errorf("crawler: pending: %w", err)
	}
	if !sum.Interrupted && left == 0 {
		if err := c.store.Reset(bg); err != nil {
			return sum, fmt.Errorf("crawler: reset frontier: %w", err)
		}
		sum.Completed = true
	}
	sum.FrontierLeft = left
	if c.opts.Progress != nil {
		c.opts.Progress(r.snapshot())
	}
	return sum, nil
}

func (c *Crawler) newRun(runID int64) *run {
	f := c.cfg.Fetch
	timeout := fetchDefault(f.Timeout.D(), config.DefaultTimeout)
	idle := fetchDefault(f.ConnectTimeout.D(), config.DefaultConnectTO)
	maxBody := fetchDefault(int64(f.MaxBody), config.DefaultMaxBody)
	r := &run{
		Crawler:       c,
		runID:         runID,
		start:         time.Now(),
		token:         productToken(c.cfg.UserAgent),
		retryBase:     fetchDefault(c.opts.RetryBase, DefaultRetryBase),
		maxURLLength:  fetchDefault(f.MaxURLLength, config.DefaultMaxURLLength),
		maxLinks:      fetchDefault(f.MaxLinksPerPage, config.DefaultMaxLinksPerPage),
		maxCrawlDelay: fetchDefault(f.MaxCrawlDelay.D(), config.DefaultMaxCrawlDelay),
		pacer:         newPacer(c.clock),
		robots:        newRobotsCache(),
		seen:          &seenSet{m: make(map[uint64]struct{})},
		claimed:       &seenSet{m: make(map[uint64]struct{})},
		listed:        newListedTimes(),
		workerSem:     make(chan struct{}, c.workers),
		cols:          make(chan *colly.Collector, c.workers),
		headers: http.Header{
			"Accept":          {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"},
			"Accept-Language": {"zh-CN,zh;q=0.9,en;q=0.5"},
		},
	}
	if c.opts.Pacer != nil {
		r.pacer = sharedPacer{p: c.opts.Pacer, clock: c.clock, fail: func(err error) { r.fatal(err) }}
	}
	for _, s := range c.sites {
		st, _ := compileSite(s) // checked by New
		r.sites = append(r.sites, st)
	}
	var archive *archiver
	if c.opts.Archive != nil {
		archive = &archiver{record: c.opts.Archive, fatal: func(err error) error { return r.fatal(err) }}
	}
	r.robotsClient = &http.Client{
		Transport:     &limitTransport{next: c.net, maxBody: robotsLimit, timeout: timeout, idle: idle, truncate: true, archive: archive},
		CheckRedirect: robotsRedirectPolicy,
	}

	// colly: request building, User-Agent, cookies and the redirect hook.
	// Its robots handling, body limit, charset conversion, revisit store and
	// timeout are switched off: limitTransport, robots.go and the scheduler
	// replace them.
	col := colly.NewCollector()
	col.UserAgent = c.cfg.UserAgent
	col.AllowURLRevisit = true
	col.IgnoreRobotsTxt = true
	col.MaxBodySize = 0
	col.DetectCharset = false
	col.ParseHTTPErrorResponse = true
	col.MaxDepth = 0
	col.Async = false
	col.WithTransport(&limitTransport{next: c.net, maxBody: maxBody, timeout: timeout, idle: idle, archive: archive})
	col.SetRequestTimeout(0) // per hop, in limitTransport
	col.SetRedirectHandler(r.checkRedirect)
	for range c.workers {
		r.cols <- col.Clone()
	}
	return r
}

func (r *run) closeIdle() {
	if ci, ok := r.net.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// fatal records the first fatal error (store or Processor failure) and stops
// the run; with a nil argument it returns the recorded error.
func (r *run) fatal(errs ...error) error {
	r.fatalMu.Lock()
	defer r.fatalMu.Unlock()
	for _, err := range errs {
		if err != nil && r.fatalErr == nil {
			r.fatalErr = fmt.Errorf("crawler: %w", err)
			r.log.Error("crawl stopped", "err", err)
			r.cancel(r.fatalErr)
		}
	}
	return r.fatalErr
}

func (r *run) pushStarts(ctx context.Context) error {
	for _, st := range r.sites {
		items := make([]storage.FrontierItem, 0, len(st.cfg.StartURLs))
		for _, raw := range st.cfg.StartURLs {
			cu, _ := urlnorm.Canonical(raw, nil) // checked by New
			if err := r.reopenStart(ctx, st, cu); err != nil {
				return err
			}
			if r.seen.add(cu) {
				items = append(items, storage.FrontierItem{URL: cu, Site: st.name, Depth: 0})
			}
		}
		n, err := r.store.Push(ctx, items)
		if err != nil {
			return fmt.Errorf("crawler: push start URLs of %s: %w", st.name, err)
		}
		st.stats.queued.Add(int64(n))
	}
	return nil
}

// reopenStart makes a start URL fetchable again when an earlier version
// recorded a permanent error for it (the frontier's Push skips such URLs):
// start and list pages are re-fetched by every run whatever their last
// outcome; only article URLs keep permanent errors.
func (r *run) reopenStart(ctx context.Context, st *siteState, u string) error {
	if st.articleRe.MatchString(u) {
		return nil
	}
	p, err := r.store.PageOf(ctx, u)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("crawler: start URL %s: %w", u, err)
	}
	if p.Outcome != storage.OutcomeError || !p.Permanent {
		return nil
	}
	r.log.Info("start URL had a permanent error from an earlier run: fetched again", "site", st.name, "url", u, "kind", p.ErrKind)
	p.Permanent = false
	if err := r.store.Commit(ctx, &storage.Commit{Page: p}); err != nil {
		return fmt.Errorf("crawler: reopen start URL %s: %w", u, err)
	}
	return nil
}

// siteLoop leases the site's frontier items and runs each in a goroutine,
// bounded by the site's parallelism and the global worker pool. It returns
// when the site's frontier is empty and nothing is in flight, when
// max_pages is reached, or when ctx ends (leased items not started stay in
// flight in the store and are requeued by the next run).
func (r *run) siteLoop(ctx context.Context, st *siteState) {
	var wg sync.WaitGroup
	defer wg.Wait()
	par := max(st.cfg.Parallelism, 1)
	slots := make(chan struct{}, par)
	wake := make(chan struct{}, 1)
	var inflight atomic.Int64
	var queue []storage.FrontierItem
	waited := false // the wait for other processes was logged
	r.startSources(ctx, st, &wg, &inflight, wake)
	for ctx.Err() == nil {
		if len(queue) == 0 {
			n := par
			if mp := st.cfg.MaxPages; mp > 0 {
				if st.started >= mp {
					st.budgetHit = true
					return
				}
				n = min(n, mp-st.started)
			}
			busy := inflight.Load() // read before Pop: see below
			items, err := r.store.Pop(ctx, st.name, n)
			if err != nil {
				if ctx.Err() == nil {
					r.fatal(fmt.Errorf("pop %s: %w", st.name, err))
				}
				return
			}
			if len(items) == 0 {
				// Nothing was in flight before the Pop, so nothing of
				// this process can push more: the site is done unless
				// other processes hold or queue its URLs.
				if busy == 0 {
					if r.awaitFleet(ctx, st, wake, &waited) {
						continue
					}
					return
				}
				select {
				case <-wake:
				case <-ctx.Done():
				}
				continue
			}
			queue = items
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		select {
		case r.workerSem <- struct{}{}:
		case <-ctx.Done():
			<-slots
			return
		}
		it := queue[0]
		queue = queue[1:]
		st.started++
		inflight.Add(1)
		wg.Add(1)
		go func() {
			defer func() {
				<-r.workerSem
				<-slots
				inflight.Add(-1)
				select {
				case wake <- struct{}{}:
				default:
				}
				wg.Done()
			}()
			r.handle(ctx, st, it)
		}()
	}
}

// handle fetches one frontier item and records its outcome. Store writes
// use a context that survives cancellation, so that a page whose body
// arrived is committed and marked done even while the run stops.
func (r *run) handle(ctx context.Context, st *siteState, it storage.FrontierItem) {
	bg := context.WithoutCancel(ctx)
	// Start URLs (depth 0): whether this run could fetch them, for the
	// summary's warning. startWhy stays "" when the item was skipped or
	// abandoned, "ok" once the page came back as 2xx HTML.
	startWhy := ""
	if it.Depth == 0 {
		defer func() {
			switch startWhy {
			case "":
			case "ok":
				st.stats.noteStart(it.URL, "")
			default:
				st.stats.noteStart(it.URL, startWhy)
			}
		}()
	}
	sk, listed := r.listSurface(st, it.URL)
	if listed && !r.listDue(ctx, st, it, sk) {
		return
	}
	u, rules, why := r.admit(ctx, st, it)
	if rules == nil {
		startWhy = why
		return
	}
	slot, ferr, abandoned := r.fetchAs(ctx, st, it.URL, u.Host, max(st.delay, rules.crawlDelay), r.pageOpts(bg, sk, listed))
	if abandoned {
		return
	}
	if slot != nil && slot.status != 0 {
		st.stats.fetched.Add(1)
		st.stats.bytes.Add(int64(len(slot.body)))
	}
	if listed && r.listUnchanged(ctx, st, it, sk, slot, ferr) {
		startWhy = "ok"
		return
	}
	var links pageLinks
	if ferr == nil {
		slot, links, ferr, abandoned = r.followRefresh(ctx, st, slot)
		if abandoned {
			return
		}
	}
	if ferr != nil && listed {
		r.listFailed(bg, st, sk, ferr)
	}
	if ferr != nil && ferr.Kind == KindRedirectDecided {
		st.stats.skipDone.Add(1)
		r.done(bg, it.URL)
		return
	}
	if ferr != nil {
		r.recordError(bg, st, it.URL, it.URL, ferr)
		startWhy = ferr.Error()
		return
	}
	final, ok := r.claimFinal(bg, st, it, slot)
	if !ok {
		return
	}
	if !isHTML(slot.header, slot.body) {
		fe := &FetchError{Kind: KindNotHTML, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("content-type %q is not HTML", slot.header.Get("Content-Type"))}
		r.recordError(bg, st, final, it.URL, fe)
		startWhy = fe.Error()
		return
	}
	startWhy = "ok"
	r.pagesOK.Add(1)
	r.keepPage(ctx, st, it, final, slot, links)
}

// admit checks a frontier item before it is fetched: a URL that parses, not
// decided by an earlier run, on a host whose robots.txt could be read and
// allows it. rules is nil when the item is not fetched; why then says why
// (empty when it was skipped, not failed).
func (r *run) admit(ctx context.Context, st *siteState, it storage.FrontierItem) (u *url.URL, rules *robotsRules, why string) {
	bg := context.WithoutCancel(ctx)
	u, err := url.Parse(it.URL)
	if err != nil || !u.IsAbs() {
		fe := &FetchError{Kind: KindBadURL, Permanent: true, Err: fmt.Errorf("unparsable frontier url")}
		r.recordError(bg, st, it.URL, it.URL, fe)
		return nil, nil, fe.Error()
	}
	if o, ok, err := r.store.Decided(bg, it.URL); err != nil {
		r.fatal(fmt.Errorf("decided %s: %w", it.URL, err))
		return nil, nil, ""
	} else if (ok && o.Final()) || r.claimed.has(it.URL) {
		// Decided by an earlier run, or already fetched by this one (a
		// later page of an article, FetchPage).
		st.stats.skipDone.Add(1)
		r.done(bg, it.URL)
		return nil, nil, ""
	}
	rules, err = r.robotsFor(ctx, st, u)
	if err != nil {
		return nil, nil, "" // cancelled: the item stays in flight and is requeued next run
	}
	switch rules.state {
	case robotsUnreachable, robotsDelayTooLarge:
		kind := KindRobotsUnavailable
		if rules.state == robotsDelayTooLarge {
			kind = KindCrawlDelay
		}
		r.warn(st, fmt.Sprintf("host %s skipped: %s", u.Host, rules.reason))
		r.recordError(bg, st, it.URL, it.URL, &FetchError{Kind: kind, Err: errors.New(rules.reason)})
		return nil, nil, rules.reason
	}
	if rules.truncated {
		r.warn(st, fmt.Sprintf("host %s: robots.txt is larger than %d KiB: its first %d KiB were parsed, the rest ignored", u.Host, robotsLimit>>10, robotsLimit>>10))
	}
	if !rules.allowed(u) {
		st.stats.robotsBlocked.Add(1)
		r.log.Info("skipped", "site", st.name, "url", it.URL, "reason", "robots")
		r.done(bg, it.URL)
		return nil, nil, "disallowed by robots.txt"
	}
	return u, rules, ""
}

// claimFinal returns the canonical URL of the page a fetch ended on (after
// redirects and refreshes) and claims it for this run: one outcome per URL
// per run, so a page reached through two redirects (or directly and through
// a redirect) at the same time is processed once, and a page decided by an
// earlier run is not processed again. ok is false when the item is done.
func (r *run) claimFinal(bg context.Context, st *siteState, it storage.FrontierItem, slot *fetchSlot) (final string, ok bool) {
	final = it.URL
	if n := len(slot.hops); n > 0 {
		if c, err := urlnorm.Canonical(slot.hops[n-1].String(), nil); err == nil {
			final = c
		}
	}
	if !r.claimed.add(final) {
		st.stats.skipDone.Add(1)
		r.done(bg, it.URL)
		return "", false
	}
	if final != it.URL {
		r.seen.add(final)
		if o, ok, err := r.store.Decided(bg, final); err != nil {
			r.fatal(fmt.Errorf("decided %s: %w", final, err))
			return "", false
		} else if ok && o.Final() {
			st.stats.skipDone.Add(1)
			r.done(bg, it.URL)
			return "", false
		}
	}
	if _, err := url.Parse(final); err != nil {
		r.recordError(bg, st, it.URL, it.URL, &FetchError{Kind: KindBadURL, Permanent: true, Err: err})
		return "", false
	}
	return final, true
}

// keepPage pushes the links of a fetched HTML page, then hands an article
// to the Processor or records a list page, and marks the item done.
func (r *run) keepPage(ctx context.Context, st *siteState, it storage.FrontierItem, final string, slot *fetchSlot, links pageLinks) {
	bg := context.WithoutCancel(ctx)
	fu, _ := url.Parse(final) // checked by claimFinal
	found, err := r.discover(ctx, bg, st, fu, it.Depth, links)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return // cancelled: the item stays in flight and is requeued next run
		}
		r.fatal(err)
		return
	}
	now := r.clock.Now()
	article := st.articleRe.MatchString(final)
	if !article {
		r.scriptLinks(ctx, st, fu, it.Depth, slot.body, &found)
	}
	r.listFetched(bg, st, it.URL, final, slot, found)
	if article {
		st.stats.articles.Add(1)
		resp := &Response{URL: final, RequestURL: it.URL, Site: st.cfg, RunID: r.runID, Depth: it.Depth,
			Status: slot.status, Header: slot.header, Body: slot.body, FetchedAt: now, images: r.imageFetcher(ctx, st),
			Listed: r.listed.take(it.URL, final)}
		resp.pages = r.pageFetcher(ctx, st, resp)
		out, err := r.proc.ProcessArticle(bg, resp)
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return // a lead image fetch was cut by the end of the run: the item stays in flight
		}
		if err != nil {
			r.fatal(fmt.Errorf("process %s: %w", final, err))
			return
		}
		switch out {
		case storage.OutcomeStored:
			st.stats.stored.Add(1)
		case storage.OutcomeDuplicate:
			st.stats.duplicates.Add(1)
		case storage.OutcomeNotArticle:
			st.stats.notArticle.Add(1)
		case storage.OutcomePart:
			st.stats.parts.Add(1)
		case OutcomeDecidedElsewhere:
			st.stats.skipDone.Add(1)
		default:
			st.stats.addError("processor")
		}
	} else {
		p := storage.Page{URL: final, Site: st.name, RunID: r.runID, Outcome: storage.OutcomeNotArticle,
			Status: slot.status, FetchedAt: now}
		if err := r.commit(bg, &storage.Commit{Page: p}); err != nil {
			r.fatal(err)
			return
		}
		st.stats.notArticle.Add(1)
	}
	r.done(bg, it.URL)
	if final != it.URL {
		r.done(bg, final)
	}
}

// fetch requests rawURL through colly, retrying transient failures with
// exponential backoff. abandoned is true when ctx ended first.
func (r *run) fetch(ctx context.Context, st *siteState, rawURL, host string, delay time.Duration) (slot *fetchSlot, ferr *FetchError, abandoned bool) {
	return r.fetchAs(ctx, st, rawURL, host, delay, fetchOpts{headers: r.headers})
}

// fetchOpts are what a fetch that is not a page's changes (lead images,
// list surfaces).
type fetchOpts struct {
	maxBody int64               // 0: fetch.max_body
	headers http.Header         // request headers
	inScope func(*url.URL) bool // nil: the site's page scope; redirect hops must stay in it
	method  string              // "": GET
	body    []byte              // request body (POST), sent again by every attempt
	refuse  func(target string) *FetchError
}

// fetchAs is fetch with the options of a non-page request.
func (r *run) fetchAs(ctx context.Context, st *siteState, rawURL, host string, delay time.Duration, o fetchOpts) (slot *fetchSlot, ferr *FetchError, abandoned bool) {
	var col *colly.Collector
	select {
	case col = <-r.cols:
	case <-ctx.Done():
		return nil, nil, true
	}
	defer func() {
		// The collector goes back to the pool without this fetch's slot:
		// its context would keep the page body alive until the next fetch.
		col.Context = context.Background()
		r.cols <- col
	}()
	for attempt := 0; ; attempt++ {
		if err := r.pacer.wait(ctx, host, delay); err != nil {
			return nil, nil, true
		}
		slot = &fetchSlot{site: st, maxBody: o.maxBody, inScope: o.inScope, refuse: o.refuse}
		col.Context = context.WithValue(ctx, slotKey{}, slot)
		st.stats.requests.Add(1)
		t0 := time.Now()
		err := col.Request(cmp.Or(o.method, http.MethodGet), rawURL, o.reqBody(), nil, o.headers.Clone())
		r.fetched(st, rawURL, slot.status, time.Since(t0), err)
		if ctx.Err() != nil {
			return nil, nil, true
		}
		switch {
		case err != nil:
			if !errors.As(err, &ferr) {
				ferr = otherError(err)
			}
		case slot.status < 200 || slot.status > 299:
			ferr = statusError(slot.status, slot.header, r.clock.Now())
		case len(slot.body) == 0:
			ferr = &FetchError{Kind: KindEmptyBody, Status: slot.status, Retry: true, Err: errors.New("empty body")}
		default:
			return slot, nil, false
		}
		if !ferr.Retry || attempt >= r.cfg.Fetch.Retries {
			return slot, ferr, false
		}
		wait := backoff(r.retryBase, attempt)
		if ra := ferr.RetryAfter; ra > 0 {
			if ra > maxRetryAfter {
				ferr.Err = fmt.Errorf("%w; Retry-After %s exceeds %s, given up for this run", ferr.Err, ra, maxRetryAfter)
				return slot, ferr, false
			}
			wait = max(wait, ra)
			r.pacer.holdUntil(host, r.clock.Now().Add(ra))
		}
		st.stats.retries.Add(1)
		r.log.Info("retrying", "site", st.name, "url", rawURL, "kind", ferr.Kind, "attempt", attempt+1, "wait", wait)
		if err := r.clock.Sleep(ctx, wait); err != nil {
			return nil, nil, true
		}
		ferr = nil
	}
}

// followRefresh follows a <meta http-equiv="refresh"> that names another
// URL as if it were an HTTP redirect: the target must stay in the site's
// scope and be allowed by robots.txt, must not loop back into the chain,
// and the hops of the chain (HTTP redirects and refreshes) are bounded by
// fetch.max_redirects. A refresh without a URL or to the page itself
// (portal list pages reload every few minutes) leaves the page as it is.
// It returns the last page of the chain and its links.
func (r *run) followRefresh(ctx context.Context, st *siteState, slot *fetchSlot) (*fetchSlot, pageLinks, *FetchError, bool) {
	for {
		if !isHTML(slot.header, slot.body) {
			return slot, pageLinks{}, nil, false
		}
		links := extractLinks(slot.body, r.maxLinks)
		if links.refresh == "" || len(slot.hops) == 0 {
			return slot, links, nil, false
		}
		cur := slot.hops[len(slot.hops)-1]
		tu, err := cur.Parse(links.refresh)
		if err != nil || (tu.Scheme != "http" && tu.Scheme != "https") {
			return slot, links, nil, false // not a URL we could request: the page stands
		}
		tu.Fragment, tu.RawFragment = "", ""
		target, err := urlnorm.Canonical(tu.String(), nil)
		if err != nil {
			return slot, links, nil, false
		}
		if c, err := urlnorm.Canonical(cur.String(), nil); err == nil && c == target {
			return slot, links, nil, false // reloads itself
		}
		fail := func(kind string, format string, a ...any) (*fetchSlot, pageLinks, *FetchError, bool) {
			return slot, pageLinks{}, &FetchError{Kind: kind, Status: slot.status, Permanent: kind != KindRedirectDecided,
				Err: fmt.Errorf("meta refresh: "+format, a...)}, false
		}
		for _, h := range slot.hops {
			if c, err := urlnorm.Canonical(h.String(), nil); err == nil && c == target {
				return fail(KindRedirectLoop, "loop back to %s", target)
			}
		}
		if len(slot.hops) > r.cfg.Fetch.MaxRedirects {
			return fail(KindTooManyRedirects, "more than %d redirects", r.cfg.Fetch.MaxRedirects)
		}
		if cu, _ := url.Parse(target); cu == nil || !st.inScope(cu) {
			return fail(KindRedirectDisallowed, "%s leaves the site's allowed_domains", target)
		}
		rules, err := r.robotsFor(ctx, st, tu)
		if err != nil {
			return nil, pageLinks{}, nil, true
		}
		if !rules.allowed(tu) {
			why := "robots.txt disallows it"
			if rules.reason != "" {
				why = rules.reason
			}
			return fail(KindRedirectDisallowed, "%s: %s", target, why)
		}
		if o, ok, err := r.store.Decided(context.WithoutCancel(ctx), target); err == nil && ok && o.Final() {
			return fail(KindRedirectDecided, "%s already decided", target)
		}
		next, ferr, abandoned := r.fetch(ctx, st, tu.String(), tu.Host, max(st.delay, rules.crawlDelay))
		if abandoned {
			return nil, pageLinks{}, nil, true
		}
		if next != nil {
			next.hops = append(slices.Clone(slot.hops), next.hops...)
			if next.status != 0 {
				st.stats.fetched.Add(1)
				st.stats.bytes.Add(int64(len(next.body)))
			}
		}
		if ferr != nil {
			return next, pageLinks{}, ferr, false
		}
		slot = next
	}
}

// otherError classifies errors that did not come from limitTransport or the
// redirect hook: colly's URL parsing (permanent) and other client errors.
func otherError(err error) *FetchError {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Op != "parse" {
		return &FetchError{Kind: KindFetch, Err: err}
	}
	return &FetchError{Kind: KindBadURL, Permanent: true, Err: err}
}

// checkRedirect is colly's redirect handler: every hop must stay within the
// site's scope and be allowed by robots.txt, the chain must not loop and
// must not exceed fetch.max_redirects. Each hop is paced like a request.
func (r *run) checkRedirect(req *http.Request, via []*http.Request) error {
	slot := slotFrom(req.Context())
	if slot == nil {
		return nil
	}
	st := slot.site
	if len(via) > r.cfg.Fetch.MaxRedirects {
		return &FetchError{Kind: KindTooManyRedirects, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("more than %d redirects", r.cfg.Fetch.MaxRedirects)}
	}
	target, err := urlnorm.Canonical(req.URL.String(), nil)
	if err != nil {
		return &FetchError{Kind: KindRedirectDisallowed, Status: slot.status, Permanent: true, Err: fmt.Errorf("redirect to %q: %w", req.URL, err)}
	}
	repeats := 0
	for _, v := range via {
		if c, err := urlnorm.Canonical(v.URL.String(), nil); err == nil && c == target {
			repeats++
		}
	}
	if repeats > 0 {
		// One self-redirect that sets a cookie is a common session pattern.
		last, _ := urlnorm.Canonical(via[len(via)-1].URL.String(), nil)
		cookie := req.Response != nil && len(req.Response.Header.Values("Set-Cookie")) > 0
		if !(repeats == 1 && last == target && cookie) {
			return &FetchError{Kind: KindRedirectLoop, Status: slot.status, Permanent: true, Err: fmt.Errorf("redirect loop back to %s", target)}
		}
	}
	if slot.refuse != nil {
		if fe := slot.refuse(target); fe != nil {
			fe.Status = slot.status
			return fe
		}
	}
	tu, _ := url.Parse(target)
	inScope := st.inScope
	if slot.inScope != nil {
		inScope = slot.inScope
	}
	if !inScope(tu) {
		return &FetchError{Kind: KindRedirectDisallowed, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("redirect to %s leaves the site's allowed_domains", target)}
	}
	rules, err := r.robotsFor(withoutSlot(req.Context()), st, tu)
	if err != nil {
		return err
	}
	// robots.txt is matched against the URL that is requested (as the site
	// wrote it), not against the canonical seen-set key.
	if !rules.allowed(req.URL) {
		why := "robots.txt disallows it"
		if rules.reason != "" {
			why = rules.reason
		}
		return &FetchError{Kind: KindRedirectDisallowed, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("redirect to %s: %s", target, why)}
	}
	// A redirect to an article decided by an earlier run (a /r/ short link
	// found again on a list page) is not fetched again.
	if o, ok, err := r.store.Decided(withoutSlot(req.Context()), target); err == nil && ok && o.Final() {
		return &FetchError{Kind: KindRedirectDecided, Status: slot.status, Err: fmt.Errorf("redirect to %s, already decided", target)}
	}
	return r.pacer.wait(req.Context(), tu.Host, max(st.delay, rules.crawlDelay))
}

// robotsFor returns the robots.txt rules of u's origin, fetching them once
// per run. After the robots.txt request the host waits its effective delay.
func (r *run) robotsFor(ctx context.Context, st *siteState, u *url.URL) (*robotsRules, error) {
	if r.cfg.Fetch.IgnoreRobots {
		return allowAllRules, nil
	}
	origin := u.Scheme + "://" + u.Host
	return r.robots.get(ctx, origin, func(ctx context.Context) (*robotsRules, error) {
		rules, err := r.fetchRobots(ctx, st, origin)
		if err == nil && rules.crawlDelay > st.delay {
			r.pacer.holdUntil(u.Host, r.clock.Now().Add(rules.crawlDelay))
		}
		return rules, err
	})
}

// discoverCheckEvery: discover looks at ctx every this many links, so that
// a page of many links under a costly robots.txt does not delay shutdown.
const discoverCheckEvery = 256

// discover pushes the in-scope links of a page to the frontier (at most
// fetch.max_links_per_page of them are read). It gives up with ctx's error
// when ctx ends; store writes use bg.
func (r *run) discover(ctx, bg context.Context, st *siteState, page *url.URL, depth int, pl pageLinks) (found, error) {
	if pl.excess > 0 {
		st.stats.skipLinkCap.Add(int64(pl.excess))
		r.warn(st, fmt.Sprintf("pages with more than fetch.max_links_per_page (%d) links: the rest were ignored (skipped_link_cap)", r.maxLinks))
	}
	hrefs, baseHref := pl.hrefs, pl.base
	if len(hrefs) == 0 {
		return found{}, nil
	}
	base := resolveBase(page, baseHref)
	local := make(map[string]struct{}, len(hrefs))
	var items []storage.FrontierItem
	var f found
	for i, h := range hrefs {
		if i%discoverCheckEvery == 0 && ctx.Err() != nil {
			return f, ctx.Err()
		}
		cu, err := urlnorm.Canonical(h, base)
		if err != nil {
			continue
		}
		if _, dup := local[cu]; dup {
			continue
		}
		local[cu] = struct{}{}
		lu, err := url.Parse(cu)
		if err != nil || !st.inScope(lu) {
			continue
		}
		kind := st.classify(cu)
		switch {
		case kind == linkIgnore:
			continue
		case len(cu) > r.maxURLLength:
			st.stats.skipLength.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "url_length", "from", page.String())
			continue
		case isPathTrap(lu.Path):
			st.stats.skipTrap.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "trap", "from", page.String())
			continue
		case kind == linkFollow && hasIgnoredExtension(lu.Path):
			st.stats.skipExt.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "file_type", "from", page.String())
			continue
		}
		f.links = append(f.links, cu)
		switch {
		case r.seen.has(cu):
			continue
		case depth+1 > st.cfg.MaxDepth:
			st.stats.skipDepth.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "depth", "depth", depth+1, "from", page.String())
			continue
		}
		if rules := r.robots.peek(lu.Scheme + "://" + lu.Host); rules != nil && rules.state == robotsOK && !rules.allowed(lu) {
			if r.seen.add(cu) {
				st.stats.robotsBlocked.Add(1)
				r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "robots", "from", page.String())
			}
			f.links = f.links[:len(f.links)-1] // not kept for the next run either
			continue
		}
		if !r.seen.add(cu) {
			continue
		}
		if kind == linkArticle {
			st.stats.articleLinks.Add(1)
		}
		items = append(items, storage.FrontierItem{URL: cu, Site: st.name, Depth: depth + 1, Referer: page.String()})
	}
	err := r.push(bg, st, page, items, &f)
	return f, err
}

// isHTML reports whether a 2xx response is an HTML page: by its media type,
// or by sniffing when the type is missing or generic.
func isHTML(h http.Header, body []byte) bool {
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "text/html", "application/xhtml+xml":
		return true
	case "", "application/octet-stream", "text/plain":
		return strings.HasPrefix(http.DetectContentType(body), "text/html")
	}
	return false
}

// commit writes an outcome; a URL already decided is not an error.
func (r *run) commit(ctx context.Context, c *storage.Commit) error {
	err := r.store.Commit(ctx, c)
	if err != nil && !errors.Is(err, storage.ErrAlreadyDecided) {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	return nil
}

// recordError commits an error page for pageURL and marks reqURL (and
// pageURL) done.
func (r *run) recordError(ctx context.Context, st *siteState, pageURL, reqURL string, fe *FetchError) {
	msg := fe.Kind
	if fe.Err != nil {
		msg = fe.Err.Error()
	}
	permanent, retryAt := r.permanence(st, pageURL, fe)
	p := storage.Page{URL: pageURL, Site: st.name, RunID: r.runID, Outcome: storage.OutcomeError,
		Status: fe.Status, ErrKind: fe.Kind, Err: msg, Permanent: permanent, FetchedAt: r.clock.Now(), RetryAt: retryAt}
	if err := r.commit(ctx, &storage.Commit{Page: p}); err != nil {
		r.fatal(err)
		return
	}
	st.stats.addError(fe.Kind)
	r.log.Info("failed", "site", st.name, "url", pageURL, "kind", fe.Kind, "status", fe.Status, "err", msg)
	r.done(ctx, reqURL)
	if pageURL != reqURL {
		r.done(ctx, pageURL)
	}
}

// fetched reports one HTTP attempt: a debug log line (-vv) and
// Options.OnFetch.
func (r *run) fetched(st *siteState, u string, status int, d time.Duration, err error) {
	if err != nil {
		r.log.Debug("fetch", "site", st.name, "url", u, "status", status, "ms", d.Milliseconds(), "err", err)
	} else {
		r.log.Debug("fetch", "site", st.name, "url", u, "status", status, "ms", d.Milliseconds())
	}
	if r.opts.OnFetch != nil {
		r.opts.OnFetch(st.name, u, status, d)
	}
}

func (r *run) done(ctx context.Context, u string) {
	if err := r.store.Done(ctx, u); err != nil {
		r.fatal(fmt.Errorf("done %s: %w", u, err))
	}
}

func (r *run) warn(st *siteState, msg string) {
	if st.stats.warn(msg) {
		r.log.Warn(msg, "site", st.name)
	}
}

func (r *run) startProgress() (stop func()) {
	if r.opts.Progress == nil {
		return func() {}
	}
	every := fetchDefault(r.opts.ProgressEvery, DefaultProgressEvery)
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.opts.Progress(r.snapshot())
			case <-quit:
				return
			}
		}
	}()
	return func() { close(quit); <-finished }
}

func (r *run) snapshot() Snapshot {
	s := Snapshot{Elapsed: time.Since(r.start)}
	for _, st := range r.sites {
		ss := st.stats.snapshot(st.name)
		s.Sites = append(s.Sites, ss)
		s.Total.Add(ss)
	}
	s.Total.Name = "total"
	s.Queued = s.Total.Queued
	return s
}

func (r *run) summary() Summary {
	sum := Summary{RunID: r.runID, Duration: time.Since(r.start)}
	for _, st := range r.sites {
		ss := st.stats.snapshot(st.name)
		if ss.Fetched > 0 && ss.ArticleLinks == 0 && ss.Articles == 0 {
			st.stats.warn("no URL matched article_url")
		}
		if ok, failed := st.stats.startOK.Load(), st.stats.startFailed.Load(); ok == 0 && failed > 0 {
			st.stats.warn(fmt.Sprintf("no start page could be fetched this run (%d tried; last: %s)", failed, st.stats.lastStartError()))
		}
		if st.budgetHit {
			st.stats.warn(fmt.Sprintf("max_pages %d reached; the rest of the frontier is left for the next run", st.cfg.MaxPages))
		}
		w := st.stats.warningList()
		sum.Sites = append(sum.Sites, SiteSummary{SiteStats: ss, Warnings: w})
		sum.Total.Add(ss)
		for _, m := range w {
			sum.Warnings = append(sum.Warnings, "site "+st.name+": "+m)
		}
	}
	sum.Total.Name = "total"
	return sum
}
