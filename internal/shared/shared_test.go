package shared

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// layout makes tmp/repo/go.mod and tmp/repo/a/b, plus tmp/shared/x/y.txt
// when withShared is set, and returns tmp.
func layout(t *testing.T, withShared bool) string {
	t.Helper()
	tmp := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tmp, "repo", "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "repo", "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if withShared {
		if err := os.MkdirAll(filepath.Join(tmp, DirName, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, DirName, "x", "y.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

func TestFind(t *testing.T) {
	tests := []struct {
		name       string
		withShared bool
		start      string // relative to tmp
		wantRoot   string // relative to tmp; "" means an error
		wantShared string // relative to tmp; "" means an error
	}{
		{"from the root", true, "repo", "repo", DirName},
		{"from a subdirectory", true, "repo/a/b", "repo", DirName},
		{"shared absent", false, "repo/a", "repo", ""},
		{"no go.mod above", true, ".", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := layout(t, tt.withShared)
			start := filepath.Join(tmp, tt.start)
			root, err := Root(start)
			if tt.wantRoot == "" {
				// tmp itself has no go.mod, but one may exist above the
				// system's temporary directory: only reject the tree's own.
				if err == nil && strings.HasPrefix(root, tmp) {
					t.Fatalf("Root(%s) = %s, want an error", start, root)
				}
			} else if want := filepath.Join(tmp, tt.wantRoot); err != nil || root != want {
				t.Fatalf("Root(%s) = %q, %v; want %q", start, root, err, want)
			}
			dir, err := Find(start)
			if tt.wantShared == "" {
				if err == nil && strings.HasPrefix(dir, tmp) {
					t.Fatalf("Find(%s) = %s, want an error", start, dir)
				}
				if err != nil && !errors.Is(err, ErrNotFound) {
					t.Fatalf("Find(%s) error %v does not wrap ErrNotFound", start, err)
				}
			} else if want := filepath.Join(tmp, tt.wantShared); err != nil || dir != want {
				t.Fatalf("Find(%s) = %q, %v; want %q", start, dir, err, want)
			}
		})
	}
}

func TestFindRejectsFile(t *testing.T) {
	tmp := layout(t, false)
	if err := os.WriteFile(filepath.Join(tmp, DirName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, err := Find(filepath.Join(tmp, "repo")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find with a file named %s = %q, %v; want ErrNotFound", DirName, dir, err)
	}
}

// recorder is a testing.TB that records Skipf and Fatalf and stops the
// goroutine on them, as the real ones do.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Logf(string, ...any)          {}
func (r *recorder) Skipf(f string, args ...any)  { r.stop(&r.skipped, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatalf(f string, args ...any) { r.stop(&r.failed, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatal(args ...any)            { r.stop(&r.failed, fmt.Sprint(args...)) }

func (r *recorder) stop(flag *bool, msg string) {
	*flag = true
	r.msg = msg
	runtime.Goexit()
}

// run calls fn with a recorder in its own goroutine and returns the recorder.
func run(fn func(tb testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

func TestHelpers(t *testing.T) {
	tests := []struct {
		name        string
		withShared  bool
		ci          string
		call        func(tb testing.TB) string
		wantSkip    bool
		wantFail    bool
		wantPathEnd string // suffix of the returned path when neither
	}{
		{"Dir present", true, "", Dir, false, false, DirName},
		{"Dir absent skips", false, "", Dir, true, false, ""},
		{"Dir absent fails in CI", false, "true", Dir, false, true, ""},
		{"Path present", true, "", func(tb testing.TB) string { return Path(tb, "x", "y.txt") }, false, false, filepath.Join(DirName, "x", "y.txt")},
		{"Path slash form", true, "", func(tb testing.TB) string { return Path(tb, "x/y.txt") }, false, false, filepath.Join(DirName, "x", "y.txt")},
		{"Path file absent skips", true, "", func(tb testing.TB) string { return Path(tb, "x", "nope") }, true, false, ""},
		{"Path file absent fails in CI", true, "1", func(tb testing.TB) string { return Path(tb, "x", "nope") }, false, true, ""},
		{"Path dir absent skips", false, "", func(tb testing.TB) string { return Path(tb, "x", "y.txt") }, true, false, ""},
		{"Lookup present", true, "", func(tb testing.TB) string { d, _ := Lookup(tb); return d }, false, false, DirName},
		{"Lookup absent", false, "", func(tb testing.TB) string {
			if d, ok := Lookup(tb); ok || d != "" {
				return "unexpected " + d
			}
			return ""
		}, false, false, ""},
		{"Lookup absent fails in CI", false, "1", func(tb testing.TB) string { d, _ := Lookup(tb); return d }, false, true, ""},
		{"RootDir", false, "", RootDir, false, false, "repo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := layout(t, tt.withShared)
			t.Chdir(filepath.Join(tmp, "repo", "a", "b"))
			t.Setenv(CIEnv, tt.ci)
			var got string
			r := run(func(tb testing.TB) { got = tt.call(tb) })
			if r.skipped != tt.wantSkip || r.failed != tt.wantFail {
				t.Fatalf("skipped %v, failed %v (%q); want %v, %v", r.skipped, r.failed, r.msg, tt.wantSkip, tt.wantFail)
			}
			if r.skipped || r.failed {
				if !strings.Contains(r.msg, "not found") && !strings.Contains(r.msg, "absent") {
					t.Errorf("message %q does not say what is missing", r.msg)
				}
				return
			}
			if tt.wantPathEnd == "" {
				if got != "" {
					t.Errorf("got %q, want nothing", got)
				}
			} else if !strings.HasSuffix(got, tt.wantPathEnd) || !strings.HasPrefix(got, tmp) {
				t.Errorf("got %q, want %s/…/%s", got, tmp, tt.wantPathEnd)
			}
		})
	}
}

// TestFindFromHere checks the real layout: the tests of this repository
// run below its go.mod.
func TestFindFromHere(t *testing.T) {
	root := RootDir(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "shared", "shared.go")); err != nil {
		t.Fatalf("root %s is not this repository: %v", root, err)
	}
}
