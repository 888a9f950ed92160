package lshindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// Snapshots (dedup.Snapshotter): the whole state of an index (entries
// with their window times, cluster merges, band runs and tail, head
// lists) as flat arrays behind a header naming the format version and
// every option the candidates depend on, followed by a CRC-32C of
// everything before it. ReadSnapshot refuses a
// snapshot written with other options, a truncated or corrupt one, and any
// index that is not freshly constructed. Version 3 added the times
// (dedup.Windowed), version 4 the sketches (sketch.go), version 5 packed
// runs of 32-bit words (runs.go): an older snapshot is refused like one
// of other options, and its store rebuilds the index.

const (
	snapshotMagic   = "NCLSHIX\n"
	snapshotVersion = 5
	// maxSnapshotLen bounds every array length read from a snapshot, so a
	// corrupt length fails instead of allocating without limit.
	maxSnapshotLen = 1 << 40
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is every option a snapshot's contents depend on.
type header struct {
	Version                           uint32
	Rows, Bands                       uint32
	TailArticles, LevelFanout         uint32
	HeadListCap, ClassBits            uint32
	HeadShare, Jaccard, Containment   float64
	MinContainment, PackedMin, Bitmap uint32
}

func (x *Index) header() header {
	return header{Version: snapshotVersion, Rows: Rows, Bands: Bands, TailArticles: TailArticles, LevelFanout: LevelFanout,
		HeadListCap: HeadListCap, ClassBits: classBits, HeadShare: HeadShare, Jaccard: x.cfg.Jaccard,
		Containment: x.cfg.Containment, MinContainment: uint32(x.cfg.MinContainment), PackedMin: packedMin, Bitmap: bitmapWords}
}

type snapWriter struct {
	w   *bufio.Writer
	crc hash.Hash32
	err error
	pos int64 // bytes written
}

func (s *snapWriter) put(v any) {
	if s.err == nil {
		s.err = binary.Write(io.MultiWriter(s.w, s.crc), binary.LittleEndian, v)
		s.pos += int64(binary.Size(v))
	}
}

func (s *snapWriter) bytes(b []byte) {
	if s.err == nil {
		if _, s.err = s.w.Write(b); s.err == nil {
			s.crc.Write(b)
			s.pos += int64(len(b))
		}
	}
}

// align pads with zeros to a multiple of a.
func (s *snapWriter) align(a int64) {
	if pad := (a - s.pos%a) % a; pad > 0 {
		s.bytes(make([]byte, pad))
	}
}

// writeSlice writes a length and, aligned (growAlign for the arrays that
// grow with every entry, 8 bytes for the others), the elements as they
// lie in memory, so that a reader can use them in place.
func writeSlice[T any](s *snapWriter, v []T, growable bool) {
	s.put(uint64(len(v)))
	if s.err != nil || len(v) == 0 {
		return
	}
	if growable {
		s.align(growAlign)
	} else {
		s.align(8)
	}
	s.bytes(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0]))))
}

// WriteSnapshot writes the index's whole state to w (dedup.Snapshotter).
func (x *Index) WriteSnapshot(w io.Writer) error {
	if !littleEndian() {
		return errors.New("lshindex: write snapshot: snapshots are written on little-endian machines only")
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := &snapWriter{w: bufio.NewWriterSize(w, 1<<20), crc: crc32.New(castagnoli)}
	s.put([]byte(snapshotMagic))
	s.put(x.header())
	s.put([]uint64{uint64(x.live), uint64(x.overflow), uint64(x.head.dropped), uint64(x.bands.tailSlots)})
	writeSlice(s, x.ids, true)
	writeSlice(s, x.clusters, true)
	writeSlice(s, x.sims, true)
	writeSlice(s, x.hashes, true)
	writeSlice(s, x.lens, true)
	writeSlice(s, x.times, true)
	writeSlice(s, x.bits, true)
	writeSlice(s, x.sketch, true)
	writeSlice(s, x.sigOff, true)
	x.writeCodes(s, x.sigs, &x.cold.sigs)
	writeSlice(s, x.titleOff, true)
	x.writeCodes(s, x.titles, &x.cold.titles)
	writeSlice(s, x.spots.vals, true)
	writeSlice(s, x.bigrams.vals, true)
	writeSlice(s, x.df, true)
	ids, slots := x.liveIDs()
	writeSlice(s, ids, false)
	writeSlice(s, slots, false)
	writeSlice(s, x.spots.byValue(), false)
	writeSlice(s, x.bigrams.byValue(), false)
	writeSlice(s, x.emptySlots(), false)
	var classes [32]uint64
	for i, c := range x.classes {
		classes[i] = uint64(c)
	}
	s.put(classes)
	x.writeMaps(s)
	s.put(s.crc.Sum32())
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("lshindex: write snapshot: %w", s.err)
	}
	return nil
}

// writeMaps writes the winnowing prints, the merges, the band tail and
// runs and the head lists, each in a deterministic order.
func (x *Index) writeMaps(s *snapWriter) {
	x.writeCold(s)
	pairs := x.merges.Pairs()
	s.put(uint64(len(pairs)))
	for _, p := range pairs {
		s.put(p)
	}
	var tail []uint64 // band<<32|key, slot pairs
	for _, p := range x.bands.tail.pairs() {
		tail = append(tail, p[0], p[1])
	}
	writeSlice(s, tail, false)
	s.put(uint64(len(x.bands.levels)))
	for i := range x.bands.levels {
		s.put(uint64(x.bands.levelN[i]))
		for b := range Bands {
			r := &x.bands.levels[i][b]
			s.put(uint64(r.kbits) | uint64(r.sbits)<<8 | uint64(b2u(r.wide))<<16 | uint64(r.dbits)<<24 | uint64(r.base)<<32)
			writeSlice(s, r.plain, false)
			writeSlice(s, r.pdir, false)
			writeSlice(s, r.dir, false)
			writeSlice(s, r.words, false)
			writeSlice(s, r.low, false)
			writeSlice(s, r.slots, false)
		}
	}
	// The head lists as three flat arrays (keys ascending, offsets,
	// postings), which a mapped snapshot uses in place.
	var keys, off []uint64
	var post []uint32
	x.head.each(func(k uint64, l []uint32) {
		keys, off = append(keys, k), append(off, uint64(len(post)))
		post = append(post, l...)
	})
	writeSlice(s, keys, false)
	writeSlice(s, append(off, uint64(len(post))), false)
	writeSlice(s, post, false)
}

// littleEndian reports whether this machine stores integers least
// significant byte first, as snapshots do.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// ReadSnapshot loads a snapshot written by WriteSnapshot into x, which
// must be empty and built with the options of the snapshot. It reads the
// whole snapshot into memory and checks all of it (checksum and the
// arrays against each other); MapSnapshot uses a file in place.
func (x *Index) ReadSnapshot(r io.Reader) error {
	var b []byte
	var err error
	if n := sizeOf(r); n >= 0 && n <= maxSnapshotLen {
		// The length is known: one allocation of the exact size.
		b = make([]byte, n)
		_, err = io.ReadFull(r, b)
	} else {
		b, err = io.ReadAll(r)
	}
	if err != nil {
		return fmt.Errorf("lshindex: read snapshot: truncated snapshot: %w", err)
	}
	return x.load(b, nil, true)
}

// sizeOf returns the bytes r has left when it can tell (a bytes.Reader,
// a strings.Reader or a LimitedReader over a file), else -1.
func sizeOf(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case *io.LimitedReader:
		return r.N
	}
	return -1
}

// load makes x the index of snapshot b, whose arrays it uses in place
// (grow, when set, gives an array room to grow: mapped.go). full checks
// the checksum and every array against the others; otherwise only the
// header and the structure (lengths, counts) are checked, in time
// independent of the snapshot's size.
func (x *Index) load(b []byte, grow func(off, n int) []byte, full bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.ids) > 0 || x.bands.tailSlots > 0 {
		return errors.New("lshindex: read snapshot: the index is not empty")
	}
	if !littleEndian() {
		return errors.New("lshindex: read snapshot: snapshots are used in place on little-endian machines only")
	}
	p := &parser{b: b, grow: grow}
	if string(p.take(len(snapshotMagic))) != snapshotMagic || p.err != nil {
		return errors.New("lshindex: read snapshot: not an lshindex snapshot")
	}
	var h header
	if raw := p.take(binary.Size(h)); p.err == nil {
		if _, err := binary.Decode(raw, binary.LittleEndian, &h); err != nil {
			return fmt.Errorf("lshindex: read snapshot: %w", err)
		}
	}
	if p.err == nil && h != x.header() {
		return fmt.Errorf("lshindex: read snapshot: written with other options (%+v), this index has %+v", h, x.header())
	}
	y, err := readState(p, x.cfg)
	if err == nil && p.pos+4 != len(b) {
		err = fmt.Errorf("%d bytes after the snapshot", len(b)-p.pos-4)
		if p.pos+4 > len(b) {
			err = errors.New("truncated snapshot: no checksum")
		}
	}
	if err == nil && full {
		if crc32.Checksum(b[:p.pos], castagnoli) != binary.LittleEndian.Uint32(b[p.pos:]) {
			err = errors.New("checksum mismatch: the snapshot is corrupt")
		}
	}
	if err == nil && full {
		err = y.check()
	}
	if err == nil && full {
		err = y.checkLookups()
	}
	if err == nil {
		err = y.checkShape()
	}
	if err != nil {
		return fmt.Errorf("lshindex: read snapshot: %w", err)
	}
	// The entries added from now on spill where x's would have.
	y.cold.takeSpill(&x.cold)
	x.adopt(y)
	x.ops, x.logging = nil, true
	return nil
}

// adopt moves y's state into x (x's locks stay).
func (x *Index) adopt(y *Index) {
	x.ids, x.clusters, x.sims, x.hashes, x.lens, x.times, x.bits = y.ids, y.clusters, y.sims, y.hashes, y.lens, y.times, y.bits
	x.sketch = y.sketch
	x.sigOff, x.sigs, x.titleOff, x.titles, x.spots, x.bigrams, x.df = y.sigOff, y.sigs, y.titleOff, y.titles, y.spots, y.bigrams, y.df
	x.live, x.overflow, x.byID, x.empty, x.cold, x.merges = y.live, y.overflow, y.byID, y.empty, y.cold, y.merges
	x.idKeys, x.idSlots = y.idKeys, y.idSlots
	x.bands, x.head, x.classes = y.bands, y.head, y.classes
}

// readState reads everything after the header into a new index.
func readState(s *parser, cfg Config) (*Index, error) {
	y, err := New(cfg)
	if err != nil {
		return nil, err
	}
	var counts [4]uint64
	for i := range counts {
		counts[i] = s.u64()
	}
	y.ids = view[uint64](s, true)
	y.clusters = view[uint64](s, true)
	y.sims = view[uint64](s, true)
	y.hashes = view[[16]byte](s, true)
	y.lens = view[uint32](s, true)
	y.times = view[int64](s, true)
	y.bits = view[uint64](s, true)
	y.sketch = view[uint64](s, true)
	y.sigOff = view[uint64](s, true)
	y.sigs = view[byte](s, true)
	y.titleOff = view[uint64](s, true)
	y.titles = view[byte](s, true)
	y.spots.vals = view[uint64](s, true)
	y.bigrams.vals = view[uint64](s, true)
	y.df = view[uint32](s, true)
	y.idKeys = view[uint64](s, false)
	y.idSlots = view[uint32](s, false)
	y.spots.order = view[uint32](s, false)
	y.bigrams.order = view[uint32](s, false)
	for _, e := range view[uint32](s, false) {
		if int(e) < len(y.hashes) {
			y.empty[y.hashes[e]] = e
		}
	}
	for i := range y.classes {
		y.classes[i] = int(s.u64())
	}
	y.cold.first = uint32(len(y.ids))
	if err := readCold(s, y); err != nil {
		return nil, err
	}
	nm := s.count()
	for range nm {
		from, into := s.u64(), s.u64()
		y.merges.Merge(into, []uint64{from})
	}
	tail := view[uint64](s, false)
	if len(tail) > 2*tailSize/2 || len(tail)%2 != 0 {
		return nil, errors.New("band tail too large")
	}
	for i := 0; i+1 < len(tail); i += 2 {
		if tail[i]>>32 >= Bands {
			return nil, errors.New("band tail names an unknown band")
		}
		y.bands.tail.put(tail[i], uint32(tail[i+1]))
	}
	if err := readLevels(s, y); err != nil {
		return nil, err
	}
	y.head.baseKeys = view[uint64](s, false)
	y.head.baseOff = view[uint64](s, false)
	y.head.basePost = view[uint32](s, false)
	if s.err != nil {
		return nil, s.err
	}
	y.live, y.overflow, y.head.dropped, y.bands.tailSlots = int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3])
	return y, nil
}

// readLevels reads the band runs.
func readLevels(s *parser, y *Index) error {
	nl := s.count()
	if nl > 64 {
		return fmt.Errorf("%d levels", nl)
	}
	for range nl {
		n := s.u64()
		var lv [Bands]run
		for b := range Bands {
			w := s.u64()
			lv[b] = run{kbits: uint8(w), sbits: uint8(w >> 8), wide: uint8(w>>16) == 1, dbits: uint8(w >> 24), base: uint32(w >> 32), plain: view[uint64](s, false), pdir: view[uint32](s, false),
				dir: view[uint32](s, false), words: view[uint32](s, false), low: view[uint16](s, false), slots: view[uint32](s, false)}
			if uint8(w>>16) > 1 {
				return fmt.Errorf("level %d band %d: bad run widths %#x", len(y.bands.levels), b, w)
			}
			lv[b].pbits = plainBits(len(lv[b].plain))
		}
		if s.err != nil {
			return s.err
		}
		y.bands.levels = append(y.bands.levels, lv)
		y.bands.levelN = append(y.bands.levelN, int(n))
	}
	return nil
}

// checkShape is the structural check of a loaded snapshot, in time
// independent of its size: the entry arrays agree in length, every run
// and arena ends where its directory or offsets say. What it does not
// read (the values inside the arrays) is covered by the checksum that
// check verifies; the query path does not trust them either (slots out of
// range are skipped, codes are decoded within bounds).
func (y *Index) checkShape() error {
	n := len(y.ids)
	if len(y.clusters) != n || len(y.sims) != n || len(y.hashes) != n || len(y.lens) != n || len(y.times) != n ||
		len(y.bits) != n*bitmapWords || len(y.sketch) != n*sketchWords || len(y.sigOff) != n+1 || len(y.titleOff) != n+1 ||
		n > MaxSlots {
		return errors.New("inconsistent entry arrays")
	}
	if y.sigOff[n] != uint64(len(y.sigs)) || y.titleOff[n] != uint64(len(y.titles)) || y.sigOff[0] != 0 || y.titleOff[0] != 0 {
		return errors.New("arena length")
	}
	if len(y.df) > len(y.spots.vals) {
		return errors.New("inconsistent document frequencies")
	}
	if len(y.idKeys) != len(y.idSlots) || len(y.spots.order) != len(y.spots.vals) || len(y.bigrams.order) != len(y.bigrams.vals) {
		return errors.New("inconsistent lookups")
	}
	if k := y.cold.baseSlots; len(k) > 0 && int(k[len(k)-1]) >= n {
		return errors.New("winnowing prints of an unknown entry")
	}
	if y.live < 0 || y.live > n || y.bands.tailSlots < 0 || y.bands.tailSlots > TailArticles {
		return errors.New("inconsistent counts")
	}
	if h := &y.head; (len(h.baseKeys) > 0 || len(h.baseOff) > 0) && (len(h.baseOff) != len(h.baseKeys)+1 ||
		h.baseOff[0] != 0 || h.baseOff[len(h.baseOff)-1] != uint64(len(h.basePost))) {
		return errors.New("inconsistent head lists")
	}
	for i := range y.bands.levels {
		for b := range Bands {
			r := &y.bands.levels[i][b]
			if r.dir != nil && (!r.packedShape() || int(r.dir[len(r.dir)-1]) != r.len()) {
				return fmt.Errorf("level %d band %d: bad packed run", i, b)
			}
			if r.dir == nil && (len(r.low) > 0 || len(r.slots) > 0 || len(r.words) > 0 || r.kbits != 0 || r.sbits != 0 || r.wide || r.dbits != 0 || r.base != 0 || (r.pbits == 0) != (r.pdir == nil) ||
				(r.pdir != nil && (len(r.pdir) != 1<<r.pbits+1 || int(r.pdir[len(r.pdir)-1]) != len(r.plain)))) {
				return fmt.Errorf("level %d band %d: bad plain run", i, b)
			}
		}
	}
	return nil
}

// check validates a snapshot's arrays against each other, so that a
// snapshot that passed the checksum but is inconsistent (written by a
// buggy program) is refused rather than trusted.
func (y *Index) check() error {
	n := len(y.ids)
	if len(y.clusters) != n || len(y.sims) != n || len(y.hashes) != n || len(y.lens) != n || len(y.times) != n ||
		len(y.bits) != n*bitmapWords || len(y.sketch) != n*sketchWords || len(y.sigOff) != n+1 || len(y.titleOff) != n+1 ||
		n > MaxSlots {
		return errors.New("inconsistent entry arrays")
	}
	if err := checkArena(y.sigOff, y.sigs, len(y.spots.vals)); err != nil {
		return fmt.Errorf("signatures: %w", err)
	}
	if err := checkArena(y.titleOff, y.titles, len(y.bigrams.vals)); err != nil {
		return fmt.Errorf("headlines: %w", err)
	}
	if len(y.df) > len(y.spots.vals) {
		return errors.New("inconsistent document frequencies")
	}
	live := 0
	for _, l := range y.lens {
		if l&deadBit == 0 {
			live++
		}
	}
	if err := y.checkSketches(); err != nil {
		return err
	}
	if live != y.live {
		return fmt.Errorf("%d live entries, header says %d", live, y.live)
	}
	for _, p := range y.bands.tail.pairs() {
		if int(p[1]) >= n {
			return errors.New("band tail names an unknown entry")
		}
	}
	for i := range y.bands.levels {
		for b := range Bands {
			if err := y.bands.levels[i][b].check(n); err != nil {
				return fmt.Errorf("level %d band %d: %w", i, b, err)
			}
		}
	}
	h := &y.head
	if !slices.IsSorted(h.baseOff) || !slices.IsSorted(h.baseKeys) {
		return errors.New("head lists out of order")
	}
	for i := 1; i < len(h.baseKeys); i++ {
		if h.baseKeys[i] == h.baseKeys[i-1] {
			return errors.New("head list repeated")
		}
	}
	if slices.ContainsFunc(h.basePost, func(s uint32) bool { return int(s) >= n }) {
		return errors.New("head list names an unknown entry")
	}
	return nil
}

// checkSketches checks that every slot's sketch is the one its length and
// bitmap give (the query path trusts a sketch to drop only what the bitmap
// filter drops).
func (y *Index) checkSketches() error {
	var want []uint64
	for s, l := range y.lens {
		want = appendSketch(want[:0], y.bits[s*bitmapWords:(s+1)*bitmapWords], int(l&^deadBit))
		if !slices.Equal(want, y.sketch[s*sketchWords:(s+1)*sketchWords]) {
			return fmt.Errorf("sketch of entry %d does not match its bitmap", s)
		}
	}
	return nil
}

func checkArena(off []uint64, arena []byte, vals int) error {
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] || off[i] > uint64(len(arena)) {
			return errors.New("offsets out of order")
		}
	}
	if len(off) > 0 && off[len(off)-1] != uint64(len(arena)) {
		return errors.New("arena length")
	}
	// The entries are checked in parallel: at 1 M entries this decode is
	// the largest part of a snapshot's load.
	parts := min(runtime.GOMAXPROCS(0), 8, max(len(off)/4096, 1))
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*(len(off)-1)/parts, (p+1)*(len(off)-1)/parts
		wg.Go(func() { errs[p] = checkCodes(off[lo:hi+1], arena, vals) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// checkCodes checks the delta-coded entries between the offsets in off.
func checkCodes(off []uint64, arena []byte, vals int) error {
	// The codes of an entry are deltas, so they only grow: checking the
	// running sum after each multi-byte delta and at the entry's end
	// covers every code (one-byte deltas add at most 127 each, which
	// cannot overflow a sum bounded by the arena's length).
	for i := 0; i+1 < len(off); i++ {
		prev := uint64(0)
		b := arena[off[i]:off[i+1]]
		for j := 0; j < len(b); {
			if c := b[j]; c < 0x80 {
				prev += uint64(c)
				j++
				continue
			}
			var d uint64
			s := uint(0)
			for ; j < len(b); s += 7 {
				c := b[j]
				j++
				d |= uint64(c&0x7F) << s
				if c < 0x80 {
					break
				}
				if s > 28 {
					return errors.New("bad code")
				}
			}
			if prev += d; prev >= uint64(vals) {
				return errors.New("code out of range")
			}
		}
		if len(b) > 0 && prev >= uint64(vals) {
			return errors.New("code out of range")
		}
	}
	return nil
}

// check validates a run against n entries.
func (r *run) check(n int) error {
	if r.dir == nil {
		if len(r.low) > 0 || len(r.slots) > 0 || len(r.words) > 0 || r.kbits != 0 || r.sbits != 0 || r.wide || r.dbits != 0 || r.base != 0 || !slices.IsSorted(r.plain) {
			return errors.New("bad plain run")
		}
		if slices.ContainsFunc(r.plain, func(p uint64) bool { return int(uint32(p)) >= n }) {
			return errors.New("run names an unknown entry")
		}
		if !slices.Equal(r.pdir, plainRun(r.plain).pdir) {
			return errors.New("bad plain run directory")
		}
		return nil
	}
	if !r.packedShape() || r.dir[0] != 0 || int(r.dir[len(r.dir)-1]) != r.len() || !slices.IsSorted(r.dir) {
		return errors.New("bad packed run")
	}
	if _, hi := r.slotRange(); hi >= uint64(n) && r.len() > 0 {
		return errors.New("run names an unknown entry")
	}
	// Every bucket in the order of its stored key bits, the bits not
	// stored cleared.
	c := cursor{r: r}
	mask := keyMask(r.knownBits())
	for prev := uint64(0); c.ok(); c.next() {
		p := c.pair()
		if p&mask != p || (c.i > int(r.dir[c.b]) && p>>32 < prev) {
			return errors.New("packed run out of order")
		}
		prev = p >> 32
	}
	return nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// packedShape reports whether a packed run's arrays and widths agree
// (one directory read, no pair).
func (r *run) packedShape() bool {
	if r.dbits == 0 || r.dbits > maxDirBits || len(r.dir) != 1<<r.dbits+1 || len(r.plain) > 0 || r.pdir != nil ||
		r.kbits > 32-r.dbits {
		return false
	}
	if r.wide {
		return r.sbits == 0 && r.kbits <= 16 && len(r.words) == 0 && len(r.low) == len(r.slots)
	}
	return r.sbits == 32-r.kbits && len(r.low) == 0 && len(r.slots) == 0
}

// liveIDs returns the ids of the live entries, ascending, and their slots.
func (x *Index) liveIDs() ([]uint64, []uint32) {
	type is struct {
		id   uint64
		slot uint32
	}
	all := make([]is, 0, x.live)
	for s, id := range x.ids {
		if x.lens[s]&deadBit == 0 {
			all = append(all, is{id, uint32(s)})
		}
	}
	slices.SortFunc(all, func(a, b is) int { return cmpU64(a.id, b.id) })
	ids, slots := make([]uint64, len(all)), make([]uint32, len(all))
	for i, e := range all {
		ids[i], slots[i] = e.id, e.slot
	}
	return ids, slots
}

// byValue returns the dictionary's codes by ascending value.
func (d *dict) byValue() []uint32 {
	order := make([]uint32, len(d.vals))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmpU64(d.vals[a], d.vals[b]) })
	return order
}

// emptySlots returns the slots of the entries without spots found by
// text hash, ascending.
func (x *Index) emptySlots() []uint32 {
	out := make([]uint32, 0, len(x.empty))
	for _, s := range x.empty {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// checkLookups validates the id and dictionary lookups of a snapshot
// (the full check).
func (y *Index) checkLookups() error {
	if len(y.idKeys) != y.live {
		return fmt.Errorf("%d ids for %d live entries", len(y.idKeys), y.live)
	}
	for i, id := range y.idKeys {
		s := y.idSlots[i]
		if (i > 0 && id <= y.idKeys[i-1]) || int(s) >= len(y.ids) || y.ids[s] != id || y.lens[s]&deadBit != 0 {
			return errors.New("bad id lookup")
		}
	}
	for _, d := range []*dict{&y.spots, &y.bigrams} {
		if len(d.order) != len(d.vals) {
			return errors.New("bad dictionary lookup")
		}
		for i, c := range d.order {
			if int(c) >= len(d.vals) || (i > 0 && d.vals[c] <= d.vals[d.order[i-1]]) {
				return errors.New("bad dictionary lookup")
			}
		}
	}
	return nil
}
