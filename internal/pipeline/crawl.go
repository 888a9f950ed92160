package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
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
	// Progress, when set, is called every ProgressEvery during the crawl.
	Progress      func(s crawler.Snapshot, elapsed time.Duration)
	ProgressEvery time.Duration
}

// CrawlResult is what a crawl did: its run record (with status and
// totals), the per-site summary and the wall time.
type CrawlResult struct {
	Run     storage.Run
	Summary crawler.Summary
	Elapsed time.Duration
}

// Crawl runs one crawl of cfg into the SQLite store cfg.Storage: lock the
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
	store, err := sqlite.Open(ctx, cfg.Storage)
	if err != nil {
		return CrawlResult{}, err // names the store
	}
	defer store.Close()
	if o.Wait {
		fmt.Fprintf(status, "waiting for the store lock on %s\n", cfg.Storage)
	}
	release, err := store.Lock(ctx, o.Wait)
	if err != nil {
		if errors.Is(err, storage.ErrLocked) {
			return CrawlResult{}, fmt.Errorf("%s: another crawl is running on this store (use --wait to wait for it): %w", cfg.Storage, err)
		}
		return CrawlResult{}, fmt.Errorf("lock %s: %w", cfg.Storage, err)
	}
	defer release()
	if err := CloseDeadRuns(ctx, store); err != nil {
		return CrawlResult{}, err
	}
	proc, err := articleStage(ctx, cfg, store, o, status)
	if err != nil {
		return CrawlResult{}, err
	}
	return runCrawl(ctx, cfg, store, proc, o, start)
}

// articleStage is the crawl's Processor: the full pipeline, or a discarding
// one for a fetch-only run.
func articleStage(ctx context.Context, cfg *config.Config, store storage.Store, o CrawlOptions, status io.Writer) (crawler.Processor, error) {
	if o.FetchOnly {
		return crawler.Discard{Store: store}, nil
	}
	t := time.Now()
	seg := o.Segmenter
	if seg == nil {
		fmt.Fprintf(status, "loading segmenter dictionary… ")
		var err error
		if seg, err = NewSegmenter(cfg.Segment); err != nil {
			return nil, err
		}
	}
	eng, n, err := NewEngine(ctx, cfg, seg, store, time.Now())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(status, "ready in %.1fs; %d stored articles indexed\n", time.Since(t).Seconds(), n)
	return NewProcessor(cfg, store, eng, o.Log)
}

// runCrawl begins a run, crawls and records how the run ended, even when
// ctx was cancelled by a signal.
func runCrawl(ctx context.Context, cfg *config.Config, store storage.Store, proc crawler.Processor, o CrawlOptions, start time.Time) (CrawlResult, error) {
	run, err := store.BeginRun(ctx, o.ConfigPath)
	if err != nil {
		return CrawlResult{}, fmt.Errorf("begin run: %w", err)
	}
	copts := crawler.Options{Sites: o.Sites, Workers: o.Workers, Logger: o.Log, ProgressEvery: o.ProgressEvery}
	if o.Progress != nil {
		copts.Progress = func(s crawler.Snapshot) { o.Progress(s, time.Since(start)) }
	}
	cr, err := crawler.New(cfg, store, proc, copts)
	if err != nil {
		return CrawlResult{}, err
	}
	sum, runErr := cr.Run(ctx, run.ID)

	run.FinishedAt = time.Now()
	run.Stats = sum.Totals()
	switch {
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
// their work is resumed from the frontier by this run.
func CloseDeadRuns(ctx context.Context, store storage.Store) error {
	runs, err := store.Runs(ctx)
	if err != nil {
		return fmt.Errorf("list runs: %w", err)
	}
	for _, r := range runs {
		if r.Status == storage.RunRunning {
			r.Status = storage.RunInterrupted
			if err := store.FinishRun(ctx, r); err != nil {
				return fmt.Errorf("close dead run %d: %w", r.ID, err)
			}
		}
	}
	return nil
}
