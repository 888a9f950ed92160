package devdatatest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/devdata"
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
		if err := os.MkdirAll(filepath.Join(tmp, devdata.DirName, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, devdata.DirName, "x", "y.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
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
		{"Dir present", true, "", Dir, false, false, devdata.DirName},
		{"Dir absent skips", false, "", Dir, true, false, ""},
		{"Dir absent fails in CI", false, "true", Dir, false, true, ""},
		{"Path present", true, "", func(tb testing.TB) string { return Path(tb, "x", "y.txt") }, false, false, filepath.Join(devdata.DirName, "x", "y.txt")},
		{"Path slash form", true, "", func(tb testing.TB) string { return Path(tb, "x/y.txt") }, false, false, filepath.Join(devdata.DirName, "x", "y.txt")},
		{"Path file absent skips", true, "", func(tb testing.TB) string { return Path(tb, "x", "nope") }, true, false, ""},
		{"Path file absent fails in CI", true, "1", func(tb testing.TB) string { return Path(tb, "x", "nope") }, false, true, ""},
		{"Path dir absent skips", false, "", func(tb testing.TB) string { return Path(tb, "x", "y.txt") }, true, false, ""},
		{"Lookup present", true, "", func(tb testing.TB) string { d, _ := Lookup(tb); return d }, false, false, devdata.DirName},
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
			t.Setenv(devdata.CIEnv, tt.ci)
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
