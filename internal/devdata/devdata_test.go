package devdata

import (
	"errors"
	"os"
	"path/filepath"
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

// TestFindFromHere checks the real layout: the tests of this repository
// run below its go.mod.
func TestFindFromHere(t *testing.T) {
	root, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "devdata", "devdata.go")); err != nil {
		t.Fatalf("root %s is not this repository: %v", root, err)
	}
}
