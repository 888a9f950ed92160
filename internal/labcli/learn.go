package labcli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"
	"time"

	"github.com/newsdedup/newscrawl/internal/antecedents"
	"github.com/newsdedup/newscrawl/segment"
)

// cmdLearnAntecedents learns SpotSigs antecedents (Li Yan et al. 2017 §3.3)
// from a labelled extraction set laid out as original/<name>.html (the page)
// and cleaned/<name>.txt (its hand-labelled main text), prints the counts and
// writes the list that package segment embeds.
func cmdLearnAntecedents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("learn-antecedents", stderr)
	data := fs.String("data", "../shared/data/extraction/cwced-dev", "labelled set: directory with original/*.html and cleaned/*.txt")
	out := fs.String("out", "", "file to write the antecedent list to, in the format of segment/antecedents.txt (default: print only; to update the embedded list, name segment/antecedents.txt)")
	basic := fs.Float64("basic", antecedents.DefaultBasicRatio, "basic antecedents: t1/t2 above this")
	opt := fs.Float64("opt", antecedents.DefaultOptRatio, "optimised antecedents: t1/t2 above this")
	top := fs.Int("top", antecedents.DefaultTopN, "only the N stopwords most frequent in the main text are candidates")
	all := fs.Bool("all", false, "print every stopword found, not only the candidates and the next ones")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if fs.NArg() > 0 {
		return usagef("learn-antecedents: unexpected arguments %q", fs.Args())
	}
	if *basic <= 0 || *opt <= 0 || *top <= 0 {
		return usagef("learn-antecedents: --basic, --opt and --top must be positive")
	}

	pages, err := antecedents.ReadLabelled(ctx, *data)
	if err != nil {
		return fmt.Errorf("learn-antecedents: %w", err)
	}
	seg, err := segment.New(segment.Options{})
	if err != nil {
		return fmt.Errorf("learn-antecedents: %w", err)
	}
	stats, err := antecedents.Learn(pages, seg.Words, seg.IsStop,
		antecedents.LearnOptions{BasicRatio: *basic, OptRatio: *opt, TopN: *top})
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
		fmt.Sprintf("Made on %s by: newscrawl-lab learn-antecedents --data %s --basic %g --opt %g --top %d",
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
