package evaldedup

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/dataset"
)

// LiGangMethods are the methods of Li Gang et al. (2013) as published
// (Simhash with the paper's SDBM hash at Hamming < 3, line 119, i.e. k = 2;
// Shingle at Jaccard > 0.95), the same with this product's default hash
// (FNV-1a), and both at the product's k = 3 (the Single-Pass rule of line
// 114 says ≤ 3), in the order printed.
var LiGangMethods = []string{"simhash k=2 sdbm", "simhash k=2", "simhash k=3 sdbm", "simhash k=3", "shingling w=4 J>0.95 (Li Gang)"}

// The paper's own figures, as its text gives them
// (../shared/papers/li-gang-2013-semantic-fingerprint-simhash.txt; Tables
// 1-2 and Figure 2 are images, not in the text).
const (
	liGangPaper        = "li-gang-2013-semantic-fingerprint-simhash.txt"
	liGangPublishedT2  = "Table 2 is an image, not in the text; line 159: Simhash recognises over 70 % of texts changed by up to 5 %, added or deleted"
	liGangPublishedF2  = "Figure 2 is an image, not in the text; line 159: over 70 % recognised up to 5 % change, the addition curve above the deletion curve (additions recognised better)"
	liGangPublishedRO  = "line 163: sentence reordering of 1,000 test texts recognised as similar: Simhash 86.1 %, Shingle 6.1 %"
	liGangPublishedRT  = "line 129: 1,614,712 ms for the fingerprints of the corpus, 22.5 ms per text (Table 1, an image, has the rest); line 135: 16n bytes of storage"
	liGangPublishedHam = "Line 119: the experiments count a pair similar at Hamming distance < 3 (the k=2 rows; line 114 gives ≤ 3 for the clustering rule, the k=3 rows) and at Shingle Jaccard > 0.95. The paper's 精确度 (line 139: similar pairs among all pairs of a text and its edited copy) is our recall column. Base texts: the paper 1,000 (lines 139, 155)"
)

// liGangTablePct is the edit share of the paper's Table 2 (±5 %).
const liGangTablePct = 5

// EditSubsetPRF scores clusters (one per doc) pairwise on the originals,
// the distinct texts and the variants of one edit (op, pct) only.
func EditSubsetPRF(docs []dataset.RobustDoc, clusters []int, op string, pct int) PRF {
	var pred []int
	var truth []string
	for i, d := range docs {
		if d.Op == "orig" || d.Op == "distinct" || (d.Op == op && d.Pct == pct) {
			pred = append(pred, clusters[i])
			truth = append(truth, d.Group)
		}
	}
	return Pairwise(pred, truth)
}

// LiGangRow is one method's Table 2 and Figure 2 figures.
type LiGangRow struct {
	Report RobustReport
	// Table 2: on originals, distinct texts and the ±5 % variants only.
	Edit5 map[string]PRF // "add", "delete"
}

// LiGangRun is the outcome of RunLiGang.
type LiGangRun struct {
	Path  string
	Docs  int
	Bases int // base texts (op "orig")
	Rows  []LiGangRow
	Plots []string
}

// RunLiGang reproduces Li Gang et al. (2013)'s experiment on
// bench/dev/robust.jsonl: Table 2 (precision and recall with 5 % of the
// text added or deleted), Figure 2 (recall of 1-20 % additions and
// deletions, reordering) and the runtime per document, for LiGangMethods.
// Plots go to c.Plots as ligang-add.svg and ligang-delete.svg.
func RunLiGang(ctx context.Context, c RobustConfig) (*LiGangRun, error) {
	path := filepath.Join(c.Shared, "bench", "dev", "robust.jsonl")
	docs, err := dataset.LoadRobust(path)
	if err != nil {
		return nil, err
	}
	return RunLiGangDocs(ctx, c, path, docs, "ligang")
}

// RunLiGangDocs is RunLiGang on docs (in robust.jsonl's layout, e.g. from
// LiGangSet), named name in the output; plots are prefix-add.svg and
// prefix-delete.svg.
func RunLiGangDocs(ctx context.Context, c RobustConfig, name string, docs []dataset.RobustDoc, prefix string) (*LiGangRun, error) {
	texts := make([]dedup.Doc, len(docs))
	for i, d := range docs {
		texts[i] = dedup.Doc{Text: d.Text}
	}
	bases := 0
	for _, d := range docs {
		if d.Op == "orig" {
			bases++
		}
	}
	run := &LiGangRun{Path: name, Docs: len(docs), Bases: bases}
	all := Methods(c.Segmenter, c.Engine)
	var reps []RobustReport
	for _, want := range LiGangMethods {
		for _, m := range all {
			if m.Name != want {
				continue
			}
			t := time.Now()
			cl, err := m.Cluster(ctx, texts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.Name, err)
			}
			rep := ScoreRobust(docs, cl)
			rep.Method = m.Name
			rep.MsPerDoc = float64(time.Since(t).Microseconds()) / 1000 / float64(len(docs))
			row := LiGangRow{Report: rep, Edit5: map[string]PRF{}}
			for _, op := range []string{"add", "delete"} {
				row.Edit5[op] = EditSubsetPRF(docs, cl, op, liGangTablePct)
			}
			run.Rows = append(run.Rows, row)
			reps = append(reps, rep)
		}
	}
	if len(run.Rows) == 0 {
		return nil, fmt.Errorf("%w: Li Gang methods", ErrNoMethod)
	}
	if c.Plots != "" {
		var err error
		if run.Plots, err = writeRobustPlots(c.Plots, prefix, reps); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// WriteTable prints Table 2, Figure 2 as a table, the runtime and the plots.
func (r *LiGangRun) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "\n## Li Gang, Mao Jin, Chen Jinghao 2013 reproduced on %s (%d texts, %d base texts; the paper 1,000, line 155)\n", r.Path, r.Docs, r.Bases)
	fmt.Fprintf(w, "\nTable 2: ±5 %% edits (originals, distinct texts and the 5 %% variants of one operation; P = pairwise precision, recall = variants clustered with their original)\n\n")
	fmt.Fprintf(w, "Published (%s): %s. %s.\n\n", liGangPaper, liGangPublishedT2, liGangPublishedHam)
	fmt.Fprintf(w, "| method | +5%% P | +5%% recall (the paper's 精确度) | −5%% P | −5%% recall (精确度) | published 精确度 at ±5 %% |\n|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		rep := row.Report
		fmt.Fprintf(w, "| %s | %.4f | %.3f | %.4f | %.3f | %s |\n", rep.Method,
			row.Edit5["add"].Precision, rep.Recall[OpPct{"add", 5}],
			row.Edit5["delete"].Precision, rep.Recall[OpPct{"delete", 5}], liGangPublishedRecall(rep.Method))
	}
	fmt.Fprintf(w, "\nFigure 2: recall of variants (clustered with their original). Published: %s; %s.\n\n| setting |", liGangPublishedF2, liGangPublishedRO)
	for _, row := range r.Rows {
		fmt.Fprintf(w, " %s |", row.Report.Method)
	}
	fmt.Fprintf(w, "\n|---|")
	for range r.Rows {
		fmt.Fprintf(w, "---|")
	}
	fmt.Fprintln(w)
	for _, k := range r.Rows[0].Report.Settings() {
		fmt.Fprintf(w, "| %s %d%% |", k.Op, k.Pct)
		for _, row := range r.Rows {
			fmt.Fprintf(w, " %.3f |", row.Report.Recall[k])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nRuntime (segmentation, fingerprints and Single-Pass clustering of the whole set; machine shared with other builds). Published: %s\n\n| method | ms/doc | pairwise P | pairwise R | false-merge pairs |\n|---|---|---|---|---|\n", liGangPublishedRT)
	for _, row := range r.Rows {
		rep := row.Report
		fmt.Fprintf(w, "| %s | %.3f | %.4f | %.4f | %.5f |\n", rep.Method, rep.MsPerDoc, rep.Pairwise.Precision, rep.Pairwise.Recall, rep.FalseMergePairRate)
	}
	for _, p := range r.Plots {
		fmt.Fprintf(w, "\nplot: %s", p)
	}
	if len(r.Plots) > 0 {
		fmt.Fprintln(w)
	}
}

// liGangPublishedRecall is the published column of Table 2 for a method:
// the text's bound for Simhash, nothing for the Shingle baseline.
func liGangPublishedRecall(method string) string {
	if strings.HasPrefix(method, "simhash") {
		return "> 0.70 (line 159)"
	}
	return "not in the text"
}
