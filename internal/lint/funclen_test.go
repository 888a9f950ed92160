package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/devdata"
)

// MaxFuncLines is the longest a function of the product may be, counted
// from its func line to its closing brace. Longer ones are split by concern.
const MaxFuncLines = 100

// longFuncsPending are functions over MaxFuncLines that are being rewritten
// in other branches; whoever lands those rewrites splits them and removes
// the entry.
var longFuncsPending = map[string]bool{}

// TestFunctionLength fails for every non-test function of the product over
// MaxFuncLines (test-helper packages are not product).
func TestFunctionLength(t *testing.T) {
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	long, err := longFuncs(root, MaxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range long {
		if longFuncsPending[f.name] {
			seen++
			continue
		}
		t.Errorf("%s is %d lines, over %d: split it by concern", f.name, f.lines, MaxFuncLines)
	}
	if seen < len(longFuncsPending) {
		t.Errorf("%d of the %d functions in longFuncsPending are no longer over %d lines: remove them from the list", len(longFuncsPending)-seen, len(longFuncsPending), MaxFuncLines)
	}
}

type longFunc struct {
	name  string // file:Recv.Name
	lines int
}

// longFuncs lists the functions over max lines in the non-test files under
// root, outside test-helper packages and hidden or testdata directories.
func longFuncs(root string, max int) ([]longFunc, error) {
	var out []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || isTestHelper(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > max {
				out = append(out, longFunc{rel + ":" + funcName(fd), n})
			}
		}
		return nil
	})
	return out, err
}

func isTestHelper(rel string) bool {
	for _, h := range testHelpers {
		if rel == h {
			return true
		}
	}
	return false
}

// funcName is Name, or (Recv).Name / (*Recv).Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = "*", s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	recv := "?"
	if id, ok := typ.(*ast.Ident); ok {
		recv = id.Name
	}
	return fmt.Sprintf("(%s%s).%s", star, recv, fd.Name.Name)
}

// TestLongFuncsCatches shows the counter finds a long function.
func TestLongFuncsCatches(t *testing.T) {
	dir := t.TempDir()
	body := "package p\n\nfunc (x *T) Long() {\n" + strings.Repeat("\t_ = 1\n", 101) + "}\n\nfunc Short() {}\n"
	if err := writeFile(filepath.Join(dir, "p.go"), body); err != nil {
		t.Fatal(err)
	}
	long, err := longFuncs(dir, MaxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != 1 || long[0].name != "p.go:(*T).Long" || long[0].lines != 103 {
		t.Fatalf("longFuncs = %+v, want p.go:(*T).Long with 103 lines", long)
	}
}
