package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/segment"
)

// cmdLearnAntecedents learns SpotSigs antecedents (Li Yan et al. 2017 §3.3)
// from a labelled extraction set laid out as original/<name>.html (the page)
// and cleaned/<name>.txt (its hand-labelled main text), prints the counts and
// writes the list that package segment embeds.
func cmdLearnAntecedents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("learn-antecedents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "../shared/data/extraction/cwced-dev", "labelled set: directory with original/*.html and cleaned/*.txt")
	out := fs.String("out", "segment/antecedents.txt", "antecedent list to write (empty: print only)")
	basic := fs.Float64("basic", segment.DefaultBasicRatio, "basic antecedents: t1/t2 above this")
	opt := fs.Float64("opt", segment.DefaultOptRatio, "optimised antecedents: t1/t2 above this")
	top := fs.Int("top", segment.DefaultTopN, "only the N stopwords most frequent in the main text are candidates")
	all := fs.Bool("all", false, "print every stopword found, not only the candidates and the next ones")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("learn-antecedents: unexpected arguments %q", fs.Args())
	}
	if *basic <= 0 || *opt <= 0 || *top <= 0 {
		return usagef("learn-antecedents: --basic, --opt and --top must be positive")
	}

	pages, err := readLabelledPages(ctx, *data)
	if err != nil {
		return fmt.Errorf("learn-antecedents: %w", err)
	}
	seg, err := segment.New(segment.Options{})
	if err != nil {
		return fmt.Errorf("learn-antecedents: %w", err)
	}
	stats, err := segment.LearnAntecedents(pages, seg.Words, seg.IsStop,
		segment.LearnOptions{BasicRatio: *basic, OptRatio: *opt, TopN: *top})
	if err != nil {
		return fmt.Errorf("learn-antecedents: %w", err)
	}

	shown := len(stats)
	if !*all {
		shown = min(shown, 2**top)
	}
	fmt.Fprintf(stdout, "%d pages from %s; %d stopwords occur; top %d by t1 are candidates\n\n", len(pages), *data, len(stats), *top)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tword\tt1\tt2\tt1/t2\tset\t")
	nBasic, nOpt := 0, 0
	for i, st := range stats {
		set := "-"
		switch {
		case st.Optimised:
			set = "optimised"
			nOpt++
			nBasic++
		case st.Basic:
			set = "basic"
			nBasic++
		}
		if i < shown {
			ratio := "inf"
			if !math.IsInf(st.Ratio, 1) {
				ratio = fmt.Sprintf("%.3f", st.Ratio)
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t\n", st.Rank, st.Word, st.T1, st.T2, ratio, set)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if shown < len(stats) {
		fmt.Fprintf(stdout, "(%d more stopwords not shown; --all lists them)\n", len(stats)-shown)
	}
	fmt.Fprintf(stdout, "\nbasic antecedents (t1/t2 > %g): %d; optimised (t1/t2 > %g): %d\n", *basic, nBasic, *opt, nOpt)

	if *out == "" {
		return nil
	}
	header := []string{
		"SpotSigs antecedents for package segment (Li Yan et al. 2017 §3.3; Theobald et al. 2008).",
		fmt.Sprintf("Made on %s by: newscrawl learn-antecedents --data %s --basic %g --opt %g --top %d",
			time.Now().UTC().Format("2006-01-02"), *data, *basic, *opt, *top),
		fmt.Sprintf("Data: %d pages; t1 = count in the labelled main text (cleaned/*.txt), t2 = count in", len(pages)),
		"the page's visible text (original/*.html without head/script/style/noscript/template),",
		"both segmented with segment.Words, stopwords from segment.IsStop (embedded list).",
		fmt.Sprintf("Candidates: the %d stopwords with the highest t1. basic: t1/t2 > %g; optimised: t1/t2 > %g.", *top, *basic, *opt),
		"Antecedents() returns 的 是 在 了 plus the rows marked optimised.",
		"Columns: word, t1, t2, t1/t2, set.",
	}
	if err := os.WriteFile(*out, []byte(segment.FormatAntecedents(header, stats)), 0o644); err != nil {
		return fmt.Errorf("learn-antecedents: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// maxLabelledFile bounds each page or text file read by readLabelledPages.
const maxLabelledFile = 32 << 20

// readLabelledPages reads every original/<name>.html that has a
// cleaned/<name>.txt, in name order.
func readLabelledPages(ctx context.Context, dir string) ([]segment.LabelledPage, error) {
	names, err := filepath.Glob(filepath.Join(dir, "original", "*.html"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no pages in %s", filepath.Join(dir, "original"))
	}
	sort.Strings(names)
	var pages []segment.LabelledPage
	for _, path := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(filepath.Base(path), ".html")
		cleanedPath := filepath.Join(dir, "cleaned", base+".txt")
		cleaned, err := pipeline.ReadLimited(cleanedPath, maxLabelledFile)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		raw, err := pipeline.ReadLimited(path, maxLabelledFile)
		if err != nil {
			return nil, err
		}
		page, err := segment.DecodeHTML(raw, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		text, err := segment.DecodeHTML(cleaned, "text/plain")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cleanedPath, err)
		}
		pages = append(pages, segment.LabelledPage{Name: base, HTML: page, Cleaned: text})
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("no page in %s has a cleaned text", dir)
	}
	return pages, nil
}
