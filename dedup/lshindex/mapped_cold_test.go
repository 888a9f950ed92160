//go:build linux

package lshindex

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages counts the pages of f held in the page cache (mincore
// over a mapping of its own, which reads nothing).
func residentPages(t *testing.T, f *os.File, size int) int {
	t.Helper()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (size+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(size), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestMapSnapshotColdReads: a structural load of a snapshot that is not
// in the page cache reads the pages it touches, not the device's
// readahead window around each of them (MADV_RANDOM during the load):
// at most half of the file is in the page cache after it (a fifth on the
// measuring machine). The kernel's default read-around, 128 KiB to
// 8 MiB, brought in the whole 7.8 MB file.
func TestMapSnapshotColdReads(t *testing.T) {
	if os.Getpagesize() > 4096 {
		// Each fault brings a larger page: the bound is for 4 KiB pages.
		t.Skipf("pages of %d bytes", os.Getpagesize())
	}
	x, _ := filled(t, 3000)
	snap := snapshotOf(t, x)
	f := writeAt(t, snap, 0)
	size := len(snap)
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Skipf("cannot evict the file from the page cache: %v", err)
	}
	pages := (size + os.Getpagesize() - 1) / os.Getpagesize()
	if n := residentPages(t, f, size); n > pages/100 {
		t.Skipf("%d of %d pages still cached after POSIX_FADV_DONTNEED (a file system that keeps them, such as tmpfs)", n, pages)
	}
	y, _ := New(testConfig())
	if err := y.MapSnapshot(f, 0, int64(size), false); err != nil {
		t.Fatal(err)
	}
	n := residentPages(t, f, size)
	t.Logf("%d of %d pages read by the load", n, pages)
	if n > pages/2 {
		t.Errorf("the load brought %d of the snapshot's %d pages into the page cache, want at most half", n, pages)
	}
	if y.Len() != x.Len() {
		t.Errorf("mapped %d entries, want %d", y.Len(), x.Len())
	}
}
