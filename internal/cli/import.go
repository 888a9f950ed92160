package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", stderr)
	in := fs.String("in", "", `JSONL file: one {"url","title","text"[,"site","published_at"]} object per line`)
	db := fs.String("db", "", "SQLite file or postgres:// URL of the store (default: the site file's storage, or "+config.Default().Storage+")")
	site := fs.String("site", "", "site file whose storage and dedup settings apply (default: built-in defaults)")
	every := durationFlag(fs, "progress", 5*time.Second, "progress report interval: a `duration` (5s, 1m) or seconds (5); 0: none")
	lenient := fs.Bool("lenient", false, "ignore keys that are neither the import's nor those of a newscrawl export (default: an unknown key is an error naming the line)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the import to this file")
	memprofile := fs.String("memprofile", "", "write a heap profile (allocations and what is live) at the end of the import to this file")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *in == "" || fs.NArg() > 0 {
		return usagef("import: --in FILE.jsonl is required")
	}
	cfg, err := siteConfig(*site, *db)
	if err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	o := pipeline.ImportOptions{ProgressEvery: *every}
	if *every > 0 {
		o.Progress = func(s pipeline.ImportStats) {
			fmt.Fprintf(stderr, "import: %s\n", formatImport(s))
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	st, err := pipeline.Import(ctx, &cfg, *in, pipeline.StreamImport(f, *in, *lenient), o)
	stopProfile()
	if perr := writeHeapProfile(*memprofile); perr != nil && err == nil {
		err = fmt.Errorf("import: %w", perr)
	}
	if err != nil && st.StartUp == 0 {
		return fmt.Errorf("import: %w", err) // the store did not open: nothing to sum up
	}
	fmt.Fprintf(stdout, "import %s into %s: start-up %.2fs (%d articles indexed; %s); %s\n",
		*in, pipeline.StoreName(cfg.Storage), st.StartUp.Seconds(), st.Indexed, st.Index, formatImport(st))
	if s := st.Saved; s.Skipped == "" && s.Bytes > 0 && s.Delta {
		fmt.Fprintf(stdout, "index delta saved: %d entries, %.1f KB in %.2fs (%s.delta)\n", s.Entries, float64(s.Bytes)/1e3, s.Elapsed.Seconds(), s.Path)
	} else if s.Skipped == "" && s.Bytes > 0 {
		fmt.Fprintf(stdout, "index snapshot saved: %d entries, %.1f MB in %.1fs (%s)\n", s.Entries, float64(s.Bytes)/1e6, s.Elapsed.Seconds(), s.Path)
	}
	return err // names the line or the URL
}

// importGCPercent is the garbage collector's target while importing (Go's
// GOGC; the default is 100). An import's live heap is mostly the
// near-duplicate index, which only grows, and with the default the heap
// was let grow to twice it before each collection: a peak RSS of 2.4
// times the live heap at 100,000 articles (483 MB against 204 MB live).
// The index's arrays hold no pointers, so a collection marks them cheaply
// and collecting four times as often costs little; the fingerprints'
// garbage is short-lived.
const importGCPercent = 25

func formatImport(s pipeline.ImportStats) string {
	return fmt.Sprintf("%d read in %.1fs (%.0f/s): %d stored, %d duplicates, %d not_article (no text), %d decided before",
		s.Read, s.Elapsed.Seconds(), float64(s.Read)/max(s.Elapsed.Seconds(), 1e-9), s.Stored, s.Duplicates, s.NotArticle, s.AlreadyDecided)
}
