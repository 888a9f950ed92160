package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/devdata"
)

// The lab's method variants (dedup.Research: the single methods, the
// Simhash feature options, the keyword exact layer) are set by the lab
// only: the product's config offers none of them, and no product package
// but dedup, which defines them, writes them.
var (
	// researchKeys are the config keys the variants had or would have.
	researchKeys = []string{"mode", "hash", "weighting", "top_m", "jtidf", "positional", "mu", "keyword_exact", "exhaustive"}
	// researchOwner is the package that defines dedup.Research.
	researchOwner = "dedup"
)

// TestConfigHasNoResearchKey: no key of the site file's dedup section is
// one of the lab's variants.
func TestConfigHasNoResearchKey(t *testing.T) {
	tags := yamlKeys(reflect.TypeOf(config.Dedup{}))
	if !slices.Contains(tags, "jaccard") {
		t.Fatalf("config.Dedup keys %v: the listing is broken", tags)
	}
	for _, k := range tags {
		if slices.Contains(researchKeys, k) {
			t.Errorf("config key dedup.%s is a research option of the lab (dedup.Research), not of the crawler", k)
		}
	}
}

// yamlKeys returns the yaml keys of struct type t's fields.
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// TestProductSetsNoResearch: no non-test file of a product package sets a
// Research value (a Research: field in a literal, an assignment to
// x.Research or to one of its fields).
func TestProductSetsNoResearch(t *testing.T) {
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || isLab(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || dir == researchOwner || slices.Contains(testHelpers, dir) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, w := range researchWrites(fset, f) {
			t.Errorf("%s: the product sets the lab's dedup.Research (%s); only the lab chooses research variants", rel, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d product files: the walk is broken", files)
	}
}

// researchWrites returns the positions in f where a Research value is
// set: a Research: key in a composite literal, or an assignment whose
// left side goes through a .Research selector.
func researchWrites(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Research" {
				out = append(out, fmt.Sprintf("line %d: Research:", fset.Position(n.Pos()).Line))
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if throughResearch(l) {
					out = append(out, fmt.Sprintf("line %d: assignment", fset.Position(n.Pos()).Line))
				}
			}
		}
		return true
	})
	return out
}

// throughResearch reports whether expression e selects .Research on its
// way (x.Research, x.Research.Mode, f().Research.TopM).
func throughResearch(e ast.Expr) bool {
	for {
		switch s := e.(type) {
		case *ast.SelectorExpr:
			if s.Sel.Name == "Research" {
				return true
			}
			e = s.X
		case *ast.IndexExpr:
			e = s.X
		case *ast.StarExpr:
			e = s.X
		case *ast.ParenExpr:
			e = s.X
		default:
			return false
		}
	}
}

// TestProductSetsNoResearchCatchesViolations: the check finds a literal
// and both forms of assignment, and lets a read pass.
func TestProductSetsNoResearchCatchesViolations(t *testing.T) {
	const src = `package p

import "github.com/newsdedup/newscrawl/dedup"

func f(o dedup.Options) bool {
	a := dedup.Options{Jaccard: 0.4, Research: dedup.Research{TopM: 20}}
	o.Research = a.Research
	o.Research.KeywordExact = true
	return o.Research.NeedsDocFreqs()
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := researchWrites(fset, f)
	want := []string{"line 6: Research:", "line 7: assignment", "line 8: assignment"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
