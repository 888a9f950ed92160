package lshindex

import (
	"math"
	"math/bits"
	"slices"
)

// A band's keys live in a log-structured merge of sorted runs (O'Neil et
// al. 1996), not in a hash map: the newest keys of every band are in one
// small open-addressing table (tail), flushed every TailArticles articles into the first
// level; a level holding more than LevelFanout times the previous level's
// capacity is merged into the next. Lookups read the tail and one run per
// level (binary search): O(log N) levels, each O(log N).
const (
	// TailArticles is the number of articles whose band keys stay in the
	// mutable tail before it is sorted into runs.
	TailArticles = 512
	// LevelFanout is the capacity ratio of consecutive levels.
	LevelFanout = 8
	// packedMin is the run length from which a run is stored packed
	// (below it, about 4 % of the pairs of a large index, runs stay plain
	// and exact): the top dbits bits of each key implied by a bucket
	// directory of 2^dbits+1 offsets, the key bits below them and the slot
	// in one 32-bit word, 4 bytes a pair instead of 8, the directory
	// 0.25 to 0.5 byte a pair (packedBucket).
	packedMin = 1 << 15
	// packedBucket is the mean number of pairs a packed run's directory
	// bucket holds, at least (a bucket is 16 pairs a cache line).
	packedBucket = 16
	// minDirBits and maxDirBits bound a packed run's directory (64 KiB
	// to 4 MiB). The floor keeps the key bits a level's runs know: a run
	// merged into the next level passes on no more than it knew, and the
	// first run of a level, of 2^15 pairs or so, would know only
	// log2(n/16) + kbits of them (24 at a million entries, where it
	// knows 28 with the floor).
	minDirBits = 14
	maxDirBits = 20
	// minKeyBits is the least number of key bits below the directory a
	// packed run stores in its words; a run whose slots need more than
	// 32 − minKeyBits bits is stored wide: 16 key bits below the
	// directory and a 32-bit slot in two arrays (6 bytes a pair), for
	// indexes of 2^24 entries and more.
	minKeyBits = 8
)

// A packed run of n pairs knows only the top dbits + kbits bits of each
// key: the directory's dbits (about log2(n/16), at least minDirBits) and
// kbits bits stored beside the slot (as many as the run's slot range
// leaves of 32, and never more than an input run of a merge knew): 28 in
// every level at a million entries. A lookup then also returns the pairs
// whose key differs from the query's only in the bits not known: about
// n / 2^(dbits+kbits) extra band hits a run and band, 0.4 a decision over
// the 121 bands at a million articles (4 at ten million). They are
// background collisions: the sketch and bitmap filters drop them like
// every other band hit, from one cache line each, unless the slot can
// reach the Jaccard or containment threshold; so every pair the exact
// keys propose is proposed, and a pair they do not can only be added when
// it passes the exact bitmap bound (the verification decides it, as it
// decides every candidate).

// run is one sorted run of (key, slot) pairs of one band, plain or packed.
type run struct {
	plain []uint64 // key<<32 | slot, ascending (plain runs)
	// pdir indexes a plain run by the top pbits bits of the key (about
	// eight pairs a bucket), so a lookup reads two cache lines or so
	// (stored in snapshots, so that a mapped one does not read every
	// pair to rebuild it).
	pdir  []uint32
	pbits uint8
	// Packed runs: dir[k>>(32-dbits)] .. dir[k>>(32-dbits)+1] index the
	// pairs of keys whose top dbits bits are those of k, ordered by the
	// kbits key bits below them (ties in any order).
	dir          []uint32
	dbits, kbits uint8
	// sbits is the slot width: a word holds the kbits key bits below the
	// directory's in its top bits and the slot less base in the low
	// sbits = 32 − kbits bits. A wide run's low holds the 16 key bits
	// below the directory's (those past kbits cleared) and slots the
	// slot less base.
	sbits uint8
	wide  bool
	base  uint32 // slots are stored less base (the run's least slot)
	words []uint32
	low   []uint16
	slots []uint32
}

func (r *run) len() int {
	switch {
	case r.dir == nil:
		return len(r.plain)
	case r.wide:
		return len(r.slots)
	}
	return len(r.words)
}

// touch reads the first pair of a bucket lo..hi and returns a value
// derived from it: a load the caller issues early, so that the bucket is
// in the cache when scan reads it (a software prefetch).
func (r *run) touch(lo, hi uint32) uint64 {
	switch {
	case lo >= hi:
		return 0
	case r.dir == nil:
		return r.plain[lo]
	case r.wide:
		return uint64(r.low[lo])
	}
	return uint64(r.words[lo])
}

// bucket returns the range of the run's pairs that can hold key: one
// directory read.
func (r *run) bucket(key uint32) (lo, hi uint32) {
	switch {
	case r.dir != nil:
		b := uint64(key) >> (32 - r.dbits)
		if b+1 >= uint64(len(r.dir)) {
			return 0, 0 // a damaged mapped snapshot (check finds it)
		}
		lo, hi = r.dir[b], r.dir[b+1]
		if lo > hi || int(hi) > r.len() {
			return 0, 0
		}
		return lo, hi
	case r.pdir != nil:
		b := key >> (32 - r.pbits)
		lo, hi = r.pdir[b], r.pdir[b+1]
		if lo > hi || int(hi) > len(r.plain) {
			return 0, 0 // a damaged mapped snapshot (check finds it)
		}
		return lo, hi
	}
	return 0, uint32(len(r.plain))
}

// below is the part of key below a packed run's directory bits, in the
// top bits of the result.
func (r *run) below(key uint32) uint32 { return uint32(uint64(key) << r.dbits) }

// scan calls fn for every slot stored under key among pairs lo..hi (the
// key's bucket); in a packed run, under the key's known bits.
func (r *run) scan(key uint32, lo, hi uint32, fn func(slot uint32)) {
	switch {
	case r.dir == nil:
		ps := r.plain[lo:hi]
		i, _ := slices.BinarySearch(ps, uint64(key)<<32)
		for ; i < len(ps) && ps[i]>>32 == uint64(key); i++ {
			fn(uint32(ps[i]))
		}
	case r.wide:
		sh := 16 - min(r.kbits, 16)
		t := uint16(r.below(key)>>16) >> sh
		i := lowerBound(r.low[lo:hi], t<<sh)
		for i += int(lo); i < int(hi) && r.low[i]>>sh == t; i++ {
			fn(r.slots[i] + r.base)
		}
	default:
		sh := r.sbits
		t := uint32(uint64(r.below(key)) >> (32 - r.kbits))
		ws := r.words[lo:hi]
		mask := uint32(uint64(1)<<sh - 1)
		for i := lowerBound(ws, uint32(uint64(t)<<sh)); i < len(ws) && uint64(ws[i])>>sh == uint64(t); i++ {
			fn(ws[i]&mask + r.base)
		}
	}
}

// lowerBound is the index of the first element of s not below v (s
// ordered by the bits v's search compares).
func lowerBound[T uint16 | uint32](s []T, v T) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// cursor walks a run's pairs in order.
type cursor struct {
	r *run
	i int // pair
	b int // packed: the bucket of pair i
}

func (c *cursor) ok() bool {
	if c.i >= c.r.len() {
		return false
	}
	for r := c.r; r.dir != nil && c.b+1 < len(r.dir) && int(r.dir[c.b+1]) <= c.i; {
		c.b++
	}
	return true
}

func (c *cursor) next() { c.i++ }

// pair is the current pair (after ok).
func (c *cursor) pair() uint64 {
	r := c.r
	top := uint64(c.b) << (32 - r.dbits) << 32
	switch {
	case r.dir == nil:
		return r.plain[c.i]
	case r.wide:
		return top | uint64(r.low[c.i])<<16>>r.dbits<<32 | uint64(r.slots[c.i]+r.base)
	}
	w := uint64(r.words[c.i])
	return top | w>>r.sbits<<(32-r.kbits)>>r.dbits<<32 | uint64(uint32(w&(1<<r.sbits-1))+r.base)
}

// slotRange returns the least and the largest slot a run holds, as
// stored (lo > hi: none).
func (r *run) slotRange() (lo, hi uint64) {
	lo = math.MaxUint64
	switch {
	case r.dir == nil:
		for _, p := range r.plain {
			lo, hi = min(lo, uint64(uint32(p))), max(hi, uint64(uint32(p)))
		}
		return lo, hi
	case r.wide:
		for _, s := range r.slots {
			lo, hi = min(lo, uint64(s)), max(hi, uint64(s))
		}
	default:
		mask := uint32(uint64(1)<<r.sbits - 1)
		for _, w := range r.words {
			lo, hi = min(lo, uint64(w&mask)), max(hi, uint64(w&mask))
		}
	}
	if lo > hi {
		return lo, hi
	}
	return lo + uint64(r.base), hi + uint64(r.base)
}

// knownBits is the number of top key bits a run knows (all 32 for a
// plain run).
func (r *run) knownBits() uint8 {
	if r.dir == nil {
		return 32
	}
	return r.dbits + r.kbits
}

// keyMask clears, in a pair key<<32 | slot, the key bits past the top
// known bits.
func keyMask(known uint8) uint64 {
	return ^((uint64(1)<<(32-known) - 1) << 32)
}

// packer builds a packed run from pairs appended in key order.
type packer struct {
	r    run
	mask uint64 // clears the key bits not known
}

// newPacker starts a packed run of at most n pairs with slots lo..hi,
// knowing at most known top key bits, at most keyBits of them below the
// directory.
func newPacker(n int, lo, hi uint32, known, keyBits uint8) *packer {
	d := min(uint8(max(bits.Len(uint(n/packedBucket)), minDirBits)), maxDirBits, known)
	p := &packer{r: run{dir: make([]uint32, 1<<d+1), dbits: d, base: lo}}
	if sb := max(bits.Len32(hi-lo), 1); 32-sb >= minKeyBits {
		p.r.kbits = min(keyBits, uint8(32-sb), known-d)
		p.r.sbits = 32 - p.r.kbits
		p.r.words = make([]uint32, 0, n)
	} else {
		p.r.kbits, p.r.wide = min(keyBits, 16, known-d), true
		p.r.low, p.r.slots = make([]uint16, 0, n), make([]uint32, 0, n)
	}
	p.mask = keyMask(p.r.knownBits())
	return p
}

// add appends pair key<<32 | slot (in key order, its key bits not known
// cleared by the caller through p.mask).
func (p *packer) add(pair uint64) {
	r := &p.r
	key := uint32(pair >> 32)
	r.dir[uint64(key)>>(32-r.dbits)+1]++
	if r.wide {
		r.low = append(r.low, uint16(r.below(key)>>16))
		r.slots = append(r.slots, uint32(pair)-r.base)
		return
	}
	r.words = append(r.words, uint32(uint64(r.below(key))>>(32-r.kbits)<<r.sbits)|(uint32(pair)-r.base))
}

// done returns the run, its arrays cut to length when pairs were dropped.
func (p *packer) done() run {
	r := p.r
	for b := 1; b < len(r.dir); b++ {
		r.dir[b] += r.dir[b-1]
	}
	if cap(r.words)-len(r.words) > len(r.words)/8 {
		r.words = slices.Clone(r.words)
	}
	if cap(r.slots)-len(r.slots) > len(r.slots)/8 {
		r.low, r.slots = slices.Clone(r.low), slices.Clone(r.slots)
	}
	return r
}

// packing says which runs are packed and how many key bits below the
// directory they store at most (tests lower both).
type packing struct {
	min     int   // runs of this many pairs and more are packed (packedMin)
	keyBits uint8 // at most 32
}

func defaultPacking() packing { return packing{min: packedMin, keyBits: 32} }

// newRun stores sorted pairs, packed when there are at least pk.min.
func newRun(pairs []uint64, pk packing) run {
	if len(pairs) < pk.min {
		return plainRun(pairs)
	}
	lo, hi := uint32(math.MaxUint32), uint32(0)
	for _, p := range pairs {
		lo, hi = min(lo, uint32(p)), max(hi, uint32(p))
	}
	w := newPacker(len(pairs), min(lo, hi), hi, 32, pk.keyBits)
	for _, p := range pairs {
		w.add(p & w.mask)
	}
	return w.done()
}

// plainRun stores sorted pairs unpacked, with a bucket directory.
func plainRun(pairs []uint64) run {
	r := run{plain: pairs}
	if r.pbits = plainBits(len(pairs)); r.pbits == 0 {
		return r
	}
	r.pdir = make([]uint32, 1<<r.pbits+1)
	for _, p := range pairs {
		r.pdir[(p>>32>>(32-r.pbits))+1]++
	}
	for b := 1; b < len(r.pdir); b++ {
		r.pdir[b] += r.pdir[b-1]
	}
	return r
}

// plainBits is the directory size (bits) of a plain run of n pairs (0:
// no directory).
func plainBits(n int) uint8 {
	return uint8(min(bits.Len(uint(n/8)), 24))
}

// mergeRuns merges two runs into one, dropping the pairs whose slot keep
// rejects (removed entries). The result is packed when it can hold
// pk.min pairs or an input is packed (whose key bits not known are
// lost); it is written in place, without a copy of the pairs in between,
// and knows no more key bits than either input.
func mergeRuns(a, b *run, keep func(slot uint32) bool, pk packing) run {
	n := a.len() + b.len()
	if n < pk.min && a.dir == nil && b.dir == nil {
		return plainRun(mergePlain(a.plain, b.plain, keep))
	}
	alo, ahi := a.slotRange()
	blo, bhi := b.slotRange()
	lo, hi := min(alo, blo), max(ahi, bhi)
	w := newPacker(n, uint32(min(lo, hi)), uint32(hi), min(a.knownBits(), b.knownBits()), pk.keyBits)
	ra, rb := newPairReader(a), newPairReader(b)
	pa, oka := ra.next()
	pb, okb := rb.next()
	for oka || okb {
		var p uint64
		if oka && (!okb || pa&w.mask <= pb&w.mask) {
			p = pa & w.mask
			pa, oka = ra.next()
		} else {
			p = pb & w.mask
			pb, okb = rb.next()
		}
		if keep(uint32(p)) {
			w.add(p)
		}
	}
	return w.done()
}

// pairReader reads a run's pairs in order: a plain run's in place, a
// packed run's decoded a chunk at a time (a merge makes no 8-byte copy of
// a packed run).
type pairReader struct {
	r      *run
	i, b   int // the next pair to decode and its bucket
	buf    []uint64
	at     int
	packed bool
}

// readChunk is the number of pairs a pairReader decodes at a time.
const readChunk = 1024

func newPairReader(r *run) *pairReader {
	if r.dir == nil {
		return &pairReader{r: r, buf: r.plain}
	}
	return &pairReader{r: r, buf: make([]uint64, 0, readChunk), packed: true}
}

// next returns the next pair, false past the last.
func (p *pairReader) next() (uint64, bool) {
	if p.at == len(p.buf) && !p.fill() {
		return 0, false
	}
	p.at++
	return p.buf[p.at-1], true
}

// fill decodes the next chunk of a packed run into buf.
func (p *pairReader) fill() bool {
	if !p.packed {
		return false
	}
	r := p.r
	p.buf, p.at = p.buf[:0], 0
	for p.b+1 < len(r.dir) && len(p.buf) < cap(p.buf) {
		// (bounded by the run's length: the directory of an unverified
		// mapped snapshot is not trusted)
		end := min(int(r.dir[p.b+1]), p.i+cap(p.buf)-len(p.buf), r.len())
		top := uint64(p.b) << (32 - r.dbits) << 32
		for ; p.i < end; p.i++ {
			if r.wide {
				p.buf = append(p.buf, top|uint64(r.low[p.i])<<16>>r.dbits<<32|uint64(r.slots[p.i]+r.base))
				continue
			}
			w := uint64(r.words[p.i])
			p.buf = append(p.buf, top|w>>r.sbits<<(32-r.kbits)>>r.dbits<<32|uint64(uint32(w&(1<<r.sbits-1))+r.base))
		}
		if p.i >= r.len() {
			break // every pair read, whatever the directory's later entries say
		}
		if p.i >= int(r.dir[p.b+1]) {
			p.b++
		}
	}
	return len(p.buf) > 0
}

// mergePlain merges two plain runs' pairs, dropping the pairs whose slot
// keep rejects.
func mergePlain(a, b []uint64, keep func(slot uint32) bool) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var p uint64
		if j == len(b) || i < len(a) && a[i] <= b[j] {
			p = a[i]
			i++
		} else {
			p = b[j]
			j++
		}
		if keep(uint32(p)) {
			out = append(out, p)
		}
	}
	return out
}

// bands holds the band keys of every indexed slot.
type bands struct {
	tail      tailTable
	tailSlots int          // articles in the tail
	levels    [][Bands]run // levels[i][band]: level i holds up to levelCap(i) articles
	levelN    []int        // articles in each level (removed included)
	packing   packing
}

func newBands() bands { return bands{tail: newTailTable(), packing: defaultPacking()} }

// tailTable is an open-addressing multimap (linear probing) from
// band<<32 | key to slots, sized for TailArticles articles at half load:
// adding to it allocates nothing.
type tailTable struct {
	keys  []uint64 // band<<32 | key | occupied; 0: empty
	slots []uint32
}

const (
	tailSize = 1 << 17 // ≥ 2 · TailArticles · Bands
	occupied = 1 << 63
)

func newTailTable() tailTable {
	return tailTable{keys: make([]uint64, tailSize), slots: make([]uint32, tailSize)}
}

func (t *tailTable) put(tk uint64, slot uint32) {
	for i := mix64(tk) & (tailSize - 1); ; i = (i + 1) & (tailSize - 1) {
		if t.keys[i] == 0 {
			t.keys[i], t.slots[i] = tk|occupied, slot
			return
		}
	}
}

func (t *tailTable) get(tk uint64, fn func(slot uint32)) {
	for i := mix64(tk) & (tailSize - 1); t.keys[i] != 0; i = (i + 1) & (tailSize - 1) {
		if t.keys[i] == tk|occupied {
			fn(t.slots[i])
		}
	}
}

// pairs returns every (band<<32 | key, slot) pair, sorted.
func (t *tailTable) pairs() [][2]uint64 {
	var out [][2]uint64
	for i, k := range t.keys {
		if k != 0 {
			out = append(out, [2]uint64{k &^ occupied, uint64(t.slots[i])})
		}
	}
	slices.SortFunc(out, func(a, b [2]uint64) int {
		if a[0] != b[0] {
			return cmpU64(a[0], b[0])
		}
		return cmpU64(a[1], b[1])
	})
	return out
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (t *tailTable) len() int {
	n := 0
	for _, k := range t.keys {
		if k != 0 {
			n++
		}
	}
	return n
}

func levelCap(i int) int {
	c := TailArticles * LevelFanout
	for range i {
		c *= LevelFanout
	}
	return c
}

// add indexes slot's keys; keep is consulted when runs merge.
func (bs *bands) add(slot uint32, keys *[Bands]uint32, keep func(uint32) bool) {
	for b, k := range keys {
		tk := uint64(b)<<32 | uint64(k)
		bs.tail.put(tk, slot)
	}
	bs.tailSlots++
	if bs.tailSlots >= TailArticles {
		bs.flush(keep)
	}
}

// flush sorts the tail into runs and merges it down the levels.
func (bs *bands) flush(keep func(uint32) bool) {
	if bs.tailSlots == 0 {
		return
	}
	var carry [Bands]run
	per := make([][]uint64, Bands)
	for i, k := range bs.tail.keys {
		if k != 0 {
			tk := k &^ occupied
			per[tk>>32] = append(per[tk>>32], tk<<32|uint64(bs.tail.slots[i]))
		}
	}
	for b := range per {
		slices.Sort(per[b])
		carry[b] = newRun(per[b], bs.packing)
	}
	n := bs.tailSlots
	clear(bs.tail.keys)
	bs.tailSlots = 0
	for i := 0; ; i++ {
		if i == len(bs.levels) {
			bs.levels = append(bs.levels, carry)
			bs.levelN = append(bs.levelN, n)
			return
		}
		for b := range Bands {
			carry[b] = mergeRuns(&bs.levels[i][b], &carry[b], keep, bs.packing)
			// Release the merged run at once: the level is rewritten one
			// band at a time, so a merge never holds two copies of a level.
			bs.levels[i][b] = run{}
		}
		n += bs.levelN[i]
		if n <= levelCap(i) {
			bs.levels[i], bs.levelN[i] = carry, n
			return
		}
		bs.levels[i], bs.levelN[i] = [Bands]run{}, 0
	}
}

// lookupAll calls fn for every slot sharing a band key with keys (a slot
// once per band it shares). Level by level, it first reads every band's
// directory bucket and then searches the buckets: the directory reads of
// the bands do not depend on each other, so their cache misses overlap
// instead of being paid one after another; then it reads the first pair
// of every bucket (touch) for the same reason before the searches.
func (bs *bands) lookupAll(keys *[Bands]uint32, fn func(slot uint32)) uint64 {
	var sink uint64
	for b, k := range keys {
		bs.tail.get(uint64(b)<<32|uint64(k), fn)
	}
	var lo, hi [Bands]uint32
	for i := range bs.levels {
		lv := &bs.levels[i]
		for b := range Bands {
			lo[b], hi[b] = lv[b].bucket(keys[b])
		}
		for b := range Bands {
			sink += lv[b].touch(lo[b], hi[b])
		}
		for b := range Bands {
			lv[b].scan(keys[b], lo[b], hi[b], fn)
		}
	}
	return sink
}

// keys returns the number of stored keys (memory figures).
func (bs *bands) keys() int {
	n := 0
	n += bs.tail.len()
	for i := range bs.levels {
		for b := range Bands {
			n += bs.levels[i][b].len()
		}
	}
	return n
}
