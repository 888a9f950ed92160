package evalmethods

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/dataset"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/internal/psimhash"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
)

// PSimhashPaper is the source text of P-Simhash, relative to ../shared.
const PSimhashPaper = "papers/zhang-yanan-2022-p-simhash.txt"

// PSimhashConfig configures PSimhash.
type PSimhashConfig struct {
	Ks      []int     // Hamming thresholds (the paper's 10, line 183; the product's 3)
	Mus     []float64 // μ values of the sweep (the paper's Figure 5 swept μ; 1.5 chosen, line 187)
	Lengths []int     // text lengths in characters of the run-time table (1,000-4,000, line 203)
	Timed   int       // texts per length in the run-time table
}

// DefaultPSimhashConfig is the paper's settings: Hamming 10 (line 183) and
// the product's 3, μ from 0 to 3 in steps of 0.1, text lengths 1,000 to
// 4,000 characters (line 203).
func DefaultPSimhashConfig() PSimhashConfig {
	c := PSimhashConfig{Ks: []int{psimhash.Hamming, 3}, Lengths: []int{1000, 2000, 3000, 4000}, Timed: 200}
	for i := 0; i <= 30; i++ {
		c.Mus = append(c.Mus, float64(i)/10)
	}
	return c
}

// TrainGroup reports whether a robustness-set group belongs to the training
// half (FNV-1a of the group name is even); the other half is the test set.
func TrainGroup(group string) bool {
	h := fnv.New32a()
	h.Write([]byte(group))
	return h.Sum32()%2 == 0
}

// psVariant is one fingerprint method of the P-Simhash table.
type psVariant struct {
	name      string
	published [3]float64 // precision, recall, F1 of the paper's row (0: none)
	fp        func(words []string) (uint64, bool)
}

// psPublished are the paper's figures (line 191; Figure 6 is an image, the
// text quotes its values) in the order P-Simhash, Simhash, E-Simhash.
var psPublished = [3][3]float64{{0.946, 0.879, 0.911}, {0.803, 0.674, 0.732}, {0.909, 0.813, 0.858}}

// psData is the segmented evaluation data.
type psData struct {
	test      []dataset.RobustDoc
	testWords [][]string
	webWords  [][]string
	webTruth  []string
}

// PSimhash measures P-Simhash as published (internal/psimhash) against
// classic Simhash and E-Simhash with the paper's settings (top 20 words,
// μ = 1.5, Hamming 10, 64 bits), with the product's Simhash and its
// contiguous positional variant beside them, a fine μ sweep and run time by
// text length. The model (IDF, Modified Jaccard, E-Simhash's entropies) is
// learned on the training half of robust.jsonl (originals and distinct
// texts of the groups TrainGroup selects), as the paper learns on a training
// set (line 179); figures are on the other half (robustness protocol,
// Single-Pass against cluster centres) and on the reprint web's texts.
func PSimhash(ctx context.Context, seg dedup.Segmenter, robust []dataset.RobustDoc, web Set, c PSimhashConfig, w io.Writer) error {
	var train [][]string
	var data psData
	for _, d := range robust {
		if TrainGroup(d.Group) {
			if d.Op == "orig" || d.Op == "distinct" {
				train = append(train, seg.Words(d.Text))
			}
			continue
		}
		data.test = append(data.test, d)
		data.testWords = append(data.testWords, seg.Words(d.Text))
	}
	for _, d := range web.Docs {
		data.webWords = append(data.webWords, seg.Words(d.Text))
		data.webTruth = append(data.webTruth, d.Label)
	}
	m := psimhash.Train(train, seg.IsStop)
	fmt.Fprintf(w, "\n## P-Simhash (Zhang Yanan et al. 2022) as published, against Simhash and E-Simhash\n\n")
	fmt.Fprintf(w, "source: %s. Training: %d originals and distinct texts of robust.jsonl (groups with even FNV-1a of the name; the paper: 2,831 training and 1,515 test texts of 4,246 Sogou news, line 179); test: the other %d texts of robust.jsonl and %d reprint-web texts. Single-Pass against cluster centres, 64 bits, FNV-1a. P-Simhash: top %d words by TFC (line 199), per-word PBDR Sig′ (line 131-137), SigFnl = μ·Sig + (1−μ)·Sig′ (line 151), J-Tidf weights (line 153); equations (3), (5), (6) are images in the text: our readings are in internal/psimhash.\n",
		PSimhashPaper, len(train), len(data.test), len(data.webWords), psimhash.TopM)

	variants := psVariants(seg, m)
	if err := psTable(ctx, w, variants, data, c.Ks); err != nil {
		return err
	}
	if err := psSweep(ctx, w, seg, m, data, c); err != nil {
		return err
	}
	return psTiming(ctx, w, seg, m, variants, data, c)
}

// psVariants are the methods of the table: the paper's three first.
func psVariants(seg dedup.Segmenter, m *psimhash.Model) []psVariant {
	pos := func(fs []segment.Feature) []simhash.PosFeature {
		pf := make([]simhash.PosFeature, len(fs))
		for i, f := range fs {
			pf[i] = simhash.PosFeature{Term: f.Term, Weight: f.Weight, Positions: f.Positions}
		}
		return pf
	}
	prepared := func(jtidf bool, mu float64) func([]string) (uint64, bool) {
		return func(ws []string) (uint64, bool) {
			d := m.Prepare(ws, seg.IsStop, psimhash.TopM, jtidf)
			return d.Sum(nil, mu), len(d.Terms) > 0
		}
	}
	return []psVariant{
		{"P-Simhash as published, μ=1.5", psPublished[0], prepared(true, psimhash.Mu)},
		{"classic Simhash (TF-IDF, all words)", psPublished[1], func(ws []string) (uint64, bool) { return m.Simhash(ws, seg.IsStop, nil) }},
		{"E-Simhash (TF × entropy, hash XOR position)", psPublished[2], func(ws []string) (uint64, bool) { return m.ESimhash(ws, seg.IsStop, nil) }},
		{"P-Simhash as published, μ=1.5, no J-Tidf", [3]float64{}, prepared(false, psimhash.Mu)},
		{"P-Simhash as published, μ=1 (top 20, J-Tidf, no positions)", [3]float64{}, prepared(true, 1)},
		{"product Simhash (TF, all words)", [3]float64{}, func(ws []string) (uint64, bool) {
			fs := segment.Features(ws, seg.IsStop, segment.TF, nil, segment.FeatureOptions{NoPositions: true})
			sf := make([]simhash.Feature, len(fs))
			for i, f := range fs {
				sf[i] = simhash.Feature{Term: f.Term, Weight: f.Weight}
			}
			return simhash.Sum(sf, nil), len(fs) > 0
		}},
		{"product p-simhash-contiguous μ=1.5 (64 relative slices, in-document J-Tidf)", [3]float64{}, func(ws []string) (uint64, bool) {
			fs := segment.Features(ws, seg.IsStop, segment.TFIDF, m, segment.FeatureOptions{TopM: psimhash.TopM, JTidf: true})
			return simhash.SumPositional(pos(fs), len(ws), nil, simhash.DefaultMu), len(fs) > 0
		}},
	}
}

// psScore is one method's figures at one threshold.
type psScore struct {
	rob evaldedup.RobustReport
	web evaldedup.PRF
}

func psRun(fp func([]string) (uint64, bool), data psData, k int) psScore {
	tf, tok := fingerprints(data.testWords, fp)
	wf, wok := fingerprints(data.webWords, fp)
	return psScore{
		rob: evaldedup.ScoreRobust(data.test, singlePassHamming(tf, tok, k)),
		web: evaldedup.Pairwise(singlePassHamming(wf, wok, k), data.webTruth),
	}
}

// psTable prints every variant at every threshold, with the paper's row.
func psTable(ctx context.Context, w io.Writer, variants []psVariant, data psData, ks []int) error {
	var f1 [3]float64 // the paper's three methods on robust.jsonl at the paper's k
	fmt.Fprintf(w, "\n| method | k | published P / R / F1 (line 191) | robust P | robust R | robust F1 | add 5%% | delete 5%% | reorder 100%% | web P | web R | web F1 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i, v := range variants {
		for _, k := range ks {
			if err := ctx.Err(); err != nil {
				return err
			}
			s := psRun(v.fp, data, k)
			if i < len(f1) && k == psimhash.Hamming {
				f1[i] = s.rob.Pairwise.F1
			}
			pub := "—"
			if v.published[0] > 0 && k == psimhash.Hamming {
				pub = fmt.Sprintf("%.3f / %.3f / %.3f", v.published[0], v.published[1], v.published[2])
			}
			r := func(op string, pct int) float64 { return s.rob.Recall[evaldedup.OpPct{Op: op, Pct: pct}] }
			fmt.Fprintf(w, "| %s | %d | %s | %.4f | %.4f | %.4f | %.3f | %.3f | %.3f | %.4f | %.4f | %.4f |\n",
				v.name, k, pub, s.rob.Pairwise.Precision, s.rob.Pairwise.Recall, s.rob.Pairwise.F1,
				r("add", 5), r("delete", 5), r("reorder", 100), s.web.Precision, s.web.Recall, s.web.F1)
		}
	}
	fmt.Fprintf(w, "\npublished: F1 0.911 against Simhash's 0.732 is +24.4 %% (line 207; 0.911/0.732 = %.3f). Hamming 10 for all three methods (line 183). The paper's P/R/F1 formulas (7)-(10) are images; ours are pairwise over clusters.\n", 0.911/0.732)
	if slices.Contains(ks, psimhash.Hamming) && f1[1] > 0 {
		verdict := "above"
		if f1[0] < f1[1] {
			verdict = "below"
		}
		fmt.Fprintf(w, "ours (robust.jsonl test half, k = %d): P-Simhash F1 %.3f is %s classic Simhash's %.3f (%+.1f %%), E-Simhash %.3f.\n",
			psimhash.Hamming, f1[0], verdict, f1[1], 100*(f1[0]/f1[1]-1), f1[2])
	}
	return nil
}

// psSweep prints P-Simhash's figures over μ (the paper's Figure 5 is an
// image; the text says μ 1.4-1.9 gave the highest dedup rate, line 187).
func psSweep(ctx context.Context, w io.Writer, seg dedup.Segmenter, m *psimhash.Model, data psData, c PSimhashConfig) error {
	prep := func(words [][]string) []psimhash.Doc {
		out := make([]psimhash.Doc, len(words))
		for i, ws := range words {
			out[i] = m.Prepare(ws, seg.IsStop, psimhash.TopM, true)
		}
		return out
	}
	tdocs, wdocs := prep(data.testWords), prep(data.webWords)
	fmt.Fprintf(w, "\n### μ sweep of P-Simhash as published (published: best dedup rate at μ 1.4-1.9, μ = 1.5 chosen, line 187; Figure 5 is an image)\n\nmean 1-bits: the mean number of set bits of the robust test fingerprints (32 for an unbiased signature).\n\n| μ | mean 1-bits |")
	for _, k := range c.Ks {
		fmt.Fprintf(w, " k=%d robust R | k=%d robust F1 | k=%d web F1 |", k, k, k)
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|---|---|", len(c.Ks)))
	for _, mu := range c.Mus {
		if err := ctx.Err(); err != nil {
			return err
		}
		fp := func(ds []psimhash.Doc) ([]uint64, []bool) {
			f, ok := make([]uint64, len(ds)), make([]bool, len(ds))
			for i, d := range ds {
				f[i], ok[i] = d.Sum(nil, mu), len(d.Terms) > 0
			}
			return f, ok
		}
		tf, tok := fp(tdocs)
		wf, wok := fp(wdocs)
		fmt.Fprintf(w, "| %.1f | %.1f |", mu, meanOnes(tf))
		for _, k := range c.Ks {
			rob := evaldedup.ScoreRobust(data.test, singlePassHamming(tf, tok, k))
			web := evaldedup.Pairwise(singlePassHamming(wf, wok, k), data.webTruth)
			fmt.Fprintf(w, " %.4f | %.4f | %.4f |", rob.Pairwise.Recall, rob.Pairwise.F1, web.F1)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// psTiming prints the run time of the paper's three methods by text
// length: test texts cut and joined to 1,000-4,000 characters, as the paper
// did (line 203; Figure 8 is an image, the text says P-Simhash takes
// about as long as Simhash and E-Simhash longer, line 203 and 207).
func psTiming(ctx context.Context, w io.Writer, seg dedup.Segmenter, m *psimhash.Model, variants []psVariant, data psData, c PSimhashConfig) error {
	var pool strings.Builder
	for _, d := range data.test {
		if d.Op == "orig" || d.Op == "distinct" {
			pool.WriteString(d.Text)
		}
	}
	all := []rune(pool.String())
	fmt.Fprintf(w, "\n### Run time by text length (ms per text; segmentation excluded and shown apart; published: Figure 8 is an image, the text says P-Simhash ≈ Simhash < E-Simhash, line 203, 207)\n\n| length (characters) | texts | segmentation | P-Simhash | Simhash | E-Simhash | P-Simhash / Simhash |\n|---|---|---|---|---|---|---|\n")
	for _, n := range c.Lengths {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n <= 0 || len(all) < n {
			fmt.Fprintf(w, "| %d | 0 | the test texts hold only %d characters |  |  |  |  |\n", n, len(all))
			continue
		}
		var words [][]string
		t0 := time.Now()
		for i := 0; i < c.Timed; i++ {
			off := (i * 997) % (len(all) - n + 1)
			words = append(words, seg.Words(string(all[off:off+n])))
		}
		segMS := msPer(time.Since(t0), len(words))
		var ms [3]float64
		for j := range ms {
			t := time.Now()
			for _, ws := range words {
				variants[j].fp(ws)
			}
			ms[j] = msPer(time.Since(t), len(words))
		}
		fmt.Fprintf(w, "| %d | %d | %.3f | %.3f | %.3f | %.3f | %.2f |\n", n, len(words), segMS, ms[0], ms[1], ms[2], ms[0]/ms[1])
	}
	return nil
}

func meanOnes(fps []uint64) float64 {
	if len(fps) == 0 {
		return 0
	}
	n := 0
	for _, f := range fps {
		n += bits.OnesCount64(f)
	}
	return float64(n) / float64(len(fps))
}

func msPer(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(d.Microseconds()) / 1000 / float64(n)
}

func fingerprints(words [][]string, fp func([]string) (uint64, bool)) ([]uint64, []bool) {
	fps := make([]uint64, len(words))
	ok := make([]bool, len(words))
	for i, ws := range words {
		fps[i], ok[i] = fp(ws)
	}
	return fps, ok
}

// singlePassHamming clusters fingerprints in order: each joins the nearest
// earlier cluster centre within Hamming distance k (ties: the older
// centre) or opens a cluster; a document without features stays alone.
// Cluster labels are the index of the centre.
func singlePassHamming(fps []uint64, ok []bool, k int) []int {
	out := make([]int, len(fps))
	var centres []int
	for i, fp := range fps {
		out[i] = i
		if !ok[i] {
			continue
		}
		best, bestD := -1, k+1
		for _, c := range centres {
			if d := simhash.Distance(fp, fps[c]); d < bestD {
				best, bestD = c, d
			}
		}
		if best >= 0 {
			out[i] = best
		} else {
			centres = append(centres, i)
		}
	}
	return out
}
