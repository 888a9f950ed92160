package evalmethods

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// Figure4Taus are the SpotSigs Jaccard thresholds τ of the sweep.
var Figure4Taus = []float64{0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// figure4Sets are the antecedent sets compared, in the order printed.
var figure4Sets = []segment.AntecedentSet{segment.AntecedentsBasic, segment.AntecedentsOptimised, segment.AntecedentsLearned}

// spotsigsAt clusters with SpotSigs alone (Jaccard ≥ tau, containment off,
// as in the paper) and the given antecedents.
func spotsigsAt(seg dedup.Segmenter, ante []string, tau float64) evaldedup.Method {
	return evaldedup.Method{Name: "spotsigs", Cluster: func(ctx context.Context, texts []dedup.Doc) ([]int, error) {
		eng, err := dedup.New(seg, dedup.Options{Research: dedup.Research{Mode: dedup.SpotSigsOnly}, Jaccard: tau, Containment: -1, Antecedents: ante})
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

// Figure4 reproduces Figure 4 of Li Yan et al. (2017): pairwise precision
// and recall against τ for SpotSigs with basic antecedents (的 是 在 了),
// optimised antecedents (> 0.9, the paper's ratio), the learned default
// (> 0.8, top 100) and MinHash-LSH(6, 32), on each set; one SVG per set and
// measure in plots ("": none).
func Figure4(ctx context.Context, seg dedup.Segmenter, sets []Set, plots string, w io.Writer) ([]string, error) {
	fmt.Fprintf(w, "\n## Li Yan et al. 2017, Figure 4: pairwise precision and recall against τ\n\n")
	fmt.Fprintf(w, "SpotSigs alone (Jaccard ≥ τ, containment off, chain 1, distance 1; the English antecedents are added to every set).\n")
	fmt.Fprintf(w, "Published (../shared/papers/li-yan-2017-spotsigs-chinese-news.txt): Figure 4's curves are an image, not in the text (line 194); the text says τ = 0.6 left 3 false negatives and τ = 0.5 found all 65 pairs (line 196), both methods do well at τ 0.35-0.6, SpotSigs finds every true pair with no false one at 0.35-0.5 where LSH does not, and LSH is more precise at 0.1-0.35 (line 198).\n")
	for _, tau := range []float64{0.5, 0.6} {
		fmt.Fprintf(w, "- Example 2 (line 132), τ = %.1f, longest page 261 antecedents: partitions %s\n", tau, partitionList(spotsigs.PaperPartitions(tau, 261)))
	}
	antes := map[segment.AntecedentSet][]string{}
	for _, s := range figure4Sets {
		a, err := segment.AntecedentsOf(s)
		if err != nil {
			return nil, err
		}
		antes[s] = append(a, dedup.EnglishAntecedents...)
		fmt.Fprintf(w, "- %s antecedents: %d Chinese words\n", s, len(a))
	}
	var files []string
	for _, set := range sets {
		docs := make([]dedup.Doc, len(set.Docs))
		truth := make([]string, len(set.Docs))
		for i, d := range set.Docs {
			docs[i] = dedup.Doc{Title: d.Title, Text: d.Text}
			truth[i] = d.Label
		}
		names := []string{}
		for _, s := range figure4Sets {
			names = append(names, "spotsigs "+string(s))
		}
		names = append(names, "minhash-lsh(6,32)")
		prec := make([]evaldedup.Series, len(names))
		rec := make([]evaldedup.Series, len(names))
		for i, n := range names {
			prec[i].Name, rec[i].Name = n, n
		}
		fmt.Fprintf(w, "\n### %s: %d documents\n\n| τ |", set.Name, len(docs))
		for _, n := range names {
			fmt.Fprintf(w, " %s P | %s R |", n, n)
		}
		fmt.Fprintf(w, "\n|---|")
		for range names {
			fmt.Fprintf(w, "---|---|")
		}
		fmt.Fprintln(w)
		for _, tau := range Figure4Taus {
			ms := []evaldedup.Method{}
			for _, s := range figure4Sets {
				ms = append(ms, spotsigsAt(seg, antes[s], tau))
			}
			ms = append(ms, evaldedup.MinHashLSHAt(seg, tau))
			fmt.Fprintf(w, "| %g |", tau)
			for i, m := range ms {
				cl, err := m.Cluster(ctx, docs)
				if err != nil {
					return nil, fmt.Errorf("%s τ=%g: %w", names[i], tau, err)
				}
				r := evaldedup.Pairwise(cl, truth)
				fmt.Fprintf(w, " %.4f | %.4f |", r.Precision, r.Recall)
				prec[i].Points = append(prec[i].Points, [2]float64{tau, r.Precision})
				rec[i].Points = append(rec[i].Points, [2]float64{tau, r.Recall})
			}
			fmt.Fprintln(w)
		}
		if plots == "" {
			continue
		}
		if err := os.MkdirAll(plots, 0o755); err != nil {
			return nil, err
		}
		for _, p := range []struct {
			what   string
			series []evaldedup.Series
		}{{"precision", prec}, {"recall", rec}} {
			name := filepath.Join(plots, fmt.Sprintf("figure4-%s-%s.svg", fileSafe(set.Name), p.what))
			f, err := os.Create(name)
			if err != nil {
				return nil, err
			}
			err = evaldedup.WriteSVG(f, fmt.Sprintf("%s against τ (%s)", p.what, set.Name), "τ", p.what, 0, p.series)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
			files = append(files, name)
			fmt.Fprintf(w, "\nplot: %s", name)
		}
		fmt.Fprintln(w)
	}
	return files, nil
}

func fileSafe(s string) string {
	out := []rune{}
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			out = append(out, r)
		} else {
			out = append(out, '-')
		}
	}
	return string(out)
}

// partitionList prints partitions as the paper does: [1,3], …, [190,+∞].
func partitionList(ps [][2]int) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		if p[1] == 0 {
			fmt.Fprintf(&b, "[%d,+∞]", p[0])
		} else {
			fmt.Fprintf(&b, "[%d,%d]", p[0], p[1])
		}
	}
	return b.String()
}
