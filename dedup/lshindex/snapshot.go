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

// Snapshots (dedup.Snapshotter): the whole state of an index (entries,
// cluster merges, band runs and tail, head lists) as flat arrays behind a
// header naming the format version and every option the candidates depend
// on, followed by a CRC-32C of everything before it. ReadSnapshot refuses a
// snapshot written with other options, a truncated or corrupt one, and any
// index that is not freshly constructed.

const (
	snapshotMagic   = "NCLSHIX\n"
	snapshotVersion = 1
	// maxSnapshotLen bounds every array length read from a snapshot, so a
	// corrupt length fails instead of allocating without limit.
	maxSnapshotLen = 1 << 40
	readChunk      = 1 << 16
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
}

func (s *snapWriter) put(v any) {
	if s.err == nil {
		s.err = binary.Write(io.MultiWriter(s.w, s.crc), binary.LittleEndian, v)
	}
}

// writeSlice writes a length and the elements: on a little-endian
// machine their memory as it is (binary.Write would first copy the whole
// array into a buffer of its size), elsewhere through binary.Write.
func writeSlice[T any](s *snapWriter, v []T) {
	s.put(uint64(len(v)))
	if s.err != nil || len(v) == 0 {
		return
	}
	if !littleEndian() {
		s.put(v)
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
	if _, s.err = s.w.Write(b); s.err == nil {
		s.crc.Write(b)
	}
}

// WriteSnapshot writes the index's whole state to w (dedup.Snapshotter).
func (x *Index) WriteSnapshot(w io.Writer) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := &snapWriter{w: bufio.NewWriterSize(w, 1<<20), crc: crc32.New(castagnoli)}
	s.put([]byte(snapshotMagic))
	s.put(x.header())
	s.put([]uint64{uint64(x.live), uint64(x.overflow), uint64(x.head.dropped), uint64(x.bands.tailSlots)})
	writeSlice(s, x.ids)
	writeSlice(s, x.clusters)
	writeSlice(s, x.sims)
	writeSlice(s, x.hashes)
	writeSlice(s, x.lens)
	writeSlice(s, x.bits)
	writeSlice(s, x.sigOff)
	writeSlice(s, x.sigs)
	writeSlice(s, x.titleOff)
	writeSlice(s, x.titles)
	writeSlice(s, x.spots.vals)
	writeSlice(s, x.bigrams.vals)
	writeSlice(s, x.df)
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
	wslots := make([]uint32, 0, len(x.winnow))
	for k := range x.winnow {
		wslots = append(wslots, k)
	}
	slices.Sort(wslots)
	s.put(uint64(len(wslots)))
	for _, k := range wslots {
		w := x.winnow[k]
		s.put([]uint64{uint64(k), uint64(w.words)})
		writeSlice(s, w.prints)
	}
	pairs := x.merges.Pairs()
	s.put(uint64(len(pairs)))
	for _, p := range pairs {
		s.put(p)
	}
	var tail []uint64 // band<<32|key, slot pairs
	for _, p := range x.bands.tail.pairs() {
		tail = append(tail, p[0], p[1])
	}
	writeSlice(s, tail)
	s.put(uint64(len(x.bands.levels)))
	for i := range x.bands.levels {
		s.put(uint64(x.bands.levelN[i]))
		for b := range Bands {
			r := &x.bands.levels[i][b]
			writeSlice(s, r.plain)
			writeSlice(s, r.dir)
			writeSlice(s, r.low)
			writeSlice(s, r.slots)
		}
	}
	keys := sortedKeys(x.head.lists)
	s.put(uint64(len(keys)))
	for _, k := range keys {
		s.put(k)
		l := x.head.lists[k]
		writeSlice(s, l)
	}
}

func sortedKeys[V any](m map[uint64]V) []uint64 {
	keys := make([]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type snapReader struct {
	r   io.Reader
	crc hash.Hash32
	err error
	// left is the number of bytes the snapshot can still hold when the
	// reader's size is known (-1: unknown), so that a length past it fails
	// before its array is allocated.
	left int64
}

func (s *snapReader) get(v any) {
	if s.err == nil {
		s.err = binary.Read(io.TeeReader(s.r, s.crc), binary.LittleEndian, v)
		s.left -= int64(binary.Size(v))
	}
}

func (s *snapReader) count() int {
	var n uint64
	s.get(&n)
	if s.err == nil && n > maxSnapshotLen {
		s.err = fmt.Errorf("array length %d out of range", n)
	}
	if s.err != nil {
		return 0
	}
	return int(n)
}

// raw fills v's memory from the snapshot: on a little-endian machine the
// bytes are the values (no decoding), elsewhere binary.Read decodes them.
func raw[T any](s *snapReader, v []T) {
	if s.err != nil || len(v) == 0 {
		return
	}
	if !littleEndian() {
		s.get(v)
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
	if _, err := io.ReadFull(s.r, b); err != nil {
		s.err = err
		return
	}
	s.crc.Write(b)
	s.left -= int64(len(b))
}

// littleEndian reports whether this machine stores integers least
// significant byte first, as snapshots do.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// readSlice reads a length and that many elements: at once when the
// snapshot's size is known and can hold them, else in chunks, so that a
// truncated snapshot fails before a large allocation.
func readSlice[T any](s *snapReader) []T { return readSliceRoom[T](s, false) }

// readGrowable is readSlice for the arrays that grow with every entry
// added after the load: they get room for a sixteenth more, so that the
// first entries a run adds do not copy them whole (128 MB of bitmaps
// alone at 1 M entries).
func readGrowable[T any](s *snapReader) []T { return readSliceRoom[T](s, true) }

func readSliceRoom[T any](s *snapReader, room bool) []T {
	n := s.count()
	if n == 0 {
		return nil
	}
	var zero T
	if size := int64(unsafe.Sizeof(zero)); s.left >= 0 {
		if int64(n) > s.left/size {
			s.err = fmt.Errorf("array of %d elements: %w", n, io.ErrUnexpectedEOF)
			return nil
		}
		c := n
		if room {
			c += n/16 + 64
		}
		out := make([]T, n, c)
		raw(s, out)
		return out
	}
	out := make([]T, 0, min(n, readChunk))
	for len(out) < n && s.err == nil {
		k := min(n-len(out), readChunk)
		out = slices.Grow(out, k)[:len(out)+k]
		raw(s, out[len(out)-k:])
	}
	return out
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

// ReadSnapshot loads a snapshot written by WriteSnapshot into x, which
// must be empty and built with the options of the snapshot.
func (x *Index) ReadSnapshot(r io.Reader) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.ids) > 0 || x.bands.tailSlots > 0 {
		return errors.New("lshindex: read snapshot: the index is not empty")
	}
	s := &snapReader{r: bufio.NewReaderSize(r, 1<<20), crc: crc32.New(castagnoli), left: sizeOf(r)}
	magic := make([]byte, len(snapshotMagic))
	s.get(magic)
	if s.err == nil && string(magic) != snapshotMagic {
		return errors.New("lshindex: read snapshot: not an lshindex snapshot")
	}
	var h header
	s.get(&h)
	if s.err == nil && h != x.header() {
		return fmt.Errorf("lshindex: read snapshot: written with other options (%+v), this index has %+v", h, x.header())
	}
	y, err := readState(s, x.cfg)
	if err == nil {
		want := s.crc.Sum32()
		var got uint32
		if err = binary.Read(s.r, binary.LittleEndian, &got); err == nil && got != want {
			err = errors.New("checksum mismatch: the snapshot is corrupt")
		}
		// The snapshot is the rest of r (dedup.Snapshotter): anything
		// after it means the file is not what was written.
		if err == nil {
			if n, _ := io.ReadFull(s.r, make([]byte, 1)); n > 0 {
				err = errors.New("bytes after the snapshot")
			}
		}
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("truncated snapshot: %w", err)
		}
		return fmt.Errorf("lshindex: read snapshot: %w", err)
	}
	if err := y.check(); err != nil {
		return fmt.Errorf("lshindex: read snapshot: %w", err)
	}
	y.rebuildMaps()
	x.adopt(y)
	return nil
}

// adopt moves y's state into x (x's locks stay).
func (x *Index) adopt(y *Index) {
	x.ids, x.clusters, x.sims, x.hashes, x.lens, x.bits = y.ids, y.clusters, y.sims, y.hashes, y.lens, y.bits
	x.sigOff, x.sigs, x.titleOff, x.titles, x.spots, x.bigrams, x.df = y.sigOff, y.sigs, y.titleOff, y.titles, y.spots, y.bigrams, y.df
	x.live, x.overflow, x.byID, x.empty, x.winnow, x.merges = y.live, y.overflow, y.byID, y.empty, y.winnow, y.merges
	x.bands, x.head, x.classes = y.bands, y.head, y.classes
}

// readState reads everything after the header into a new index.
func readState(s *snapReader, cfg Config) (*Index, error) {
	y, err := New(cfg)
	if err != nil {
		return nil, err
	}
	var counts [4]uint64
	s.get(&counts)
	y.ids = readGrowable[uint64](s)
	y.clusters = readGrowable[uint64](s)
	y.sims = readGrowable[uint64](s)
	y.hashes = readGrowable[[16]byte](s)
	y.lens = readGrowable[uint32](s)
	y.bits = readGrowable[uint64](s)
	y.sigOff = readGrowable[uint64](s)
	y.sigs = readGrowable[byte](s)
	y.titleOff = readGrowable[uint64](s)
	y.titles = readGrowable[byte](s)
	y.spots.vals = readGrowable[uint64](s)
	y.bigrams.vals = readGrowable[uint64](s)
	y.df = readGrowable[uint32](s)
	var classes [32]uint64
	s.get(&classes)
	for i, c := range classes {
		y.classes[i] = int(c)
	}
	nw := s.count()
	for range nw {
		var kw [2]uint64
		s.get(&kw)
		p := readSlice[uint64](s)
		y.winnow[uint32(kw[0])] = winnowed{prints: p, words: int(kw[1])}
	}
	nm := s.count()
	for range nm {
		var p [2]uint64
		s.get(&p)
		y.merges.Merge(p[1], []uint64{p[0]})
	}
	tail := readSlice[uint64](s)
	if len(tail) > 2*tailSize/2 || len(tail)%2 != 0 {
		return nil, errors.New("band tail too large")
	}
	for i := 0; i+1 < len(tail); i += 2 {
		if tail[i]>>32 >= Bands {
			return nil, errors.New("band tail names an unknown band")
		}
		y.bands.tail.put(tail[i], uint32(tail[i+1]))
	}
	nl := s.count()
	for range min(nl, 64) {
		var n uint64
		s.get(&n)
		var lv [Bands]run
		for b := range Bands {
			lv[b] = run{plain: readSlice[uint64](s), dir: readSlice[uint32](s), low: readSlice[uint16](s), slots: readSlice[uint32](s)}
			if lv[b].dir == nil {
				lv[b] = plainRun(lv[b].plain)
			}
		}
		y.bands.levels = append(y.bands.levels, lv)
		y.bands.levelN = append(y.bands.levelN, int(n))
	}
	nh := s.count()
	for range nh {
		var k uint64
		s.get(&k)
		y.head.lists[k] = readSlice[uint32](s)
		if s.err != nil {
			break
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if nl > 64 {
		return nil, fmt.Errorf("%d levels", nl)
	}
	y.live, y.overflow, y.head.dropped, y.bands.tailSlots = int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3])
	return y, nil
}

// check validates a snapshot's arrays against each other, so that a
// snapshot that passed the checksum but is inconsistent (written by a
// buggy program) is refused rather than trusted.
func (y *Index) check() error {
	n := len(y.ids)
	if len(y.clusters) != n || len(y.sims) != n || len(y.hashes) != n || len(y.lens) != n ||
		len(y.bits) != n*bitmapWords || len(y.sigOff) != n+1 || len(y.titleOff) != n+1 || n > MaxSlots {
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
	if live != y.live {
		return fmt.Errorf("%d live entries, header says %d", live, y.live)
	}
	for k := range y.winnow {
		if int(k) >= n {
			return errors.New("winnowing prints of an unknown entry")
		}
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
	for _, l := range y.head.lists {
		if slices.ContainsFunc(l, func(s uint32) bool { return int(s) >= n }) {
			return errors.New("head list names an unknown entry")
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
		if len(r.low) > 0 || len(r.slots) > 0 || !slices.IsSorted(r.plain) {
			return errors.New("bad plain run")
		}
		if slices.ContainsFunc(r.plain, func(p uint64) bool { return int(uint32(p)) >= n }) {
			return errors.New("run names an unknown entry")
		}
		return nil
	}
	if len(r.dir) != 1<<16+1 || len(r.low) != len(r.slots) || r.dir[0] != 0 || int(r.dir[len(r.dir)-1]) != len(r.slots) ||
		!slices.IsSorted(r.dir) || len(r.plain) > 0 {
		return errors.New("bad packed run")
	}
	if slices.ContainsFunc(r.slots, func(s uint32) bool { return int(s) >= n }) {
		return errors.New("run names an unknown entry")
	}
	return nil
}

// rebuildMaps rebuilds the lookup maps a snapshot does not store.
func (y *Index) rebuildMaps() {
	for s, id := range y.ids {
		if y.lens[s]&deadBit == 0 {
			y.byID[id] = uint32(s)
			if y.sigOff[s] == y.sigOff[s+1] && y.hashes[s] != ([16]byte{}) {
				if _, ok := y.empty[y.hashes[s]]; !ok {
					y.empty[y.hashes[s]] = uint32(s)
				}
			}
		}
	}
	y.spots.code = make(map[uint64]uint32, len(y.spots.vals))
	for i, v := range y.spots.vals {
		y.spots.code[v] = uint32(i)
	}
	y.bigrams.code = make(map[uint64]uint32, len(y.bigrams.vals))
	for i, v := range y.bigrams.vals {
		y.bigrams.code[v] = uint32(i)
	}
}
