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
// from a mapped file); a list a run adds to is copied into the run's
// table, which overrides the snapshot's.
//
// The run's lists hold no pointers, so that the collector never scans
// them: an open-addressing table (linear probing) of list headers, each
// naming a block of the arena, a power of two of postings (up to
// 2·HeadListCap) carved from chunks of headChunk postings; a block a list
// outgrows goes on its size's free list for the next list of that size.
// A token's lists (one per length class) share the token's home slot, so
// that a query finds all of them in one walk (token).
type headLists struct {
	table    []headEntry
	used     int               // entries in table
	chunks   [][]uint32        // the arena; block off is chunks[off>>headChunkBits][off&(headChunk-1):]
	free     [headSizes]uint32 // first free block of each size + 1 (0: none); a free block holds the next's
	fresh    [headSizes]uint32 // next block of each size in its current chunk + 1 (0: none)
	baseKeys []uint64
	baseOff  []uint64
	basePost []uint32
	dropped  int // postings dropped by the cap (and by a full arena)
}

// headEntry is one list of the run: its key, its block and its length.
type headEntry struct {
	key  uint64
	off  uint32 // the block, an arena offset
	n    uint8  // postings
	size uint8  // log2 of the block's postings + 1; 0: an empty table slot
}

const (
	// headChunkBits: the arena grows by chunks of headChunk postings; a
	// block never crosses a chunk.
	headChunkBits = 16
	headChunk     = 1 << headChunkBits
	// headMaxChunks bounds the arena to 2^32 postings (offsets are 32
	// bits): a posting past it is dropped and counted.
	headMaxChunks = 1 << (32 - headChunkBits)
	// headSizes is the number of block sizes, 1 to 2·HeadListCap postings.
	headSizes = 7
	// headMinTable is the table's first size; it doubles when more than
	// headLoadNum/headLoadDen of it is used.
	headMinTable = 1 << 10
	headLoadNum  = 3
	headLoadDen  = 4
)

func newHeadLists() headLists { return headLists{} }

// home is the first table slot of token key t's lists (t without its class
// bits), for a table of 1<<b slots.
func headHome(key uint64, b int) int {
	return int(((key >> classBits) * 0x9E3779B97F4A7C15) >> (64 - b))
}

// find returns the table slot of key and whether the run holds its list;
// when it does not, the slot is the empty one a new list would take.
func (h *headLists) find(key uint64) (int, bool) {
	if len(h.table) == 0 {
		return 0, false
	}
	m := len(h.table) - 1
	for i := headHome(key, bits.Len(uint(m))); ; i = (i + 1) & m {
		e := &h.table[i]
		if e.size == 0 {
			return i, false
		}
		if e.key == key {
			return i, true
		}
	}
}

// block returns the postings of e's block (its capacity).
func (h *headLists) block(e *headEntry) []uint32 {
	c, o := e.off>>headChunkBits, e.off&(headChunk-1)
	return h.chunks[c][o : o+1<<(e.size-1) : o+1<<(e.size-1)]
}

// alloc returns a block of 1<<k postings (false when the arena is full).
func (h *headLists) alloc(k int) (uint32, bool) {
	if f := h.free[k]; f != 0 {
		off := f - 1
		h.free[k] = h.chunks[off>>headChunkBits][off&(headChunk-1)]
		return off, true
	}
	if h.fresh[k] == 0 {
		if len(h.chunks) >= headMaxChunks {
			return 0, false
		}
		h.fresh[k] = uint32(len(h.chunks))<<headChunkBits + 1
		h.chunks = append(h.chunks, make([]uint32, headChunk))
	}
	off := h.fresh[k] - 1
	h.fresh[k] = 0 // when the block ends the chunk
	if next := off + 1<<k; next&(headChunk-1) != 0 {
		h.fresh[k] = next + 1
	}
	return off, true
}

// release puts the block off of 1<<k postings on its free list.
func (h *headLists) release(off uint32, k int) {
	h.chunks[off>>headChunkBits][off&(headChunk-1)] = h.free[k]
	h.free[k] = off + 1
}

// grow doubles the table.
func (h *headLists) grow() {
	old := h.table
	h.table = make([]headEntry, max(2*len(old), headMinTable))
	m := len(h.table) - 1
	b := bits.Len(uint(m))
	for _, e := range old {
		if e.size == 0 {
			continue
		}
		i := headHome(e.key, b)
		for h.table[i].size != 0 {
			i = (i + 1) & m
		}
		h.table[i] = e
	}
}

// baseAt returns the snapshot's list i (nil when its offsets are out of
// order: a damaged mapped snapshot, which check finds).
func (h *headLists) baseAt(i int) []uint32 {
	if i+1 >= len(h.baseOff) {
		return nil
	}
	lo, hi := h.baseOff[i], h.baseOff[i+1]
	if lo > hi || hi > uint64(len(h.basePost)) {
		return nil
	}
	return h.basePost[lo:hi:hi]
}

// baseList returns the snapshot's list of key (nil when it has none).
func (h *headLists) baseList(key uint64) []uint32 {
	if i := h.baseFrom(key); i < len(h.baseKeys) && h.baseKeys[i] == key {
		return h.baseAt(i)
	}
	return nil
}

// baseFrom returns the index of the snapshot's first key ≥ key. The keys
// are token hashes, spread over the key range, so key's share of the range
// is a guess close to its place; an exponential search from the guess
// then reads a few nearby keys (and stays O(log n) when they are not
// spread).
func (h *headLists) baseFrom(key uint64) int {
	keys := h.baseKeys
	n := len(keys)
	if n == 0 {
		return 0
	}
	g, _ := bits.Mul64(key, uint64(n)) // ⌊key·n / 2^64⌋ < n
	i := int(g)
	lo, hi, step := 0, i, 1 // the answer is in [lo, hi]
	if keys[i] < key {
		for lo = i + 1; lo+step-1 < n && keys[lo+step-1] < key; step *= 2 {
			lo += step
		}
		hi = min(lo+step-1, n)
	} else {
		for ; hi-step >= 0 && keys[hi-step] >= key; step *= 2 {
			hi -= step
		}
		lo = max(hi-step+1, 0)
	}
	j, _ := slices.BinarySearch(keys[lo:hi], key)
	return lo + j
}

// list returns key's list, the run's copy first.
func (h *headLists) list(key uint64) []uint32 {
	if i, ok := h.find(key); ok {
		e := &h.table[i]
		return h.block(e)[:e.n]
	}
	return h.baseList(key)
}

// blockSize is the size index of the least block holding n postings.
func blockSize(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// add appends slot to key's list. A list of 2·HeadListCap postings keeps
// its newest HeadListCap first (amortised O(1) per posting); the postings
// dropped are counted.
func (h *headLists) add(key uint64, slot uint32) {
	i, ok := h.find(key)
	if !ok {
		if (h.used+1)*headLoadDen > len(h.table)*headLoadNum {
			h.grow()
			i, _ = h.find(key)
		}
		l := h.baseList(key) // copied: never write into the snapshot's list
		if len(l) >= 2*HeadListCap {
			h.dropped += len(l) - HeadListCap
			l = l[len(l)-HeadListCap:]
		}
		k := blockSize(len(l) + 1)
		off, fits := h.alloc(k)
		if !fits {
			h.dropped++
			return
		}
		h.table[i] = headEntry{key: key, off: off, n: uint8(len(l)), size: uint8(k + 1)}
		h.used++
		copy(h.block(&h.table[i]), l)
	}
	e := &h.table[i]
	b := h.block(e)
	if int(e.n) >= 2*HeadListCap {
		n := copy(b, b[e.n-HeadListCap:e.n])
		h.dropped += int(e.n) - n
		e.n = uint8(n)
	}
	if int(e.n) == len(b) {
		k := int(e.size) // the next size up
		off, fits := h.alloc(k)
		if !fits {
			h.dropped++
			return
		}
		old := e.off
		e.off, e.size = off, uint8(k+1)
		nb := h.block(e)
		copy(nb, b)
		h.release(old, k-1)
		b = nb
	}
	b[e.n] = slot
	e.n++
}

// each calls fn for every list in key order.
func (h *headLists) each(fn func(key uint64, l []uint32)) {
	keys := make([]uint64, 0, h.used)
	for i := range h.table {
		if e := &h.table[i]; e.size != 0 {
			if _, in := slices.BinarySearch(h.baseKeys, e.key); !in {
				keys = append(keys, e.key)
			}
		}
	}
	slices.Sort(keys)
	j := 0
	for _, k := range h.baseKeys {
		for ; j < len(keys) && keys[j] < k; j++ {
			fn(keys[j], h.list(keys[j]))
		}
		fn(k, h.list(k))
	}
	for ; j < len(keys); j++ {
		fn(keys[j], h.list(keys[j]))
	}
}

// token sets out[c] to the newest HeadListCap postings of token key t's
// list of class c, for the classes c of want that have one, and returns
// those classes: one walk of the run's table from the token's home slot,
// and one search of the snapshot's keys, where a token's classes are
// adjacent (the run's list of a class overrides the snapshot's).
func (h *headLists) token(t uint64, want uint32, out *[1 << classBits][]uint32) uint32 {
	var got uint32
	t0 := headKey(t, 0)
	if len(h.table) > 0 {
		m := len(h.table) - 1
		for i := headHome(t0, bits.Len(uint(m))); ; i = (i + 1) & m {
			e := &h.table[i]
			if e.size == 0 {
				break
			}
			if c := uint32(e.key & (1<<classBits - 1)); e.key^t0 < 1<<classBits && want&(1<<c) != 0 {
				out[c] = newest(h.block(e)[:e.n])
				got |= 1 << c
			}
		}
	}
	if len(h.baseKeys) > 0 {
		for i := h.baseFrom(t0); i < len(h.baseKeys) && h.baseKeys[i]^t0 < 1<<classBits; i++ {
			if c := uint32(h.baseKeys[i] & (1<<classBits - 1)); want&^got&(1<<c) != 0 {
				out[c] = newest(h.baseAt(i))
				got |= 1 << c
			}
		}
	}
	return got
}

// newest returns the newest HeadListCap postings of l.
func newest(l []uint32) []uint32 {
	if len(l) > HeadListCap {
		l = l[len(l)-HeadListCap:]
	}
	return l
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
	var want, long uint32 // classes read; of them, the longer ones
	for _, c := range briefClasses(lx, x.cfg.MinContainment) {
		if x.classes[c] == 0 {
			continue
		}
		if lo, _ := classRange(c); lo > lx {
			want, long = want|1<<c, long|1<<c
		} else if minHits[c] = uint32(x.cfg.classHits(lx, c)); minHits[c] > 0 {
			want |= 1 << c
		}
	}
	if want == 0 {
		return
	}
	counted := x.metPool.get() // per slot of a shorter class: hits<<classBits | class
	n := uint32(len(x.ids))    // a mapped snapshot's postings are not trusted (checkShape)
	defer x.metPool.put(counted)
	var lists [1 << classBits][]uint32
	for _, t := range toks {
		// The classes found, ascending: the shorter ones, then the longer.
		for got := x.head.token(t.Key(), want, &lists); got != 0; got &= got - 1 {
			c := uint32(bits.TrailingZeros32(got))
			l := lists[c]
			st.Head += len(l)
			if long&(1<<c) == 0 {
				for _, s := range l {
					if s < n {
						counted.add(s, c, 1<<classBits)
					}
				}
				continue
			}
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
