package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/textfmt"
	"github.com/newsdedup/newscrawl/storage"
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
	_, err = crawl(ctx, &cfg, pipeline.CrawlOptions{ConfigPath: *site, Sites: names, Wait: *wait, ProgressEvery: *every, Log: log, Workers: *workers}, stdout, stderr)
	return err
}

// crawl runs pipeline.Crawl with progress lines and start-up lines on
// stderr, and prints the summary on stdout whenever the run was begun.
func crawl(ctx context.Context, cfg *config.Config, o pipeline.CrawlOptions, stdout, stderr io.Writer) (pipeline.CrawlResult, error) {
	o.Status = stderr
	if o.ProgressEvery > 0 {
		o.Progress = progressTo(stderr)
	}
	res, err := pipeline.Crawl(ctx, cfg, o)
	if res.Run.ID != 0 {
		printSummary(stdout, cfg.Storage, res.Run, res.Summary, res.Elapsed)
	}
	return res, err
}

// progressTo prints progress lines on w.
func progressTo(w io.Writer) func(s crawler.Snapshot, elapsed time.Duration) {
	return func(s crawler.Snapshot, elapsed time.Duration) { fmt.Fprintln(w, formatProgress(s, elapsed)) }
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
			fmt.Fprintf(w, "  %s errors by kind: %s\n", s.Name, textfmt.Kinds(s.ErrorKinds))
		}
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "  warning: %s: %s\n", s.Name, warn)
		}
	}
}
