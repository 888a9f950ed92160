// Package quality holds the quality gate of the project: TestQualityFloors
// runs the dev evaluations of the lab (the SpotSigs gold set, the
// robustness set, a crawl of the reprint web scored by score.py, the
// extraction sets with their dates and authors, and the candidate stage's
// recall against brute force), with the harness functions the lab's eval
// commands print, and fails when a figure is below its floor (or above its
// ceiling) in floors.json. Floors sit at the figure measured when they were
// set, cut to three decimals; a change that lowers a figure on purpose
// lowers its floor in the same commit, and one that raises it may raise the
// floor. The floors file works like trafilatura's evaluation baseline.
//
//	go test ./internal/quality/ -run TestQualityFloors -v   # prints every figure
//	go test ./internal/quality/ -run TestQualityFloors/goldset
//
// It has no non-test code.
package quality

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/internal/evalextract"
	"github.com/newsdedup/newscrawl/internal/evalweb"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/segment"
)

// floorsFile is the quality floors, beside this test.
const floorsFile = "floors.json"

// floorsTimeout bounds the whole gate; the dev evaluations take about 45 s
// of CPU time without the race detector (a loaded machine stretches the
// wall time several times).
const floorsTimeout = 10 * time.Minute

// defaultMethod is the name of the product's engine among the harness's
// methods (evaldedup.Methods); the gate measures only it on the dedup sets.
const defaultMethod = "combined (default)"

// floor is one entry of floors.json: the figure Figure of evaluation Eval
// must be at least Min, or at most Max (one of the two is set).
type floor struct {
	Eval   string   `json:"eval"`
	Figure string   `json:"figure"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
	Note   string   `json:"note,omitempty"`
}

// floorsDoc is the layout of floors.json.
type floorsDoc struct {
	About  string  `json:"about"`
	Floors []floor `json:"floors"`
}

// figures are the figures one evaluation measured, by name, in the order
// they were measured.
type figures struct {
	names  []string
	values map[string]float64
}

func (f *figures) add(name string, v float64) {
	if f.values == nil {
		f.values = map[string]float64{}
	}
	if _, dup := f.values[name]; dup || math.IsNaN(v) {
		return // the first row of a name counts, as evalextract.Report.Value reads it; n/a rows are not figures
	}
	f.names = append(f.names, name)
	f.values[name] = v
}

// evaluation is one dev evaluation of the gate.
type evaluation struct {
	name    string
	measure func(ctx context.Context, env *env) (figures, error)
}

// env is what the evaluations share: the data, the repository and the
// segmenter, loaded once.
type env struct {
	shared, root string
	seg          *segment.Segmenter
	engine       dedup.Options // the product's defaults: the config's candidate stage
	out          string        // a temporary directory
}

func evaluations() []evaluation {
	return []evaluation{
		{"goldset", measureGoldset},
		{"robust", measureRobust},
		{"web", measureWeb},
		{"extract", measureExtract},
	}
}

// TestQualityFloors runs the dev evaluations and fails below any floor of
// floors.json. Every floor must name a figure its evaluation measured.
func TestQualityFloors(t *testing.T) {
	if raceEnabled {
		t.Skip("the dev evaluations run without the race detector (.ci/run has a step for this test)")
	}
	fl, err := readFloors(floorsFile)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{shared: devdatatest.Dir(t), root: devdatatest.RootDir(t), out: t.TempDir()}
	e.engine.PartialReprint = config.Default().Dedup.PartialReprints
	if err := pipeline.SetIndex(&e.engine, pipeline.DefaultIndex); err != nil {
		t.Fatal(err)
	}
	if e.seg, err = pipeline.NewSegmenter(config.Segment{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), floorsTimeout)
	defer cancel()
	for _, ev := range evaluations() {
		t.Run(ev.name, func(t *testing.T) {
			start := time.Now()
			figs, err := ev.measure(ctx, e)
			if err != nil {
				t.Fatalf("%s: %v", ev.name, err)
			}
			mine := floorsOf(fl, ev.name)
			t.Logf("%s: %d figures in %.1fs\n%s", ev.name, len(figs.names), time.Since(start).Seconds(), table(figs, mine))
			for _, p := range check(mine, figs) {
				t.Error(p)
			}
		})
	}
}

// readFloors reads and checks a floors file: every entry names a known
// evaluation and a figure, and has a min or a max but not both.
func readFloors(path string) ([]floor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc floorsDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var problems []string
	for i, f := range doc.Floors {
		known := slices.ContainsFunc(evaluations(), func(e evaluation) bool { return e.name == f.Eval })
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("floors[%d]: unknown eval %q", i, f.Eval))
		case f.Figure == "":
			problems = append(problems, fmt.Sprintf("floors[%d]: no figure", i))
		case (f.Min == nil) == (f.Max == nil):
			problems = append(problems, fmt.Sprintf("floors[%d] (%s %s): want exactly one of min and max", i, f.Eval, f.Figure))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %s", path, strings.Join(problems, "; "))
	}
	return doc.Floors, nil
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

func floorsOf(fl []floor, eval string) []floor {
	var out []floor
	for _, f := range fl {
		if f.Eval == eval {
			out = append(out, f)
		}
	}
	return out
}

// check returns a problem for every floor its figure breaks and for every
// floor that names no figure measured.
func check(fl []floor, figs figures) []string {
	var out []string
	for _, f := range fl {
		v, ok := figs.values[f.Figure]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: floor on %q, which the evaluation does not measure (figures: %q)", f.Eval, f.Figure, figs.names))
		case f.Min != nil && v < *f.Min:
			out = append(out, fmt.Sprintf("%s %s = %.4f, below its floor %g", f.Eval, f.Figure, v, *f.Min))
		case f.Max != nil && v > *f.Max:
			out = append(out, fmt.Sprintf("%s %s = %.4f, above its ceiling %g", f.Eval, f.Figure, v, *f.Max))
		}
	}
	return out
}

// table prints every figure with its floor, if any.
func table(figs figures, fl []floor) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tvalue\tfloor\t")
	for _, n := range figs.names {
		bound := ""
		for _, f := range fl {
			switch {
			case f.Figure == n && f.Min != nil:
				bound = fmt.Sprintf(">= %g", *f.Min)
			case f.Figure == n && f.Max != nil:
				bound = fmt.Sprintf("<= %g", *f.Max)
			}
		}
		fmt.Fprintf(tw, "%s\t%.4f\t%s\t\n", n, figs.values[n], bound)
	}
	tw.Flush()
	return b.String()
}

// addRecall adds the candidate stage's recall against brute force.
func addRecall(f *figures, r *evaldedup.CandidateRecall) {
	if r == nil {
		return
	}
	f.add("candidate recall", r.Recall())
	f.add("candidate pairs missed", float64(r.Missed))
}

// measureGoldset: pairwise P/R/F1 of the default engine on the SpotSigs
// gold set's dev half (eval goldset).
func measureGoldset(ctx context.Context, e *env) (figures, error) {
	rep, err := evaldedup.RunGoldset(ctx, evaldedup.GoldConfig{Shared: e.shared, Segmenter: e.seg, Engine: e.engine, Method: defaultMethod})
	if err != nil {
		return figures{}, err
	}
	var f figures
	for _, r := range rep.Rows {
		f.add(r.Method+" / P", r.Score.Precision)
		f.add(r.Method+" / R", r.Score.Recall)
		f.add(r.Method+" / F1", r.Score.F1)
	}
	f.add("pages without article", float64(rep.NoArticle))
	addRecall(&f, rep.Recall)
	return f, nil
}

// measureRobust: the Li Gang et al. protocol on robust.jsonl (eval robust).
func measureRobust(ctx context.Context, e *env) (figures, error) {
	run, err := evaldedup.RunRobust(ctx, evaldedup.RobustConfig{Shared: e.shared, Segmenter: e.seg, Engine: e.engine, Method: defaultMethod})
	if err != nil {
		return figures{}, err
	}
	var f figures
	for _, r := range run.Reports {
		f.add(r.Method+" / P", r.Pairwise.Precision)
		f.add(r.Method+" / R", r.Pairwise.Recall)
		f.add(r.Method+" / F1", r.Pairwise.F1)
		f.add(r.Method+" / false-merge pairs", r.FalseMergePairRate)
		f.add(r.Method+" / variants merged elsewhere", float64(r.MergedVariants))
	}
	addRecall(&f, run.Recall)
	return f, nil
}

// measureWeb: a crawl of the reprint web scored by score.py, and every
// method re-clustering the crawled texts (eval web).
func measureWeb(ctx context.Context, e *env) (figures, error) {
	var status bytes.Buffer
	rep, err := evalweb.Run(ctx, evalweb.Config{Shared: e.shared, SiteFile: filepath.Join(e.root, "configs", "bench-dev.yaml"),
		OutDir: filepath.Join(e.out, "web"), Engine: e.engine, Status: &status})
	if err != nil {
		return figures{}, fmt.Errorf("%w\n%s", err, status.String())
	}
	var f figures
	var score map[string]any
	if err := json.Unmarshal(rep.Score, &score); err != nil {
		return figures{}, fmt.Errorf("score.py output: %w", err)
	}
	flatten(&f, "crawl / ", score)
	for _, m := range rep.Methods {
		f.add(m.Method+" / P", m.P)
		f.add(m.Method+" / R", m.R)
		f.add(m.Method+" / F1", m.F1)
		f.add(m.Method+" / stories lost", float64(m.Lost))
		f.add(m.Method+" / redundant kept", float64(m.Redundant))
		f.add(m.Method+" / hard negatives merged", float64(m.Brief+m.Followup+m.SameCat))
	}
	addRecall(&f, rep.Recall)
	if l := rep.Related; l != nil && l.FollowUps > 0 {
		f.add("related / stored follow-ups linked to their story", float64(l.Linked)/float64(l.FollowUps))
	}
	return f, nil
}

// flatten adds the numbers of a score.py JSON object as figures named by
// their dotted paths (clustering.pairwise_f1, dedup.stories_lost, …).
func flatten(f *figures, prefix string, v any) {
	switch x := v.(type) {
	case float64:
		f.add(strings.TrimSuffix(prefix, "."), x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			flatten(f, prefix+k+".", x[k])
		}
	}
}

// measureExtract: the extraction sets, with their dates and authors (eval
// extract without the baseline comparison and the leave-one-site-out fit).
func measureExtract(ctx context.Context, e *env) (figures, error) {
	rep, err := evalextract.Run(ctx, evalextract.Config{Shared: e.shared})
	if err != nil {
		return figures{}, err
	}
	var f figures
	for _, r := range rep.Rows {
		f.add(r.Dataset+" / "+r.Metric, r.Value)
	}
	return f, nil
}
