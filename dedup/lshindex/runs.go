package lshindex

import (
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
	// packedMin is the run length from which a run is stored packed: the
	// top 16 bits of each key implied by a bucket directory of 2^16+1
	// offsets, the low 16 bits and the slot stored (6 bytes a key instead
	// of 8; the directory costs under a byte a key from this length).
	packedMin = 1 << 18
)

// run is one sorted run of (key, slot) pairs of one band, plain or packed.
type run struct {
	plain []uint64 // key<<32 | slot, ascending (plain runs)
	// pdir indexes a plain run by the top pbits bits of the key (about
	// eight pairs a bucket), so a lookup reads two cache lines or so
	// (stored in snapshots, so that a mapped one does not read every
	// pair to rebuild it).
	pdir  []uint32
	pbits uint8
	dir   []uint32 // packed: dir[k>>16] .. dir[k>>16+1] index low and slots
	low   []uint16
	slots []uint32
}

func (r *run) len() int {
	if r.dir != nil {
		return len(r.slots)
	}
	return len(r.plain)
}

// touch reads the first pair of a bucket lo..hi and returns a value
// derived from it: a load the caller issues early, so that the bucket is
// in the cache when scan reads it (a software prefetch).
func (r *run) touch(lo, hi uint32) uint64 {
	if lo >= hi {
		return 0
	}
	if r.dir == nil {
		return r.plain[lo]
	}
	return uint64(r.low[lo])
}

// bucket returns the range of the run's pairs that can hold key: one
// directory read.
func (r *run) bucket(key uint32) (lo, hi uint32) {
	switch {
	case r.dir != nil:
		b := key >> 16
		lo, hi = r.dir[b], r.dir[b+1]
		if lo > hi || int(hi) > len(r.slots) {
			return 0, 0 // a damaged mapped snapshot (check finds it)
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

// scan calls fn for every slot stored under key among pairs lo..hi (the
// key's bucket).
func (r *run) scan(key uint32, lo, hi uint32, fn func(slot uint32)) {
	if r.dir == nil {
		ps := r.plain[lo:hi]
		i, _ := slices.BinarySearch(ps, uint64(key)<<32)
		for ; i < len(ps) && ps[i]>>32 == uint64(key); i++ {
			fn(uint32(ps[i]))
		}
		return
	}
	l := uint16(key)
	i, _ := slices.BinarySearch(r.low[lo:hi], l)
	for i += int(lo); i < int(hi) && r.low[i] == l; i++ {
		fn(r.slots[i])
	}
}

// each calls fn for every pair in order.
func (r *run) each(fn func(p uint64)) {
	if r.dir == nil {
		for _, p := range r.plain {
			fn(p)
		}
		return
	}
	for b := 0; b+1 < len(r.dir); b++ {
		for i := r.dir[b]; i < r.dir[b+1]; i++ {
			fn((uint64(b)<<16|uint64(r.low[i]))<<32 | uint64(r.slots[i]))
		}
	}
}

// newRun stores sorted pairs, packed when there are enough of them.
func newRun(pairs []uint64) run {
	if len(pairs) < packedMin {
		return plainRun(pairs)
	}
	r := run{dir: make([]uint32, 1<<16+1), low: make([]uint16, len(pairs)), slots: make([]uint32, len(pairs))}
	for i, p := range pairs {
		r.dir[(p>>48)+1]++
		r.low[i] = uint16(p >> 32)
		r.slots[i] = uint32(p)
	}
	for b := 1; b < len(r.dir); b++ {
		r.dir[b] += r.dir[b-1]
	}
	return r
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
// rejects (removed entries).
func mergeRuns(a, b *run, keep func(slot uint32) bool) run {
	out := make([]uint64, 0, a.len()+b.len())
	var bs []uint64
	if b.dir == nil {
		bs = b.plain
	} else {
		bs = make([]uint64, 0, b.len())
		b.each(func(p uint64) { bs = append(bs, p) })
	}
	j := 0
	a.each(func(p uint64) {
		for j < len(bs) && bs[j] < p {
			if keep(uint32(bs[j])) {
				out = append(out, bs[j])
			}
			j++
		}
		if keep(uint32(p)) {
			out = append(out, p)
		}
	})
	for ; j < len(bs); j++ {
		if keep(uint32(bs[j])) {
			out = append(out, bs[j])
		}
	}
	return newRun(out)
}

// bands holds the band keys of every indexed slot.
type bands struct {
	tail      tailTable
	tailSlots int          // articles in the tail
	levels    [][Bands]run // levels[i][band]: level i holds up to levelCap(i) articles
	levelN    []int        // articles in each level (removed included)
}

func newBands() bands { return bands{tail: newTailTable()} }

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
		carry[b] = newRun(per[b])
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
			carry[b] = mergeRuns(&bs.levels[i][b], &carry[b], keep)
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
