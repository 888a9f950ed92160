package spotsigs

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Match is one indexed signature found by a query, with all three overlap
// measures against the query signature.
type Match struct {
	ID          uint64
	Jaccard     float64 // multiset Jaccard, see Jaccard
	Containment float64 // |q∩s| / min(|q|, |s|), see Containment
	Shared      int     // |q∩s|, see Overlap
}

// maxDocs is the number of signatures an Index can hold (slots are uint32).
const maxDocs = math.MaxUint32

// single marks a posting reference that holds one slot inline instead of
// the index of a posting list.
const single = 1 << 63

// Index finds indexed signatures similar to a query signature, exactly.
//
// Length partitions (SpotSigs §4): for |A| ≤ |B|, Jaccard(A, B) ≤ |A|/|B|.
// The index cuts signature lengths into ranges [L_i, L_{i+1}) with L_0 = 1
// and L_{i+1} = max(L_i+1, ⌈L_i/τ⌉) for the τ given to NewIndex, so a query
// with that τ only reads its own partition and the adjacent ones. Each
// partition keeps an inverted index from spot to the signatures holding it.
//
// Pruning: within a partition, every signature B with similarity ≥ t must
// share at least m spots with the query A, where m is derived from the
// partition's smallest length (for Jaccard: |A∩B| ≥ t·max(|A|, L_i), since
// the union is at least that long; for containment: |A∩B| ≥ t·min(|A|, L_i)).
// The query reads the posting lists of its distinct spots in ascending
// document frequency and stops when the spots not yet read hold fewer than
// m occurrences: a signature not met so far can share only those, so it
// cannot qualify. Candidates met are verified with the exact measure, so
// results are exact, not approximate.
//
// Memory: each signature is stored (8 bytes per spot) and each distinct
// spot of a partition costs one map entry (about 20 bytes); a posting list
// is allocated only for spots shared by two or more signatures.
//
// An Index is safe for concurrent use: Add and Remove take a write lock,
// queries a read lock.
type Index struct {
	mu     sync.RWMutex
	tau    float64
	bounds []int // bounds[i] = L_i, smallest length of partition i
	parts  []*partition
	docs   []doc
	free   []uint32
	byID   map[uint64]uint32
}

type doc struct {
	id   uint64
	sig  Signature
	used bool
}

type partition struct {
	post  map[uint64]uint64 // spot → single|slot, or index into lists
	lists [][]uint32
	freeL []uint64 // unused entries of lists
}

// NewIndex returns an empty index whose length partitions are sized for
// Jaccard threshold tau (0 < tau < 1). Queries may use any threshold; tau
// only decides how many partitions a query reads.
func NewIndex(tau float64) (*Index, error) {
	if !(tau > 0 && tau < 1) {
		return nil, fmt.Errorf("spotsigs: partition threshold %v outside (0, 1)", tau)
	}
	return &Index{tau: tau, bounds: []int{1}, byID: make(map[uint64]uint32)}, nil
}

// Len returns the number of indexed signatures.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.byID)
}

// Add indexes sig under id, replacing any signature already indexed under
// id. The index keeps its own copy; an unsorted sig is sorted in the copy.
// It fails only when the index already holds 2^32−1 signatures.
func (x *Index) Add(id uint64, sig Signature) error {
	own := slices.Clone(sig)
	if !slices.IsSorted(own) {
		slices.Sort(own)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(id)
	var slot uint32
	if n := len(x.free); n > 0 {
		slot = x.free[n-1]
		x.free = x.free[:n-1]
	} else {
		if len(x.docs) >= maxDocs {
			return errors.New("spotsigs: index full (2^32-1 signatures)")
		}
		slot = uint32(len(x.docs))
		x.docs = append(x.docs, doc{})
	}
	x.docs[slot] = doc{id: id, sig: own, used: true}
	x.byID[id] = slot
	if len(own) == 0 {
		return nil
	}
	p := x.partitionFor(len(own))
	for i, v := range own {
		if i > 0 && own[i-1] == v {
			continue
		}
		p.add(v, slot)
	}
	return nil
}

// Remove deletes the signature indexed under id and reports whether there was one.
func (x *Index) Remove(id uint64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.removeLocked(id)
}

func (x *Index) removeLocked(id uint64) bool {
	slot, ok := x.byID[id]
	if !ok {
		return false
	}
	d := x.docs[slot]
	if len(d.sig) > 0 {
		p := x.parts[x.partitionOf(len(d.sig))]
		for i, v := range d.sig {
			if i > 0 && d.sig[i-1] == v {
				continue
			}
			p.remove(v, slot)
		}
	}
	x.docs[slot] = doc{}
	x.free = append(x.free, slot)
	delete(x.byID, id)
	return true
}

// partitionOf returns the partition number of length n ≥ 1, which must be
// covered by bounds.
func (x *Index) partitionOf(n int) int {
	i, found := slices.BinarySearch(x.bounds, n)
	if found {
		return i
	}
	return i - 1
}

// partitionFor returns the partition of length n ≥ 1, creating it (and the
// bounds up to it) when needed.
func (x *Index) partitionFor(n int) *partition {
	for x.bounds[len(x.bounds)-1] <= n {
		last := x.bounds[len(x.bounds)-1]
		next := int(math.Ceil(float64(last) / x.tau))
		if next <= last {
			next = last + 1
		}
		x.bounds = append(x.bounds, next)
	}
	i := x.partitionOf(n)
	for len(x.parts) <= i {
		x.parts = append(x.parts, nil)
	}
	if x.parts[i] == nil {
		x.parts[i] = &partition{post: make(map[uint64]uint64)}
	}
	return x.parts[i]
}

func (p *partition) add(v uint64, slot uint32) {
	ref, ok := p.post[v]
	switch {
	case !ok:
		p.post[v] = single | uint64(slot)
	case ref&single != 0:
		var li uint64
		if n := len(p.freeL); n > 0 {
			li = p.freeL[n-1]
			p.freeL = p.freeL[:n-1]
		} else {
			li = uint64(len(p.lists))
			p.lists = append(p.lists, nil)
		}
		p.lists[li] = append(p.lists[li][:0], uint32(ref), slot)
		p.post[v] = li
	default:
		p.lists[ref] = append(p.lists[ref], slot)
	}
}

func (p *partition) remove(v uint64, slot uint32) {
	ref, ok := p.post[v]
	if !ok {
		return
	}
	if ref&single != 0 {
		if uint32(ref) == slot {
			delete(p.post, v)
		}
		return
	}
	l := p.lists[ref]
	i := slices.Index(l, slot)
	if i < 0 {
		return
	}
	l[i] = l[len(l)-1]
	l = l[:len(l)-1]
	if len(l) == 1 {
		p.post[v] = single | uint64(l[0])
		p.lists[ref] = l[:0]
		p.freeL = append(p.freeL, ref)
		return
	}
	p.lists[ref] = l
}

// postings returns the slots holding spot v (at most one inline slot is
// written to buf).
func (p *partition) postings(v uint64, buf *[1]uint32) []uint32 {
	ref, ok := p.post[v]
	switch {
	case !ok:
		return nil
	case ref&single != 0:
		buf[0] = uint32(ref)
		return buf[:]
	default:
		return p.lists[ref]
	}
}

func (p *partition) df(v uint64) int {
	ref, ok := p.post[v]
	switch {
	case !ok:
		return 0
	case ref&single != 0:
		return 1
	default:
		return len(p.lists[ref])
	}
}

// minShared returns the smallest x ≥ 0 with float64(x)/float64(m) ≥ t, for
// 0 < t ≤ 1 and m ≥ 1. Since that quotient only grows with x and shrinks
// with m, any pair whose measure inter/denominator (denominator ≥ m) reaches
// t has inter ≥ x, in floating point as well.
func minShared(t float64, m int) int {
	x := int(math.Ceil(t * float64(m)))
	for x > 0 && float64(x-1)/float64(m) >= t {
		x--
	}
	for float64(x)/float64(m) < t {
		x++
	}
	return x
}

// measure selects what a query thresholds.
type measure int

const (
	byJaccard measure = iota
	byContainment
	byShared
)

// Query returns every indexed signature whose Jaccard similarity with sig
// is at least tau, sorted by decreasing Jaccard, then by id. tau ≤ 0
// returns every indexed signature; tau > 1 or NaN returns none.
func (x *Index) Query(sig Signature, tau float64) []Match {
	return x.search(sig, byJaccard, tau, 0)
}

// ContainmentQuery returns every indexed signature whose containment with
// sig (|sig∩s| / min(|sig|, |s|)) is at least theta, sorted by decreasing
// containment, then by id. theta ≤ 0 returns every indexed signature;
// theta > 1 or NaN returns none.
func (x *Index) ContainmentQuery(sig Signature, theta float64) []Match {
	return x.search(sig, byContainment, theta, 0)
}

// Candidates returns every indexed signature that shares at least minShared
// spots (multiset overlap) with sig, sorted by decreasing overlap, then by
// id. minShared ≤ 0 returns every indexed signature.
func (x *Index) Candidates(sig Signature, minShared int) []Match {
	return x.search(sig, byShared, 0, minShared)
}

func (x *Index) search(q Signature, how measure, t float64, shared int) []Match {
	if !slices.IsSorted(q) {
		q = slices.Clone(q)
		slices.Sort(q)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()

	all := false
	switch how {
	case byJaccard, byContainment:
		if !(t <= 1) { // above 1, or NaN
			return nil
		}
		all = t <= 0
	case byShared:
		all = shared <= 0
	}
	if all || len(q) > math.MaxUint32 {
		// Everything matches, or q is too long for the packed counts below
		// (over 4·10^9 spots): scan all signatures.
		return x.scan(q, how, t, shared, all)
	}
	if len(q) == 0 {
		return nil // shares nothing, and the threshold is positive
	}
	s := newQuery(q, how, t, shared)
	var verify []uint32
	for pi, p := range x.parts {
		verify = x.candidates(s, pi, p, verify)
	}
	var out []Match
	for _, slot := range verify {
		if m := x.match(q, x.docs[slot]); passes(m, how, t, shared) {
			out = append(out, m)
		}
	}
	sortMatches(out, how)
	return out
}

// scan compares q with every signature (all: every one matches).
func (x *Index) scan(q Signature, how measure, t float64, shared int, all bool) []Match {
	var out []Match
	for _, d := range x.docs {
		if !d.used {
			continue
		}
		if m := x.match(q, d); all || passes(m, how, t, shared) {
			out = append(out, m)
		}
	}
	sortMatches(out, how)
	return out
}

// query is a search's sorted query signature as distinct spots with their
// multiplicities, its threshold, and scratch space reused per partition.
type query struct {
	how    measure
	t      float64
	shared int
	la     int      // len of the query signature
	vals   []uint64 // distinct spots
	cnts   []int    // occurrences of each in the query
	// order packs (document frequency << 32 | spot index) and hits pack
	// (slot << 32 | occurrences in q of a prefix spot the slot holds), so
	// both sort as plain integers.
	order []uint64
	hits  []uint64
	buf   [1]uint32
}

func newQuery(q Signature, how measure, t float64, shared int) *query {
	s := &query{how: how, t: t, shared: shared, la: len(q),
		vals: make([]uint64, 0, len(q)), cnts: make([]int, 0, len(q))}
	for i, v := range q {
		if i > 0 && q[i-1] == v {
			s.cnts[len(s.cnts)-1]++
			continue
		}
		s.vals = append(s.vals, v)
		s.cnts = append(s.cnts, 1)
	}
	s.order = make([]uint64, len(s.vals))
	return s
}

// needFor is the least overlap a signature of length lb must have with the
// query to pass the threshold (see minShared).
func (s *query) needFor(lb int) int {
	switch s.how {
	case byJaccard:
		return max(minShared(s.t, max(s.la, lb)), 1)
	case byContainment:
		return max(minShared(s.t, min(s.la, lb)), 1)
	default:
		return s.shared
	}
}

// candidates appends to verify the slots of partition pi that may pass:
// it reads the query's posting lists in ascending document frequency and
// stops when the spots not read cannot make up the overlap still needed.
func (x *Index) candidates(s *query, pi int, p *partition, verify []uint32) []uint32 {
	if p == nil || len(p.post) == 0 {
		return verify
	}
	lo := x.bounds[pi]
	hi := math.MaxInt
	if pi+1 < len(x.bounds) {
		hi = x.bounds[pi+1] - 1
	}
	la := s.la
	if s.how == byJaccard {
		// Jaccard ≤ min/max length: skip partitions entirely too short or too long.
		if hi < la && float64(hi)/float64(la) < s.t {
			return verify
		}
		if lo > la && float64(la)/float64(lo) < s.t {
			return verify
		}
	}
	// Every signature of this partition (length ≥ lo) needs at least
	// this overlap.
	need := s.needFor(lo)
	if need > la {
		return verify
	}
	for i, v := range s.vals {
		s.order[i] = uint64(p.df(v))<<32 | uint64(i)
	}
	slices.Sort(s.order)
	rem := la // occurrences of q's spots not read yet
	s.hits = s.hits[:0]
	for _, o := range s.order {
		if rem < need {
			break // unseen signatures share < need spots
		}
		i := int(uint32(o))
		for _, slot := range p.postings(s.vals[i], &s.buf) {
			s.hits = append(s.hits, uint64(slot)<<32|uint64(s.cnts[i]))
		}
		rem -= s.cnts[i]
	}
	// A signature met in the prefix shares at most the prefix spots it
	// holds plus the spots not read; drop it when even that is too few.
	slices.Sort(s.hits)
	hits := s.hits
	for i := 0; i < len(hits); {
		slot := uint32(hits[i] >> 32)
		j, ub := i, rem
		for ; j < len(hits) && uint32(hits[j]>>32) == slot; j++ {
			ub += int(uint32(hits[j]))
		}
		lb := len(x.docs[slot].sig)
		if ub = min(ub, lb); ub >= s.needFor(lb) {
			verify = append(verify, slot)
		}
		i = j
	}
	return verify
}

func passes(m Match, how measure, t float64, shared int) bool {
	switch how {
	case byJaccard:
		return m.Jaccard >= t
	case byContainment:
		return m.Containment >= t
	default:
		return m.Shared >= shared
	}
}

func (x *Index) match(q Signature, d doc) Match {
	inter := Overlap(q, d.sig)
	return Match{
		ID:          d.id,
		Jaccard:     jaccardOf(inter, len(q), len(d.sig)),
		Containment: containmentOf(inter, len(q), len(d.sig)),
		Shared:      inter,
	}
}

func sortMatches(ms []Match, how measure) {
	slices.SortFunc(ms, func(a, b Match) int {
		var c int
		switch how {
		case byJaccard:
			c = cmp.Compare(b.Jaccard, a.Jaccard)
		case byContainment:
			c = cmp.Compare(b.Containment, a.Containment)
		case byShared:
			c = cmp.Compare(b.Shared, a.Shared)
		}
		return cmp.Or(c, cmp.Compare(a.ID, b.ID))
	})
}
