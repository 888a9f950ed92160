package lshindex

import (
	"math/bits"
	"slices"

	"github.com/newsdedup/newscrawl/spotsigs"
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

// headLists is the head index: list key -> slots, newest last. The lists
// of a loaded snapshot stay where the snapshot holds them (baseKeys
// ascending, list i is basePost[baseOff[i]:baseOff[i+1]], used in place
// from a mapped file); a list a run adds to is copied into lists, which
// overrides the snapshot's.
type headLists struct {
	lists    map[uint64][]uint32
	baseKeys []uint64
	baseOff  []uint64
	basePost []uint32
	dropped  int // postings dropped by the cap
}

func newHeadLists() headLists { return headLists{lists: map[uint64][]uint32{}} }

// baseList returns the snapshot's list of key (nil when it has none, or
// when its offsets are out of order: a damaged mapped snapshot, which
// check finds).
func (h *headLists) baseList(key uint64) []uint32 {
	i, ok := slices.BinarySearch(h.baseKeys, key)
	if !ok || i+1 >= len(h.baseOff) {
		return nil
	}
	lo, hi := h.baseOff[i], h.baseOff[i+1]
	if lo > hi || hi > uint64(len(h.basePost)) {
		return nil
	}
	return h.basePost[lo:hi:hi]
}

// list returns key's list, the run's copy first.
func (h *headLists) list(key uint64) []uint32 {
	if l, ok := h.lists[key]; ok {
		return l
	}
	return h.baseList(key)
}

func (h *headLists) add(key uint64, slot uint32) {
	l, ok := h.lists[key]
	if !ok {
		l = h.baseList(key)
	}
	if len(l) >= 2*HeadListCap {
		// Keep the newest HeadListCap: amortised O(1) per posting.
		if !ok {
			l = slices.Clone(l) // never write into the snapshot's list
		}
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
	l := h.list(key)
	if len(l) > HeadListCap {
		l = l[len(l)-HeadListCap:]
	}
	return l
}

// each calls fn for every list in key order.
func (h *headLists) each(fn func(key uint64, l []uint32)) {
	keys := make([]uint64, 0, len(h.lists))
	for k := range h.lists {
		if _, in := slices.BinarySearch(h.baseKeys, k); !in {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	j := 0
	for _, k := range h.baseKeys {
		for ; j < len(keys) && keys[j] < k; j++ {
			fn(keys[j], h.lists[keys[j]])
		}
		fn(k, h.list(k))
	}
	for ; j < len(keys); j++ {
		fn(keys[j], h.lists[keys[j]])
	}
}

// beyond returns the postings the cap has taken out of reach: those
// dropped and those a list still holds past its newest HeadListCap.
func (h *headLists) beyond() int {
	n := h.dropped
	h.each(func(_ uint64, l []uint32) { n += max(len(l)-HeadListCap, 0) })
	return n
}

func (h *headLists) postings() int {
	n := 0
	h.each(func(_ uint64, l []uint32) { n += len(l) })
	return n
}

// headCandidates adds to met (fromHead, one hit per head token) the
// head-index postings of a query of lx tokens toks that can pass pathOK,
// and counts the postings read in st.
//
// A length class is wholly shorter or wholly longer than the query (the
// query's own class is never a brief class). An entry of a shorter class
// met only through the head index needs at least headHits(lx, ly) hits,
// and it is posted only in lists of its own class, so its hits are counted
// over that class's lists and a slot with fewer hits than the least
// headHits of its class is dropped here, before its length is read (a
// slot the bands also met does not need its head hits). An entry of a
// longer class needs one hit: every posting is kept.
func (x *Index) headCandidates(met *metTable, toks []spotsigs.Token, lx int, st *Probe) {
	var minHits [32]uint32
	var short, long []uint32
	for _, c := range briefClasses(lx, x.cfg.MinContainment) {
		if x.classes[c] == 0 {
			continue
		}
		if lo, _ := classRange(c); lo > lx {
			long = append(long, c)
		} else if minHits[c] = uint32(x.cfg.classHits(lx, c)); minHits[c] > 0 {
			short = append(short, c)
		}
	}
	counted := x.metPool.get() // per slot of a shorter class: hits<<classBits | class
	n := uint32(len(x.ids))    // a mapped snapshot's postings are not trusted (checkShape)
	defer x.metPool.put(counted)
	for _, t := range toks {
		k := t.Key()
		for _, c := range short {
			l := x.head.get(headKey(k, c))
			st.Head += len(l)
			for _, s := range l {
				if s < n {
					counted.add(s, c, 1<<classBits)
				}
			}
		}
		for _, c := range long {
			l := x.head.get(headKey(k, c))
			st.Head += len(l)
			st.HeadLong += len(l)
			for _, s := range l {
				if s < n {
					met.add(s, fromHead, 1<<2)
				}
			}
		}
	}
	for _, s := range counted.slots {
		v := counted.get(s)
		if hits := v >> classBits; hits >= minHits[v&(1<<classBits-1)] {
			met.add(s, fromHead, hits<<2)
		}
	}
}

// classHits is the least number of head hits pathOK asks of an entry of
// the shorter length class c met only through the head index by a query
// of lx tokens: the least headHits(lx, ly) over the lengths ly of c that
// form a brief pair with lx; 0 when none does.
func (cfg Config) classHits(lx int, c uint32) int {
	lo, hi := classRange(c)
	least := 0
	for ly := max(lo, cfg.MinContainment); ly <= min(hi, lx); ly++ {
		if !briefPair(lx, ly, cfg.MinContainment) {
			continue
		}
		if h := cfg.headHits(lx, ly); least == 0 || h < least {
			least = h
		}
	}
	return least
}
