package evaldedup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/dataset"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
)

// Method clusters texts with Single-Pass in input order; Cluster returns
// each document's cluster as the index of the cluster's first document.
type Method struct {
	Name    string
	Cluster func(ctx context.Context, docs []dedup.Doc) ([]int, error)
}

// Methods are the methods every dedup table compares: the engine's three
// modes and the two baselines of the SpotSigs-zh paper. base carries the
// engine settings of the run (Jaccard, Containment, CentresOnly, NoMerge;
// zero: the defaults) and whether the combined rows use the
// partial-reprint rule (PartialReprint: on in the shipped configuration);
// the row "combined, no partial-reprint rule" measures the other way.
func Methods(seg dedup.Segmenter, base dedup.Options) []Method {
	engine := func(name string, opts dedup.Options) Method {
		opts.Jaccard, opts.Containment = base.Jaccard, base.Containment
		opts.CentresOnly = opts.CentresOnly || base.CentresOnly
		opts.NoMerge = opts.NoMerge || base.NoMerge
		opts.NewIndex = base.NewIndex
		return Method{name, func(ctx context.Context, texts []dedup.Doc) ([]int, error) {
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
			if err != nil {
				return out, err
			}
			for i, c := range out {
				into, err := eng.ClusterOf(ctx, uint64(c))
				if err != nil {
					return out, err
				}
				out[i] = int(into)
			}
			return out, nil
		}}
	}
	return []Method{
		// Classic Simhash compares with cluster centres only.
		engine("simhash k=3", dedup.Options{Research: dedup.Research{Mode: dedup.SimhashOnly}, CentresOnly: true}),
		// Li Gang et al. (2013) hash their features with SDBM.
		engine("simhash k=3 sdbm", dedup.Options{Research: dedup.Research{Mode: dedup.SimhashOnly, Hash: simhash.SDBM}, CentresOnly: true}),
		// Li Gang et al.'s experiments count a pair similar at Hamming < 3
		// (li-gang-2013-semantic-fingerprint-simhash.txt, line 119).
		engine("simhash k=2 sdbm", dedup.Options{Research: dedup.Research{Mode: dedup.SimhashOnly, Hash: simhash.SDBM}, CentresOnly: true, Hamming: 2}),
		engine("simhash k=2", dedup.Options{Research: dedup.Research{Mode: dedup.SimhashOnly}, CentresOnly: true, Hamming: 2}),
		// The contiguous-slice P-Simhash variant (TF-IDF, top 20, in-document
		// J-Tidf) at k = 3; the published P-Simhash is measured by eval psimhash.
		engine("p-simhash-contiguous k=3", dedup.Options{Research: dedup.Research{Mode: dedup.SimhashOnly, Positional: true, Weighting: segment.TFIDF, TopM: 20, JTidf: true}, CentresOnly: true}),
		engine("spotsigs", dedup.Options{Research: dedup.Research{Mode: dedup.SpotSigsOnly}}),
		engine("combined (default)", dedup.Options{PartialReprint: base.PartialReprint}),
		// The keyword semantic fingerprint (crawler book chapter) as the exact layer.
		engine("combined + keyfp exact", dedup.Options{Research: dedup.Research{KeywordExact: true}, PartialReprint: base.PartialReprint}),
		// Without winnowing's partial-reprint rule (dedup.MinOwnShare,
		// dedup.MaxFollowUpTitleOverlap): follow-ups merge into the story
		// they re-use.
		engine("combined, no partial-reprint rule", dedup.Options{}),
		baselineShingling(seg),
		liGangShingling(seg),
		baselineMinHash(seg),
	}
}

// selected are the methods whose name contains only ("" selects all).
func selected(seg dedup.Segmenter, base dedup.Options, only string) []Method {
	var ms []Method
	for _, m := range Methods(seg, base) {
		if only == "" || strings.Contains(m.Name, only) {
			ms = append(ms, m)
		}
	}
	return ms
}

// RobustConfig configures RunRobust.
type RobustConfig struct {
	Shared    string          // the shared data directory
	Segmenter dedup.Segmenter // loaded once by the caller
	Engine    dedup.Options   // engine settings (see Methods)
	Method    string          // run only methods whose name contains this
	Plots     string          // directory for the SVG plots ("" : none)
}

// RobustRun is the outcome of RunRobust.
type RobustRun struct {
	Path    string // the robustness set read
	Docs    int
	Reports []RobustReport // one per method
	Plots   []string       // SVG files written
	Recall  *CandidateRecall
}

// ErrNoMethod is returned when no method matches the selection.
var ErrNoMethod = errors.New("no method matches")

// RunRobust runs the Li Gang et al. (2013) protocol on
// bench/dev/robust.jsonl with every selected method.
func RunRobust(ctx context.Context, c RobustConfig) (*RobustRun, error) {
	path := filepath.Join(c.Shared, "bench", "dev", "robust.jsonl")
	docs, err := dataset.LoadRobust(path)
	if err != nil {
		return nil, err
	}
	texts := make([]dedup.Doc, len(docs))
	for i, d := range docs {
		texts[i] = dedup.Doc{Text: d.Text}
	}
	run := &RobustRun{Path: path, Docs: len(docs)}
	for _, m := range selected(c.Segmenter, c.Engine, c.Method) {
		t := time.Now()
		cl, err := m.Cluster(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		rep := ScoreRobust(docs, cl)
		rep.Method = m.Name
		rep.MsPerDoc = float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
		run.Reports = append(run.Reports, rep)
	}
	if len(run.Reports) == 0 {
		return nil, fmt.Errorf("%w %q", ErrNoMethod, c.Method)
	}
	if run.Recall, err = RunCandidateRecall(ctx, c.Segmenter, c.Engine, texts); err != nil {
		return nil, err
	}
	if c.Plots != "" {
		if run.Plots, err = writeRobustPlots(c.Plots, "robust", run.Reports); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// writeRobustPlots writes recall against the edit share, one SVG per edit
// operation (add, delete).
func writeRobustPlots(dir, prefix string, reps []RobustReport) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, op := range []string{"add", "delete"} {
		var series []Series
		for _, r := range reps {
			s := Series{Name: r.Method}
			for _, k := range r.Settings() {
				if k.Op == op {
					s.Points = append(s.Points, [2]float64{float64(k.Pct), r.Recall[k]})
				}
			}
			series = append(series, s)
		}
		p := filepath.Join(dir, prefix+"-"+op+".svg")
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		verb := map[string]string{"add": "added", "delete": "deleted"}[op]
		err = WriteSVG(f, "Recall vs % text "+verb, "% of characters "+verb, "recall", 0, series)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteTable prints the robustness tables (and the plots written).
func (r *RobustRun) WriteTable(w io.Writer) {
	reps := r.Reports
	fmt.Fprintf(w, "\n## Robustness (Li Gang et al. 2013 protocol): %s, %d texts\n\n", r.Path, r.Docs)
	fmt.Fprintf(w, "| method | P | R | F1 | false-merge pairs | variants merged elsewhere | ms/doc |\n|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(w, "| %s | %.4f | %.4f | %.4f | %.5f | %d | %.3f |\n", r.Method, r.Pairwise.Precision, r.Pairwise.Recall, r.Pairwise.F1, r.FalseMergePairRate, r.MergedVariants, r.MsPerDoc)
	}
	fmt.Fprintf(w, "\nrecall of variants (clustered with their original):\n\n| setting |")
	for _, r := range reps {
		fmt.Fprintf(w, " %s |", r.Method)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(reps)))
	for _, k := range reps[0].Settings() {
		fmt.Fprintf(w, "| %s %d%% |", k.Op, k.Pct)
		for _, r := range reps {
			fmt.Fprintf(w, " %.3f |", r.Recall[k])
		}
		fmt.Fprintln(w)
	}
	r.Recall.Write(w)
	if len(r.Plots) > 0 {
		for _, p := range r.Plots {
			fmt.Fprintf(w, "\nplot: %s", p)
		}
		fmt.Fprintln(w)
	}
}

// GoldConfig configures RunGoldset.
type GoldConfig struct {
	Shared    string
	Segmenter dedup.Segmenter
	Engine    dedup.Options
	Method    string // run only methods whose name contains this
	Dump      string // append each page's true and predicted cluster (TSV) per method to this file ("": none)
}

// GoldRow is one method's pairwise figures on the gold set.
type GoldRow struct {
	Method   string
	Score    PRF
	MsPerDoc float64
}

// GoldReport is the outcome of RunGoldset.
type GoldReport struct {
	Pages, Stories, NoArticle int
	ExtractMsPerPage          float64
	Rows                      []GoldRow
	Recall                    *CandidateRecall
}

// RunGoldset clusters the SpotSigs gold set's dev half after extraction
// (pipeline.ExtractPage) with every selected method and scores pairwise
// P/R/F1 against the stories (cluster = folder).
func RunGoldset(ctx context.Context, c GoldConfig) (*GoldReport, error) {
	nd := filepath.Join(c.Shared, "data", "neardup")
	docs, err := dataset.LoadGoldset(filepath.Join(nd, "spotsigs-goldset-dev.tsv"), filepath.Join(nd, "spotsigs-goldset-dev.tar.gz"))
	if err != nil {
		return nil, err
	}
	texts, truth, rep, err := extractGold(docs)
	if err != nil {
		return nil, err
	}
	if rep.Recall, err = RunCandidateRecall(ctx, c.Segmenter, c.Engine, texts); err != nil {
		return nil, err
	}
	for _, m := range selected(c.Segmenter, c.Engine, c.Method) {
		t := time.Now()
		cl, err := m.Cluster(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		ms := float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
		rep.Rows = append(rep.Rows, GoldRow{Method: m.Name, Score: Pairwise(cl, truth), MsPerDoc: ms})
		if c.Dump != "" {
			var b strings.Builder
			for i, d := range docs {
				fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\n", m.Name, d.Cluster, d.File, cl[i], len(texts[i].Text))
			}
			if err := appendFile(c.Dump, b.String()); err != nil {
				return nil, err
			}
		}
	}
	return rep, nil
}

// extractGold extracts every gold-set page; a page without an article
// keeps an empty text (a singleton).
func extractGold(docs []dataset.GoldDoc) ([]dedup.Doc, []string, *GoldReport, error) {
	ex, err := extract.New(extract.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	t := time.Now()
	texts := make([]dedup.Doc, len(docs))
	truth := make([]string, len(docs))
	rep := &GoldReport{Pages: len(docs)}
	for i, d := range docs {
		truth[i] = d.Cluster
		a, _, err := pipeline.ExtractPage(ex, pipeline.Page{URL: "http://goldset/" + d.Cluster + "/" + d.File, Body: d.HTML})
		if err != nil {
			rep.NoArticle++
			continue
		}
		texts[i] = dedup.Doc{Title: a.Title, Text: a.Text}
	}
	rep.ExtractMsPerPage = float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
	rep.Stories = countDistinct(truth)
	return texts, truth, rep, nil
}

// WriteTable prints the gold-set table.
func (r *GoldReport) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "\n## SpotSigs gold set (dev half): %d pages, %d stories; extraction %.2f ms/page, %d pages without article\n\n",
		r.Pages, r.Stories, r.ExtractMsPerPage, r.NoArticle)
	fmt.Fprintf(w, "| method | P | R | F1 | ms/doc |\n|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "| %s | %.4f | %.4f | %.4f | %.3f |\n", row.Method, row.Score.Precision, row.Score.Recall, row.Score.F1, row.MsPerDoc)
	}
	r.Recall.Write(w)
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
