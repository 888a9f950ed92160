package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("dedup", stderr)
	in := fs.String("in", "", "input: a JSONL file of {id, text, title} or a directory of HTML pages")
	out := fs.String("out", "", "output JSONL file (default: standard output)")
	jac := fs.Float64("jaccard", dedup.DefaultJaccard, "SpotSigs Jaccard threshold")
	ham := fs.Int("hamming", dedup.DefaultHamming, "Simhash candidate radius of --index exhaustive (the only index taking Simhash candidates)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	index := fs.String("index", pipeline.DefaultIndex, "candidate stage: lsh, prefix or exhaustive")
	partial := fs.Bool("partial", true, "keep a verified article when it and the stored one each add text of their own under headlines of their own (both >= 20% of their content words, one >= 40%; reason \"partial\", with partial_of and the shared passages); --partial=false merges it")
	lenient := fs.Bool("lenient", false, "JSONL input: ignore keys that are neither id, title, text nor those of a newscrawl export (default: an unknown key is an error naming the line)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *in == "" || fs.NArg() > 0 {
		return usagef("dedup: --in FILE.jsonl or --in DIR is required")
	}
	if flagSet(fs, "hamming") && *index != pipeline.ExhaustiveIndex {
		return usagef("dedup: --hamming changes nothing under --index %s: only exhaustive takes Simhash candidates", *index)
	}
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	defer stopProfile()
	st, err := os.Stat(*in)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	t0 := time.Now()
	seg, err := pipeline.NewSegmenter(config.Segment{})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "dedup: segmenter loaded in %.2fs\n", time.Since(t0).Seconds())
	opts := dedup.Options{Hamming: *ham, Jaccard: *jac, PartialReprint: *partial}
	if err := pipeline.SetIndex(&opts, *index); err != nil {
		return usagef("dedup: --index: %v", err)
	}
	eng, err := dedup.New(seg, opts)
	if err != nil {
		return usageError{err}
	}
	t1 := time.Now()
	var n, kept, dups int
	if st.IsDir() {
		docs, err := readDedupInput(*in, stderr)
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		var results []pipeline.OfflineResult
		results, kept, dups, err = pipeline.Dedup(ctx, eng, docs)
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		if err := writeDedupResults(*out, stdout, results); err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		n = len(docs)
	} else {
		// JSONL input is streamed: memory does not grow with the input,
		// except through the index.
		w, closeOut, err := dedupOutput(*out, stdout)
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		n, kept, dups, err = pipeline.DedupStream(ctx, eng, pipeline.StreamJSONLWith(*in, *lenient), w, "")
		if cerr := closeOut(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
	}
	el := time.Since(t1)
	fmt.Fprintf(stderr, "dedup: %d documents in %.2fs (%.0f docs/s): %d kept, %d duplicates\n",
		n, el.Seconds(), float64(n)/el.Seconds(), kept, dups)
	return nil
}

// dedupOutput opens the output file (stdout when out is empty).
func dedupOutput(out string, stdout io.Writer) (io.Writer, func() error, error) {
	if out == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(out)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// readDedupInput reads a JSONL file or extracts a directory of HTML pages,
// reporting the pages without an article on stderr.
func readDedupInput(in string, stderr io.Writer) ([]pipeline.OfflineDoc, error) {
	st, err := os.Stat(in)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return pipeline.ReadJSONL(in)
	}
	skipped, special := 0, 0
	docs, err := pipeline.ReadHTMLDir(in, func(rel string, err error) {
		if errors.Is(err, pipeline.ErrNotRegular) {
			special++
			fmt.Fprintf(stderr, "dedup: %s: skipped: %v\n", rel, err)
			return
		}
		skipped++
		if !errors.Is(err, extract.ErrNoArticle) {
			fmt.Fprintf(stderr, "dedup: %s: %v\n", rel, err)
		}
	})
	if skipped > 0 {
		fmt.Fprintf(stderr, "dedup: %d pages had no extractable article (kept as singletons)\n", skipped)
	}
	if special > 0 {
		fmt.Fprintf(stderr, "dedup: %d names were not regular files (skipped, no document)\n", special)
	}
	return docs, err
}

// writeDedupResults writes one JSON line per document to the file out, or
// to stdout when out is empty.
func writeDedupResults(out string, stdout io.Writer, results []pipeline.OfflineResult) error {
	w := stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok && out != "" {
		return f.Close()
	}
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
