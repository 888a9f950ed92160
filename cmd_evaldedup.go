package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/segment"
)

// evalMethod clusters texts with Single-Pass in input order.
type evalMethod struct {
	name    string
	cluster func(ctx context.Context, docs []dedup.Doc) ([]int, error)
}

// evalMethods are the methods every dedup table compares: the engine's
// three modes and the two baselines of the SpotSigs-zh paper.
func evalMethods(seg dedup.Segmenter, base dedup.Options) []evalMethod {
	engine := func(name string, opts dedup.Options) evalMethod {
		opts.Jaccard, opts.Containment = base.Jaccard, base.Containment
		opts.CentresOnly = opts.CentresOnly || base.CentresOnly
		opts.NoMerge = opts.NoMerge || base.NoMerge
		opts.NoPartial = opts.NoPartial || base.NoPartial
		return evalMethod{name, func(ctx context.Context, texts []dedup.Doc) ([]int, error) {
			eng, err := dedup.New(seg, opts)
			if err != nil {
				return nil, err
			}
			out := make([]int, len(texts))
			err = eng.Batch(ctx, texts, func(i int, v dedup.Verdict) error {
				out[i] = i
				if v.Duplicate {
					out[i] = int(v.Cluster)
				}
				return nil
			})
			for i, c := range out {
				out[i] = int(eng.ClusterOf(uint64(c)))
			}
			return out, err
		}}
	}
	return []evalMethod{
		// Classic Simhash compares with cluster centres only.
		engine("simhash k=3", dedup.Options{Mode: dedup.SimhashOnly, CentresOnly: true}),
		// P-Simhash (position-aware, TF-IDF, top 20, J-Tidf), also at k = 3.
		engine("p-simhash k=3", dedup.Options{Mode: dedup.SimhashOnly, CentresOnly: true, Positional: true, Weighting: segment.TFIDF, TopM: 20, JTidf: true}),
		engine("spotsigs", dedup.Options{Mode: dedup.SpotSigsOnly}),
		engine("combined (default)", dedup.Options{}),
		// The keyword semantic fingerprint (crawler book chapter) as the exact layer.
		engine("combined + keyfp exact", dedup.Options{KeywordExact: true}),
		baselineShingling(seg),
		baselineMinHash(seg),
	}
}

// addEngineFlags adds the engine settings the eval subcommands run with
// (--jaccard, --containment, --centres-only; zero: the defaults).
func addEngineFlags(fs *flag.FlagSet) *dedup.Options {
	o := &dedup.Options{}
	fs.Float64Var(&o.Jaccard, "jaccard", 0, "SpotSigs Jaccard threshold (0: default)")
	fs.Float64Var(&o.Containment, "containment", 0, "containment threshold (0: default, <0: off)")
	fs.BoolVar(&o.CentresOnly, "centres-only", false, "compare with cluster centres only (classic Single-Pass)")
	fs.BoolVar(&o.NoMerge, "no-merge", false, "never merge clusters that a new article bridges")
	fs.BoolVar(&o.NoPartial, "no-partial", false, "no partial-reprint rule: every verified article is a duplicate")
	return o
}

func cmdEvalDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval dedup", stderr)
	plots := fs.String("plots", "out/eval", "directory for the SVG plots")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	a := []string{"--plots", *plots}
	if *shared != "" {
		a = append(a, "--shared", *shared)
	}
	if err := cmdEvalRobust(ctx, a, stdout, stderr); err != nil {
		return err
	}
	a = a[2:]
	if err := cmdEvalGoldset(ctx, a, stdout, stderr); err != nil {
		return err
	}
	return cmdEvalWeb(ctx, a, stdout, stderr)
}

func loadEvalSegmenter(stderr io.Writer) (*segment.Segmenter, error) {
	t := time.Now()
	seg, err := newSegmenter(segmentDefaults())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "segmenter loaded in %.2fs\n", time.Since(t).Seconds())
	return seg, nil
}

func cmdEvalRobust(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval robust", stderr)
	plots := fs.String("plots", "out/eval", "directory for the SVG plots")
	only := fs.String("method", "", "run only methods whose name contains this")
	engine := addEngineFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "bench", "dev", "robust.jsonl")
	docs, err := evaldedup.LoadRobust(path)
	if err != nil {
		return fmt.Errorf("eval robust: %w", err)
	}
	seg, err := loadEvalSegmenter(stderr)
	if err != nil {
		return err
	}
	texts := make([]dedup.Doc, len(docs))
	for i, d := range docs {
		texts[i] = dedup.Doc{Text: d.Text}
	}
	fmt.Fprintf(stdout, "\n## Robustness (Li Gang et al. 2013 protocol): %s, %d texts\n\n", path, len(docs))
	var reps []evaldedup.RobustReport
	for _, m := range evalMethods(seg, *engine) {
		if *only != "" && !strings.Contains(m.name, *only) {
			continue
		}
		t := time.Now()
		cl, err := m.cluster(ctx, texts)
		if err != nil {
			return fmt.Errorf("eval robust: %s: %w", m.name, err)
		}
		rep := evaldedup.ScoreRobust(docs, cl)
		rep.Method = m.name
		rep.MsPerDoc = float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
		reps = append(reps, rep)
	}
	if len(reps) == 0 {
		return usagef("eval robust: no method matches %q", *only)
	}
	fmt.Fprintf(stdout, "| method | P | R | F1 | false-merge pairs | variants merged elsewhere | ms/doc |\n|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(stdout, "| %s | %.4f | %.4f | %.4f | %.5f | %d | %.3f |\n", r.Method, r.Pairwise.Precision, r.Pairwise.Recall, r.Pairwise.F1, r.FalseMergePairRate, r.MergedVariants, r.MsPerDoc)
	}
	fmt.Fprintf(stdout, "\nrecall of variants (clustered with their original):\n\n| setting |")
	for _, r := range reps {
		fmt.Fprintf(stdout, " %s |", r.Method)
	}
	fmt.Fprintf(stdout, "\n|---|%s\n", strings.Repeat("---|", len(reps)))
	for _, k := range reps[0].Settings() {
		fmt.Fprintf(stdout, "| %s %d%% |", k.Op, k.Pct)
		for _, r := range reps {
			fmt.Fprintf(stdout, " %.3f |", r.Recall[k])
		}
		fmt.Fprintln(stdout)
	}
	if *plots != "" {
		if err := os.MkdirAll(*plots, 0o755); err != nil {
			return fmt.Errorf("eval robust: %w", err)
		}
		for _, op := range []string{"add", "delete"} {
			var series []evaldedup.Series
			for _, r := range reps {
				s := evaldedup.Series{Name: r.Method}
				for _, k := range r.Settings() {
					if k.Op == op {
						s.Points = append(s.Points, [2]float64{float64(k.Pct), r.Recall[k]})
					}
				}
				series = append(series, s)
			}
			p := filepath.Join(*plots, "robust-"+op+".svg")
			f, err := os.Create(p)
			if err != nil {
				return fmt.Errorf("eval robust: %w", err)
			}
			err = evaldedup.WriteSVG(f, "Recall vs % text "+map[string]string{"add": "added", "delete": "deleted"}[op], "% of characters "+map[string]string{"add": "added", "delete": "deleted"}[op], "recall", 0, series)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("eval robust: %w", err)
			}
			fmt.Fprintf(stdout, "\nplot: %s", p)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

func cmdEvalGoldset(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval goldset", stderr)
	only := fs.String("method", "", "run only methods whose name contains this")
	dump := fs.String("dump", "", "write each page's true and predicted cluster (TSV) per method to this file")
	engine := addEngineFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	nd := filepath.Join(dir, "data", "neardup")
	docs, err := evaldedup.LoadGoldset(filepath.Join(nd, "spotsigs-goldset-dev.tsv"), filepath.Join(nd, "spotsigs-goldset-dev.tar.gz"))
	if err != nil {
		return fmt.Errorf("eval goldset: %w", err)
	}
	ex, err := extract.New(extract.Options{})
	if err != nil {
		return err
	}
	t := time.Now()
	texts := make([]dedup.Doc, len(docs))
	truth := make([]string, len(docs))
	noArticle := 0
	for i, d := range docs {
		truth[i] = d.Cluster
		body, _, err := decode.ToUTF8(d.HTML, "", "")
		if err != nil {
			continue
		}
		a, err := ex.Extract("http://goldset/"+d.Cluster+"/"+d.File, body)
		if err != nil {
			noArticle++
			continue
		}
		texts[i] = dedup.Doc{Title: a.Title, Text: a.Text}
	}
	extractMs := float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
	seg, err := loadEvalSegmenter(stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n## SpotSigs gold set (dev half): %d pages, %d stories; extraction %.2f ms/page, %d pages without article\n\n",
		len(docs), countDistinct(truth), extractMs, noArticle)
	fmt.Fprintf(stdout, "| method | P | R | F1 | ms/doc |\n|---|---|---|---|---|\n")
	for _, m := range evalMethods(seg, *engine) {
		if *only != "" && !strings.Contains(m.name, *only) {
			continue
		}
		t := time.Now()
		cl, err := m.cluster(ctx, texts)
		if err != nil {
			return fmt.Errorf("eval goldset: %s: %w", m.name, err)
		}
		ms := float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
		r := evaldedup.Pairwise(cl, truth)
		fmt.Fprintf(stdout, "| %s | %.4f | %.4f | %.4f | %.3f |\n", m.name, r.Precision, r.Recall, r.F1, ms)
		if *dump != "" {
			var b strings.Builder
			for i, d := range docs {
				fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\n", m.name, d.Cluster, d.File, cl[i], len(texts[i].Text))
			}
			if err := appendFile(*dump, b.String()); err != nil {
				return err
			}
		}
	}
	return nil
}

func countDistinct(xs []string) int {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return len(m)
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
