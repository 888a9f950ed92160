package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestLockRefusesPlantedFiles: the lock file is never a symlink (before,
// Lock followed one and truncated its target), a FIFO or a hard link.
func TestLockRefusesPlantedFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, lock, target string)
		want  string
	}{
		{"symlink to a file", func(t *testing.T, lock, target string) { must(t, os.Symlink(target, lock)) }, "symlink"},
		{"dangling symlink", func(t *testing.T, lock, target string) {
			must(t, os.Remove(target))
			must(t, os.Symlink(target, lock))
		}, "symlink"},
		{"hard link", func(t *testing.T, lock, target string) { must(t, os.Link(target, lock)) }, "not a plain lock file"},
		{"fifo", func(t *testing.T, lock, target string) { must(t, syscall.Mkfifo(lock, 0o644)) }, "not a plain lock file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "store.db")
			s := openTemp(t, path)
			target := filepath.Join(dir, "precious.txt")
			must(t, os.WriteFile(target, []byte("precious\n"), 0o644))
			tc.plant(t, path+".lock", target)
			release, err := s.Lock(context.Background(), false)
			if err == nil {
				release()
				t.Fatal("Lock accepted a planted lock file")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			b, rerr := os.ReadFile(target)
			switch {
			case tc.name == "dangling symlink":
				if rerr == nil {
					t.Error("Lock created the symlink's target")
				}
			case rerr != nil || string(b) != "precious\n":
				t.Errorf("target changed: %q, %v", b, rerr)
			}
		})
	}
}

// TestOpenRefusesPlantedSymlinks: the store file may be a symlink to an
// existing store, never a symlink under which SQLite would create or
// overwrite another file.
func TestOpenRefusesPlantedSymlinks(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, path, target string)
	}{
		{"dangling symlink", func(t *testing.T, path, target string) { must(t, os.Symlink(target+".none", path)) }},
		{"symlink to an empty file", func(t *testing.T, path, target string) {
			must(t, os.WriteFile(target, nil, 0o644))
			must(t, os.Symlink(target, path))
		}},
		{"symlink to a text file", func(t *testing.T, path, target string) { must(t, os.Symlink(target, path)) }},
		{"symlink at the WAL file", func(t *testing.T, path, target string) { must(t, os.Symlink(target, path+"-wal")) }},
		{"symlink at the shared-memory file", func(t *testing.T, path, target string) { must(t, os.Symlink(target, path+"-shm")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, target := filepath.Join(dir, "store.db"), filepath.Join(dir, "precious.txt")
			must(t, os.WriteFile(target, []byte("precious\n"), 0o644))
			tc.plant(t, path, target)
			before, _ := os.ReadFile(target)
			s, err := sqlite.Open(ctx, path)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted a planted symlink")
			}
			if !strings.Contains(err.Error(), "symlink") {
				t.Errorf("error %q does not name the symlink", err)
			}
			if after, _ := os.ReadFile(target); string(after) != string(before) {
				t.Errorf("target changed: %q -> %q", before, after)
			}
			if _, err := os.Stat(target + ".none"); err == nil {
				t.Error("Open created the symlink's target")
			}
		})
	}
	t.Run("symlink to a store", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real.db")
		s := openTemp(t, real)
		populate(t, s)
		want := dump(t, s)
		s.Close()
		link := filepath.Join(dir, "link.db")
		must(t, os.Symlink(real, link))
		s2 := openTemp(t, link)
		if got := dump(t, s2); !reflect.DeepEqual(got, want) {
			t.Errorf("store through the symlink differs")
		}
	})
}

// TestOpenReadOnly: ReadOnly opens an existing store for reading and
// creates nothing (no directory, no file) for a missing one.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	s := openTemp(t, path)
	populate(t, s)
	want := dump(t, s)
	s.Close()
	ro, err := sqlite.Open(ctx, path, sqlite.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(t, ro); !reflect.DeepEqual(got, want) {
		t.Error("read-only store reads differently")
	}
	if err := ro.Commit(ctx, storedCommit("http://qq/new")); err == nil {
		t.Error("read-only store accepted a commit")
	}
	ro.Close()
	missing := filepath.Join(dir, "sub", "none.db")
	if s, err := sqlite.Open(ctx, missing, sqlite.ReadOnly()); err == nil {
		s.Close()
		t.Fatal("read-only open of a missing store succeeded")
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("read-only open created a directory")
	}
}

// damagedStore builds a store of n articles and returns its path and
// contents after closing it.
func damagedStore(t *testing.T, n int) (string, contents) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	ctx := context.Background()
	for i := range n {
		c := storedCommit(fmt.Sprintf("http://qq/%d", i), "两岸", "论坛")
		c.Article.Text = strings.Repeat(fmt.Sprintf("第%d篇新闻的正文，讲述两岸经贸文化论坛的开幕。", i), 10)
		c.Article.Fingerprint.Signature = []uint64{uint64(i), uint64(i) << 20, 1 << 63}
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	want := dump(t, s)
	s.Close()
	return path, want
}

// readAll opens the store as export does (quick check, then every record)
// and returns the first error.
func readAll(path string) (got contents, err error) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, sqlite.ReadOnly())
	if err != nil {
		return got, err
	}
	defer s.Close()
	if err := s.QuickCheck(ctx); err != nil {
		return got, err
	}
	if err := s.Articles(ctx, func(a storage.Article) error { got.Articles = append(got.Articles, a); return nil }); err != nil {
		return got, err
	}
	err = s.Duplicates(ctx, func(d storage.Duplicate) error { got.Dups = append(got.Dups, d); return nil })
	return got, err
}

// TestQuickCheckDetectsDamage: a store whose B-tree pages are damaged fails
// QuickCheck with ErrDamaged, and bytes flipped inside texts fail the read
// with ErrDamaged (before, export wrote the damaged texts and exited 0).
func TestQuickCheckDetectsDamage(t *testing.T) {
	path, want := damagedStore(t, 300)
	if got, err := readAll(path); err != nil || !reflect.DeepEqual(got.Articles, want.Articles) {
		t.Fatalf("intact store: %v", err)
	}
	orig, err := os.ReadFile(path)
	must(t, err)
	const pageSize = 4096
	for _, tc := range []struct {
		name   string
		damage func(b []byte)
	}{
		{"page headers overwritten", func(b []byte) {
			for p := 2; p*pageSize < len(b); p += 7 {
				copy(b[p*pageSize:], []byte{0x0d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			}
		}},
		{"a text byte inverted", func(b []byte) {
			i := strings.Index(string(b), "第150篇")
			b[i+1] ^= 0xff
		}},
		{"a page of zeros", func(b []byte) { clear(b[3*pageSize : 4*pageSize]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), orig...)
			tc.damage(b)
			must(t, os.WriteFile(path, b, 0o644))
			if _, err := readAll(path); !errors.Is(err, sqlite.ErrDamaged) {
				t.Fatalf("damaged store: err %v, want ErrDamaged", err)
			}
		})
	}
	// 200 bytes inverted at random offsets after the file header, as in
	// the issue: the store is reported damaged or reads back unchanged.
	for seed := range uint64(20) {
		t.Run(fmt.Sprintf("200 random bytes, seed %d", seed), func(t *testing.T) {
			b := append([]byte(nil), orig...)
			rng := rand.New(rand.NewPCG(seed, 42))
			for range 200 {
				b[100+rng.IntN(len(b)-100)] ^= 0xff
			}
			must(t, os.WriteFile(path, b, 0o644))
			got, err := readAll(path)
			if err == nil && !reflect.DeepEqual(got.Articles, want.Articles) {
				t.Fatal("damaged store read without error and with changed articles")
			}
			if err != nil && !errors.Is(err, sqlite.ErrDamaged) {
				t.Logf("error without ErrDamaged: %v", err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesNonRegularFiles: --db naming a directory, a device or a
// named pipe is refused with a message saying what it is, before SQLite
// opens it (a directory gave "disk I/O error"; /dev/null opened as an
// empty store with /dev/null-journal created beside it; a pipe blocked).
func TestOpenRefusesNonRegularFiles(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, dir string) string
	}{
		{"directory", "is a directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "store.db")
			must(t, os.Mkdir(p, 0o755))
			return p
		}},
		{"named pipe", "is a named pipe", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "store.db")
			must(t, syscall.Mkfifo(p, 0o644))
			return p
		}},
		{"symlink to a directory", "is a directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "store.db")
			must(t, os.Symlink(dir, p))
			return p
		}},
		{"device", "is a device", func(t *testing.T, dir string) string { return os.DevNull }},
	} {
		for _, ro := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/readonly=%v", tc.name, ro), func(t *testing.T) {
				dir := t.TempDir()
				path := tc.make(t, dir)
				var opts []sqlite.Option
				if ro {
					opts = append(opts, sqlite.ReadOnly())
				}
				done := make(chan error, 1)
				go func() {
					s, err := sqlite.Open(ctx, path, opts...)
					if err == nil {
						s.Close()
					}
					done <- err
				}()
				var err error
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("Open blocked")
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Open(%s): error %v, want %q", path, err, tc.want)
				}
				for _, side := range []string{"-journal", "-wal", "-shm"} {
					if _, err := os.Lstat(path + side); err == nil {
						os.Remove(path + side)
						t.Errorf("%s created", path+side)
					}
				}
			})
		}
	}
}
