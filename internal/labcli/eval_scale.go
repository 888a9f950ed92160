package labcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/evalscale"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdEvalScale(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval scale", stderr)
	docs := fs.String("docs", "10000,100000,1000000", "comma-separated corpus sizes")
	corpus := fs.String("corpus", "out/scale/scale.jsonl", "gen.py corpus (written with ../shared/bench/scale/gen.py when missing or short)")
	queries := fs.Int("queries", evalscale.DefaultQueries, "held-out texts decided per size")
	dir := fs.String("dir", "", "directory for the stores (default: a temporary one, removed afterwards)")
	noStore := fs.Bool("no-store", false, "measure the engine only: no import, store size or start-up")
	startup := fs.String("startup", "", "measure only the start-up of a run (index rebuilt, and snapshot plus tail) over SQLite stores filled with synthetic signatures modelled on this fingerprint file (see --fingerprints)")
	tail := fs.Int("tail", evalscale.DefaultTail, "with --startup: commits made after the snapshot")
	index := fs.String("index", pipeline.DefaultIndex, "candidate stage measured: lsh, prefix or exhaustive")
	fpOut := fs.String("fingerprints", "", "only write the fingerprints of the corpus's texts to this file (for the Go benchmarks' NEWSCRAWL_SCALE_FP) and exit")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	var engine dedup.Options
	if err := pipeline.SetIndex(&engine, *index); err != nil {
		return usagef("eval scale: --index: %v", err)
	}
	var sizes []int
	for _, s := range strings.Split(*docs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return usagef("eval scale: --docs: %q is not a positive number", s)
		}
		sizes = append(sizes, n)
	}
	sh, err := sharedDir(*shared)
	if err != nil {
		sh = "" // an existing corpus is enough
	}
	t := time.Now()
	seg, err := loadSegmenter(stderr)
	if err != nil {
		return err
	}
	segLoad := time.Since(t)
	if *fpOut != "" {
		n, err := evalscale.WriteFingerprints(ctx, seg, *corpus, *fpOut)
		if err != nil {
			return fmt.Errorf("eval scale: %w", err)
		}
		fmt.Fprintf(stdout, "%d fingerprints of %s written to %s\n", n, *corpus, *fpOut)
		return nil
	}
	if *startup != "" {
		return evalStartUp(ctx, evalscale.StartUpConfig{Docs: sizes, Fingerprints: *startup, Dir: *dir, Tail: *tail, Segmenter: seg, Status: stderr}, stdout, segLoad)
	}
	rep, err := evalscale.Run(ctx, evalscale.Config{Docs: sizes, Corpus: *corpus, Shared: sh, Queries: *queries, Dir: *dir,
		NoStore: *noStore, Segmenter: seg, Engine: engine, Index: *index, Status: stderr})
	if err != nil {
		return fmt.Errorf("eval scale: %w", err)
	}
	rep.WriteTable(stdout, segLoad)
	return nil
}

// evalStartUp runs eval scale --startup, in a temporary directory unless
// one is given.
func evalStartUp(ctx context.Context, c evalscale.StartUpConfig, stdout io.Writer, segLoad time.Duration) error {
	if c.Dir == "" {
		d, err := os.MkdirTemp("", "newscrawl-startup-")
		if err != nil {
			return fmt.Errorf("eval scale: %w", err)
		}
		defer os.RemoveAll(d)
		c.Dir = d
	}
	rows, err := evalscale.RunStartUp(ctx, c)
	evalscale.WriteStartUpTable(stdout, rows, segLoad)
	if err != nil {
		return fmt.Errorf("eval scale: %w", err)
	}
	return nil
}
