// Package lint holds tests that enforce the project's import rules on the
// source tree. It has no non-test code.
package lint

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/devdata"
)

// pkg is one directory's package as the import rules see it.
type pkg struct {
	imports     map[string]bool // imports of the non-test files
	testImports map[string]bool // imports of the _test.go files
}

// graph maps import paths of the module's packages to their imports.
type graph struct {
	module string
	pkgs   map[string]*pkg
}

// Packages of the rules, relative to the module path.
var (
	// purePackages compute values from tokens (or, for crawler/robots, from
	// a robots.txt and a path): no project package, no I/O, no logging.
	purePackages = []string{"simhash", "spotsigs", "crawler/robots"}
	// impure are the standard packages a pure package must not import.
	impure = []string{"os", "io/fs", "log", "log/slog", "net", "net/http", "os/exec", "database/sql"}
	// crawlerForbidden are the stages the crawler must not depend on, even
	// indirectly: it fetches, the pipeline decides.
	crawlerForbidden = []string{"decode", "extract", "segment", "dedup", "storage/sqlite", "storage/memory", "storage/postgres", "storage/redisfrontier"}
	// concreteStores are the store implementations; only the wiring
	// (internal/cli, internal/pipeline), the evaluations and tests pick one.
	concreteStores = []string{"storage/sqlite", "storage/memory", "storage/postgres", "storage/redisfrontier"}
	storeUsers     = []string{"internal/cli", "internal/pipeline", "internal/eval"} // prefixes
	// testHelpers are the packages that give tests helpers (most import
	// "testing" in non-test code, as net/http/httptest does); only tests
	// may import them.
	testHelpers = []string{"storage/storagetest", "dedup/indextest", "internal/devdata/devdatatest", "internal/benchtext", "internal/browser", "storage/postgres/pgtest", "crawler/robots/robotstest",
		"internal/sample", "internal/fixture/fixturetest"}
)

// TestImportRules checks the rules on this repository's source tree.
func TestImportRules(t *testing.T) {
	g, err := load(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.pkgs) < 20 {
		t.Fatalf("found only %d packages under the module root: the walk is broken", len(g.pkgs))
	}
	for _, v := range g.violations() {
		t.Error(v)
	}
}

// TestImportRulesCatchViolations shows that each rule fails on a planted
// violation, so TestImportRules cannot pass vacuously.
func TestImportRulesCatchViolations(t *testing.T) {
	const m = "example.org/m"
	clean := func() *graph {
		return &graph{module: m, pkgs: map[string]*pkg{
			m:                          {imports: set(m + "/internal/cli")},
			m + "/internal/cli":        {imports: set(m+"/internal/pipeline", m+"/storage/sqlite")},
			m + "/internal/pipeline":   {imports: set(m+"/crawler", m+"/dedup", m+"/storage/sqlite")},
			m + "/crawler":             {imports: set(m+"/storage", m+"/crawler/robots", "net/http")},
			m + "/crawler/robots":      {imports: set("strings")},
			m + "/dedup":               {imports: set(m+"/simhash", m+"/spotsigs", m+"/segment")},
			m + "/segment":             {imports: set("strings")},
			m + "/simhash":             {imports: set("math/bits"), testImports: set("testing", m+"/internal/benchtext")},
			m + "/spotsigs":            {imports: set("sort")},
			m + "/storage":             {imports: set("context")},
			m + "/storage/sqlite":      {imports: set(m + "/storage")},
			m + "/storage/storagetest": {imports: set("testing", m+"/storage")},
			m + "/internal/benchtext":  {imports: set("testing")},
		}}
	}
	if v := clean().violations(); len(v) > 0 {
		t.Fatalf("clean graph: %q", v)
	}
	for _, tc := range []struct {
		name, pkg, imp, want string
	}{
		{"pure package imports the project", "simhash", m + "/segment", "simhash imports project package"},
		{"pure package does I/O", "spotsigs", "os", "spotsigs imports os"},
		{"robots parser imports the crawler", "crawler/robots", m + "/crawler", "crawler/robots imports project package crawler"},
		{"robots parser does I/O", "crawler/robots", "net/http", "crawler/robots imports net/http"},
		{"crawler imports the robots test helper", "crawler", m + "/crawler/robots/robotstest", "crawler imports the test helper crawler/robots/robotstest"},
		{"crawler imports a stage", "crawler", m + "/dedup", "crawler depends on dedup"},
		{"crawler links SQLite indirectly", "storage", m + "/storage/sqlite", "crawler depends on storage/sqlite"},
		{"stage picks a concrete store", "dedup", m + "/storage/sqlite", "dedup imports the concrete store storage/sqlite"},
		{"product imports testing", "segment", "testing", "segment imports testing"},
		{"product imports a test helper", "dedup", m + "/internal/benchtext", "dedup imports the test helper internal/benchtext"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := clean()
			g.pkgs[m+"/"+tc.pkg].imports[tc.imp] = true
			v := g.violations()
			if !slices.ContainsFunc(v, func(s string) bool { return strings.Contains(s, tc.want) }) {
				t.Errorf("violations %q do not report %q", v, tc.want)
			}
		})
	}
}

func set(xs ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// load parses the imports of every package of the module holding dir.
func load(dir string) (*graph, error) {
	root, err := devdata.Root(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	module := modulePath(b)
	if module == "" {
		return nil, fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
	}
	g := &graph{module: module, pkgs: map[string]*pkg{}}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" ||
				fileExists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		ip := g.module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		p := g.pkgs[ip]
		if p == nil {
			p = &pkg{imports: map[string]bool{}, testImports: map[string]bool{}}
			g.pkgs[ip] = p
		}
		for _, s := range f.Imports {
			v, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if strings.HasSuffix(name, "_test.go") {
				p.testImports[v] = true
			} else {
				p.imports[v] = true
			}
		}
		return nil
	})
	return g, err
}

// modulePath returns the path of go.mod's module directive ("" if none).
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			if p, err := strconv.Unquote(f[1]); err == nil {
				return p
			}
			return f[1]
		}
	}
	return ""
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// violations lists every broken rule.
func (g *graph) violations() []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	rel := func(ip string) string { return strings.TrimPrefix(strings.TrimPrefix(ip, g.module), "/") }
	isHelper := func(ip string) bool { return slices.Contains(testHelpers, rel(ip)) }
	for _, ip := range sortedKeys(g.pkgs) {
		p, name := g.pkgs[ip], rel(ip)
		for _, imp := range sortedKeys(p.imports) {
			project := imp == g.module || strings.HasPrefix(imp, g.module+"/")
			switch {
			case slices.Contains(purePackages, name) && project:
				add("%s imports project package %s: it must stay pure (tokens in, values out)", name, rel(imp))
			case slices.Contains(purePackages, name) && slices.Contains(impure, imp):
				add("%s imports %s: it must do no I/O and no logging", name, imp)
			}
			if project && slices.Contains(concreteStores, rel(imp)) && !isStoreUser(name) {
				add("%s imports the concrete store %s: take a storage interface instead (only %v pick a store)", name, rel(imp), storeUsers)
			}
			if imp == "testing" && !isHelper(ip) {
				add("%s imports testing in non-test code: the binary would link it", name)
			}
			if project && isHelper(imp) && !isHelper(ip) {
				add("%s imports the test helper %s in non-test code", name, rel(imp))
			}
		}
	}
	deps := g.deps(g.module + "/crawler")
	for _, f := range crawlerForbidden {
		if deps[g.module+"/"+f] {
			add("crawler depends on %s: the crawler fetches, the pipeline decides", f)
		}
	}
	return out
}

// isStoreUser reports whether package name may import a concrete store.
func isStoreUser(name string) bool {
	if slices.Contains(concreteStores, name) {
		return true
	}
	for _, p := range storeUsers {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// deps is the set of module packages ip imports, directly or not, through
// non-test code.
func (g *graph) deps(ip string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		pk := g.pkgs[p]
		if pk == nil {
			return
		}
		for imp := range pk.imports {
			if !seen[imp] {
				seen[imp] = true
				visit(imp)
			}
		}
	}
	visit(ip)
	return seen
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
