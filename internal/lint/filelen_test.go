package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/devdata"
)

// MaxFileLines is the longest a Go file of the product may be: a longer
// file holds more than one concern and is split by them (storage/sqlite,
// crawler and dedup are split that way).
const MaxFileLines = 800

// TestFileLength fails for every non-test Go file of a package the product
// binary links (`go list -deps .`, the module's own packages) over
// MaxFileLines lines.
func TestFileLength(t *testing.T) {
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/newsdedup/newscrawl"
	checked := 0
	for _, p := range productDeps(t, root, "") {
		rel, ok := strings.CutPrefix(p, module)
		if !ok {
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if n := bytes.Count(b, []byte("\n")); n > MaxFileLines {
				r, _ := filepath.Rel(root, f)
				t.Errorf("%s is %d lines, over %d: split it by concern", r, n, MaxFileLines)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d product files checked: the listing is broken", checked)
	}
}
