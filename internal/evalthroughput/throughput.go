// Package evalthroughput is `eval throughput`: pages per second of the
// full pipeline against a fetch-only run of the same crawl, on the bench
// server over loopback with no politeness delay. The figures depend on the
// machine and its load; the ratio is what the goal (≥ 0.50) is about.
package evalthroughput

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/evalweb"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// GoalRatio is the lowest acceptable full-pipeline / fetch-only ratio.
const GoalRatio = 0.50

// Config configures Run.
type Config struct {
	Shared   string    // the shared data directory
	SiteFile string    // site file of the bench web
	OutDir   string    // directory for the temporary stores
	Status   io.Writer // the server build's output (nil: discarded)
}

// Result is one timed crawl.
type Result struct {
	Name    string
	Fetched int
	Seconds float64
}

// PagesPerSecond is Fetched / Seconds.
func (r Result) PagesPerSecond() float64 { return float64(r.Fetched) / r.Seconds }

// Report is the outcome of Run: the fetch-only run, then the full one.
type Report struct {
	SiteFile string
	Runs     []Result
}

// Ratio is the full pipeline's pages/s over the fetch-only run's.
func (r *Report) Ratio() float64 { return r.Runs[1].PagesPerSecond() / r.Runs[0].PagesPerSecond() }

// Run crawls the bench web twice, fetch-only and with the full pipeline,
// each against a fresh server and store.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Status == nil {
		c.Status = io.Discard
	}
	if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
		return nil, err
	}
	rep := &Report{SiteFile: c.SiteFile}
	for _, fetchOnly := range []bool{true, false} {
		r, err := timedCrawl(ctx, c, fetchOnly)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, r)
	}
	return rep, nil
}

// timedCrawl runs one crawl with delay 0 and times it.
func timedCrawl(ctx context.Context, c Config, fetchOnly bool) (Result, error) {
	cfg, err := config.Load(c.SiteFile)
	if err != nil {
		return Result{}, err
	}
	for i := range cfg.Sites {
		cfg.Sites[i].Delay = 0 // loopback, no politeness delay: measure the pipeline
	}
	name := "full pipeline"
	if fetchOnly {
		name = "fetch only"
	}
	db := filepath.Join(c.OutDir, "throughput.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	cfg.Storage = db
	// A fresh server per run: its fail-once route and caches start equal.
	srv, err := evalweb.StartServer(ctx, c.Shared, c.Status)
	if err != nil {
		return Result{}, err
	}
	defer srv.Stop()
	o := pipeline.CrawlOptions{ConfigPath: c.SiteFile, FetchOnly: fetchOnly,
		Log: slog.New(slog.NewTextHandler(c.Status, &slog.HandlerOptions{Level: slog.LevelError}))}
	if !fetchOnly {
		// The segmenter loads once per process, before the clock starts.
		if o.Segmenter, err = pipeline.NewSegmenter(cfg.Segment); err != nil {
			return Result{}, err
		}
	}
	t := time.Now()
	res, err := pipeline.Crawl(ctx, &cfg, o)
	secs := time.Since(t).Seconds()
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	return Result{name, res.Summary.Totals().Fetched, secs}, nil
}

// WriteTable prints the throughput table.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "\n## Throughput on loopback, delay 0 (%s)\n\n| run | pages | seconds | pages/s |\n|---|---|---|---|\n", r.SiteFile)
	for _, x := range r.Runs {
		fmt.Fprintf(w, "| %s | %d | %.2f | %.1f |\n", x.Name, x.Fetched, x.Seconds, x.PagesPerSecond())
	}
	fmt.Fprintf(w, "\nfull pipeline / fetch only: %.2f (goal ≥ %.2f)\n", r.Ratio(), GoalRatio)
}
