package crawler

// The run loop: one Run, its sites' loops over the frontier, progress and
// the summary.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler/robots"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

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
		token:         robots.ProductToken(c.cfg.UserAgent),
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
