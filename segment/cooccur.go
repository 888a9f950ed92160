package segment

import (
	"cmp"
	"slices"
	"strings"
)

// Cooccurrence is a term co-occurrence model learned on a training corpus
// for J-Tidf (P-Simhash, Zhang Yanan et al. 2022 §2.1): how strongly two
// terms appear in the same documents, by the Modified Jaccard of their
// document sets. Build it with LearnCooccurrence; it is read-only
// afterwards and safe for concurrent use.
type Cooccurrence struct {
	df   map[string]int
	pair map[[2]string]int
	docs int
}

const (
	// CooccurTopK is the number of heaviest terms (TF-IDF) of each training
	// document whose pairs are counted; P-Simhash fingerprints a document
	// by its top 20 terms, so only their co-occurrence is ever asked for.
	CooccurTopK = 20
	// CooccurMinDocs is the "modification" of the Jaccard: a pair that
	// co-occurs in fewer training documents has MJ 0 (one shared document
	// is no evidence of association; with it every pair of rare terms of
	// one document would score 1).
	CooccurMinDocs = 2
)

// LearnCooccurrence counts, over docs (each a word sequence as Words
// returns it), the training documents in which each of the CooccurTopK
// heaviest terms occurs and in which each pair of them occurs together.
// Weights are TF-IDF with df (nil: TF).
func LearnCooccurrence(docs [][]string, isStop func(string) bool, df DocFreq) *Cooccurrence {
	c := &Cooccurrence{df: map[string]int{}, pair: map[[2]string]int{}, docs: len(docs)}
	wt := TF
	if df != nil {
		wt = TFIDF
	}
	for _, words := range docs {
		feats := Features(words, isStop, wt, df, FeatureOptions{TopM: CooccurTopK})
		terms := make([]string, len(feats))
		for i, f := range feats {
			terms[i] = f.Term
		}
		slices.Sort(terms)
		for i, a := range terms {
			c.df[a]++
			for _, b := range terms[i+1:] {
				c.pair[[2]string{a, b}]++
			}
		}
	}
	return c
}

// MJ returns the Modified Jaccard of terms a and b over the training
// documents: n_ab / (n_a + n_b − n_ab), where n counts the training
// documents holding the term(s) among their top CooccurTopK, or 0 when
// n_ab < CooccurMinDocs. MJ(a, a) is 0 (a term does not penalise itself).
func (c *Cooccurrence) MJ(a, b string) float64 {
	if c == nil || a == b {
		return 0
	}
	if a > b {
		a, b = b, a
	}
	n := c.pair[[2]string{a, b}]
	if n < CooccurMinDocs {
		return 0
	}
	return float64(n) / float64(c.df[a]+c.df[b]-n)
}

// learnedPenalty applies J-Tidf with a learned model in place: a term's
// weight becomes w(a) × (1 − max_b MJ(a, b)) over the terms b of the same
// document with a strictly higher base weight (ties by term), so the
// strongest term of a group of associated terms keeps its weight.
func learnedPenalty(feats []Feature, m *Cooccurrence) {
	order := make([]int, len(feats))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		a, b := &feats[x], &feats[y]
		if a.Weight != b.Weight {
			return cmp.Compare(b.Weight, a.Weight)
		}
		return strings.Compare(a.Term, b.Term)
	})
	// Only terms seen often enough in training can have MJ > 0.
	factor := make([]float64, len(feats))
	var known []int // heavier known terms so far
	for _, a := range order {
		factor[a] = 1
		if m.df[feats[a].Term] < CooccurMinDocs {
			continue
		}
		maxJ := 0.0
		for _, b := range known {
			maxJ = max(maxJ, m.MJ(feats[a].Term, feats[b].Term))
		}
		factor[a] = 1 - maxJ
		known = append(known, a)
	}
	for i := range feats {
		feats[i].Weight *= factor[i]
	}
}

// PairsKept returns the term pairs with MJ > 0 (seen together in at least
// CooccurMinDocs training documents), for reporting.
func (c *Cooccurrence) PairsKept() [][2]string {
	var out [][2]string
	for p, n := range c.pair {
		if n >= CooccurMinDocs {
			out = append(out, p)
		}
	}
	return out
}
