// Package spotsigs extracts SpotSigs signatures from segmented text and
// finds signatures whose (multiset) Jaccard similarity or containment
// reaches a threshold.
//
// Method: M. Theobald, J. Siddharth and A. Paepcke, "SpotSigs: robust and
// efficient near duplicate detection in large web collections", SIGIR 2008,
// as adapted to Chinese by Li Yan et al. (2017), who take Chinese stopwords
// as antecedents over segmented words.
//
// A spot signature is an antecedent word (typically a frequent stopword)
// followed by a chain of the next content words: with chain length c and
// spot distance d, the chain is the d-th, 2d-th, ..., c·d-th word after the
// antecedent, counting only words that are not antecedents (Li Yan et al.
// 2017, li-yan-2017-spotsigs-chinese-news.txt line 122, and their Example 1,
// whose chain "to:all:public" keeps the stopword "all") and, when
// Config.IsStop is set, not stopwords either (the product sets it; the
// paper's rule is IsStop nil, measured by `eval antecedents`). For the paper's example "... the record straight from an
// attack ..." with antecedents {a, an, the, is}, c = 2 and d = 1 this gives
// spots such as "the:record:straight" and "an:attack:circulating". Each spot
// is hashed to 64 bits and a document's signature is the sorted multiset of
// its spot hashes, so ads and navigation text, which carry few stopwords,
// contribute few spots.
//
// Similarity is the multiset Jaccard coefficient Σmin/Σmax of spot counts.
// [Index] implements the paper's deduplication algorithm: signatures are
// partitioned by length (two signatures whose lengths differ by more than a
// factor τ cannot reach Jaccard τ) and each partition keeps an inverted
// index over spots. A query reads the posting lists of its spots in
// ascending document-frequency order and stops as soon as its not yet
// processed spots are too few to lift any unseen signature to the threshold;
// every candidate is then verified exactly.
//
// The package is pure: words in, values out. It does no I/O and no logging.
package spotsigs

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Defaults of Config, chosen by the project for short Chinese news texts:
// one chain word right after the antecedent.
const (
	DefaultChain    = 1
	DefaultDistance = 1
)

// Config says how spots are formed.
type Config struct {
	// IsAntecedent reports whether a word is an antecedent (a spot starts
	// after each antecedent). Required.
	IsAntecedent func(word string) bool
	// IsStop reports whether a word is a stopword; when set, stopwords are
	// skipped like antecedents when chain words are taken. Optional: the
	// paper skips antecedents only (li-yan-2017 line 122), which nil gives.
	IsStop func(word string) bool
	// Chain is the number of chain words c per spot; 0 means DefaultChain.
	Chain int
	// Distance is the spot distance d; 0 means DefaultDistance.
	Distance int
}

// WordSet returns a membership test for a fixed list of words, for use as
// Config.IsAntecedent or Config.IsStop.
func WordSet(words ...string) func(string) bool {
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	return func(w string) bool {
		_, ok := set[w]
		return ok
	}
}

// Signature is the sorted multiset of spot hashes of one document
// (ascending, repeats kept).
type Signature []uint64

// FNV-1a 64-bit parameters.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
	// spotSep ends every word inside a spot hash; 0xFF never occurs in UTF-8,
	// so different word splits cannot collide by concatenation.
	spotSep = 0xFF
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	h ^= spotSep
	h *= fnvPrime64
	return h
}

// Extract returns the SpotSigs signature of words, which must already be
// segmented and normalised. A spot whose chain runs past the end of the
// text is not formed. A text without antecedents has an empty signature.
// It is a [Spotter] fed every word.
func Extract(words []string, cfg Config) (Signature, error) {
	sp, err := NewSpotter(cfg)
	if err != nil {
		return nil, err
	}
	for _, w := range words {
		sp.Add(w)
	}
	return sp.Signature(), nil
}

// Spotter forms the spots of a word stream one word at a time, so that a
// long text's signature needs no word list: it keeps the last c·d content
// words and the antecedents whose chains are not complete yet.
type Spotter struct {
	isAnte, isStop func(string) bool
	c, d, need     int // chain length, distance, content words a chain spans (0: no chain fits in an int)
	ring           []string
	content        int // content words seen
	pending        []pendingSpot
	head           int // first pending spot not formed yet
	sig            Signature
}

// pendingSpot is an antecedent seen after k content words, its hash so far.
type pendingSpot struct {
	k int
	h uint64
}

// NewSpotter checks cfg and returns a Spotter for one text.
func NewSpotter(cfg Config) (*Spotter, error) {
	if cfg.IsAntecedent == nil {
		return nil, errors.New("spotsigs: Config.IsAntecedent is required")
	}
	c, d := cfg.Chain, cfg.Distance
	if c < 0 || d < 0 {
		return nil, fmt.Errorf("spotsigs: chain length %d and spot distance %d must not be negative", c, d)
	}
	if c == 0 {
		c = DefaultChain
	}
	if d == 0 {
		d = DefaultDistance
	}
	need := 0
	if c <= math.MaxInt/d {
		need = c * d
	}
	return &Spotter{isAnte: cfg.IsAntecedent, isStop: cfg.IsStop, c: c, d: d, need: need}, nil
}

// Add takes the next word of the text. The Spotter keeps at most the last
// c·d content words (a word kept shares its memory with the caller's).
func (s *Spotter) Add(w string) {
	switch {
	case s.isAnte(w):
		s.addAntecedent(w)
	case s.isStop != nil && s.isStop(w):
	default:
		s.addContent(w)
	}
}

// AddClassified is Add of a word whose classes the caller already knows:
// antecedent and stop must be what Config.IsAntecedent and Config.IsStop
// report for w (a stop that Config.IsStop would not report is ignored
// when IsStop is nil, as in Add).
func (s *Spotter) AddClassified(w string, antecedent, stop bool) {
	switch {
	case antecedent:
		s.addAntecedent(w)
	case stop && s.isStop != nil:
	default:
		s.addContent(w)
	}
}

func (s *Spotter) addAntecedent(w string) {
	if s.need > 0 {
		s.pending = append(s.pending, pendingSpot{k: s.content, h: fnvString(fnvOffset64, w)})
	}
}

// addContent takes the next content word.
func (s *Spotter) addContent(w string) {
	if s.need == 0 {
		return
	}
	if len(s.ring) < s.need {
		s.ring = append(s.ring, w)
	} else {
		s.ring[s.content%s.need] = w
	}
	s.content++
	// The chain of an antecedent seen after k content words is the
	// content words k+d-1, k+2d-1, ..., k+c·d-1: complete now when
	// k+c·d is the count seen.
	for s.head < len(s.pending) && s.pending[s.head].k+s.need == s.content {
		p := s.pending[s.head]
		h := p.h
		for j := 1; j <= s.c; j++ {
			h = fnvString(h, s.ring[(p.k+j*s.d-1)%s.need])
		}
		s.sig = append(s.sig, h)
		s.head++
	}
	if s.head == len(s.pending) {
		s.pending, s.head = s.pending[:0], 0
	} else if s.head >= compactPending && s.head*2 >= len(s.pending) {
		s.pending = s.pending[:copy(s.pending, s.pending[s.head:])]
		s.head = 0
	}
}

// compactPending: formed spots at the head of the pending queue are
// dropped once there are this many and they are half of it.
const compactPending = 1024

// Signature returns the signature of the words added so far (spots whose
// chain is not complete are not formed). The Spotter must not be used
// after it.
func (s *Spotter) Signature() Signature {
	sig := s.sig
	if sig == nil {
		sig = Signature{}
	}
	slices.Sort(sig)
	s.sig = nil
	return sig
}

// Overlap returns the size of the multiset intersection of two sorted
// signatures, Σ_v min(a_v, b_v). It does not allocate.
func Overlap(a, b Signature) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x == y:
			n++
			i++
			j++
		case x < y:
			i++
		default:
			j++
		}
	}
	return n
}

// Jaccard returns the multiset Jaccard similarity Σ_v min(a_v,b_v) / Σ_v max(a_v,b_v)
// of two sorted signatures, in [0, 1]. It is 0 when either signature is
// empty (also for two empty signatures: nothing was observed that could be
// shared). It does not allocate.
func Jaccard(a, b Signature) float64 {
	return jaccardOf(Overlap(a, b), len(a), len(b))
}

// Containment returns the multiset overlap divided by the size of the
// smaller signature, |a∩b| / min(|a|, |b|), in [0, 1]: 1 when one text's
// spots all occur in the other. It is 0 when either signature is empty.
func Containment(a, b Signature) float64 {
	return containmentOf(Overlap(a, b), len(a), len(b))
}

func jaccardOf(inter, la, lb int) float64 {
	union := la + lb - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

func containmentOf(inter, la, lb int) float64 {
	m := min(la, lb)
	if m == 0 {
		return 0
	}
	return float64(inter) / float64(m)
}
