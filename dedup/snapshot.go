package dedup

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unsafe"

	"github.com/newsdedup/newscrawl/spotsigs"
)

// Snapshotter is an Index that can persist its whole state (entries,
// cluster aliases, candidate keys) and load it back, so that a process
// starting over a large store reads one file sequentially instead of
// rebuilding the index from every stored signature.
type Snapshotter interface {
	// WriteSnapshot writes the whole index state.
	WriteSnapshot(w io.Writer) error
	// ReadSnapshot loads a snapshot into a freshly constructed empty index;
	// it returns an error (leaving the index empty) on a corrupt,
	// truncated or other-options snapshot. A reader that tells its length
	// (*io.LimitedReader, bytes.Reader) lets arrays be allocated at their
	// exact size, and bytes after the snapshot are then an error.
	ReadSnapshot(r io.Reader) error
}

// ErrSnapshot is wrapped by every error of ReadSnapshot about the
// snapshot's content (as opposed to the reader's own errors).
var ErrSnapshot = errors.New("bad index snapshot")

// Snapshot file layout (PrefixIndex): the magic, a version, the index
// options, then each array as a little-endian element count followed by
// its elements, and a CRC-32C of everything before it. Arrays are written
// and read in bulk (on little-endian hosts, straight from and into
// memory), so loading costs a sequential read and the map inserts of the
// dictionaries and posting lists, not a rebuild.
const (
	snapshotMagic   = "NCPXSNAP"
	snapshotVersion = 1
	// snapshotChunk bounds each allocation of the reader: an array's count
	// is only believed as far as its bytes actually arrive.
	snapshotChunk = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// littleEndian reports whether the host stores integers little-endian
// (then arrays are copied as they lie in memory).
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

type word interface{ ~uint8 | ~uint32 | ~uint64 }

// bytesOf is the memory of s.
func bytesOf[T word](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// snapWriter writes a snapshot and its checksum.
type snapWriter struct {
	w   *bufio.Writer
	crc uint32
	err error
	buf []byte
}

func (w *snapWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	w.crc = crc32.Update(w.crc, castagnoli, b)
	_, w.err = w.w.Write(b)
}

func (w *snapWriter) u64(v uint64) { w.write(binary.LittleEndian.AppendUint64(w.buf[:0], v)) }

func writeArray[T word](w *snapWriter, s []T) {
	w.u64(uint64(len(s)))
	if littleEndian {
		w.write(bytesOf(s))
		return
	}
	for _, v := range s {
		switch any(v).(type) {
		case uint8:
			w.write([]byte{byte(v)})
		case uint32:
			w.write(binary.LittleEndian.AppendUint32(w.buf[:0], uint32(v)))
		default:
			w.u64(uint64(v))
		}
	}
}

// snapReader reads a snapshot, checksumming what it reads; the first error
// sticks.
type snapReader struct {
	r   io.Reader
	crc uint32
	err error
	buf [8]byte
	// size is the snapshot's length when the reader tells it
	// (*io.LimitedReader, or a Len method as bytes.Reader has), else -1;
	// read counts the bytes read so far.
	size, done int64
}

func (r *snapReader) read(b []byte) {
	if r.err != nil {
		return
	}
	if _, err := io.ReadFull(r.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: truncated", ErrSnapshot)
		}
		r.err = err
		return
	}
	r.crc = crc32.Update(r.crc, castagnoli, b)
	r.done += int64(len(b))
}

func (r *snapReader) u64() uint64 {
	r.read(r.buf[:])
	if r.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint64(r.buf[:])
}

func (r *snapReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrSnapshot}, a...)...)
	}
}

// readArray reads an array written by writeArray; more than limit
// elements is an error. Memory grows only as the bytes arrive.
func readArray[T word](r *snapReader, what string, limit uint64) []T {
	n := r.u64()
	if r.err != nil {
		return nil
	}
	if n > limit {
		r.fail("%s: %d elements, at most %d expected", what, n, limit)
		return nil
	}
	var z T
	size := int(unsafe.Sizeof(z))
	if r.size >= 0 {
		// The length is known: an array that does not fit is a
		// truncated snapshot, and one that does is read at once into an
		// array of its exact size.
		if n > uint64(r.size-r.done)/uint64(size) {
			r.fail("truncated: %s of %d elements past the end", what, n)
			return nil
		}
		if littleEndian {
			out := make([]T, n)
			r.read(bytesOf(out))
			if r.err != nil {
				return nil
			}
			return out
		}
	}
	out := make([]T, 0, min(n, snapshotChunk))
	for uint64(len(out)) < n && r.err == nil {
		k := int(min(n-uint64(len(out)), snapshotChunk))
		start := len(out)
		out = append(out, make([]T, k)...)
		part := out[start:]
		if littleEndian {
			r.read(bytesOf(part))
			continue
		}
		b := make([]byte, k*size)
		r.read(b)
		for i := range part {
			switch size {
			case 1:
				part[i] = T(b[i])
			case 4:
				part[i] = T(binary.LittleEndian.Uint32(b[4*i:]))
			default:
				part[i] = T(binary.LittleEndian.Uint64(b[8*i:]))
			}
		}
	}
	if r.err != nil {
		return nil
	}
	return out
}

// WriteSnapshot implements Snapshotter. Entries added since the last build
// of the postings are built first, so that the snapshot holds ready
// postings.
func (m *PrefixIndex) WriteSnapshot(out io.Writer) error {
	m.ensureBuilt()
	m.mu.RLock()
	defer m.mu.RUnlock()
	st, err := m.x.State()
	if err != nil {
		return fmt.Errorf("dedup: snapshot: %w", err)
	}
	w := &snapWriter{w: bufio.NewWriterSize(out, 1<<20), buf: make([]byte, 0, 8)}
	w.write([]byte(snapshotMagic))
	w.u64(snapshotVersion)
	m.writeHeader(w)
	writeArray(w, m.ids)
	writeArray(w, m.clusters)
	writeArray(w, m.sims)
	writeArray(w, hashBytes(m.hashes))
	writeArray(w, m.spots.vals)
	writeArray(w, m.sigOff)
	writeArray(w, m.sigs)
	writeArray(w, m.bigrams.vals)
	writeArray(w, m.titleOff)
	writeArray(w, m.titles)
	dead := make([]uint8, len(m.dead))
	for i, d := range m.dead {
		if d {
			dead[i] = 1
		}
	}
	writeArray(w, dead)
	m.writeMerges(w)
	m.writeWinnow(w)
	var spots []uint64
	var dfs []uint32
	m.x.Order().Frequencies(func(s uint64, df uint32) { spots, dfs = append(spots, s), append(dfs, df) })
	writeArray(w, spots)
	writeArray(w, dfs)
	for _, a := range [][]uint64{st.PreKeys, st.HeadKeys} {
		writeArray(w, a)
	}
	for _, a := range [][]uint32{st.PreOff, st.Pre, st.HeadOff, st.Head, st.Lens} {
		writeArray(w, a)
	}
	writeArray(w, st.Bits)
	crc := w.crc
	w.write(binary.LittleEndian.AppendUint32(nil, crc))
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		return fmt.Errorf("dedup: write snapshot: %w", w.err)
	}
	return nil
}

func (m *PrefixIndex) writeHeader(w *snapWriter) {
	w.u64(math.Float64bits(m.cfg.Jaccard))
	w.u64(math.Float64bits(m.cfg.Containment))
	w.u64(uint64(m.cfg.MinContainment))
	var flags uint64
	if m.frozen {
		flags |= 1
	}
	w.u64(flags)
	w.u64(uint64(m.built))
	w.u64(uint64(m.overflow))
}

func (m *PrefixIndex) writeMerges(w *snapWriter) {
	keys := make([]uint64, 0, len(m.merges.merged))
	vals := make([]uint64, 0, len(m.merges.merged))
	for k, v := range m.merges.merged {
		keys, vals = append(keys, k), append(vals, v)
	}
	writeArray(w, keys)
	writeArray(w, vals)
}

func (m *PrefixIndex) writeWinnow(w *snapWriter) {
	slots := make([]uint32, 0, len(m.winnow))
	words := make([]uint64, 0, len(m.winnow))
	off := []uint64{0}
	var prints []uint64
	for s, x := range m.winnow {
		slots, words = append(slots, s), append(words, uint64(x.words))
		prints = append(prints, x.prints...)
		off = append(off, uint64(len(prints)))
	}
	writeArray(w, slots)
	writeArray(w, words)
	writeArray(w, off)
	writeArray(w, prints)
}

func hashBytes(h [][16]byte) []byte {
	if len(h) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h))), 16*len(h))
}

// snapParts are a snapshot's arrays as read, before validation.
type snapParts struct {
	frozen               bool
	built, overflow      uint64
	ids, clusters, sims  []uint64
	hashes               []uint8
	spotVals, bigramVals []uint64
	sigOff, sigs         []uint32
	titleOff, titles     []uint32
	dead                 []uint8
	mergeKeys, mergeVals []uint64
	winSlots             []uint32
	winWords, winOff     []uint64
	winPrints            []uint64
	orderSpots           []uint64
	orderDF              []uint32
	state                spotsigs.PrefixState
}

// ReadSnapshot implements Snapshotter. m must be empty and constructed
// with the options the snapshot was written with.
func (m *PrefixIndex) ReadSnapshot(in io.Reader) error {
	m.mu.RLock()
	empty := len(m.ids) == 0 && m.overflow == 0 && len(m.merges.merged) == 0
	m.mu.RUnlock()
	if !empty {
		return errors.New("dedup: read snapshot into a non-empty index")
	}
	r := &snapReader{r: bufio.NewReaderSize(in, 1<<20), size: -1}
	switch v := in.(type) {
	case *io.LimitedReader:
		r.size = v.N
	case interface{ Len() int }:
		r.size = int64(v.Len())
	}
	p := m.readParts(r)
	if r.err != nil {
		return fmt.Errorf("dedup: read snapshot: %w", r.err)
	}
	n, err := m.assemble(p)
	if err != nil {
		return fmt.Errorf("dedup: read snapshot: %w: %w", ErrSnapshot, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.ids) != 0 {
		return errors.New("dedup: read snapshot into a non-empty index")
	}
	m.x, m.built, m.frozen, m.pending = n.x, n.built, n.frozen, false
	m.ids, m.clusters, m.sims, m.hashes = n.ids, n.clusters, n.sims, n.hashes
	m.spots, m.bigrams = n.spots, n.bigrams
	m.sigOff, m.sigs, m.titleOff, m.titles = n.sigOff, n.sigs, n.titleOff, n.titles
	m.dead, m.live, m.overflow, m.byID, m.emptySigs = n.dead, n.live, n.overflow, n.byID, n.emptySigs
	m.merges, m.winnow = n.merges, n.winnow
	return nil
}

// readParts reads the arrays and checks the magic, version, options and
// checksum.
func (m *PrefixIndex) readParts(r *snapReader) *snapParts {
	magic := make([]byte, len(snapshotMagic))
	r.read(magic)
	if r.err == nil && string(magic) != snapshotMagic {
		r.fail("not an index snapshot")
	}
	if v := r.u64(); r.err == nil && v != snapshotVersion {
		r.fail("version %d, this program reads %d", v, snapshotVersion)
	}
	tau, theta, minC := math.Float64frombits(r.u64()), math.Float64frombits(r.u64()), r.u64()
	if r.err == nil && (tau != m.cfg.Jaccard || theta != m.cfg.Containment || minC != uint64(m.cfg.MinContainment)) {
		r.fail("written for jaccard %v, containment %v, min containment spots %d; this index has %v, %v, %d",
			tau, theta, minC, m.cfg.Jaccard, m.cfg.Containment, m.cfg.MinContainment)
	}
	p := &snapParts{}
	flags := r.u64()
	if r.err == nil && flags&^1 != 0 {
		r.fail("unknown flags %#x", flags)
	}
	p.frozen = flags&1 != 0
	p.built, p.overflow = r.u64(), r.u64()
	const big = math.MaxUint32
	slots := uint64(spotsigs.MaxPrefixSlots)
	p.ids = readArray[uint64](r, "ids", slots)
	p.clusters = readArray[uint64](r, "clusters", slots)
	p.sims = readArray[uint64](r, "simhashes", slots)
	p.hashes = readArray[uint8](r, "text hashes", 16*slots)
	p.spotVals = readArray[uint64](r, "spot dictionary", big)
	p.sigOff = readArray[uint32](r, "signature offsets", slots+1)
	p.sigs = readArray[uint32](r, "signatures", big)
	p.bigramVals = readArray[uint64](r, "bigram dictionary", big)
	p.titleOff = readArray[uint32](r, "headline offsets", slots+1)
	p.titles = readArray[uint32](r, "headlines", big)
	p.dead = readArray[uint8](r, "removed", slots)
	p.mergeKeys = readArray[uint64](r, "merged clusters", big)
	p.mergeVals = readArray[uint64](r, "merge targets", big)
	p.winSlots = readArray[uint32](r, "winnowed slots", slots)
	p.winWords = readArray[uint64](r, "winnowed words", slots)
	p.winOff = readArray[uint64](r, "winnowing offsets", slots+1)
	p.winPrints = readArray[uint64](r, "winnowing fingerprints", 1<<40)
	p.orderSpots = readArray[uint64](r, "order spots", big)
	p.orderDF = readArray[uint32](r, "order frequencies", big)
	st := &p.state
	st.PreKeys = readArray[uint64](r, "prefix keys", big)
	st.HeadKeys = readArray[uint64](r, "head keys", big)
	st.PreOff = readArray[uint32](r, "prefix offsets", big)
	st.Pre = readArray[uint32](r, "prefix postings", big)
	st.HeadOff = readArray[uint32](r, "head offsets", big)
	st.Head = readArray[uint32](r, "head postings", big)
	st.Lens = readArray[uint32](r, "lengths", slots)
	st.Bits = readArray[uint64](r, "bitmaps", spotsigs.BitmapWords*slots)
	want := r.crc
	var sum [4]byte
	r.read(sum[:])
	if r.err == nil && binary.LittleEndian.Uint32(sum[:]) != want {
		r.fail("checksum mismatch")
	}
	if r.err == nil && r.size >= 0 && r.done != r.size {
		r.fail("%d bytes after the snapshot", r.size-r.done)
	}
	return p
}

// assemble validates the parts and builds the index they describe (its
// mutex unused: the caller copies the fields).
func (m *PrefixIndex) assemble(p *snapParts) (*PrefixIndex, error) {
	n := len(p.ids)
	if len(p.clusters) != n || len(p.sims) != n || len(p.hashes) != 16*n || len(p.dead) != n || len(p.state.Lens) != n {
		return nil, fmt.Errorf("arrays of %d ids, %d clusters, %d simhashes, %d hash bytes, %d removed flags, %d lengths disagree",
			n, len(p.clusters), len(p.sims), len(p.hashes), len(p.dead), len(p.state.Lens))
	}
	if p.built > uint64(n) || p.overflow > math.MaxInt32 {
		return nil, fmt.Errorf("built %d of %d entries, overflow %d", p.built, n, p.overflow)
	}
	x := &PrefixIndex{cfg: m.cfg, built: int(p.built), frozen: p.frozen, overflow: int(p.overflow),
		ids: p.ids, clusters: p.clusters, sims: p.sims, sigOff: p.sigOff, sigs: p.sigs, titleOff: p.titleOff, titles: p.titles,
		byID: make(map[uint64]uint32, n), emptySigs: map[[16]byte]uint32{}, merges: NewClusterMerges(), winnow: map[uint32]winnowed{}}
	var err error
	if x.spots, err = dictOf(p.spotVals, "spot"); err != nil {
		return nil, err
	}
	if x.bigrams, err = dictOf(p.bigramVals, "bigram"); err != nil {
		return nil, err
	}
	if err := checkArena(p.sigOff, p.sigs, n, len(p.spotVals), "signature"); err != nil {
		return nil, err
	}
	if err := checkArena(p.titleOff, p.titles, n, len(p.bigramVals), "headline"); err != nil {
		return nil, err
	}
	x.hashes = make([][16]byte, n)
	copy(hashBytes(x.hashes), p.hashes)
	x.dead = make([]bool, n)
	for s := range n {
		if err := x.slotOf(p, s); err != nil {
			return nil, err
		}
	}
	if err := x.mergesOf(p); err != nil {
		return nil, err
	}
	if err := x.winnowOf(p); err != nil {
		return nil, err
	}
	if err := x.postingsOf(p); err != nil {
		return nil, err
	}
	return x, nil
}

// slotOf checks slot s against its removed flag and length and indexes it
// by id and, without spots, by text hash.
func (x *PrefixIndex) slotOf(p *snapParts, s int) error {
	ln := p.state.Lens[s]
	sigLen := x.sigOff[s+1] - x.sigOff[s]
	switch {
	case p.dead[s] > 1:
		return fmt.Errorf("slot %d: removed flag %d", s, p.dead[s])
	case p.dead[s] == 1:
		if ln&(1<<31) == 0 {
			return fmt.Errorf("slot %d is removed but its postings are live", s)
		}
		x.dead[s] = true
		return nil
	case ln != sigLen:
		return fmt.Errorf("slot %d: %d tokens indexed for a signature of %d spots", s, ln, sigLen)
	}
	id := x.ids[s]
	if _, dup := x.byID[id]; dup {
		return fmt.Errorf("id %d indexed twice", id)
	}
	x.byID[id] = uint32(s)
	x.live++
	if h := x.hashes[s]; sigLen == 0 && h != ([16]byte{}) {
		if _, ok := x.emptySigs[h]; !ok {
			x.emptySigs[h] = uint32(s)
		}
	}
	return nil
}

func (x *PrefixIndex) mergesOf(p *snapParts) error {
	if len(p.mergeKeys) != len(p.mergeVals) {
		return fmt.Errorf("%d merged clusters, %d targets", len(p.mergeKeys), len(p.mergeVals))
	}
	for i, k := range p.mergeKeys {
		if _, dup := x.merges.merged[k]; dup {
			return fmt.Errorf("cluster %d merged twice", k)
		}
		x.merges.merged[k] = p.mergeVals[i]
	}
	for k, v := range x.merges.merged {
		if _, chained := x.merges.merged[v]; chained || v == k {
			return fmt.Errorf("cluster %d merged into %d, which is merged itself", k, v)
		}
		x.merges.aliases[v] = append(x.merges.aliases[v], k)
	}
	return nil
}

func (x *PrefixIndex) winnowOf(p *snapParts) error {
	k := len(p.winSlots)
	if len(p.winWords) != k || len(p.winOff) != k+1 || p.winOff[0] != 0 || p.winOff[k] != uint64(len(p.winPrints)) {
		return fmt.Errorf("winnowing arrays of %d slots, %d counts, %d offsets, %d fingerprints disagree",
			k, len(p.winWords), len(p.winOff), len(p.winPrints))
	}
	for i, s := range p.winSlots {
		a, b := p.winOff[i], p.winOff[i+1]
		if int(s) >= len(x.ids) || a > b || p.winWords[i] > math.MaxInt32 {
			return fmt.Errorf("winnowing entry %d (slot %d, fingerprints %d-%d) out of range", i, s, a, b)
		}
		if _, dup := x.winnow[s]; dup {
			return fmt.Errorf("winnowing of slot %d listed twice", s)
		}
		x.winnow[s] = winnowed{prints: p.winPrints[a:b:b], words: int(p.winWords[i])}
	}
	return nil
}

// postingsOf builds the order and the candidate index from the snapshot.
func (x *PrefixIndex) postingsOf(p *snapParts) error {
	if len(p.orderSpots) != len(p.orderDF) {
		return fmt.Errorf("order of %d spots, %d frequencies", len(p.orderSpots), len(p.orderDF))
	}
	df := make(map[uint64]uint32, len(p.orderSpots))
	for i, s := range p.orderSpots {
		if p.orderDF[i] == 0 || (i > 0 && s <= p.orderSpots[i-1]) {
			return fmt.Errorf("order entry %d (spot %#x, frequency %d) out of order", i, s, p.orderDF[i])
		}
		df[s] = p.orderDF[i]
	}
	idx, err := spotsigs.NewPrefixIndex(spotsigs.NewOrder(df), x.cfg)
	if err != nil {
		return err
	}
	if err := idx.Restore(p.state); err != nil {
		return err
	}
	x.x = idx
	return nil
}

// dictOf rebuilds a dictionary from its values, which must be distinct.
func dictOf(vals []uint64, what string) (dict, error) {
	d := dict{code: make(map[uint64]uint32, len(vals)), vals: vals}
	for i, v := range vals {
		if _, dup := d.code[v]; dup {
			return dict{}, fmt.Errorf("%s %#x twice in the dictionary", what, v)
		}
		d.code[v] = uint32(i)
	}
	return d, nil
}

// checkArena checks the offsets of n entries into an arena of codes below
// limit.
func checkArena(off, codes []uint32, n, limit int, what string) error {
	if len(off) != n+1 || off[0] != 0 || int(off[n]) != len(codes) {
		return fmt.Errorf("%d %s offsets for %d entries and %d codes", len(off), what, n, len(codes))
	}
	for i := range n {
		if off[i] > off[i+1] {
			return fmt.Errorf("%s offsets out of order at entry %d", what, i)
		}
	}
	for _, c := range codes {
		if int(c) >= limit {
			return fmt.Errorf("%s code %d past the dictionary's %d values", what, c, limit)
		}
	}
	return nil
}
