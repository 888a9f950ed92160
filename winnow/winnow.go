// Package winnow finds the passages two texts share, by winnowing: S.
// Schleimer, D. S. Wilkerson and A. Aiken, "Winnowing: local algorithms for
// document fingerprinting", SIGMOD 2003, as the crawler book chapter on
// semantic fingerprints (《网络爬虫全解析》, copy detection) applies it to
// words:
//
//   - the text is a sequence of words (the caller drops stopwords: the
//     chapter's blocks are of keywords); every run of k consecutive words (a
//     k-word block) is hashed with a Karp-Rabin rolling hash over the words'
//     64-bit hashes;
//   - in every window of w = g − k + 1 consecutive block hashes the minimum
//     is selected, the rightmost one when several are equal, and recorded
//     with its position when it is not the one the previous window already
//     selected (the paper's robust winnowing);
//   - guarantee: two texts that share a run of at least g words share at
//     least one recorded hash, the one selected in a window inside that
//     run; runs shorter than k words (the noise threshold) are never found.
//
// Passages turns the shared hashes back into the shared word runs of two
// texts, checked word by word, so a hash collision cannot invent one.
//
// The package is pure: tokens in, values out; no I/O, no logging.
package winnow

import (
	"fmt"
	"slices"
	"sort"
)

// Defaults, in content words (stopwords dropped): k = 4 is about a clause
// of news text, g = 8 about a short sentence. Chosen with `eval winnow` on
// the dev sets: with k = 5, g = 12 sentence reordering breaks passages at
// sentence edges (a fully reordered copy showed up to 0.37 "own" text
// against its original, 0.23 with k = 4, g = 8; estimated from the
// fingerprints alone by Runs, which counts unselected run edges as
// shared, 0.15 and 0.12).
const (
	DefaultK = 4
	DefaultG = 8
)

// Config holds the noise threshold K and the guarantee threshold G (in
// words, 1 ≤ K ≤ G). Zero values take the defaults.
type Config struct{ K, G int }

func (c Config) fill() (Config, error) {
	if c.K == 0 {
		c.K = DefaultK
	}
	if c.G == 0 {
		c.G = max(DefaultG, c.K)
	}
	if c.K < 1 || c.G < c.K {
		return c, fmt.Errorf("winnow: need 1 <= k <= g, got k=%d g=%d", c.K, c.G)
	}
	return c, nil
}

// Print is one recorded fingerprint: the hash of the k-word block starting
// at word Pos.
type Print struct {
	Hash uint64
	Pos  int
}

// Karp-Rabin base (odd, so multiplication is invertible mod 2^64) and the
// word hash (FNV-1a 64).
const (
	base       = 0x9E3779B97F4A7C15 // 2^64 / golden ratio, odd
	fnvOffset  = 14695981039346656037
	fnvPrime64 = 1099511628211
)

func wordHash(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// BlockHashes returns the Karp-Rabin hash of every k-word block of words
// (len(words) − k + 1 of them; none when there are fewer than k words):
// H(i) = Σ_{j<k} h(words[i+j])·B^(k−1−j) mod 2^64, each computed from the
// previous in O(1).
func BlockHashes(words []string, k int) []uint64 {
	if k < 1 || len(words) < k {
		return nil
	}
	var top uint64 = 1 // B^(k-1)
	for range k - 1 {
		top *= base
	}
	hs := make([]uint64, 0, len(words)-k+1)
	var h uint64
	for i, w := range words {
		if i >= k {
			h -= wordHash(words[i-k]) * top
		}
		h = h*base + wordHash(w)
		if i >= k-1 {
			hs = append(hs, h)
		}
	}
	return hs
}

// Fingerprints winnows the k-word block hashes of words with windows of
// g − k + 1 blocks. A text with fewer than k words has no fingerprints;
// one with fewer than g words (but at least k) gets the minimum of its
// blocks, so that two identical short texts still match.
func Fingerprints(words []string, c Config) ([]Print, error) {
	c, err := c.fill()
	if err != nil {
		return nil, err
	}
	hs := BlockHashes(words, c.K)
	if len(hs) == 0 {
		return nil, nil
	}
	return winnowHashes(hs, min(c.G-c.K+1, len(hs))), nil
}

// winnowHashes selects the rightmost minimum of every window of w hashes
// (1 <= w <= len(hs)), recording it when its position changes.
func winnowHashes(hs []uint64, w int) []Print {
	var out []Print
	last := -1
	// Monotone deque of block indexes whose hashes increase strictly from
	// front to back; popping on >= keeps the rightmost of equal minima.
	dq := make([]int, 0, w)
	for i, h := range hs {
		for len(dq) > 0 && hs[dq[len(dq)-1]] >= h {
			dq = dq[:len(dq)-1]
		}
		dq = append(dq, i)
		if dq[0] <= i-w {
			dq = dq[1:]
		}
		if i >= w-1 && dq[0] != last {
			last = dq[0]
			out = append(out, Print{Hash: hs[last], Pos: last})
		}
	}
	return out
}

// Passage is a run of words two texts share: A[StartA:StartA+Len] equals
// B[StartB:StartB+Len].
type Passage struct {
	StartA, StartB, Len int
}

// Passages returns the maximal shared word runs of a and b that contain a
// shared fingerprint: every recorded hash both texts have is checked word
// by word and extended to the left and right as far as the words agree.
// Runs are returned by StartA, without duplicates; runs of the same
// diagonal that overlap are reported once. pa and pb are the fingerprints
// of a and b (Fingerprints with the same config).
func Passages(a []string, pa []Print, b []string, pb []Print, c Config) ([]Passage, error) {
	c, err := c.fill()
	if err != nil {
		return nil, err
	}
	byHash := make(map[uint64][]int, len(pb))
	for _, p := range pb {
		byHash[p.Hash] = append(byHash[p.Hash], p.Pos)
	}
	seen := map[[2]int]bool{} // (diagonal, start in a) of runs already found
	var out []Passage
	for _, p := range pa {
		for _, q := range byHash[p.Hash] {
			i, j := p.Pos, q
			if i+c.K > len(a) || j+c.K > len(b) || !slices.Equal(a[i:i+c.K], b[j:j+c.K]) {
				continue // a hash collision, not a shared block
			}
			for i > 0 && j > 0 && a[i-1] == b[j-1] {
				i, j = i-1, j-1
			}
			key := [2]int{i - j, i}
			if seen[key] {
				continue
			}
			seen[key] = true
			n := 0
			for i+n < len(a) && j+n < len(b) && a[i+n] == b[j+n] {
				n++
			}
			out = append(out, Passage{StartA: i, StartB: j, Len: n})
		}
	}
	sort.Slice(out, func(x, y int) bool {
		if out[x].StartA != out[y].StartA {
			return out[x].StartA < out[y].StartA
		}
		return out[x].StartB < out[y].StartB
	})
	return out, nil
}

// Covered returns how many words of a (len n) the passages cover, counting
// each word once.
func Covered(n int, ps []Passage) int {
	cov := make([]bool, n)
	c := 0
	for _, p := range ps {
		for i := p.StartA; i < p.StartA+p.Len && i < n; i++ {
			if i >= 0 && !cov[i] {
				cov[i] = true
				c++
			}
		}
	}
	return c
}

// Runs estimates the shared runs of two texts from their fingerprints
// alone, for when the other text's words are not at hand (an index keeps
// only fingerprints). Matching hashes are paired (a position in a, one in
// b), pairs on one diagonal (equal offset) whose positions in a are at most
// w = g − k + 1 blocks apart are chained (inside a shared run of g words or
// more every window selects a block, so consecutive selections are at most
// w apart), and a chain from block p to block q is reported as the run
// [p − (w−1), q + k + (w−1)) clipped to both texts: up to w−1 words of a
// run's edges are never selected, and the estimate counts them as shared.
// It so errs towards more overlap than Passages finds, never less on a run
// it detects. na and nb are the texts' lengths in words.
func Runs(pa []Print, na int, pb []Print, nb int, c Config) ([]Passage, error) {
	byHash := make(map[uint64][]int, len(pb))
	for _, p := range pb {
		byHash[p.Hash] = append(byHash[p.Hash], p.Pos)
	}
	var pairs []Pair
	for _, p := range pa {
		for _, q := range byHash[p.Hash] {
			pairs = append(pairs, Pair{p.Pos, q})
		}
	}
	return RunsOfPairs(pairs, na, nb, c)
}

// Pair is a fingerprint two texts share: the block at A in the first text
// and the one at B in the second have the same hash.
type Pair struct{ A, B int }

// RunsOfPairs is Runs for callers that matched the fingerprints
// themselves (an index that keeps them sorted by hash). pairs is reordered.
func RunsOfPairs(pairs []Pair, na, nb int, c Config) ([]Passage, error) {
	c, err := c.fill()
	if err != nil {
		return nil, err
	}
	w := c.G - c.K + 1
	for _, p := range pairs {
		if p.A < 0 || p.B < 0 || p.A >= na || p.B >= nb {
			return nil, fmt.Errorf("winnow: pair %v outside texts of %d and %d words", p, na, nb)
		}
	}
	slices.SortFunc(pairs, func(x, y Pair) int {
		if dx, dy := x.A-x.B, y.A-y.B; dx != dy {
			return dx - dy
		}
		return x.A - y.A
	})
	var out []Passage
	emit := func(first, last Pair) {
		ext := min(w-1, first.A, first.B)
		i, j := first.A-ext, first.B-ext
		end := min(last.A+c.K+w-1, na, nb-(first.B-first.A))
		if end > i {
			out = append(out, Passage{StartA: i, StartB: j, Len: end - i})
		}
	}
	for s := 0; s < len(pairs); {
		e := s
		for e+1 < len(pairs) && pairs[e+1].A-pairs[e+1].B == pairs[s].A-pairs[s].B && pairs[e+1].A-pairs[e].A <= w {
			e++
		}
		emit(pairs[s], pairs[e])
		s = e + 1
	}
	slices.SortFunc(out, func(x, y Passage) int {
		if x.StartA != y.StartA {
			return x.StartA - y.StartA
		}
		return x.StartB - y.StartB
	})
	return out, nil
}

// Stream winnows words one at a time, with the same result as Fingerprints
// on the whole sequence: the words are not kept, only the last k word
// hashes and the window's candidates (O(g) memory).
type Stream struct {
	c     Config
	w     int
	top   uint64   // base^(k-1)
	ring  []uint64 // the last k word hashes
	n     int      // words seen
	h     uint64   // rolling hash of the last k words
	dq    []Print  // ring of window candidates, hashes increasing strictly
	head  int      // index of the front in dq
	size  int      // candidates in dq
	last  int      // position of the last recorded print (-1: none)
	out   []Print
	ended bool
}

// NewStream returns a Stream for c (zero values take the defaults).
func NewStream(c Config) (*Stream, error) {
	c, err := c.fill()
	if err != nil {
		return nil, err
	}
	var top uint64 = 1
	for range c.K - 1 {
		top *= base
	}
	w := c.G - c.K + 1
	// The window holds at most w candidates, w+1 between a push and the
	// expiry of the front.
	return &Stream{c: c, w: w, top: top, ring: make([]uint64, c.K), dq: make([]Print, w+1), last: -1,
		out: make([]Print, 0, 32)}, nil
}

// Add feeds the next word.
func (s *Stream) Add(word string) {
	wh := wordHash(word)
	k := s.c.K
	if s.n >= k {
		s.h -= s.ring[s.n%k] * s.top
	}
	s.ring[s.n%k] = wh
	s.h = s.h*base + wh
	s.n++
	if s.n < k {
		return
	}
	i := s.n - k // index of the block ending at this word
	// Pop candidates at the back that are >= h (rightmost minimum).
	m := len(s.dq)
	for s.size > 0 && s.dq[(s.head+s.size-1)%m].Hash >= s.h {
		s.size--
	}
	s.dq[(s.head+s.size)%m] = Print{Hash: s.h, Pos: i}
	s.size++
	if s.dq[s.head].Pos <= i-s.w {
		s.head = (s.head + 1) % m
		s.size--
	}
	if i >= s.w-1 && s.dq[s.head].Pos != s.last {
		s.last = s.dq[s.head].Pos
		s.out = append(s.out, s.dq[s.head])
	}
}

// Words is the number of words fed so far.
func (s *Stream) Words() int { return s.n }

// Prints ends the stream and returns its fingerprints (Fingerprints of all
// the words fed). A text of fewer than g words (but at least k) gets the
// minimum of its blocks, as in Fingerprints. Add must not be called after.
func (s *Stream) Prints() []Print {
	if !s.ended {
		s.ended = true
		if blocks := s.n - s.c.K + 1; blocks > 0 && blocks < s.w {
			s.out = append(s.out, s.dq[s.head])
		}
	}
	return s.out
}
