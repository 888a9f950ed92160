package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/metrics"
	"github.com/newsdedup/newscrawl/internal/progress"
	"github.com/newsdedup/newscrawl/internal/warcexport"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
)

// CrawlOptions configure Crawl.
type CrawlOptions struct {
	ConfigPath string   // recorded with the run
	Sites      []string // crawl only these sites (empty: all)
	Wait       bool     // wait for another crawl's store lock instead of failing with storage.ErrLocked
	Log        *slog.Logger
	FetchOnly  bool               // throughput baseline: fetch and parse links, no article stage
	Workers    int                // crawler.Options.Workers (0: default)
	Segmenter  *segment.Segmenter // preloaded segmenter (nil: load it)
	// Status receives the start-up lines (lock wait, dictionary load, the
	// number of indexed articles); nil discards them.
	Status io.Writer
	// Progress, when set, is called every ProgressEvery during the crawl
	// and once at its end.
	Progress      func(p Progress)
	ProgressEvery time.Duration
	// Metrics, when set, is fed during the crawl: pages by site and
	// outcome, fetch and decision latency, index size, queue depth,
	// robots blocks and retries (every MetricsEvery for the counters).
	Metrics *metrics.Metrics
	// WARC, when set, names a new file (it must not exist) that receives
	// every request and response of the run as WARC/1.1, with its CDXJ
	// index beside it (warcexport.CrawlArchive).
	WARC string
}

// MetricsEvery is how often the counters of Metrics are updated.
const MetricsEvery = 2 * time.Second

// Progress is what a progress report holds: the crawler's counters, the
// time since the crawl began and the frontier URLs not yet done per site.
type Progress struct {
	Snapshot crawler.Snapshot
	Elapsed  time.Duration
	Queue    map[string]int // nil when the store could not say
}

// CrawlResult is what a crawl did: its run record (with status and
// totals), the per-site summary and the wall time.
type CrawlResult struct {
	Run     storage.Run
	Summary crawler.Summary
	Elapsed time.Duration
}

// Crawl runs one crawl of cfg into the store cfg.Storage (see OpenStore): lock the
// store, close runs that died, rebuild the dedup index, crawl, record the
// run. The result is valid whenever the run was begun, also with an error
// (the run failed) or when ctx was cancelled (the run was interrupted; the
// error is ctx's).
func Crawl(ctx context.Context, cfg *config.Config, o CrawlOptions) (CrawlResult, error) {
	start := time.Now()
	status := o.Status
	if status == nil {
		status = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	store, err := openCrawlStore(ctx, cfg)
	if err != nil {
		return CrawlResult{}, err // names the store
	}
	defer store.Close()
	// Redis is checked before anything is written or loaded.
	var shared *redisfrontier.Frontier
	if cfg.Redis != "" {
		if shared, err = openRedis(ctx, cfg.Redis, cfg.Storage, store, redisfrontier.WithLeaseTimeout(cfg.Fleet.LeaseTimeout.D())); err != nil {
			return CrawlResult{}, err
		}
		defer shared.Close()
	}
	var rdb *redis.Client // the shared dedup index's (dedup.index: redis)
	if cfg.Dedup.Index == RedisIndex && !o.FetchOnly {
		if shared == nil {
			return CrawlResult{}, fmt.Errorf("dedup.index: %w: %q needs redis: (and a postgres:// store)", storage.ErrInvalid, RedisIndex)
		}
		if rdb, err = openRedisIndex(ctx, cfg.Redis); err != nil {
			return CrawlResult{}, err
		}
		defer rdb.Close()
	}
	if o.Wait {
		fmt.Fprintf(status, "waiting for the store lock on %s\n", StoreName(cfg.Storage))
	}
	release, err := store.Lock(ctx, o.Wait)
	if err != nil {
		if errors.Is(err, storage.ErrLocked) {
			return CrawlResult{}, fmt.Errorf("%s: another crawl is running on this store (use --wait to wait for it): %w", StoreName(cfg.Storage), err)
		}
		return CrawlResult{}, fmt.Errorf("lock %s: %w", StoreName(cfg.Storage), err)
	}
	defer release()
	// A damaged store is refused before anything is written to it: the
	// small tables are checked, the full check is Check's (see
	// checkStore). (A PostgreSQL server checks its own pages.) The
	// check and the index load only read the store, so they run side by
	// side; nothing is written until both are done.
	type checkResult struct {
		what    string
		overdue bool
		took    time.Duration
		err     error
	}
	checked := make(chan checkResult, 1)
	qc, hasCheck := store.(quickChecker)
	if hasCheck {
		go func() {
			t := time.Now()
			what, overdue, err := checkStore(ctx, qc, t)
			checked <- checkResult{what, overdue, time.Since(t), err}
		}()
	}
	proc, idx, err := articleStage(ctx, cfg, store, o, status, rdb)
	if hasCheck {
		c := <-checked
		if c.err != nil {
			return CrawlResult{}, fmt.Errorf("%w (nothing was written; restore a backup or move the store aside)", c.err)
		}
		fmt.Fprintf(status, "store checked in %.1fs (%s)\n", c.took.Seconds(), c.what)
		if c.overdue {
			o.Log.Warn("full store check overdue", "store", StoreName(cfg.Storage), "check", c.what)
		}
	}
	if err != nil {
		return CrawlResult{}, err
	}
	if err := CloseDeadRuns(ctx, store); err != nil {
		return CrawlResult{}, err
	}
	if !o.FetchOnly {
		limit, restore := SetMemoryBudget(cfg, inFlightPages(cfg, o.Sites, o.Workers))
		defer restore()
		o.Log.Info("memory budget", "soft_limit_mb", limit>>20)
	}
	res, err := runCrawl(ctx, cfg, store, proc, o, start, shared)
	// A run that ended on its own or by a signal leaves its index for the
	// next one; after any other error the index may hold what the store
	// does not, and the next run replays or rebuilds instead.
	if idx != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		idx.save(context.WithoutCancel(ctx), cfg, store, status, o.Log)
	}
	return res, err
}

// articleStage is the crawl's Processor: the full pipeline, or a discarding
// one for a fetch-only run (with a nil indexRun). With rdb, the dedup
// index is shared in Redis (newRedisEngine).
func articleStage(ctx context.Context, cfg *config.Config, store storage.Store, o CrawlOptions, status io.Writer, rdb *redis.Client) (crawler.Processor, *indexRun, error) {
	if o.FetchOnly {
		return crawler.Discard{Store: store}, nil, nil
	}
	t := time.Now()
	seg := o.Segmenter
	if seg == nil {
		fmt.Fprintf(status, "loading segmenter dictionary… ")
		var err error
		if seg, err = NewSegmenter(cfg.Segment); err != nil {
			return nil, nil, err
		}
	}
	idx, err := crawlIndex(ctx, cfg, seg, store, rdb, o)
	if err != nil {
		return nil, nil, err
	}
	eng := idx.eng
	fmt.Fprintf(status, "ready in %.1fs; %d fingerprints indexed (stored articles and their duplicates); %s\n", time.Since(t).Seconds(), idx.load.Entries, idx.load)
	if over := eng.Overflow(); over > 0 {
		fmt.Fprintf(status, "warning: the dedup index is full: %d stored fingerprints are not indexed, and new pages are not compared with them (set dedup.window to bound the index)\n", over)
		o.Log.Warn("dedup index full", "not_indexed", over)
	}
	p, err := NewProcessor(cfg, store, eng, o.Log)
	if err != nil {
		return nil, nil, err
	}
	p.shared = idx.shared
	if o.Metrics == nil {
		return p, idx, nil
	}
	o.Metrics.SetIndexSize(eng.Len())
	return timedProcessor{p: p, m: o.Metrics, eng: eng}, idx, nil
}

// crawlIndex builds the crawl's engine: over the index shared in Redis
// with rdb (no snapshot: nothing to save at the end), else from the
// snapshot or the store (startIndex).
func crawlIndex(ctx context.Context, cfg *config.Config, seg dedup.Segmenter, store storage.Store, rdb *redis.Client, o CrawlOptions) (*indexRun, error) {
	if rdb == nil {
		return startIndex(ctx, cfg, seg, store, time.Now(), o.Log)
	}
	pg, ok := store.(sharedStore)
	if !ok {
		return nil, fmt.Errorf("dedup.index: %w: %q needs a postgres:// store, not %T", storage.ErrInvalid, RedisIndex, store)
	}
	eng, n, shared, err := newRedisEngine(ctx, cfg, seg, pg, rdb, time.Now())
	if err != nil {
		return nil, err
	}
	return &indexRun{eng: eng, load: IndexLoad{Entries: n, Redis: true}, shared: shared}, nil
}

// runCrawl begins a run, crawls and records how the run ended, even when
// ctx was cancelled by a signal.
// With shared set (redis: configured), the frontier is in Redis (store
// wraps it) and hosts are paced and robots.txt answers shared through it.
func runCrawl(ctx context.Context, cfg *config.Config, store storage.Store, proc crawler.Processor, o CrawlOptions, start time.Time, shared *redisfrontier.Frontier) (CrawlResult, error) {
	from, feedOK, err := discoveryFrom(ctx, store)
	if err != nil {
		return CrawlResult{}, err
	}
	var archive *warcexport.CrawlArchive
	if o.WARC != "" {
		if archive, err = warcexport.CreateCrawlArchive(o.WARC, "newscrawl", time.Now()); err != nil {
			return CrawlResult{}, err
		}
	}
	run, err := store.BeginRun(ctx, o.ConfigPath)
	if err != nil {
		if archive != nil {
			archive.Close()
		}
		return CrawlResult{}, fmt.Errorf("begin run: %w", err)
	}
	copts := crawler.Options{Sites: o.Sites, Workers: o.Workers, Logger: o.Log}
	if shared != nil {
		// The processor keeps the store itself (its shared decisions need
		// the PostgreSQL store); the crawler's frontier is Redis's.
		store = redisStore{Store: store, f: shared}
		copts.Pacer, copts.Robots = shared, shared
	}
	store, proc = guardFleet(cfg, store, proc, &copts, o.Log)
	var flush func()
	copts.Progress, copts.ProgressEvery, flush = progressHook(ctx, store, o, start)
	if o.Metrics != nil {
		copts.OnFetch = func(site, _ string, _ int, d time.Duration) { o.Metrics.ObserveFetch(site, d) }
	}
	if archive != nil {
		copts.Archive = archive.Record
	}
	cr, err := crawler.New(cfg, store, proc, copts)
	if err != nil {
		if archive != nil {
			archive.Close()
		}
		return CrawlResult{}, err
	}
	sum, runErr := cr.Run(ctx, run.ID)
	flush()
	if feedOK && runErr == nil {
		runErr = addDiscovery(context.WithoutCancel(ctx), store, from, run.ID, &sum, o.Metrics)
	}
	if archive != nil {
		n, err := archive.Close()
		if err != nil && runErr == nil {
			runErr = err
		}
		if o.Status != nil {
			fmt.Fprintf(o.Status, "warc: %d exchanges in %s (index %s.cdxj)\n", n, o.WARC, o.WARC)
		}
	}

	run.FinishedAt = time.Now()
	run.Stats = progress.RunStats(sum)
	run.Stats.Settings = RunSettings(cfg.Dedup)
	run.Stats.Settings.SourceNames = cfg.SourceNames()
	switch {
	case errors.Is(runErr, ErrOutage):
		runErr = outageEnd(ctx, store, &sum, runErr)
		run.Stats, run.Status = progress.RunStats(sum), storage.RunInterrupted
	case runErr != nil:
		run.Status = storage.RunFailed
	case sum.Interrupted:
		run.Status = storage.RunInterrupted
	default:
		run.Status = storage.RunCompleted
	}
	if err := store.FinishRun(context.WithoutCancel(ctx), run); err != nil && runErr == nil {
		runErr = fmt.Errorf("finish run: %w", err)
	}
	res := CrawlResult{Run: run, Summary: sum, Elapsed: time.Since(start)}
	if runErr != nil {
		return res, runErr
	}
	if sum.Interrupted {
		return res, ctx.Err()
	}
	return res, nil
}

// CloseDeadRuns marks runs still "running" as interrupted: with the store's
// lock held, no other process runs them, so they died (kill -9, power loss);
// their work is resumed from the frontier by this run. On a shared store
// (PostgreSQL), whose lock several crawls hold at once, the runs of live
// processes are left running.
func CloseDeadRuns(ctx context.Context, store storage.Store) error {
	runs, err := store.Runs(ctx)
	if err != nil {
		return fmt.Errorf("list runs: %w", err)
	}
	live, shared := store.(runLiveness)
	for _, r := range runs {
		if r.Status == storage.RunRunning && shared {
			// Another process's crawl on a shared store is not dead.
			alive, err := live.RunAlive(ctx, r.ID)
			if err != nil {
				return fmt.Errorf("close dead runs: %w", err)
			}
			if alive {
				continue
			}
		}
		if r.Status == storage.RunRunning {
			r.Status = storage.RunInterrupted
			if err := store.FinishRun(ctx, r); err != nil {
				return fmt.Errorf("close dead run %d: %w", r.ID, err)
			}
		}
	}
	return nil
}

// progressHook returns the crawler's progress callback and interval: it
// feeds o.Metrics every MetricsEvery and calls o.Progress every
// o.ProgressEvery; flush, called when the crawl has ended, reports the
// last snapshot if it was not reported yet. Neither set: no callback.
func progressHook(ctx context.Context, store storage.Frontier, o CrawlOptions, start time.Time) (hook func(crawler.Snapshot), every time.Duration, flush func()) {
	report := o.Progress != nil && o.ProgressEvery > 0
	if !report && o.Metrics == nil {
		return nil, 0, func() {}
	}
	every = o.ProgressEvery
	if o.Metrics != nil && (!report || every > MetricsEvery) {
		every = MetricsEvery
	}
	var last time.Duration
	var pending *Progress // the latest snapshot, when not reported
	flush = func() {
		if report && pending != nil {
			o.Progress(*pending)
			pending = nil
		}
	}
	return func(s crawler.Snapshot) {
		elapsed := time.Since(start)
		var queue map[string]int
		for _, site := range s.Sites {
			n, err := store.Pending(context.WithoutCancel(ctx), site.Name)
			if err != nil {
				queue = nil
				break
			}
			if queue == nil {
				queue = map[string]int{}
			}
			queue[site.Name] = n
		}
		if o.Metrics != nil {
			counts := make([]metrics.SiteCounts, len(s.Sites))
			for i, site := range s.Sites {
				c := progress.CountsOf(site) // errors and gone pages as the summary counts them
				counts[i] = metrics.SiteCounts{Site: site.Name, Stored: site.Stored, Duplicates: site.Duplicates,
					NotArticle: site.NotArticle, Errors: c.Errors, Gone: c.Gone, Parts: site.Parts, RobotsBlocked: site.RobotsBlocked,
					Retries: site.Retries, Bytes: site.Bytes, Requests: site.Requests, NotModified: site.NotModified,
					SurfacesNotDue: site.SurfacesNotDue}
				if n, ok := queue[site.Name]; ok {
					o.Metrics.SetQueueDepth(site.Name, n)
				}
			}
			o.Metrics.ObserveSites(counts)
		}
		// Snapshots come every MetricsEvery when metrics are on: report one
		// at most every ProgressEvery (with 10 % slack for timer jitter).
		p := Progress{Snapshot: s, Elapsed: elapsed, Queue: queue}
		pending = &p
		if report && elapsed-last >= o.ProgressEvery-o.ProgressEvery/10 {
			last = elapsed
			flush()
		}
	}, every, flush
}

// timedProcessor feeds the decision latency and the index size to metrics.
type timedProcessor struct {
	p   crawler.Processor
	m   *metrics.Metrics
	eng interface{ Len() int }
}

// ProcessArticle implements crawler.Processor.
func (t timedProcessor) ProcessArticle(ctx context.Context, r *crawler.Response) (storage.Outcome, error) {
	t0 := time.Now()
	out, err := t.p.ProcessArticle(ctx, r)
	t.m.ObserveDecision(time.Since(t0))
	t.m.SetIndexSize(t.eng.Len())
	return out, err
}
