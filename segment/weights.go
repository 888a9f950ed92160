package segment

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Feature is one term of a document with its weight and the indices of its
// occurrences in the document's full word sequence (as returned by Words,
// stopwords included), for position-aware fingerprints such as P-Simhash.
type Feature struct {
	Term      string
	Weight    float64
	Positions []int
}

// DocFreq gives corpus document frequencies for IDF.
type DocFreq interface {
	// DF returns the number of documents that contain term.
	DF(term string) int
	// Docs returns the number of documents in the corpus.
	Docs() int
}

// Weighting selects the term weight.
type Weighting int

const (
	// TF weights a term by its number of occurrences in the document.
	TF Weighting = iota
	// TFIDF multiplies TF by the smoothed inverse document frequency
	// idf(t) = ln((N+1)/(df(t)+1)) + 1, the "smooth_idf" form of
	// scikit-learn's TfidfTransformer (an unseen term gets the largest idf,
	// a term in every document still weighs 1, never 0).
	TFIDF
)

// FeatureOptions configures Features.
type FeatureOptions struct {
	// TopM keeps only the M highest-weighted terms (0 keeps all). P-Simhash
	// used m = 20.
	TopM int
	// JTidf applies the co-occurrence penalty described at Features.
	JTidf bool
	// NoPositions leaves Feature.Positions nil (the weights are the same):
	// for callers that need only terms and weights, it saves 12 bytes per
	// word, which counts on multi-megabyte texts. Ignored with JTidf, which
	// needs the positions.
	NoPositions bool
}

const (
	// cooccurWindow is the block size, in words, within which two terms
	// count as co-occurring for the JTidf penalty: about one clause of news
	// text (a sentence of Chinese news averages 20-30 words after
	// segmentation; a clause between commas about 8-12).
	cooccurWindow = 10
	// cooccurMinShared is the number of shared blocks below which no
	// penalty applies: one shared block is no evidence that two terms are
	// associated (in a short document most terms occur once, and every
	// pair of single occurrences in one block would have Jaccard 1).
	cooccurMinShared = 2
)

// Features turns a word sequence into weighted features. Words for which
// isStop returns true are skipped (isStop may be nil). With TFIDF a nil df, or
// one with no documents, gives idf = 1 for every term. Features come in order
// of first occurrence; with opts.TopM > 0 they are sorted by decreasing
// weight, ties by term, and cut to the top m.
//
// JTidf. P-Simhash (§2.1) weights features with "J-Tidf", which lowers the
// weight of terms that co-occur strongly with other terms. This is not the
// paper's J-Tidf: the paper (zhang-yanan-2022-p-simhash.txt, line 87-97)
// learns a Modified Jaccard of occurrence counts over a training set (the
// lab's internal/psimhash does that); this variant needs no training and
// works within the document: the word sequence is cut into blocks of
// cooccurWindow words; B(t) is the set of blocks in which term t occurs; for
// a term a and each term b with a strictly higher base weight (ties broken by
// term order) that shares at least cooccurMinShared blocks with a, the
// Jaccard J(a,b) = |B(a) ∩ B(b)| / |B(a) ∪ B(b)| is computed, and a's weight
// becomes w(a) × (1 − max_b J(a,b)). A term that always appears in the same
// clauses as a stronger term thus adds little beyond it, while the strongest
// term of each group keeps its weight.
func Features(words []string, isStop func(string) bool, w Weighting, df DocFreq, opts FeatureOptions) []Feature {
	// One map lookup per word: each word's feature index is noted, then all
	// position lists are cut from one backing array.
	if opts.NoPositions && !opts.JTidf {
		return countFeatures(words, isStop, w, df, opts)
	}
	index := make(map[string]int32, len(words)/2)
	ids := make([]int32, len(words))
	var feats []Feature
	var counts []int32
	for pos, word := range words {
		if word == "" || (isStop != nil && isStop(word)) {
			ids[pos] = -1
			continue
		}
		i, ok := index[word]
		if !ok {
			i = int32(len(feats))
			index[word] = i
			feats = append(feats, Feature{Term: word})
			counts = append(counts, 0)
		}
		ids[pos] = i
		counts[i]++
	}
	if len(feats) == 0 {
		return nil
	}
	backing := make([]int, 0, len(words))
	for i := range feats {
		feats[i].Positions = backing[len(backing) : len(backing) : len(backing)+int(counts[i])]
		backing = backing[:len(backing)+int(counts[i])]
	}
	for pos, i := range ids {
		if i >= 0 {
			feats[i].Positions = append(feats[i].Positions, pos)
		}
	}
	for i := range feats {
		feats[i].Weight = float64(len(feats[i].Positions))
	}
	return finishFeatures(feats, w, df, opts)
}

// finishFeatures turns term counts (in Weight) into weights and applies
// JTidf and TopM.
func finishFeatures(feats []Feature, w Weighting, df DocFreq, opts FeatureOptions) []Feature {
	n := 0
	if df != nil {
		n = df.Docs()
	}
	for i := range feats {
		f := &feats[i]
		if w == TFIDF && n > 0 {
			d := min(max(df.DF(f.Term), 0), n)
			f.Weight *= math.Log(float64(n+1)/float64(d+1)) + 1
		}
	}
	if opts.JTidf {
		cooccurrencePenalty(feats)
	}
	if opts.TopM > 0 {
		// Heaviest first, ties by term: only needed to cut the top m.
		slices.SortFunc(feats, func(a, b Feature) int {
			if a.Weight != b.Weight {
				return cmp.Compare(b.Weight, a.Weight)
			}
			return strings.Compare(a.Term, b.Term)
		})
	}
	if opts.TopM > 0 && len(feats) > opts.TopM {
		feats = feats[:opts.TopM:opts.TopM]
	}
	return feats
}

// countFeatures is Features without positions: one map lookup per word and
// a count per term.
func countFeatures(words []string, isStop func(string) bool, w Weighting, df DocFreq, opts FeatureOptions) []Feature {
	c := &TermCounter{isStop: isStop, index: make(map[string]int32)}
	for _, word := range words {
		c.Add(word)
	}
	return c.features(w, df, opts)
}

// TermCounter counts the terms of a word stream one word at a time: the
// Features of the words added, without positions and JTidf, for a long text
// whose word list is not materialised. A new term is copied, so that the
// counter does not keep the memory of the text it was cut from.
type TermCounter struct {
	isStop func(string) bool
	index  map[string]int32
	feats  []Feature
	clone  bool
	// A counter of Segmenter.Counter also counts tokens by dictionary id
	// (AddToken): byID is a hash table from id to feature index (idSlot),
	// ids the ids seen, and the terms' bytes are copied into arena,
	// ends[k] being where the term of the k-th id ends. pool takes it back
	// on Release.
	byID  []uint64
	ids   []uint32
	ends  []int32
	arena []byte
	pool  *sync.Pool
}

// NewTermCounter returns an empty counter skipping the words for which
// isStop returns true (isStop may be nil).
func NewTermCounter(isStop func(string) bool) *TermCounter {
	return &TermCounter{isStop: isStop, index: make(map[string]int32), clone: true}
}

// Add counts one word.
func (c *TermCounter) Add(word string) {
	if word == "" || (c.isStop != nil && c.isStop(word)) {
		return
	}
	c.addWord(word)
}

// addWord counts a word that is not a stopword by the string map.
func (c *TermCounter) addWord(word string) {
	i, ok := c.index[word]
	if !ok {
		if c.index == nil {
			c.index = make(map[string]int32)
		}
		word = c.internTerm(word)
		i = int32(len(c.feats))
		c.index[word] = i
		c.feats = append(c.feats, Feature{Term: word})
	}
	c.feats[i].Weight++
}

// Features returns what Features(words, isStop, w, df,
// FeatureOptions{TopM: topM, NoPositions: true}) returns for the words
// added. The counter must not be used after it, except for Release.
func (c *TermCounter) Features(w Weighting, df DocFreq, topM int) []Feature {
	return c.features(w, df, FeatureOptions{TopM: topM, NoPositions: true})
}

func (c *TermCounter) features(w Weighting, df DocFreq, opts FeatureOptions) []Feature {
	feats := c.feats
	if c.pool == nil {
		c.feats, c.index = nil, nil
	} else {
		c.termsFromArena()
	}
	if len(feats) == 0 {
		return nil
	}
	return finishFeatures(feats, w, df, opts)
}

// cooccurrencePenalty applies the JTidf penalty in place (see Features).
func cooccurrencePenalty(feats []Feature) {
	// rank orders terms by base weight (then term): a is penalised only by
	// terms of better rank.
	order := make([]int, len(feats))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool {
		a, b := &feats[order[x]], &feats[order[y]]
		if a.Weight != b.Weight {
			return a.Weight > b.Weight
		}
		return a.Term < b.Term
	})
	rank := make([]int, len(feats))
	for r, i := range order {
		rank[i] = r
	}
	// blocks[i]: distinct blocks of term i, ascending; members[k]: terms in block k.
	blocks := make([][]int, len(feats))
	members := map[int][]int{}
	for i := range feats {
		last := -1
		for _, p := range feats[i].Positions {
			if k := p / cooccurWindow; k != last {
				blocks[i] = append(blocks[i], k)
				members[k] = append(members[k], i)
				last = k
			}
		}
	}
	shared := make([]int, len(feats))
	touched := make([]int, 0, 64)
	factor := make([]float64, len(feats))
	for a := range feats {
		touched = touched[:0]
		for _, k := range blocks[a] {
			for _, b := range members[k] {
				if rank[b] < rank[a] {
					if shared[b] == 0 {
						touched = append(touched, b)
					}
					shared[b]++
				}
			}
		}
		maxJ := 0.0
		for _, b := range touched {
			if s := shared[b]; s >= cooccurMinShared {
				j := float64(s) / float64(len(blocks[a])+len(blocks[b])-s)
				maxJ = max(maxJ, j)
			}
			shared[b] = 0
		}
		factor[a] = 1 - maxJ
	}
	for i := range feats {
		feats[i].Weight *= factor[i]
	}
}
