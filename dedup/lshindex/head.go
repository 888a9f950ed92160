package lshindex

import (
	"math/bits"
)

// Containment of briefs. LSH at Jaccard 0.35 finds a containment pair
// (containment ≥ θ of the shorter side) whenever the shorter side has at
// least BriefRatio of the longer side's tokens: then the Jaccard is at
// least θ·ρ/(1 + (1−θ)·ρ) ≥ 0.36 for θ = 0.8. Pairs of more unequal
// lengths go through the head index: every entry of at least
// MinContainment tokens indexes its "head", its first
// max(|y| − ⌈θ|y|⌉ + 1, ⌈HeadShare·|y|⌉) tokens in order of rarity when
// it was added (document frequency among the entries indexed so far, then
// key), with its length class in the posting; a query reads the lists of
// all its tokens in the length classes (octaves) that can be a brief of it
// or contain it, so entries of similar length are never read.
//
//   - A long query and an indexed brief: the brief's |y| − ⌈θ|y|⌉ + 1
//     head tokens cannot all lie outside a query that contains ⌈θ|y|⌉ of
//     its tokens (pigeonhole), so the pair is met: exact, whatever the
//     order the head was chosen in, as long as no list was cut (below).
//   - A brief query and an indexed long article: met when one of the
//     brief's tokens is in the article's head (its HeadShare rarest
//     tokens); not guaranteed. eval prints the recall on every dev set.
//
// The cost is bounded: a list keeps its HeadListCap most recent postings
// (older ones are dropped, and counted: Stats.HeadDropped), so a query
// reads at most |x|·(classes)·HeadListCap postings whatever the corpus
// size; on a corpus whose vocabulary does not grow the lists of common
// tokens fill up, and a brief whose head holds only such tokens can be
// missed once its list has moved on.
const (
	// BriefRatio is the length ratio (shorter / longer) under which a
	// containment pair is left to the head index.
	BriefRatio = 0.5
	// HeadShare is the least share of an entry's tokens in its head.
	HeadShare = 0.35
	// HeadListCap is the number of postings a head list keeps: a query
	// reads at most HeadListCap postings per token and length class.
	HeadListCap = 32
	// classBits: a head list's key is the token key<<classBits | the
	// length class of the entries it holds.
	classBits = 5
	// MaxSlots is the number of entries an Index can hold.
	MaxSlots = 1<<31 - 1
)

// lengthClass is a token count's octave ⌊log2 n⌋.
func lengthClass(n int) uint32 {
	if n <= 0 {
		return 0
	}
	return uint32(bits.Len(uint(n)) - 1)
}

// classRange is the smallest and largest token count of class c.
func classRange(c uint32) (lo, hi int) {
	return 1 << c, 1<<(c+1) - 1
}

// briefClasses are the length classes of entries that can be in a
// containment pair with a query of lx tokens that LSH does not guarantee:
// at least minLen tokens, and shorter than BriefRatio·lx or longer than
// lx/BriefRatio.
func briefClasses(lx, minLen int) []uint32 {
	var cs []uint32
	for c := uint32(0); c < 31; c++ {
		lo, hi := classRange(c)
		lo = max(lo, minLen)
		if lo > hi {
			continue
		}
		if float64(lo) < BriefRatio*float64(lx) || float64(hi) > float64(lx)/BriefRatio {
			cs = append(cs, c)
		}
	}
	return cs
}

// briefPair reports whether lengths lx and ly form a pair the head index
// must find.
func briefPair(lx, ly, minLen int) bool {
	s, l := min(lx, ly), max(lx, ly)
	return s >= minLen && float64(s) < BriefRatio*float64(l)
}

// headKey is the key of token key t's list for length class c.
func headKey(t uint64, c uint32) uint64 { return t<<classBits | uint64(c) }

// headLists is the head index: list key -> slots, newest last.
type headLists struct {
	lists   map[uint64][]uint32
	dropped int // postings dropped by the cap
}

func newHeadLists() headLists { return headLists{lists: map[uint64][]uint32{}} }

func (h *headLists) add(key uint64, slot uint32) {
	l := h.lists[key]
	if len(l) >= 2*HeadListCap {
		// Keep the newest HeadListCap: amortised O(1) per posting.
		n := copy(l, l[len(l)-HeadListCap:])
		h.dropped += len(l) - n
		l = l[:n]
	}
	if len(l) == cap(l) {
		nl := make([]uint32, len(l), len(l)+len(l)/4+1)
		copy(nl, l)
		l = nl
	}
	h.lists[key] = append(l, slot)
}

// get returns the newest HeadListCap postings of key.
func (h *headLists) get(key uint64) []uint32 {
	l := h.lists[key]
	if len(l) > HeadListCap {
		l = l[len(l)-HeadListCap:]
	}
	return l
}

// beyond returns the postings the cap has taken out of reach: those
// dropped and those a list still holds past its newest HeadListCap.
func (h *headLists) beyond() int {
	n := h.dropped
	for _, l := range h.lists {
		n += max(len(l)-HeadListCap, 0)
	}
	return n
}

func (h *headLists) postings() int {
	n := 0
	for _, l := range h.lists {
		n += len(l)
	}
	return n
}
