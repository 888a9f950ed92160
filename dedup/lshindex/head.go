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
// all its tokens and keeps the postings whose length class can be a brief
// of it or contain it.
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
// reads at most |x|·HeadListCap postings whatever the corpus size.
const (
	// BriefRatio is the length ratio (shorter / longer) under which a
	// containment pair is left to the head index.
	BriefRatio = 0.5
	// HeadShare is the least share of an entry's tokens in its head.
	HeadShare = 0.5
	// HeadListCap is the number of postings a head list keeps.
	HeadListCap = 1024
	// classBits: a head posting is slot<<classBits | length class.
	classBits = 5
	// MaxSlots is the number of entries an Index can hold.
	MaxSlots = 1<<(32-classBits) - 1
)

// lengthClass is a token count's half-octave: 2·⌊log2 n⌋, plus one from
// 1.5·2^⌊log2 n⌋ on, capped at 31.
func lengthClass(n int) uint32 {
	if n <= 0 {
		return 0
	}
	p := bits.Len(uint(n)) - 1
	c := 2 * p
	if p > 0 && n >= 3<<(p-1) {
		c++
	}
	return uint32(min(c, 31))
}

// classRange is the smallest and largest token count of class c (hi is
// huge for the last class).
func classRange(c uint32) (lo, hi int) {
	if c == 31 {
		return 3 << 14, 1 << 62
	}
	p := int(c / 2)
	if c%2 == 0 {
		lo = 1 << p
		hi = max(lo, 3<<p/2-1)
		if p == 0 {
			hi = 1
		}
		return lo, hi
	}
	return 3 << p / 2, 1<<(p+1) - 1
}

// briefClasses is the mask of length classes an entry of which can be in
// a containment pair with a query of lx tokens that LSH does not
// guarantee: at least minLen tokens, and shorter than BriefRatio·lx or
// longer than lx/BriefRatio.
func briefClasses(lx, minLen int) uint32 {
	var m uint32
	for c := uint32(0); c < 32; c++ {
		lo, hi := classRange(c)
		lo = max(lo, minLen)
		if lo > hi {
			continue
		}
		if float64(lo) < BriefRatio*float64(lx) || float64(hi) > float64(lx)/BriefRatio {
			m |= 1 << c
		}
	}
	return m
}

// briefPair reports whether lengths lx and ly form a pair the head index
// must find.
func briefPair(lx, ly, minLen int) bool {
	s, l := min(lx, ly), max(lx, ly)
	return s >= minLen && float64(s) < BriefRatio*float64(l)
}

// headLists is the head index: token key -> postings, newest last.
type headLists struct {
	lists   map[uint64][]uint32
	dropped int // postings dropped by the cap
}

func newHeadLists() headLists { return headLists{lists: map[uint64][]uint32{}} }

func (h *headLists) add(key uint64, p uint32) {
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
	h.lists[key] = append(l, p)
}

// get returns the newest HeadListCap postings of key.
func (h *headLists) get(key uint64) []uint32 {
	l := h.lists[key]
	if len(l) > HeadListCap {
		l = l[len(l)-HeadListCap:]
	}
	return l
}

func (h *headLists) postings() int {
	n := 0
	for _, l := range h.lists {
		n += len(l)
	}
	return n
}
