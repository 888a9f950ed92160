package evalmethods

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/dataset"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
)

// PSimhashTopM is P-Simhash's number of features (the paper's top 20).
const PSimhashTopM = 20

// PSimhashConfig configures PSimhash.
type PSimhashConfig struct {
	Ks  []int     // Hamming thresholds (the paper's 10, and 3)
	Mus []float64 // μ values of the sweep (the paper's 1.5)
}

// docFreq is a document-frequency table of a training corpus.
type docFreq struct {
	df   map[string]int
	docs int
}

func (d *docFreq) DF(t string) int { return d.df[t] }
func (d *docFreq) Docs() int       { return d.docs }

func learnDF(docs [][]string, isStop func(string) bool) *docFreq {
	d := &docFreq{df: map[string]int{}, docs: len(docs)}
	for _, ws := range docs {
		seen := map[string]bool{}
		for _, w := range ws {
			if w != "" && !isStop(w) && !seen[w] {
				seen[w] = true
				d.df[w]++
			}
		}
	}
	return d
}

// TrainGroup reports whether a robustness-set group belongs to the training
// half (FNV-1a of the group name is even); the other half is the test set.
func TrainGroup(group string) bool {
	h := fnv.New32a()
	h.Write([]byte(group))
	return h.Sum32()%2 == 0
}

// psVariant is one fingerprint configuration of the P-Simhash table.
type psVariant struct {
	name string
	fp   func(words []string) (uint64, bool)
}

// PSimhash measures P-Simhash as published (PBDR, learned J-Tidf, μ sweep)
// against classic Simhash and the contiguous-slice variant, at every
// Hamming threshold of c.Ks, with Single-Pass against cluster centres. IDF
// and the J-Tidf co-occurrence are learned on the training half of
// robust.jsonl (originals and distinct texts of the groups TrainGroup
// selects); the figures are on the other half (robustness protocol) and on
// the reprint web's expected texts (pairwise).
func PSimhash(ctx context.Context, seg dedup.Segmenter, robust []dataset.RobustDoc, web Set, c PSimhashConfig, w io.Writer) error {
	var train [][]string
	var test []dataset.RobustDoc
	for _, d := range robust {
		if TrainGroup(d.Group) {
			if d.Op == "orig" || d.Op == "distinct" {
				train = append(train, seg.Words(d.Text))
			}
			continue
		}
		test = append(test, d)
	}
	df := learnDF(train, seg.IsStop)
	co := segment.LearnCooccurrence(train, seg.IsStop, df)
	pbdr := simhash.NewPBDR(simhash.PBDRSeed)
	fmt.Fprintf(w, "\n## P-Simhash (Zhang Yanan et al. 2022): PBDR with learned J-Tidf, μ sweep\n\n")
	fmt.Fprintf(w, "training: %d originals and distinct texts of robust.jsonl (groups with even FNV-1a of the name) for IDF and the J-Tidf co-occurrence (Modified Jaccard; %d term pairs seen together in >= %d documents); test: the other %d texts of robust.jsonl and %d reprint-web texts. Single-Pass against cluster centres; top %d TF-IDF features, FNV-1a. Published figures: not available (the paper's text and its Sogou data are not in the data); PBDR follows the issue's description (simhash.PBDR).\n",
		len(train), len(co.PairsKept()), segment.CooccurMinDocs, len(test), len(web.Docs), PSimhashTopM)

	pos := func(fs []segment.Feature) []simhash.PosFeature {
		pf := make([]simhash.PosFeature, len(fs))
		for i, f := range fs {
			pf[i] = simhash.PosFeature{Term: f.Term, Weight: f.Weight, Positions: f.Positions}
		}
		return pf
	}
	variants := []psVariant{
		{"simhash (TF, all terms)", func(ws []string) (uint64, bool) {
			fs := segment.Features(ws, seg.IsStop, segment.TF, nil, segment.FeatureOptions{})
			sf := make([]simhash.Feature, len(fs))
			for i, f := range fs {
				sf[i] = simhash.Feature{Term: f.Term, Weight: f.Weight}
			}
			return simhash.Sum(sf, nil), len(fs) > 0
		}},
		{"p-simhash-contiguous μ=1.5 (J-Tidf within the document)", func(ws []string) (uint64, bool) {
			fs := segment.Features(ws, seg.IsStop, segment.TFIDF, df, segment.FeatureOptions{TopM: PSimhashTopM, JTidf: true})
			return simhash.SumPositional(pos(fs), len(ws), nil, simhash.DefaultMu), len(fs) > 0
		}},
		{"p-simhash PBDR μ=1.5, no J-Tidf", func(ws []string) (uint64, bool) {
			fs := segment.Features(ws, seg.IsStop, segment.TFIDF, df, segment.FeatureOptions{TopM: PSimhashTopM})
			return pbdr.Sum(pos(fs), len(ws), nil, simhash.DefaultMu), len(fs) > 0
		}},
	}
	for _, mu := range c.Mus {
		variants = append(variants, psVariant{fmt.Sprintf("p-simhash PBDR μ=%g", mu), func(ws []string) (uint64, bool) {
			fs := segment.Features(ws, seg.IsStop, segment.TFIDF, df, segment.FeatureOptions{TopM: PSimhashTopM, JTidf: true, Cooccur: co})
			return pbdr.Sum(pos(fs), len(ws), nil, mu), len(fs) > 0
		}})
	}

	testWords := make([][]string, len(test))
	for i, d := range test {
		testWords[i] = seg.Words(d.Text)
	}
	webWords := make([][]string, len(web.Docs))
	webTruth := make([]string, len(web.Docs))
	for i, d := range web.Docs {
		webWords[i] = seg.Words(d.Text)
		webTruth[i] = d.Label
	}
	fmt.Fprintf(w, "\n| method | k | robust P | robust R | robust F1 | false-merge pairs | add 5%% | delete 5%% | add 20%% | delete 20%% | reorder 100%% | web P | web R | web F1 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range variants {
		if err := ctx.Err(); err != nil {
			return err
		}
		tf, tok := fingerprints(testWords, v.fp)
		wf, wok := fingerprints(webWords, v.fp)
		for _, k := range c.Ks {
			rep := evaldedup.ScoreRobust(test, singlePassHamming(tf, tok, k))
			web := evaldedup.Pairwise(singlePassHamming(wf, wok, k), webTruth)
			r := func(op string, pct int) float64 { return rep.Recall[evaldedup.OpPct{Op: op, Pct: pct}] }
			fmt.Fprintf(w, "| %s | %d | %.4f | %.4f | %.4f | %.5f | %.3f | %.3f | %.3f | %.3f | %.3f | %.4f | %.4f | %.4f |\n",
				v.name, k, rep.Pairwise.Precision, rep.Pairwise.Recall, rep.Pairwise.F1, rep.FalseMergePairRate,
				r("add", 5), r("delete", 5), r("add", 20), r("delete", 20), r("reorder", 100),
				web.Precision, web.Recall, web.F1)
		}
	}
	return nil
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
