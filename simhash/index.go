package simhash

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// DefaultK is the default Hamming-distance threshold of an Index: Manku,
// Jain and Das Sarma (WWW 2007) found k = 3 right for 64-bit SimHash
// fingerprints of 8 billion web pages.
const DefaultK = 3

// MaxK is the largest threshold NewIndex accepts (64 bits differ at most).
const MaxK = 64

const (
	numBlocks = 4  // the fingerprint is cut into 4 blocks ...
	blockBits = 16 // ... of 16 bits each
	// maxKeyBits is the width of a bucket key; a key is the top bits of one
	// 16-bit block, so it can be at most the block width.
	maxKeyBits = blockBits
	// defaultPendingMax is how many recent additions are kept unsorted and
	// scanned linearly (≈1-3 µs) before the next query folds them into a
	// sorted segment.
	defaultPendingMax = 1024
)

// Match is one indexed fingerprint found by a query.
type Match struct {
	ID       uint64
	FP       uint64
	Distance int
}

// Index finds every indexed fingerprint within Hamming distance k of a
// query fingerprint, without a linear scan.
//
// Layout. The 64 bits are cut into 4 blocks of 16 bits. If two fingerprints
// are within distance k, at least one block differs in at most r = ⌊k/4⌋
// bits (pigeonhole). For each block the index keeps a table of all
// fingerprints bucketed by that block's top bits (a counting sort, with a
// bucket directory), so a query reads, per block, the buckets whose key is
// within r bits of the query's key: one bucket per block for k ≤ 3.
// A candidate is reported only from the first block where it is within r
// bits, so each entry is reported once. Table 0 stores (fingerprint, id);
// tables 1-3 store the fingerprint only and find the id through table 0.
// That is 40 bytes per entry whatever k is.
//
// Updates. Add appends to a small unsorted buffer that queries scan
// linearly; when the buffer exceeds 1024 entries the next query turns it into
// a sorted segment, and segments are merged like a binary counter
// (Bentley-Saxe logarithmic method), so there are at most
// log2(n/1024)+1 segments and an addition costs O(log n) amortised. Adding
// millions of fingerprints before the first query builds one segment at the
// end (bulk build). Remove scans the ids (tens of ms at 10 M entries) and hides the
// removed entries until their segment is next merged.
//
// Entries. The index is a multiset of (id, fingerprint) entries: Add does not
// look for an earlier entry with the same id (that would cost a scan), so a
// caller that adds an id twice gets both entries reported; Remove(id)
// removes all entries with that id.
//
// Concurrency. An Index is safe for concurrent use: Add and Remove take a
// write lock, queries take a read lock (and briefly the write lock when they
// must fold the buffer into a segment).
type Index struct {
	mu         sync.RWMutex
	k          int
	r          int // per-block radius ⌊k/4⌋
	pendingMax int
	pending    []entry
	segs       []*segment // oldest (largest) first
	n          int        // live entries
}

type entry struct{ fp, id uint64 }

type segment struct {
	keyBits uint
	tabs    [numBlocks]table
	ids     []uint64            // parallel to tabs[0].fps
	dead    map[uint64]struct{} // removed ids whose entries are still stored
	ndead   int                 // stored entries hidden by dead
}

// table holds fingerprints bucketed by key: bucket b is fps[off[b]:off[b+1]].
type table struct {
	off []int
	fps []uint64
}

// NewIndex returns an empty index that finds fingerprints within Hamming
// distance k (0 ≤ k ≤ MaxK). Queries cost about one bucket per block for
// k ≤ 3, 17 buckets per block for 4 ≤ k ≤ 7, and grow quickly beyond; for
// very large k the index scans its entries linearly.
func NewIndex(k int) (*Index, error) {
	if k < 0 || k > MaxK {
		return nil, fmt.Errorf("simhash: index distance k = %d out of range [0, %d]", k, MaxK)
	}
	return &Index{k: k, r: k / numBlocks, pendingMax: defaultPendingMax}, nil
}

// K returns the distance threshold of the index.
func (x *Index) K() int { return x.k }

// Len returns the number of entries in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// Add inserts the entry (id, fp). It costs O(1); the sorting work is done by
// a later query (see Index).
func (x *Index) Add(id, fp uint64) {
	x.mu.Lock()
	x.pending = append(x.pending, entry{fp: fp, id: id})
	x.n++
	x.mu.Unlock()
}

// Remove deletes every entry with this id and reports whether there was one.
// It scans all stored ids.
func (x *Index) Remove(id uint64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	removed := 0
	for i := 0; i < len(x.pending); {
		if x.pending[i].id == id {
			last := len(x.pending) - 1
			x.pending[i] = x.pending[last]
			x.pending = x.pending[:last]
			removed++
			continue
		}
		i++
	}
	for _, s := range x.segs {
		if _, ok := s.dead[id]; ok {
			continue
		}
		c := 0
		for _, v := range s.ids {
			if v == id {
				c++
			}
		}
		if c > 0 {
			if s.dead == nil {
				s.dead = make(map[uint64]struct{})
			}
			s.dead[id] = struct{}{}
			s.ndead += c
			removed += c
		}
	}
	x.n -= removed
	return removed > 0
}

// Query returns every entry within distance K() of fp, sorted by distance,
// then id, then fingerprint.
func (x *Index) Query(fp uint64) []Match {
	out := make([]Match, 0, 8)
	x.QueryFunc(fp, func(m Match) bool {
		out = append(out, m)
		return true
	})
	slices.SortFunc(out, func(a, b Match) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.FP, b.FP)
	})
	return out
}

// QueryFunc calls fn for every entry within distance K() of fp, in no
// particular order, until fn returns false. fn runs under the index's read
// lock and must not call Add or Remove on the same index.
func (x *Index) QueryFunc(fp uint64, fn func(Match) bool) {
	x.mu.RLock()
	if len(x.pending) > x.pendingMax {
		x.mu.RUnlock()
		x.mu.Lock()
		if len(x.pending) > x.pendingMax {
			x.flushLocked()
		}
		x.mu.Unlock()
		x.mu.RLock()
	}
	defer x.mu.RUnlock()

	for _, e := range x.pending {
		if d := Distance(e.fp, fp); d <= x.k {
			if !fn(Match{ID: e.id, FP: e.fp, Distance: d}) {
				return
			}
		}
	}
	var buf [64]uint64
	hits := buf[:0]
	for _, s := range x.segs {
		var ok bool
		hits, ok = s.query(fp, x.k, x.r, hits[:0], fn)
		if !ok {
			return
		}
	}
}

// flushLocked turns the pending buffer into a segment and merges segments
// so that each is more than twice as large as the next one.
func (x *Index) flushLocked() {
	if len(x.pending) == 0 {
		return
	}
	s := buildSegment(x.pending)
	if cap(x.pending) > 4*x.pendingMax {
		x.pending = nil // release a bulk-load buffer
	} else {
		x.pending = x.pending[:0]
	}
	x.segs = append(x.segs, s)
	for len(x.segs) >= 2 {
		a, b := x.segs[len(x.segs)-2], x.segs[len(x.segs)-1]
		if a.live() > 2*b.live() {
			break
		}
		es := make([]entry, 0, a.live()+b.live())
		es = a.appendLive(es)
		es = b.appendLive(es)
		x.segs = x.segs[:len(x.segs)-2]
		if len(es) > 0 {
			x.segs = append(x.segs, buildSegment(es))
		}
	}
}

func (s *segment) live() int { return len(s.ids) - s.ndead }

func (s *segment) appendLive(es []entry) []entry {
	fps := s.tabs[0].fps
	for i, id := range s.ids {
		if _, dead := s.dead[id]; dead {
			continue
		}
		es = append(es, entry{fp: fps[i], id: id})
	}
	return es
}

// keyBitsFor picks the bucket key width for n entries: about 4-8 entries per
// bucket, at most one 16-bit block.
func keyBitsFor(n int) uint {
	kb := bits.Len(uint(n)) - 3
	if kb < 1 {
		kb = 1
	}
	if kb > maxKeyBits {
		kb = maxKeyBits
	}
	return uint(kb)
}

// key returns the bucket key of fp in table t: the top kb bits of block t.
func key(fp uint64, t int, kb uint) int {
	return int((fp >> (uint(t)*blockBits + blockBits - kb)) & (1<<kb - 1))
}

// blockDist is the Hamming distance of a and b restricted to block t.
func blockDist(a, b uint64, t int) int {
	return bits.OnesCount16(uint16((a ^ b) >> (uint(t) * blockBits)))
}

// buildSegment builds the tables of a segment from es by counting sort.
func buildSegment(es []entry) *segment {
	n := len(es)
	kb := keyBitsFor(n)
	nb := 1 << kb
	s := &segment{keyBits: kb}
	pos := make([]int, nb)
	for t := 0; t < numBlocks; t++ {
		off := make([]int, nb+1)
		for _, e := range es {
			off[key(e.fp, t, kb)+1]++
		}
		for b := 1; b <= nb; b++ {
			off[b] += off[b-1]
		}
		copy(pos, off[:nb])
		fps := make([]uint64, n)
		if t == 0 {
			ids := make([]uint64, n)
			for _, e := range es {
				b := key(e.fp, 0, kb)
				fps[pos[b]] = e.fp
				ids[pos[b]] = e.id
				pos[b]++
			}
			s.ids = ids
		} else {
			for _, e := range es {
				b := key(e.fp, t, kb)
				fps[pos[b]] = e.fp
				pos[b]++
			}
		}
		s.tabs[t] = table{off: off, fps: fps}
	}
	return s
}

// probesPerBlock is Σ_{i≤r} C(kb, i), the number of buckets a query reads per table.
func probesPerBlock(kb uint, r int) int {
	total, c := 0, 1
	for i := 0; i <= r && i <= int(kb); i++ {
		total += c
		c = c * (int(kb) - i) / (i + 1)
	}
	return total
}

// query reports the live entries of s within distance k of q. hits is
// scratch space; it returns it (possibly grown) and false if fn stopped.
func (s *segment) query(q uint64, k, r int, hits []uint64, fn func(Match) bool) ([]uint64, bool) {
	kb := s.keyBits
	if probesPerBlock(kb, r)*numBlocks >= 1<<kb {
		// Reading that many buckets costs more than one pass over table 0.
		fps := s.tabs[0].fps
		for i, c := range fps {
			if d := Distance(c, q); d <= k {
				if !s.report(i, d, fn) {
					return hits, false
				}
			}
		}
		return hits, true
	}
	for t := 0; t < numBlocks; t++ {
		tab := &s.tabs[t]
		qk := key(q, t, kb)
		// Enumerate the keys within r bits of qk: masks of i set bits, i = 0..r,
		// by Gosper's hack.
		for i := 0; i <= r && i <= int(kb); i++ {
			mask := uint64(1)<<uint(i) - 1
			for mask < 1<<kb {
				b := qk ^ int(mask)
				lo, hi := tab.off[b], tab.off[b+1]
				for j := lo; j < hi; j++ {
					c := tab.fps[j]
					d := Distance(c, q)
					if d > k || blockDist(c, q, t) > r {
						continue
					}
					first := true
					for u := 0; u < t; u++ {
						if blockDist(c, q, u) <= r {
							first = false // reported from table u
							break
						}
					}
					if !first {
						continue
					}
					if t == 0 {
						if !s.report(j, d, fn) {
							return hits, false
						}
					} else {
						hits = append(hits, c)
					}
				}
				if mask == 0 {
					break
				}
				low := mask & -mask
				ripple := mask + low
				mask = (((ripple ^ mask) >> 2) / low) | ripple
			}
		}
	}
	if len(hits) == 0 {
		return hits, true
	}
	// Entries found in tables 1-3 carry no id: look each distinct
	// fingerprint up in table 0, which reports every entry holding it.
	slices.Sort(hits)
	hits = slices.Compact(hits)
	t0 := &s.tabs[0]
	for _, c := range hits {
		b := key(c, 0, kb)
		d := Distance(c, q)
		for j := t0.off[b]; j < t0.off[b+1]; j++ {
			if t0.fps[j] == c {
				if !s.report(j, d, fn) {
					return hits, false
				}
			}
		}
	}
	return hits, true
}

// report passes entry j of table 0 to fn unless it was removed.
func (s *segment) report(j, d int, fn func(Match) bool) bool {
	id := s.ids[j]
	if s.ndead > 0 {
		if _, dead := s.dead[id]; dead {
			return true
		}
	}
	return fn(Match{ID: id, FP: s.tabs[0].fps[j], Distance: d})
}
