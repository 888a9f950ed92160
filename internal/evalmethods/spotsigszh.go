package evalmethods

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/antecedents"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// LiYanPaper is the SpotSigs-zh source text, relative to ../shared.
const LiYanPaper = "papers/li-yan-2017-spotsigs-chinese-news.txt"

// liYanTable1 is Table 1 of the paper (lines 177-181): the basic
// antecedents' counts in the text layer (t1) and the whole page (t2).
var liYanTable1 = []struct {
	word   string
	t1, t2 int
	ratio  float64
	line   int
}{
	{"的", 4066, 6038, 0.67, 178},
	{"在", 1127, 1652, 0.68, 179},
	{"了", 1081, 1471, 0.73, 180},
	{"是", 897, 1340, 0.67, 181},
}

// spotVariant is one SpotSigs-zh configuration: antecedents and whether
// chain words skip every stopword (the product) or only antecedents (the
// paper, line 122).
type spotVariant struct {
	name      string
	ante      []string
	skipStops bool
}

// SpotSigsZh prints what Li Yan et al. 2017 says about antecedents beside
// our data: Table 1's ratios recomputed on the labelled pages (labelled,
// e.g. CWCED dev), the basic rule (line 168) and the optimised rule (line
// 183) applied, and then SpotSigs alone with the product's choices
// (learned antecedents, chains skipping every stopword) against the
// paper's (basic or optimised antecedents, chains skipping antecedents
// only), pairwise P/R/F1 on every set at the product's τ and the paper's
// 0.5.
func SpotSigsZh(ctx context.Context, seg *segment.Segmenter, labelled string, sets []Set, w io.Writer) error {
	pages, err := antecedents.ReadLabelled(ctx, labelled)
	if err != nil {
		return err
	}
	stats, err := antecedents.Learn(pages, seg.Words, seg.IsStop, antecedents.LearnOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## Li Yan et al. 2017 (%s): antecedent selection and chains, the paper's rules against the product's\n\n", LiYanPaper)
	fmt.Fprintf(w, "Table 1 (lines 177-181; the paper counted %d pages of sohu, qq, sina, 163, line 164) beside our counts on %d labelled pages of %s (t1: labelled main text, t2: the page's visible text):\n\n", antecedents.PaperPages, len(pages), labelled)
	fmt.Fprintf(w, "| word | published t1 | t2 | t1/t2 (line) | ours t1 | t2 | t1/t2 |\n|---|---|---|---|---|---|---|\n")
	byWord := map[string]segment.AntecedentStat{}
	for _, st := range stats {
		byWord[st.Word] = st
	}
	for _, r := range liYanTable1 {
		st := byWord[r.word]
		fmt.Fprintf(w, "| %s | %d | %d | %.2f (%d) | %d | %d | %.2f |\n", r.word, r.t1, r.t2, r.ratio, r.line, st.T1, st.T2, ratioOf(st))
	}
	scaled := int(math.Round(float64(antecedents.PaperBasicMinT1) * float64(len(pages)) / float64(antecedents.PaperPages)))
	basicLit := antecedents.PaperBasic(stats, antecedents.PaperBasicMinT1)
	basicScaled := antecedents.PaperBasic(stats, scaled)
	opt := antecedents.PaperOptimised(stats)
	learned := segment.Antecedents()
	fmt.Fprintf(w, "\nbasic rule (line 168: t1 > %d and t1/t2 > %.2f; the paper got 的 是 在 了, though its own Table 1 has 是 at 897): literal on our %d pages: %s; t1 scaled to %d for %d pages: %s\n",
		antecedents.PaperBasicMinT1, antecedents.PaperBasicMinRatio, len(pages), wordList(basicLit), scaled, len(pages), wordList(basicScaled))
	fmt.Fprintf(w, "optimised rule (line 183: t1/t2 > %.1f, no cut to the most frequent stopwords): %d stopwords on our pages (published: 207 optimised, 211 antecedents in all); the product's learned set (t1/t2 > %.1f among the top %d stopwords, segment.Antecedents): %d Chinese words.\n",
		antecedents.PaperOptMinRatio, len(opt), antecedents.DefaultOptRatio, antecedents.DefaultTopN, len(learned))
	basic, err := segment.AntecedentsOf(segment.AntecedentsBasic)
	if err != nil {
		return err
	}
	paperOpt := union(basic, opt)
	variants := []spotVariant{
		{"product: learned antecedents, chains skip stopwords", learned, true},
		{"learned antecedents, chains skip antecedents only (line 122)", learned, false},
		{"paper basic 的 是 在 了, chains skip antecedents only", basic, false},
		{fmt.Sprintf("paper optimised (%d), chains skip antecedents only", len(paperOpt)), paperOpt, false},
		{fmt.Sprintf("paper optimised (%d), chains skip stopwords", len(paperOpt)), paperOpt, true},
	}
	return spotVariantTable(ctx, seg, sets, variants, w)
}

// spotVariantTable clusters every set with every variant at two τ.
func spotVariantTable(ctx context.Context, seg *segment.Segmenter, sets []Set, variants []spotVariant, w io.Writer) error {
	taus := []float64{dedup.DefaultJaccard, 0.5}
	fmt.Fprintf(w, "\nSpotSigs alone (chain 1, distance 1 as the paper, line 187; English antecedents added for the English gold set), each text joins the most similar earlier text at multiset Jaccard ≥ τ (τ = %.2f, the product's; 0.5, where the paper found all 65 pairs, line 196). Pairwise P / R / F1:\n\n| variant | τ |", dedup.DefaultJaccard)
	for _, s := range sets {
		fmt.Fprintf(w, " %s |", s.Name)
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|", len(sets)))
	var sims strings.Builder
	fmt.Fprintf(&sims, "\nSimilarity of the true pairs (same story or group) by variant, τ-free: mean multiset Jaccard and the share above 0.8 (published: 78.6 %% of the 65 pairs found above 0.8, line 196):\n\n| variant |")
	for _, s := range sets {
		fmt.Fprintf(&sims, " %s mean J | > 0.8 |", s.Name)
	}
	fmt.Fprintf(&sims, "\n|---|%s\n", strings.Repeat("---|---|", len(sets)))
	words := make([][][]string, len(sets))
	for i, s := range sets {
		for _, d := range s.Docs {
			words[i] = append(words[i], seg.Words(d.Text))
		}
	}
	for _, v := range variants {
		cfg := spotsigs.Config{IsAntecedent: spotsigs.WordSet(append(append([]string(nil), v.ante...), dedup.EnglishAntecedents...)...)}
		if v.skipStops {
			cfg.IsStop = seg.IsStop
		}
		sigs := make([][]spotsigs.Signature, len(sets))
		for i := range sets {
			for _, ws := range words[i] {
				sig, err := spotsigs.Extract(ws, cfg)
				if err != nil {
					return err
				}
				sigs[i] = append(sigs[i], sig)
			}
		}
		fmt.Fprintf(&sims, "| %s |", v.name)
		for i, s := range sets {
			mean, high := truePairSims(s, sigs[i])
			fmt.Fprintf(&sims, " %.3f | %.3f |", mean, high)
		}
		fmt.Fprintln(&sims)
		for _, tau := range taus {
			fmt.Fprintf(w, "| %s | %.2f |", v.name, tau)
			for i, s := range sets {
				if err := ctx.Err(); err != nil {
					return err
				}
				truth := make([]string, len(s.Docs))
				for j, d := range s.Docs {
					truth[j] = d.Label
				}
				r := evaldedup.Pairwise(spotSinglePass(sigs[i], tau), truth)
				fmt.Fprintf(w, " %.3f / %.3f / %.3f |", r.Precision, r.Recall, r.F1)
			}
			fmt.Fprintln(w)
		}
	}
	_, err := io.WriteString(w, sims.String())
	return err
}

// truePairSims returns the mean Jaccard of the pairs of s with the same
// label and the share of them above 0.8.
func truePairSims(s Set, sigs []spotsigs.Signature) (float64, float64) {
	byLabel := map[string][]int{}
	for i, d := range s.Docs {
		byLabel[d.Label] = append(byLabel[d.Label], i)
	}
	sum, high, n := 0.0, 0, 0
	for _, ix := range byLabel {
		for a := range ix {
			for _, b := range ix[a+1:] {
				j := spotsigs.Jaccard(sigs[ix[a]], sigs[b])
				sum += j
				if j > 0.8 {
					high++
				}
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), float64(high) / float64(n)
}

// spotSinglePass gives each signature the cluster of the most similar
// earlier signature with Jaccard ≥ tau (ties: the earlier), or its own.
// Signatures whose sizes differ by more than the factor tau are skipped
// (they cannot reach it). An empty signature stays alone.
func spotSinglePass(sigs []spotsigs.Signature, tau float64) []int {
	out := make([]int, len(sigs))
	for i, a := range sigs {
		out[i] = i
		best, bestJ := -1, tau
		for j := 0; j < i && len(a) > 0; j++ {
			b := sigs[j]
			lo, hi := min(len(a), len(b)), max(len(a), len(b))
			if float64(lo) < tau*float64(hi) {
				continue
			}
			if jac := spotsigs.Jaccard(a, b); jac >= bestJ && (best < 0 || jac > bestJ) {
				best, bestJ = j, jac
			}
		}
		if best >= 0 {
			out[i] = out[best]
		}
	}
	return out
}

func ratioOf(st segment.AntecedentStat) float64 {
	if st.T2 == 0 {
		return 0
	}
	return float64(st.T1) / float64(st.T2)
}

func wordList(ws []string) string {
	if len(ws) == 0 {
		return "none"
	}
	return strings.Join(ws, " ")
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
