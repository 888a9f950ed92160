package lshindex

import (
	"bufio"
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
// A candidate's prints are copied out of the snapshot or the file (the
// caller keeps them; a mapping is released with the index); a read error
// fails the query instead of answering without them.

// coldBuffer is the uint64s of records a spilling index holds in memory
// before it writes them to its file (512 KiB).
const coldBuffer = 1 << 16

// coldFile is the file behind a spilled arena (an *os.File).
type coldFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
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
	// The entries added since: slot first+i's record is [off[i], off[i+1])
	// of the arena (uint64s), in heap or, spilled, in file below flushed
	// and in buf above it. Records are flushed whole.
	first   uint32
	off     []uint64
	heap    []uint64
	dir     string
	file    coldFile
	buf     []uint64
	flushed uint64
}

func newColdStore(first uint32) coldStore {
	return coldStore{first: first, off: []uint64{0}}
}

// SpillCold keeps the winnowing prints of the entries added from now on in
// an unlinked temporary file in dir instead of the heap (see cold.go). It
// is refused once entries were added (a loaded snapshot's are kept in
// place) or when the index already spills. Close releases the file.
func (x *Index) SpillCold(dir string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cold.file != nil {
		return errors.New("lshindex: spill cold data: already spilled")
	}
	if len(x.cold.off) > 1 {
		return errors.New("lshindex: spill cold data: entries were added already")
	}
	f, err := os.CreateTemp(dir, "lshindex-cold-*")
	if err != nil {
		return fmt.Errorf("lshindex: spill cold data: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return fmt.Errorf("lshindex: spill cold data: %w", err)
	}
	x.cold.dir, x.cold.file = dir, f
	return nil
}

// SpillDir is the directory of the file holding the cold data ("" when
// they are in the heap).
func (x *Index) SpillDir() string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.cold.dir
}

// Close releases the file of the spilled cold data (SpillCold): the
// queries that need it fail after. An index that does not spill has
// nothing to release. (The file is closed too when the index is garbage
// collected; being unlinked, it leaves nothing on disk.)
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cold.file == nil {
		return nil
	}
	if err := x.cold.file.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("lshindex: close: %w", err)
	}
	return nil
}

func u64Bytes(v []uint64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

// add records the prints of the entry added in slot (has: it has prints,
// possibly none). On an error nothing is recorded.
func (c *coldStore) add(slot uint32, prints []uint64, words int, has bool) error {
	if want := c.first + uint32(len(c.off)-1); slot != want {
		return fmt.Errorf("cold data of slot %d recorded as slot %d", slot, want)
	}
	n := 0
	if has {
		n = 1 + len(prints)
	}
	if c.file == nil {
		if has {
			c.heap = append(c.heap, uint64(words))
			c.heap = append(c.heap, prints...)
		}
		c.off = append(c.off, uint64(len(c.heap)))
		return nil
	}
	if len(c.buf) > 0 && len(c.buf)+n > coldBuffer {
		if err := c.flush(); err != nil {
			return err
		}
	}
	if has {
		c.buf = append(c.buf, uint64(words))
		c.buf = append(c.buf, prints...)
	}
	c.off = append(c.off, c.flushed+uint64(len(c.buf)))
	return nil
}

// flush writes the buffered records to the file.
func (c *coldStore) flush() error {
	if _, err := c.file.WriteAt(u64Bytes(c.buf), int64(c.flushed*8)); err != nil {
		return fmt.Errorf("write cold data: %w", err)
	}
	c.flushed += uint64(len(c.buf))
	c.buf = c.buf[:0]
	return nil
}

// record reads the record [lo, hi) of the added entries' arena into dst
// (spilled) or returns it in place (in the heap).
func (c *coldStore) record(dst []uint64, lo, hi uint64) ([]uint64, error) {
	if c.file == nil {
		if lo > hi || hi > uint64(len(c.heap)) {
			return nil, errors.New("cold record out of range")
		}
		return c.heap[lo:hi:hi], nil
	}
	if hi > c.flushed {
		if lo < c.flushed || hi-c.flushed > uint64(len(c.buf)) {
			return nil, errors.New("cold record out of range")
		}
		return append(dst, c.buf[lo-c.flushed:hi-c.flushed]...), nil
	}
	n := len(dst)
	dst = append(dst, make([]uint64, hi-lo)...)
	if _, err := c.file.ReadAt(u64Bytes(dst[n:]), int64(lo*8)); err != nil {
		return nil, fmt.Errorf("read cold data: %w", err)
	}
	return dst, nil
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
	r, err := c.record(nil, c.off[i], c.off[i+1])
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
	var r *bufio.Reader
	if c.file != nil {
		r = bufio.NewReaderSize(io.NewSectionReader(c.file, 0, int64(c.flushed*8)), 1<<20)
	}
	var scratch []uint64
	for i := 0; i+1 < len(c.off); i++ {
		lo, hi := c.off[i], c.off[i+1]
		if lo == hi {
			continue
		}
		var rec []uint64
		switch {
		case r != nil && hi <= c.flushed:
			// Read in sequence, kept or not.
			scratch = append(scratch[:0], make([]uint64, hi-lo)...)
			if _, err := io.ReadFull(r, u64Bytes(scratch)); err != nil {
				return fmt.Errorf("read cold data: %w", err)
			}
			rec = scratch
		default:
			var err error
			if rec, err = c.record(scratch[:0], lo, hi); err != nil {
				return err
			}
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
