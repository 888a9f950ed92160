package lshindex

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mapped snapshots. A snapshot's arrays are written as they lie in memory,
// each aligned (snapshot.go), so a process can use them in place from a
// memory mapping of the file instead of reading them: start-up costs the
// header, the structural check and the lookup maps, not a read of the
// file, and the resident memory of a run is the pages its queries touch.
//
// The mapping is private (MAP_PRIVATE, copy-on-write): the file is never
// written through it, and an entry removed or a head list trimmed in
// place changes a private copy of that page only. The arrays that grow
// with every entry added (ids, bitmaps, arenas, …) start at a multiple of
// growAlign in the file and are each mapped at the start of a larger
// reserved region of anonymous memory, so that the entries a run adds
// are appended in place, in memory, without copying what the file holds.
// Writing the index (WriteSnapshot) goes on writing the whole state; a
// run's delta is WriteDelta (delta.go).
//
// The file must not be truncated or rewritten in place while it is
// mapped (a write replaces it by renaming a new file over it, which leaves
// the mapping on the old one).

const (
	// growAlign is the alignment of the growable arrays in a snapshot: a
	// multiple of every page size in use (4 KiB to 64 KiB).
	growAlign = 1 << 16
	// minGrowRoom is the least room (bytes of address space, reserved
	// without memory) left after a mapped growable array; past it an
	// append copies the array into the heap as usual.
	minGrowRoom = 64 << 20
)

// parser reads a snapshot held in memory; the first error sticks. Arrays
// are views of b, not copies.
type parser struct {
	b   []byte
	pos int
	err error
	// grow, when set, returns a view of b[off:off+n] with room to grow
	// (a mapped region), or nil to use b itself.
	grow func(off, n int) []byte
}

func (p *parser) take(n int) []byte {
	if p.err != nil {
		return nil
	}
	if n < 0 || n > len(p.b)-p.pos {
		p.err = fmt.Errorf("truncated snapshot: %w", io.ErrUnexpectedEOF)
		return nil
	}
	b := p.b[p.pos : p.pos+n : p.pos+n]
	p.pos += n
	return b
}

func (p *parser) u64() uint64 {
	b := p.take(8)
	if p.err != nil {
		return 0
	}
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func (p *parser) count() int {
	n := p.u64()
	if p.err == nil && n > maxSnapshotLen {
		p.err = fmt.Errorf("array length %d out of range", n)
	}
	if p.err != nil {
		return 0
	}
	return int(n)
}

// view returns the next array (written by writeSlice) in place: a slice
// of b whose capacity ends with it, or, for a growable array when grow
// gives one, a slice of a mapped region with room after it.
func view[T any](p *parser, growable bool) []T {
	n := p.count()
	if n == 0 || p.err != nil {
		return nil
	}
	a := 8
	if growable {
		a = growAlign
	}
	if pad := (a - p.pos%a) % a; pad > 0 {
		p.take(pad)
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if p.err == nil && n > (len(p.b)-p.pos)/size {
		p.err = fmt.Errorf("truncated snapshot: array of %d elements: %w", n, io.ErrUnexpectedEOF)
	}
	off := p.pos
	b := p.take(n * size)
	if p.err != nil {
		return nil
	}
	if growable && p.grow != nil {
		if g := p.grow(off, n*size); g != nil {
			b = g
		}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), cap(b)/size)[:n]
}

// MapSnapshot makes x, which must be empty, the index of the snapshot
// held in f's bytes [off, off+size) (as WriteSnapshot wrote it; off a
// multiple of the page size), using its arrays in place from a private
// mapping of the file. Unless verify is set, only the header (options)
// and the structure are checked, in time independent of the snapshot's
// size; verify also checks the checksum and every array (ReadSnapshot's
// checks), reading the whole file. The mappings are released when x is
// garbage collected.
func (x *Index) MapSnapshot(f *os.File, off, size int64, verify bool) error {
	if off%int64(os.Getpagesize()) != 0 {
		return fmt.Errorf("lshindex: map snapshot: offset %d is not page aligned", off)
	}
	if size <= 0 || size > maxSnapshotLen || int64(int(size)) != size {
		return errors.New("lshindex: map snapshot: truncated snapshot: empty")
	}
	const prot, flags = unix.PROT_READ | unix.PROT_WRITE, unix.MAP_PRIVATE
	whole, err := unix.Mmap(int(f.Fd()), off, int(size), prot, flags)
	if err != nil {
		return fmt.Errorf("lshindex: map snapshot: %w", err)
	}
	maps := [][]byte{whole}
	if !verify {
		advise(whole, unix.MADV_RANDOM)
	}
	grow := func(o, n int) []byte {
		room := max(n/4, minGrowRoom)
		region, err := unix.Mmap(-1, 0, n+room, prot, flags|unix.MAP_ANON|unix.MAP_NORESERVE)
		if err != nil {
			return nil
		}
		if _, err := unix.MmapPtr(int(f.Fd()), off+int64(o), unsafe.Pointer(&region[0]), uintptr(n), prot, flags|unix.MAP_FIXED); err != nil {
			unix.Munmap(region)
			return nil
		}
		if !verify {
			advise(region[:n], unix.MADV_RANDOM)
		}
		maps = append(maps, region)
		return region[:n]
	}
	err = x.load(whole, grow, verify)
	runtime.KeepAlive(f)
	if err != nil {
		unmapAll(maps)
		return err
	}
	if !verify {
		for _, m := range maps {
			advise(m, unix.MADV_NORMAL)
		}
	}
	runtime.AddCleanup(x, unmapAll, maps)
	return nil
}

// advise gives the kernel advice on how m will be read. A load that does
// not verify touches a few pages of the file (the header, the length of
// every array, the directories' ends); with the default read-around each
// of those faults on a cold page cache reads the device's readahead
// window around it (8 MiB on the measuring machine: 0.9 GB of the 1.2 GB
// snapshot of 1,000,000 entries for about 110 faults), so the load is
// made with MADV_RANDOM, one page a fault, and the queries after it get
// the default back: a run adding many entries touches pages all over the
// file, which read-around fetches in far fewer reads. Advice is only a
// hint: an error changes the speed, never the data, and is ignored.
func advise(m []byte, advice int) {
	if len(m) > 0 {
		_ = unix.Madvise(m, advice)
	}
}

func unmapAll(maps [][]byte) {
	for _, m := range maps {
		unix.Munmap(m)
	}
}
