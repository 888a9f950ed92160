package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/devdata"
)

// The lab's packages, relative to the module path: the evaluations, the
// baselines and research-only code, and what only they (or tests) use. The
// product, the root package newscrawl, must link none of them; the lab
// program cmd/newscrawl-lab links them. Whether a package belongs here is
// decided by who imports it: a package that only the lab imports is the lab's.
var (
	// labPackages match themselves and the packages below them.
	labPackages = []string{
		"cmd/newscrawl-lab",    // the lab program
		"internal/labcli",      // its command line: eval, learn-antecedents
		"internal/quality",     // the quality-floors test of the dev evaluations
		"internal/antecedents", // learns SpotSigs antecedents (learn-antecedents, eval antecedents)
		"internal/dataset",     // readers of the dev sets (robust.jsonl, gold set)
		"internal/shingle",     // the shingling and MinHash baselines
		"internal/bloomset",    // the Bloom filter measured by eval keyfp
		"internal/psimhash",    // P-Simhash as published and E-Simhash (eval psimhash)
		"internal/scalecorpus", // the gen.py corpus of eval scale
		"internal/cputime",     // CPU time of eval scale
		"internal/textfmt",     // table formatting of eval web and eval crash
		"internal/devdata",     // locates the dev data, ../shared
	}
	// labPrefixes match every package whose path starts with them.
	labPrefixes = []string{"internal/eval"} // evalcrash, evaldedup, evalextract, …
)

// isLab reports whether the module-relative package path rel is the lab's.
func isLab(rel string) bool {
	for _, p := range labPackages {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	for _, p := range labPrefixes {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// labDeps returns the lab packages among deps (import paths), relative to
// module.
func labDeps(module string, deps []string) []string {
	var out []string
	for _, d := range deps {
		rel, ok := strings.CutPrefix(d, module+"/")
		if ok && isLab(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// productDeps runs `go list -deps` on the root package (the newscrawl
// binary, with the build's own tags and files) in root and returns the
// import paths it links. overlay, when not empty, is a go build -overlay
// file (a way to plant a file without touching the tree).
func productDeps(t *testing.T, root, overlay string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.Fields(string(out))
}

// TestProductLinksNoLab: `go list -deps .` of the product names no lab
// package, and every entry of the lab lists names packages that exist (so
// that a rename cannot empty the rule).
func TestProductLinksNoLab(t *testing.T) {
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	g, err := load(".")
	if err != nil {
		t.Fatal(err)
	}
	deps := productDeps(t, root, "")
	if !slices.Contains(deps, g.module+"/internal/pipeline") {
		t.Fatalf("go list -deps . does not list internal/pipeline: the listing is broken:\n%s", strings.Join(deps, "\n"))
	}
	for _, p := range labDeps(g.module, deps) {
		t.Errorf("the product links the lab package %s: move what it needs into a product package or keep it in the lab (cmd/newscrawl-lab)", p)
	}
	for _, p := range append(slices.Clone(labPackages), labPrefixes...) {
		found := false
		for ip := range g.pkgs {
			if rel := strings.TrimPrefix(ip, g.module+"/"); rel == p || strings.HasPrefix(rel, p) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("lab entry %s names no package of the module: update the list", p)
		}
	}
}

// TestProductLinksNoLabCatchesViolations plants a file importing a lab
// package into the root package (through go build's -overlay, the tree is
// not touched) and shows TestProductLinksNoLab's check reports it.
func TestProductLinksNoLabCatchesViolations(t *testing.T) {
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	g, err := load(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, imp, want string
	}{
		{"an evaluation", "internal/evaldedup", "internal/evaldedup"},
		{"a baseline", "internal/shingle", "internal/shingle"},
		{"the lab's command line", "internal/labcli", "internal/labcli"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			planted := filepath.Join(dir, "planted.go")
			src := fmt.Sprintf("package main\n\nimport _ %q\n", g.module+"/"+tc.imp)
			if err := os.WriteFile(planted, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "zz_planted_lab.go"): planted}})
			if err != nil {
				t.Fatal(err)
			}
			op := filepath.Join(dir, "overlay.json")
			if err := os.WriteFile(op, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			got := labDeps(g.module, productDeps(t, root, op))
			if !slices.Contains(got, tc.want) {
				t.Errorf("planted import of %s: lab packages found %q, want %s among them", tc.imp, got, tc.want)
			}
		})
	}
}
