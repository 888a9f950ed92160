package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/report"
)

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	db := fs.String("db", "data/news.db", "SQLite store to read")
	out := fs.String("out", "report.html", "HTML file to write (- for standard output)")
	th := addThresholdFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("report: unexpected arguments %q", fs.Args())
	}
	store, err := pipeline.OpenExisting(ctx, *db)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer store.Close()
	r, err := report.Build(ctx, store, *th, time.Now())
	if err != nil {
		return err
	}
	if *out == "-" {
		return r.WriteHTML(stdout)
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := r.WriteHTML(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stderr, "report: %s (%d runs, %d pages, %d stored, %d duplicates)\n", *out, len(r.Runs), r.Total.Pages, r.Total.Stored, r.Total.Duplicates)
	return nil
}

// addThresholdFlags registers the thresholds shown next to verdicts: the
// store does not record the crawl's settings, so a crawl run with other
// values than the defaults passes them here.
func addThresholdFlags(fs interface {
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
}) *explain.Thresholds {
	th := explain.Default()
	fs.IntVar(&th.Hamming, "hamming", th.Hamming, "Simhash candidate radius the crawl used (dedup.hamming), shown with the verdicts")
	fs.Float64Var(&th.Jaccard, "jaccard", th.Jaccard, "SpotSigs Jaccard threshold the crawl used (dedup.jaccard), shown with the verdicts")
	return &th
}
