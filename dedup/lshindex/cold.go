package lshindex

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unsafe"
)

// Cold data. An entry's winnowing prints (dedup.Entry.Prints and
// ContentWords, the evidence of the partial-reprint rule) are most of the
// bytes it holds, yet they are read only for the candidates a query
// returns, never to find them. They are kept out of the arrays the
// queries scan and out of the Go heap's pointers:
//
//   - the entries of a loaded snapshot: in place in the snapshot's bytes
//     (a mapped file's pages), located by a table sorted by slot;
//   - the entries added since: one record per slot ([words, prints…], none
//     for an entry without prints) appended to a pointer-free arena, in
//     the heap, or, once SpillCold named a directory, in an unlinked
//     temporary file there, read back with pread: the page cache holds
//     them, not the process, and the kernel drops them under pressure.
//
// A spilling index keeps its added entries' signature and headline codes
// (appendCodes; decoded for every candidate returned, never to find one)
// in two more such files; a snapshot's arenas of codes are its own
// (x.sigs, x.titles), and the snapshot written streams both, so its
// format does not depend on where the codes were.
//
// A candidate's prints are copied out of the snapshot or the file (the
// caller keeps them; a mapping is released with the index); a read error
// fails the query instead of answering without them.

// coldBufferBytes is what a spilling arena holds in memory before it
// writes it to its file (512 KiB).
const coldBufferBytes = 1 << 19

// coldFile is the file behind a spilled arena (an *os.File).
type coldFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

// coldArena is an append-only arena of T, in the heap or, with a file,
// in the file below flushed and in buf above it. Records are flushed
// whole (ready flushes before a record is put), so none straddles the two.
type coldArena[T byte | uint64] struct {
	heap    []T
	file    coldFile
	buf     []T
	flushed uint64 // elements written to file
	limit   int    // buffer bytes (0: coldBufferBytes; tests make it small)
}

// elSize is the size of a T in bytes.
func elSize[T byte | uint64]() int64 {
	var zero T
	return int64(unsafe.Sizeof(zero))
}

func asBytes[T byte | uint64](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(zero)))
}

// size is the number of elements put.
func (a *coldArena[T]) size() uint64 {
	if a.file == nil {
		return uint64(len(a.heap))
	}
	return a.flushed + uint64(len(a.buf))
}

// ready writes a full buffer to the file, so that the next put cannot fail.
func (a *coldArena[T]) ready() error {
	if a.file == nil || len(asBytes(a.buf)) < cmp.Or(a.limit, coldBufferBytes) {
		return nil
	}
	if _, err := a.file.WriteAt(asBytes(a.buf), int64(a.flushed)*elSize[T]()); err != nil {
		return fmt.Errorf("write cold data: %w", err)
	}
	a.flushed += uint64(len(a.buf))
	a.buf = a.buf[:0]
	return nil
}

// put appends one record.
func (a *coldArena[T]) put(parts ...[]T) {
	for _, p := range parts {
		if a.file == nil {
			a.heap = append(a.heap, p...)
		} else {
			a.buf = append(a.buf, p...)
		}
	}
}

// read returns the record [lo, hi): in place in the heap, else appended
// to dst (from the buffer, or read from the file).
func (a *coldArena[T]) read(dst []T, lo, hi uint64) ([]T, error) {
	if lo > hi || hi > a.size() {
		return nil, errors.New("cold record out of range")
	}
	if a.file == nil {
		return a.heap[lo:hi:hi], nil
	}
	if hi > a.flushed {
		if lo < a.flushed {
			return nil, errors.New("cold record straddles the file's end")
		}
		return append(dst, a.buf[lo-a.flushed:hi-a.flushed]...), nil
	}
	n := len(dst)
	dst = append(dst, make([]T, hi-lo)...)
	if _, err := a.file.ReadAt(asBytes(dst[n:]), int64(lo)*elSize[T]()); err != nil && hi > lo {
		return nil, fmt.Errorf("read cold data: %w", err)
	}
	return dst, nil
}

// coldStream reads an arena's records in order: the file through one
// buffered sequential reader instead of a pread a record.
type coldStream[T byte | uint64] struct {
	a       *coldArena[T]
	r       *bufio.Reader
	pos     uint64
	scratch []T
}

func (a *coldArena[T]) stream() *coldStream[T] {
	s := &coldStream[T]{a: a}
	if a.file != nil {
		s.r = bufio.NewReaderSize(io.NewSectionReader(a.file, 0, int64(a.flushed)*elSize[T]()), 1<<20)
	}
	return s
}

// next returns the next n elements (what the file holds of them read in
// sequence, the rest from the buffer), valid until the next call.
func (s *coldStream[T]) next(n uint64) ([]T, error) {
	lo, hi := s.pos, s.pos+n
	if s.r == nil {
		s.pos = hi
		return s.a.read(nil, lo, hi)
	}
	if hi > s.a.size() {
		return nil, errors.New("cold record out of range")
	}
	mid := min(max(lo, s.a.flushed), hi)
	s.scratch = append(s.scratch[:0], make([]T, mid-lo)...)
	if _, err := io.ReadFull(s.r, asBytes(s.scratch)); err != nil {
		return nil, fmt.Errorf("read cold data: %w", err)
	}
	s.pos = hi
	if hi > mid {
		s.scratch = append(s.scratch, s.a.buf[mid-s.a.flushed:hi-s.a.flushed]...)
	}
	return s.scratch, nil
}

// coldStore holds the cold data of an index's entries (x.mu guards it).
type coldStore struct {
	// The snapshot's entries with prints: slot (ascending), byte offset of
	// the prints in base, their number, the entry's content words.
	base      []byte
	baseSlots []uint32
	baseAt    []uint64
	baseN     []uint32
	baseWords []uint64
	// The entries added since: slot first+i's prints record is
	// [off[i], off[i+1]) of prints.
	first  uint32
	off    []uint64
	prints coldArena[uint64]
	// Spilled, the signature and headline codes of the entries added
	// (appendCodes) are in sigs and titles: slot s's signature is
	// sigs[sigOff[s]−len(x.sigs) : sigOff[s+1]−len(x.sigs)] (x.sigs holds
	// the loaded snapshot's only). Without a spill they are in x.sigs and
	// x.titles.
	sigs, titles coldArena[byte]
	dir          string
	scratch      []byte
}

func newColdStore(first uint32) coldStore {
	return coldStore{first: first, off: []uint64{0}}
}

// spilled reports whether the cold data of the added entries are in files.
func (c *coldStore) spilled() bool { return c.prints.file != nil }

// files are the arenas' files (nil when not spilled).
func (c *coldStore) files() []*coldFile {
	return []*coldFile{&c.prints.file, &c.sigs.file, &c.titles.file}
}

// takeSpill makes c spill where d does (d has no added entries).
func (c *coldStore) takeSpill(d *coldStore) {
	c.dir = d.dir
	for i, f := range d.files() {
		*c.files()[i] = *f
	}
}

// SpillCold keeps the winnowing prints and the signature and headline
// codes of the entries added from now on in unlinked temporary files in
// dir instead of the heap (see cold.go). It is refused once entries were
// added (a loaded snapshot's are kept in place) or when the index already
// spills. Close releases the files.
func (x *Index) SpillCold(dir string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cold.spilled() {
		return errors.New("lshindex: spill cold data: already spilled")
	}
	if len(x.cold.off) > 1 {
		return errors.New("lshindex: spill cold data: entries were added already")
	}
	var made []*os.File
	for range x.cold.files() {
		f, err := os.CreateTemp(dir, "lshindex-cold-*")
		if err == nil {
			made = append(made, f)
			err = os.Remove(f.Name())
		}
		if err != nil {
			for _, f := range made {
				f.Close()
			}
			return fmt.Errorf("lshindex: spill cold data: %w", err)
		}
	}
	for i, f := range x.cold.files() {
		*f = made[i]
	}
	x.cold.dir = dir
	return nil
}

// SpillDir is the directory of the files holding the cold data ("" when
// they are in the heap).
func (x *Index) SpillDir() string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.cold.dir
}

// Close releases the files of the spilled cold data (SpillCold): the
// queries that need them fail after. An index that does not spill has
// nothing to release. (The files are closed too when the index is garbage
// collected; being unlinked, they leave nothing on disk.)
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.cold.close()
}

func (c *coldStore) close() error {
	var errs []error
	for _, f := range c.files() {
		if *f == nil {
			continue
		}
		if err := (*f).Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("lshindex: close: %w", err)
	}
	return nil
}

// add makes room for the next entry's cold data (writing full buffers)
// and records its prints (has: it has prints, possibly none); the codes
// follow (putCodes), which cannot fail then. On an error nothing is
// recorded.
func (c *coldStore) add(slot uint32, prints []uint64, words int, has bool) error {
	if want := c.first + uint32(len(c.off)-1); slot != want {
		return fmt.Errorf("cold data of slot %d recorded as slot %d", slot, want)
	}
	for _, err := range []error{c.prints.ready(), c.sigs.ready(), c.titles.ready()} {
		if err != nil {
			return err
		}
	}
	if has {
		c.prints.put([]uint64{uint64(words)}, prints)
	}
	c.off = append(c.off, c.prints.size())
	return nil
}

// putCodes appends an entry's codes (appendCodes) to arena, or, spilled,
// to the cold arena a, and returns arena and the end offset of the
// entry's codes among all entries'.
func (c *coldStore) putCodes(arena []byte, a *coldArena[byte], codes []uint32) ([]byte, uint64) {
	if !c.spilled() {
		arena = appendCodes(arena, codes)
		return arena, uint64(len(arena))
	}
	c.scratch = appendCodes(c.scratch[:0], codes)
	a.put(c.scratch)
	return arena, uint64(len(arena)) + a.size()
}

// codes returns slot s's codes: in arena (offsets off) for an entry of
// the snapshot or when nothing spills, else from the cold arena a.
func (c *coldStore) codes(arena []byte, off []uint64, a *coldArena[byte], s uint32) ([]byte, error) {
	if !c.spilled() || s < c.first {
		return arenaOf(arena, off, s), nil
	}
	base := uint64(len(arena))
	if off[s] < base || off[s+1] < off[s] {
		return nil, errors.New("cold codes out of range")
	}
	return a.read(nil, off[s]-base, off[s+1]-base)
}

// entryCodes returns the signature and headline codes of slot s.
func (x *Index) entryCodes(s uint32) (sig, title []byte, err error) {
	if sig, err = x.cold.codes(x.sigs, x.sigOff, &x.cold.sigs, s); err == nil {
		title, err = x.cold.codes(x.titles, x.titleOff, &x.cold.titles, s)
	}
	return sig, title, err
}

// writeCodes writes an arena of codes as writeSlice does: arena and,
// spilled, the cold arena a after it, streamed.
func (x *Index) writeCodes(s *snapWriter, arena []byte, a *coldArena[byte]) {
	if !x.cold.spilled() {
		writeSlice(s, arena, true)
		return
	}
	n := uint64(len(arena)) + a.size()
	s.put(n)
	if s.err != nil || n == 0 {
		return
	}
	s.align(growAlign)
	s.bytes(arena)
	st := a.stream()
	for left := a.size(); left > 0 && s.err == nil; {
		b, err := st.next(min(left, 1<<20))
		if err != nil {
			s.err = err
			return
		}
		s.bytes(b)
		left -= uint64(len(b))
	}
}

// get returns the prints and content words of slot's entry; ok is false
// when it has none. The prints are the caller's (or, in the heap arena,
// never written again).
func (c *coldStore) get(slot uint32) (prints []uint64, words int, ok bool, err error) {
	if slot < c.first {
		i, found := slices.BinarySearch(c.baseSlots, slot)
		if !found {
			return nil, 0, false, nil
		}
		return c.basePrints(i), int(c.baseWords[i]), true, nil
	}
	i := int(slot - c.first)
	if i+1 >= len(c.off) || c.off[i] == c.off[i+1] {
		return nil, 0, false, nil
	}
	r, err := c.prints.read(nil, c.off[i], c.off[i+1])
	if err != nil {
		return nil, 0, false, err
	}
	return r[1:], int(r[0]), true, nil
}

// basePrints is a copy of the prints of the i-th snapshot entry (nil when
// it has none, as the snapshot reads them).
func (c *coldStore) basePrints(i int) []uint64 {
	n, at := uint64(c.baseN[i]), c.baseAt[i]
	if n == 0 || at+8*n > uint64(len(c.base)) {
		return nil
	}
	return slices.Clone(unsafe.Slice((*uint64)(unsafe.Pointer(&c.base[at])), n))
}

// count is the number of entries with prints that keep keeps.
func (c *coldStore) count(keep func(uint32) bool) int {
	n := 0
	for _, s := range c.baseSlots {
		if keep(s) {
			n++
		}
	}
	for i := 0; i+1 < len(c.off); i++ {
		if c.off[i] != c.off[i+1] && keep(c.first+uint32(i)) {
			n++
		}
	}
	return n
}

// each calls fn, in slot order, for every entry with prints that keep
// keeps; prints is valid during the call only. A spilled arena is read
// in sequence, not a record at a time.
func (c *coldStore) each(keep func(uint32) bool, fn func(slot uint32, words uint64, prints []uint64)) error {
	for i, s := range c.baseSlots {
		if keep(s) {
			n, at := uint64(c.baseN[i]), c.baseAt[i]
			var p []uint64
			if n > 0 && at+8*n <= uint64(len(c.base)) {
				p = unsafe.Slice((*uint64)(unsafe.Pointer(&c.base[at])), n)
			}
			fn(s, c.baseWords[i], p)
		}
	}
	st := c.prints.stream()
	for i := 0; i+1 < len(c.off); i++ {
		if c.off[i] == c.off[i+1] {
			continue
		}
		rec, err := st.next(c.off[i+1] - c.off[i]) // read in sequence, kept or not
		if err != nil {
			return err
		}
		if s := c.first + uint32(i); keep(s) {
			fn(s, rec[0], rec[1:])
		}
	}
	return nil
}

// readCold reads the snapshot's winnowing prints (written by writeCold)
// in place: a table of where each entry's are in s's bytes.
func readCold(s *parser, y *Index) error {
	nw := s.count()
	c := &y.cold
	for range nw {
		k, words := s.u64(), s.u64()
		p := view[uint64](s, false)
		if s.err != nil {
			return s.err
		}
		if k > MaxSlots || (len(c.baseSlots) > 0 && uint32(k) <= c.baseSlots[len(c.baseSlots)-1]) {
			return errors.New("winnowing prints out of order")
		}
		at := uint64(0)
		if len(p) > 0 {
			at = uint64(uintptr(unsafe.Pointer(&p[0])) - uintptr(unsafe.Pointer(&s.b[0])))
		}
		c.baseSlots, c.baseAt = append(c.baseSlots, uint32(k)), append(c.baseAt, at)
		c.baseN, c.baseWords = append(c.baseN, uint32(len(p))), append(c.baseWords, words)
	}
	if nw > 0 {
		c.base = s.b
	}
	return nil
}

// writeCold writes the winnowing prints of the live entries, by slot.
func (x *Index) writeCold(s *snapWriter) {
	s.put(uint64(x.cold.count(x.keep)))
	err := x.cold.each(x.keep, func(slot uint32, words uint64, prints []uint64) {
		s.put([]uint64{uint64(slot), words})
		writeSlice(s, prints, false)
	})
	if err != nil && s.err == nil {
		s.err = err
	}
}
