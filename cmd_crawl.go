package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

func cmdCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site := fs.String("site", "configs/sites.yaml", "site file")
	db := fs.String("db", "", "SQLite store (default: the site file's storage)")
	only := fs.String("only", "", "comma-separated site names to crawl (default: all)")
	wait := fs.Bool("wait", false, "wait for a running crawl on the same store instead of exiting")
	every := fs.Duration("progress", 5*time.Second, "progress report interval (0: none)")
	verbose := fs.Bool("v", false, "log every skipped page")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	workers := fs.Int("workers", 0, "bound concurrent fetches over all sites (0: the sum of the sites' parallelism; 1: one page at a time)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("crawl: unexpected arguments %q", fs.Args())
	}
	cfg, err := config.Load(*site)
	if err != nil {
		return usageError{err} // a missing, unparsable or invalid site file: exit 2
	}
	if *db != "" {
		cfg.Storage = *db
	}
	var names []string
	if *only != "" {
		known := map[string]bool{}
		for _, s := range cfg.Sites {
			known[s.Name] = true
		}
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !known[n] {
				return usagef("crawl: --only: no site named %q in %s", n, *site)
			}
			names = append(names, n)
		}
	}
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	defer stopProfile()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *workers < 0 {
		return usagef("crawl: --workers must be >= 0, got %d", *workers)
	}
	_, err = crawlOnce(ctx, &cfg, crawlOptions{configPath: *site, sites: names, wait: *wait, progress: *every, log: log, workers: *workers}, stdout, stderr)
	return err
}

type crawlOptions struct {
	configPath string
	sites      []string
	wait       bool
	progress   time.Duration
	log        *slog.Logger
	fetchOnly  bool               // throughput baseline: fetch and parse links, no article stage
	workers    int                // crawler.Options.Workers (0: default)
	seg        *segment.Segmenter // preloaded segmenter (nil: load it)
}

// crawlOnce runs one crawl: lock the store, rebuild the dedup index, crawl,
// record the run, print the summary.
func crawlOnce(ctx context.Context, cfg *config.Config, o crawlOptions, stdout, stderr io.Writer) (crawler.Summary, error) {
	start := time.Now()
	store, err := sqlite.Open(ctx, cfg.Storage)
	if err != nil {
		return crawler.Summary{}, err // names the store
	}
	defer store.Close()
	if o.wait {
		fmt.Fprintf(stderr, "waiting for the store lock on %s\n", cfg.Storage)
	}
	release, err := store.Lock(ctx, o.wait)
	if err != nil {
		if errors.Is(err, storage.ErrLocked) {
			return crawler.Summary{}, fmt.Errorf("%s: another crawl is running on this store (use --wait to wait for it): %w", cfg.Storage, err)
		}
		return crawler.Summary{}, fmt.Errorf("lock %s: %w", cfg.Storage, err)
	}
	defer release()
	if err := closeDeadRuns(ctx, store); err != nil {
		return crawler.Summary{}, err
	}

	var proc crawler.Processor
	if o.fetchOnly {
		proc = crawler.Discard{Store: store}
	} else {
		t := time.Now()
		seg := o.seg
		if seg == nil {
			fmt.Fprintf(stderr, "loading segmenter dictionary… ")
			if seg, err = newSegmenter(cfg.Segment); err != nil {
				return crawler.Summary{}, err
			}
		}
		eng, n, err := newEngine(ctx, cfg, seg, store, time.Now())
		if err != nil {
			return crawler.Summary{}, err
		}
		fmt.Fprintf(stderr, "ready in %.1fs; %d stored articles indexed\n", time.Since(t).Seconds(), n)
		p, err := newPipeline(cfg, store, eng, o.log)
		if err != nil {
			return crawler.Summary{}, err
		}
		proc = p
	}

	run, err := store.BeginRun(ctx, o.configPath)
	if err != nil {
		return crawler.Summary{}, fmt.Errorf("begin run: %w", err)
	}
	cr, err := crawler.New(cfg, store, proc, crawler.Options{
		Sites: o.sites, Workers: o.workers, Logger: o.log, ProgressEvery: o.progress,
		Progress: func(s crawler.Snapshot) { fmt.Fprintln(stderr, formatProgress(s, time.Since(start))) },
	})
	if err != nil {
		return crawler.Summary{}, err
	}
	sum, runErr := cr.Run(ctx, run.ID)

	run.FinishedAt = time.Now()
	run.Stats = sum.Totals()
	switch {
	case runErr != nil:
		run.Status = "failed"
	case sum.Interrupted:
		run.Status = "interrupted"
	default:
		run.Status = "completed"
	}
	// Record the run even when ctx was cancelled by a signal.
	if err := store.FinishRun(context.WithoutCancel(ctx), run); err != nil && runErr == nil {
		runErr = fmt.Errorf("finish run: %w", err)
	}
	printSummary(stdout, cfg.Storage, run, sum, time.Since(start))
	if runErr != nil {
		return sum, runErr
	}
	if sum.Interrupted {
		return sum, ctx.Err()
	}
	return sum, nil
}

func formatProgress(s crawler.Snapshot, elapsed time.Duration) string {
	t := s.Totals()
	return fmt.Sprintf("[%5.0fs] fetched %d  stored %d  duplicates %d  not-article %d  errors %d  queued %d",
		elapsed.Seconds(), t.Fetched, t.Stored, t.Duplicates, t.NotArticle, t.Errors, s.Queued)
}

func printSummary(w io.Writer, db string, run storage.Run, sum crawler.Summary, elapsed time.Duration) {
	fmt.Fprintf(w, "\nrun %d %s in %s (store %s)\n", run.ID, run.Status, elapsed.Round(time.Millisecond), db)
	fmt.Fprintf(w, "%-12s %8s %8s %8s %8s %8s %8s\n", "site", "fetched", "articles", "stored", "dups", "no-art", "errors")
	for _, s := range sum.Sites {
		fmt.Fprintf(w, "%-12s %8d %8d %8d %8d %8d %8d\n", s.Name, s.Fetched, s.Articles, s.Stored, s.Duplicates, s.NotArticle, s.Errors)
	}
	t := run.Stats
	fmt.Fprintf(w, "%-12s %8d %8s %8d %8d %8d %8d\n", "total", t.Fetched, "", t.Stored, t.Duplicates, t.NotArticle, t.Errors)
	for _, s := range sum.Sites {
		if len(s.ErrorKinds) > 0 {
			fmt.Fprintf(w, "  %s errors by kind: %s\n", s.Name, formatKinds(s.ErrorKinds))
		}
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "  warning: %s: %s\n", s.Name, warn)
		}
	}
}

// startCPUProfile starts a CPU profile into path (no-op for "").
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// closeDeadRuns marks runs still "running" as interrupted: with the store's
// lock held, no other process runs them, so they died (kill -9, power loss);
// their work is resumed from the frontier by this run.
func closeDeadRuns(ctx context.Context, store storage.Store) error {
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
