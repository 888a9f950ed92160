package spotsigs

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// Prefix filtering (AllPairs and PPJoin: C. Xiao, W. Wang, X. Lin, J. X. Yu,
// "Efficient similarity joins for near duplicate detection", WWW 2008).
//
// A multiset signature is turned into a set of tokens (spot, occurrence):
// the k-th repeat of a spot is its own token, so the multiset Jaccard
// Σmin/Σmax of two signatures is exactly the set Jaccard of their token sets
// and their multiset overlap is the size of the token intersection. The
// tokens of every signature are sorted in one fixed global order, rarest
// first (Order). If two token sets share at least α tokens, the first
// |x|−α+1 tokens of x and the first |y|−α+1 tokens of y share at least one
// token (the prefix principle). For Jaccard ≥ τ, α ≥ ⌈τ·max(|x|, |y|)⌉, so
// each signature only needs its first |x|−⌈τ|x|⌉+1 tokens indexed and
// probed. Since those are the signature's rarest spots, their posting lists
// are short, and common spots are never read. The order may be any fixed
// order (the filter stays exact); rarity only makes it selective.
//
// Positional filter (PPJoin): when x and y first meet at positions i and p
// of their sorted tokens, they share at most min(|x|−i, |y|−p) tokens, so a
// pair is dropped at once when even that cannot reach the overlap that
// Jaccard τ (α ≥ τ(|x|+|y|)/(1+τ)) or containment θ (α ≥ θ·min(|x|, |y|))
// needs.
//
// Containment of a short signature in a long one needs its own guarantee:
// the short side's first |s|−⌈θ|s|⌉+1 tokens (its "head") are indexed in a
// second table, which a query probes with all of its tokens past its
// Jaccard prefix, so a long query finds every indexed brief it contains
// (exact). A short query contained in a long indexed signature is found
// when one of the shared tokens lies in the long side's Jaccard prefix,
// that is unless all shared tokens are among the 35 % most common spots of
// the long side; eval prints the recall of this case.

// Order is a fixed global order of spots: ascending frozen document
// frequency (spots it does not know count as 0, the rarest), then ascending
// spot hash, then descending occurrence (the second repeat of a spot is
// rarer than the first). The same Order must be used to index and to query.
// An Order is immutable and safe for concurrent use.
type Order struct {
	df map[uint64]uint32
}

// NewOrder returns the order given by frozen document frequencies; spots
// absent from df have frequency 0. The map is copied.
func NewOrder(df map[uint64]uint32) *Order {
	m := make(map[uint64]uint32, len(df))
	for k, v := range df {
		if v > 0 {
			m[k] = v
		}
	}
	return &Order{df: m}
}

// LearnOrder counts the document frequency of each spot over sigs and keeps
// the spots found in at least minDF of them (minDF < 2 means 2): rarer
// spots all count as 0, which keeps the table small.
func LearnOrder(sigs []Signature, minDF int) *Order {
	minDF = max(minDF, 2)
	df := map[uint64]uint32{}
	for _, s := range sigs {
		for i, v := range s {
			if i > 0 && s[i-1] == v {
				continue
			}
			df[v]++
		}
	}
	for k, v := range df {
		if int(v) < minDF {
			delete(df, k)
		}
	}
	return &Order{df: df}
}

// Len is the number of spots with a non-zero frequency.
func (o *Order) Len() int { return len(o.df) }

// DF returns the frozen document frequency of spot v.
func (o *Order) DF(v uint64) uint32 { return o.df[v] }

// Frequencies calls fn for every spot with a non-zero frequency, in
// ascending spot order (for persisting the order).
func (o *Order) Frequencies(fn func(spot uint64, df uint32)) {
	keys := make([]uint64, 0, len(o.df))
	for k := range o.df {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fn(k, o.df[k])
	}
}

// Token is one element of a signature's token set: the occ-th occurrence
// (1-based) of spot Spot, with the spot's frozen frequency DF.
type Token struct {
	DF   uint32
	Occ  uint32
	Spot uint64
}

// Key is the token's posting key: the spot hash for its first occurrence,
// a mix of spot and occurrence for repeats.
func (t Token) Key() uint64 {
	if t.Occ <= 1 {
		return t.Spot
	}
	return mix64(t.Spot ^ uint64(t.Occ)*0x9E3779B97F4A7C15)
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func compareTokens(a, b Token) int {
	return cmp.Or(cmp.Compare(a.DF, b.DF), cmp.Compare(a.Spot, b.Spot), cmp.Compare(b.Occ, a.Occ))
}

// Tokens appends the token set of sig (sorted or not) to buf in the order's
// sequence and returns it.
func (o *Order) Tokens(sig Signature, buf []Token) []Token {
	if !slices.IsSorted(sig) {
		sig = slices.Clone(sig)
		slices.Sort(sig)
	}
	start := len(buf)
	for i := 0; i < len(sig); {
		j := i + 1
		for j < len(sig) && sig[j] == sig[i] {
			j++
		}
		df := o.df[sig[i]]
		for k := 1; k <= j-i; k++ {
			buf = append(buf, Token{DF: df, Occ: uint32(k), Spot: sig[i]})
		}
		i = j
	}
	slices.SortFunc(buf[start:], compareTokens)
	return buf
}

// PrefixConfig sets the thresholds a PrefixIndex guarantees candidates for.
type PrefixConfig struct {
	// Jaccard is the multiset-Jaccard threshold τ in (0, 1]: every indexed
	// signature with Jaccard ≥ τ is a candidate (exact).
	Jaccard float64
	// Containment is the containment threshold θ in (0, 1]; 0 disables
	// containment candidates.
	Containment float64
	// MinContainment is the shortest signature containment is looked for
	// with (at least 1).
	MinContainment int
}

// posting is one indexed token: the signature's slot in the high 24 bits
// and the token's position in the signature's sorted tokens in the low 8
// bits, saturated at 255 (an under-stated position only loosens the
// positional filter).
type posting uint32

const (
	posBits = 8
	maxPos  = 1<<posBits - 1
	// MaxPrefixSlots is the number of signatures a PrefixIndex can hold.
	MaxPrefixSlots = 1<<(32-posBits) - 1
)

func newPosting(slot uint32, pos int) posting {
	return posting(slot<<posBits | uint32(min(pos, maxPos)))
}

func (p posting) slot() uint32 { return uint32(p) >> posBits }
func (p posting) pos() int     { return int(uint32(p) & maxPos) }

// PrefixIndex proposes candidate signatures for Jaccard and containment
// thresholds by prefix filtering over a fixed Order (see the comment at the
// top of this file). It returns slots, which the caller verifies exactly.
//
// Memory: for a signature of n spots, about 0.65·n postings (τ = 0.35)
// plus 0.2·n head postings (θ = 0.8), 4 bytes each, 4 bytes for its length
// and a 128-byte bitmap; the signature itself is not stored. Each distinct
// posting key costs a map entry and a list.
//
// Remove hides a slot; its postings stay until the index is rebuilt.
// A PrefixIndex is safe for concurrent use.
type PrefixIndex struct {
	mu    sync.RWMutex
	cfg   PrefixConfig
	order *Order
	pre   map[uint64][]posting // the first |y|−⌈τ|y|⌉+1 tokens of each signature
	head  map[uint64][]posting // the first |y|−⌈θ|y|⌉+1 tokens (containment)
	lens  []uint32             // token count of each slot; deadBit marks a removed slot
	bits  []uint64             // parity bitmap of each slot's token set, bitmapWords words a slot
	live  int
	pool  sync.Pool // *scratch
	// postings counts stored postings (memory figure).
	postings int
}

// NewPrefixIndex returns an empty index over order.
func NewPrefixIndex(order *Order, cfg PrefixConfig) (*PrefixIndex, error) {
	if order == nil {
		return nil, errors.New("spotsigs: nil order")
	}
	if !(cfg.Jaccard > 0 && cfg.Jaccard <= 1) {
		return nil, fmt.Errorf("spotsigs: prefix jaccard %v outside (0, 1]", cfg.Jaccard)
	}
	if !(cfg.Containment >= 0 && cfg.Containment <= 1) {
		return nil, fmt.Errorf("spotsigs: prefix containment %v outside [0, 1]", cfg.Containment)
	}
	cfg.MinContainment = max(cfg.MinContainment, 1)
	return &PrefixIndex{cfg: cfg, order: order, pre: map[uint64][]posting{}, head: map[uint64][]posting{}}, nil
}

// Order returns the index's order.
func (x *PrefixIndex) Order() *Order { return x.order }

// Len is the number of live signatures.
func (x *PrefixIndex) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Postings is the number of stored postings (removed slots included).
func (x *PrefixIndex) Postings() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.postings
}

// prefixLen is the number of leading tokens of an n-token set that must be
// indexed and probed for overlap threshold t·n: n − minShared(t, n) + 1.
func prefixLen(n int, t float64) int {
	if n == 0 {
		return 0
	}
	return min(n, n-minShared(t, n)+1)
}

// Add indexes sig and returns its slot (slots are handed out 0, 1, 2, ...).
// It fails only past 2^32−1 signatures.
func (x *PrefixIndex) Add(sig Signature) (uint32, error) {
	toks := x.order.Tokens(sig, nil)
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.lens) >= MaxPrefixSlots {
		return 0, fmt.Errorf("spotsigs: prefix index full (%d signatures)", MaxPrefixSlots)
	}
	slot := uint32(len(x.lens))
	n := len(toks)
	if n >= deadBit {
		return 0, fmt.Errorf("spotsigs: signature of %d spots is too long for a prefix index", n)
	}
	x.lens = append(x.lens, uint32(n))
	x.bits = appendBitmap(x.bits, toks)
	x.live++
	pj := prefixLen(n, x.cfg.Jaccard)
	ph := 0
	if x.cfg.Containment > 0 && n >= x.cfg.MinContainment {
		ph = prefixLen(n, x.cfg.Containment)
	}
	for i, t := range toks[:max(pj, ph)] {
		p := newPosting(slot, i)
		k := t.Key()
		if i < pj {
			x.pre[k] = appendPosting(x.pre[k], p)
			x.postings++
		}
		if i < ph {
			x.head[k] = appendPosting(x.head[k], p)
			x.postings++
		}
	}
	return slot, nil
}

// appendPosting appends p, growing l by a quarter (not by append's
// doubling for short lists): most lists are short, and their spare
// capacity would be a good part of the index's memory.
func appendPosting(l []posting, p posting) []posting {
	if len(l) == cap(l) {
		nl := make([]posting, len(l), len(l)+len(l)/4+1)
		copy(nl, l)
		l = nl
	}
	return append(l, p)
}

// Remove hides slot from later queries.
func (x *PrefixIndex) Remove(slot uint32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if int(slot) < len(x.lens) && x.lens[slot]&deadBit == 0 {
		x.lens[slot] |= deadBit
		x.live--
	}
}

// ProbeStats describes the work of one query.
type ProbeStats struct {
	Probed   int // query tokens whose posting lists were read
	Postings int // postings read
	Met      int // distinct signatures met
	Bitmap   int // signatures the bitmap filter dropped
}

// bitmapWords is the size of a slot's parity bitmap: 1,024 bits, which
// keeps the bitmap bound close to the true overlap for signatures of a few
// hundred spots (Sandes, Teodoro, Melo, "Bitmap filter: speeding up exact
// set similarity joins with bitwise operations", Information Systems 2020).
const bitmapWords = 16

// appendBitmap appends the parity bitmap of a token set: each token
// toggles one bit chosen by its key.
func appendBitmap(dst []uint64, toks []Token) []uint64 {
	n := len(dst)
	dst = append(dst, make([]uint64, bitmapWords)...)
	b := dst[n:]
	for _, t := range toks {
		h := mix64(t.Key()) % (64 * bitmapWords)
		b[h/64] ^= 1 << (h % 64)
	}
	return dst
}

func xorCount(a, b []uint64) int {
	n := 0
	for i := range bitmapWords {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

// deadBit marks a removed slot in PrefixIndex.lens.
const deadBit = 1 << 31

const (
	lowMask = 1<<32 - 1
	pruned  = lowMask
)

// scratch is one query's dense per-slot state; the epoch tells this
// query's entries from stale ones, so it is never cleared.
type scratch struct {
	epoch uint32
	state []uint64
	met   []uint32
	qbits []uint64
	needs []int32
}

// needTable bounds the per-query table of least overlaps by length.
const needTable = 4096

func (x *PrefixIndex) scratchFor() *scratch {
	sc, _ := x.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	sc.epoch++
	if sc.epoch == 0 { // wrapped: stale entries could match
		clear(sc.state)
		sc.epoch = 1
	}
	if n := len(x.lens); len(sc.state) < n {
		sc.state = append(sc.state, make([]uint64, n-len(sc.state)+n/4)...)
	}
	return sc
}

// needJaccard is the least overlap α with α/(lx+ly−α) ≥ t, computed as
// jaccardOf does so that the filter never drops a pair it would accept.
func needJaccard(t float64, lx, ly int) int {
	a := int(math.Ceil(t * float64(lx+ly) / (1 + t)))
	a = min(max(a, 1), min(lx, ly)+1)
	for a > 1 && jaccardOf(a-1, lx, ly) >= t {
		a--
	}
	for a <= min(lx, ly) && jaccardOf(a, lx, ly) < t {
		a++
	}
	return a
}

// need is the least overlap a pair of token sets of lengths lx and ly must
// have to reach either threshold.
func (x *PrefixIndex) need(lx, ly int) int {
	n := needJaccard(x.cfg.Jaccard, lx, ly)
	if x.cfg.Containment > 0 {
		if m := min(lx, ly); m >= x.cfg.MinContainment {
			n = min(n, max(minShared(x.cfg.Containment, m), 1))
		}
	}
	return n
}

// Candidates appends to buf the slots of indexed signatures that may reach
// Jaccard ≥ cfg.Jaccard or containment ≥ cfg.Containment with sig, each
// once, and returns them with the work done.
func (x *PrefixIndex) Candidates(sig Signature, buf []uint32) ([]uint32, ProbeStats) {
	var st ProbeStats
	toks := x.order.Tokens(sig, nil)
	lx := len(toks)
	if lx == 0 {
		return buf, st
	}
	pj := prefixLen(lx, x.cfg.Jaccard)
	cont := x.cfg.Containment > 0
	x.mu.RLock()
	defer x.mu.RUnlock()
	// state holds, per slot met by this query, the query's epoch in the
	// high half and PPJoin's A[y] (shared tokens met so far) in the low
	// half, or pruned when the positional filter ruled the slot out.
	sc := x.scratchFor()
	defer x.pool.Put(sc)
	ep := uint64(sc.epoch) << 32
	state := sc.state
	met := sc.met[:0]
	// needs[ly] = x.need(lx, ly) for the lengths most signatures have.
	needs := sc.needs[:0]
	for ly := range min(4*lx+16, needTable) {
		needs = append(needs, int32(x.need(lx, ly)))
	}
	sc.needs = needs
	for i, t := range toks {
		if i >= pj && !cont {
			break
		}
		var list []posting
		if i < pj {
			list = x.pre[t.Key()]
		} else {
			list = x.head[t.Key()]
		}
		st.Probed++
		st.Postings += len(list)
		for _, p := range list {
			slot := p.slot()
			v := state[slot]
			ln := x.lens[slot]
			var a int
			if v&^lowMask != ep {
				if ln&deadBit != 0 {
					state[slot] = ep | pruned
					continue
				}
				met = append(met, slot)
			} else if v&lowMask == pruned {
				continue
			} else {
				a = int(v & lowMask)
			}
			ly := int(ln &^ deadBit)
			// Shared tokens so far, this one, and at most all tokens
			// after it on the shorter remaining side.
			var need int
			if ly < len(needs) {
				need = int(needs[ly])
			} else {
				need = x.need(lx, ly)
			}
			if a+1+min(lx-i-1, ly-p.pos()-1) >= need {
				state[slot] = ep | uint64(a+1)
			} else {
				state[slot] = ep | pruned
			}
		}
	}
	// Bitmap filter: the tokens of the symmetric difference of two sets
	// toggle bits of the XOR of their parity bitmaps, so the overlap is at
	// most (|x| + |y| − popcount(bx ⊕ by)) / 2.
	qb := appendBitmap(sc.qbits[:0], toks)
	for _, slot := range met {
		if state[slot]&lowMask == pruned {
			continue
		}
		ly := int(x.lens[slot] &^ deadBit)
		need := 0
		if ly < len(needs) {
			need = int(needs[ly])
		} else {
			need = x.need(lx, ly)
		}
		if (lx+ly-xorCount(qb, x.bits[int(slot)*bitmapWords:]))/2 < need {
			st.Bitmap++
			continue
		}
		buf = append(buf, slot)
	}
	sc.met, sc.qbits = met, qb
	st.Met = len(met)
	return buf, st
}

// PrefixState is a PrefixIndex's postings, lengths and bitmaps as flat
// arrays, for persisting an index and loading it back without re-sorting
// every signature's tokens (dedup.PrefixIndex's snapshot). Posting list i
// of Pre holds Pre[PreOff[i]:PreOff[i+1]] under key PreKeys[i]; likewise
// Head. A posting is a slot in its high 24 bits and a position in its low
// 8 bits. Lens are the slots' token counts (bit 31 marks a removed slot),
// Bits their parity bitmaps, BitmapWords words a slot.
type PrefixState struct {
	PreKeys  []uint64
	PreOff   []uint32
	Pre      []uint32
	HeadKeys []uint64
	HeadOff  []uint32
	Head     []uint32
	Lens     []uint32
	Bits     []uint64
}

// BitmapWords is the number of bitmap words a slot has in PrefixState.Bits.
const BitmapWords = bitmapWords

// State returns the index's arrays (copies: the index may change after).
// It fails when the postings do not fit 32-bit offsets.
func (x *PrefixIndex) State() (PrefixState, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var st PrefixState
	var err error
	if st.PreKeys, st.PreOff, st.Pre, err = flatten(x.pre); err != nil {
		return PrefixState{}, err
	}
	if st.HeadKeys, st.HeadOff, st.Head, err = flatten(x.head); err != nil {
		return PrefixState{}, err
	}
	st.Lens = slices.Clone(x.lens)
	st.Bits = slices.Clone(x.bits)
	return st, nil
}

func flatten(m map[uint64][]posting) (keys []uint64, off []uint32, flat []uint32, err error) {
	n := 0
	for _, l := range m {
		n += len(l)
	}
	if n > math.MaxUint32 {
		return nil, nil, nil, fmt.Errorf("spotsigs: %d postings do not fit a snapshot", n)
	}
	keys = make([]uint64, 0, len(m))
	off = make([]uint32, 1, len(m)+1)
	flat = make([]uint32, 0, n)
	for k, l := range m {
		keys = append(keys, k)
		for _, p := range l {
			flat = append(flat, uint32(p))
		}
		off = append(off, uint32(len(flat)))
	}
	return keys, off, flat, nil
}

// Restore loads st into x, which must be empty (fresh from NewPrefixIndex
// with the order and config st was taken with). It validates st and
// returns an error, leaving x empty, when it is not a consistent state:
// offsets out of order or range, a posting of a slot that does not exist,
// a key listed twice, bitmaps of the wrong size. The posting lists share
// st's arrays (the caller must not change them after).
func (x *PrefixIndex) Restore(st PrefixState) error {
	slots := len(st.Lens)
	if slots > MaxPrefixSlots {
		return fmt.Errorf("spotsigs: %d slots exceed the index's %d", slots, MaxPrefixSlots)
	}
	if len(st.Bits) != slots*bitmapWords {
		return fmt.Errorf("spotsigs: %d bitmap words for %d slots, want %d", len(st.Bits), slots, slots*bitmapWords)
	}
	live := 0
	for _, l := range st.Lens {
		if l&deadBit == 0 {
			live++
		}
	}
	pre, err := unflatten(st.PreKeys, st.PreOff, st.Pre, slots)
	if err != nil {
		return fmt.Errorf("spotsigs: prefix postings: %w", err)
	}
	head, err := unflatten(st.HeadKeys, st.HeadOff, st.Head, slots)
	if err != nil {
		return fmt.Errorf("spotsigs: head postings: %w", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.lens) != 0 {
		return errors.New("spotsigs: restore into a non-empty prefix index")
	}
	x.pre, x.head, x.lens, x.bits, x.live = pre, head, st.Lens, st.Bits, live
	x.postings = len(st.Pre) + len(st.Head)
	return nil
}

func unflatten(keys []uint64, off, flat []uint32, slots int) (map[uint64][]posting, error) {
	if len(off) != len(keys)+1 || off[0] != 0 || int(off[len(keys)]) != len(flat) {
		return nil, fmt.Errorf("%d offsets for %d keys and %d postings", len(off), len(keys), len(flat))
	}
	for _, p := range flat {
		if int(posting(p).slot()) >= slots {
			return nil, fmt.Errorf("posting of slot %d, past the %d slots", posting(p).slot(), slots)
		}
	}
	// posting and uint32 have the same layout: one conversion of the
	// whole array, no copy.
	ps := unsafe.Slice((*posting)(unsafe.Pointer(unsafe.SliceData(flat))), len(flat))
	m := make(map[uint64][]posting, len(keys))
	for i, k := range keys {
		a, b := off[i], off[i+1]
		if a > b || int(b) > len(ps) {
			return nil, fmt.Errorf("offsets out of order or past the %d postings at key %d", len(ps), i)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("key %#x listed twice", k)
		}
		// A full slice expression: appending to one list never
		// overwrites the next.
		m[k] = ps[a:b:b]
	}
	return m, nil
}
