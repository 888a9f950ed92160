package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/report"
)

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	db := fs.String("db", "data/news.db", "store to read: a SQLite file or a postgres:// URL")
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
	thr, err := th.resolve()
	if err != nil {
		return err
	}
	r, err := report.Build(ctx, store, thr, time.Now())
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

// thresholdFlags are the thresholds shown next to verdicts: those each
// run recorded (else the defaults), unless --site names the site file the
// crawl used or --hamming and --jaccard fix them.
type thresholdFlags struct {
	site    string
	hamming int
	jaccard float64
	fs      *flag.FlagSet
}

func addThresholdFlags(fs *flag.FlagSet) *thresholdFlags {
	d := explain.Default()
	t := &thresholdFlags{fs: fs}
	fs.StringVar(&t.site, "site", "", "site file whose dedup.hamming and dedup.jaccard are the thresholds shown (default: those each run recorded, else the engine's defaults)")
	fs.IntVar(&t.hamming, "hamming", d.Hamming, "Simhash candidate radius to show with the verdicts (overrides --site)")
	fs.Float64Var(&t.jaccard, "jaccard", d.Jaccard, "SpotSigs Jaccard threshold to show with the verdicts (overrides --site)")
	return t
}

// resolve returns the thresholds after parsing.
func (t *thresholdFlags) resolve() (explain.Thresholds, error) {
	th := explain.Default()
	if t.site != "" {
		cfg, err := config.Load(t.site)
		if err != nil {
			return th, usageError{fmt.Errorf("--site: %w", err)}
		}
		th.Hamming, th.Jaccard = cfg.Dedup.Hamming, cfg.Dedup.Jaccard
		th.Source = "--site " + t.site
	}
	t.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "hamming":
			th.Hamming, th.Source = t.hamming, "flags"
		case "jaccard":
			th.Jaccard, th.Source = t.jaccard, "flags"
		}
	})
	return th, nil
}
