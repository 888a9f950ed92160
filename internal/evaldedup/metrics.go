// Package evaldedup measures near-duplicate methods on the labelled sets in
// ../shared: the Li Gang et al. (2013) robustness protocol
// (bench/dev/robust.jsonl), the SpotSigs gold set (Theobald et al. 2008;
// English news pages clustered by story) and the crawl export of the reprint
// web. Every method (Methods: the engine's modes and the shingling and
// MinHash-LSH baselines) clusters documents with Single-Pass in input order,
// and is scored by pairwise precision, recall and F1 against the true
// clusters. RunRobust and RunGoldset are `eval robust` and `eval goldset`;
// internal/evalweb scores the reprint web; internal/dataset reads the sets.
package evaldedup

// PRF is pairwise precision, recall and F1.
type PRF struct {
	Precision, Recall, F1    float64
	TP, PredPairs, TruePairs int64
}

func pairs(n int64) int64 { return n * (n - 1) / 2 }

// Pairwise scores predicted cluster labels against true labels, over pairs
// of documents (a pair is predicted when both share a predicted label, true
// when both share a true label). No predicted pairs gives precision 1, no
// true pairs recall 1, as in ../shared/bench/score.py.
func Pairwise[P, T comparable](pred []P, truth []T) PRF {
	type cell struct {
		p P
		t T
	}
	cells := map[cell]int64{}
	ps := map[P]int64{}
	ts := map[T]int64{}
	for i := range pred {
		cells[cell{pred[i], truth[i]}]++
		ps[pred[i]]++
		ts[truth[i]]++
	}
	var r PRF
	for _, n := range cells {
		r.TP += pairs(n)
	}
	for _, n := range ps {
		r.PredPairs += pairs(n)
	}
	for _, n := range ts {
		r.TruePairs += pairs(n)
	}
	r.Precision, r.Recall = 1, 1
	if r.PredPairs > 0 {
		r.Precision = float64(r.TP) / float64(r.PredPairs)
	}
	if r.TruePairs > 0 {
		r.Recall = float64(r.TP) / float64(r.TruePairs)
	}
	if r.Precision+r.Recall > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	return r
}
