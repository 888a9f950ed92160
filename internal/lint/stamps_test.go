package lint

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/devdata"
)

// A comment or a doc page keeps the rule and points to the doc where the
// figures live; it does not say when or in which issue or commit something
// was done: those go stale, and the history is git's. These patterns find
// such stamps in the comments of non-test Go files and in README.md and
// docs/*.md.
var (
	stampIssue = regexp.MustCompile(`(?i)\bissues? ?#?\d+`)
	stampDate  = regexp.MustCompile(`\b((?:19|20)\d\d-[01]\d-[0-3]\d)(?:T|\b)`) // a date, alone or before a time
	// stampHash is an abbreviated or full commit hash; a candidate counts
	// only when it has both a digit and a letter (not "1234567", not
	// "defaced").
	stampHash = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	// stampURL: URLs are data (a UUID in a cited address is no hash).
	stampURL = regexp.MustCompile(`https?://\S+`)
)

// goReferenceDate is Go's reference time, a layout wherever it appears.
const goReferenceDate = "2006-01-02"

// stampAllowed lists, per file (slash path from the module root), the
// dates and hex strings that are data there, not stamps: format examples
// of date parsers, dates quoted from pages, document ids of a data set.
var stampAllowed = map[string][]string{
	"discovery/timeparse.go":         {"2024-05-20"},                             // formats of sitemap and feed times
	"extract/byline.go":              {"2005-06-10"},                             // a blog's byline, quoted
	"extract/clean.go":               {"2005-02-06"},                             // a dateline, quoted
	"extract/dates.go":               {"2012-06-15", "2015-12-31", "2015-10-08"}, // date shapes the extractor reads
	"extract/extract.go":             {"2019-06-15"},                             // a date-only <meta>
	"extract/meta.go":                {"2012-06-15", "2012-02-31"},               // date patterns in page text
	"internal/evalextract/eval.go":   {"2023-11-17"},                             // a data set's label format
	"storage/redisfrontier/fleet.go": {"2001-09-09"},                             // the date of the smallest start time an owner key may hold
	"docs/COMMANDS.md":               {"2026-11-23"},                             // a --since value
	"docs/EVALUATION.md":             {"2005-03-06"},                             // a page's date
	"docs/SHARED.md":                 {"2010-11-04"},                             // a sina article path
	"docs/THRESHOLDS.md": {"2022-02-13", "2020-02-14", // dates quoted from pages
		"f70d9c97", "35687fb1", "54e89e4e"}, // CWCED document ids
}

// TestNoStamps fails for every issue number, date or commit hash in a Go
// comment (non-test files) or in README.md and docs/*.md.
func TestNoStamps(t *testing.T) {
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	found, err := stampsUnder(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range found {
		t.Errorf("%s: write the rule or point to the doc instead (if it is data, such as a format example, add it to stampAllowed)", s)
	}
}

// TestStampsCaught shows what counts as a stamp and what does not, so that
// TestNoStamps cannot pass vacuously.
func TestStampsCaught(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"issue number", "the lease timeout (issue 12 asks for 30 s)", []string{"issue 12"}},
		{"issue with hash sign", "see Issue #7", []string{"Issue #7"}},
		{"issues plural", "issues 10 and 11", []string{"issues 10"}},
		{"date stamp", "Measured 2026-11-23 at load 2", []string{"2026-11-23"}},
		{"short commit hash", "before at commit 5d81cef", []string{"5d81cef"}},
		{"full commit hash", "a7f4a4d0c1e2b3a4f5e6d7c8b9a0f1e2d3c4b5a6 broke it", []string{"a7f4a4d0c1e2b3a4f5e6d7c8b9a0f1e2d3c4b5a6"}},
		{"go layout", `t.Format("2006-01-02")`, nil},
		{"allowed in its file", "a date-only <meta> (\"2019-06-15\")", nil},
		{"date with a time", "run at 2026-11-23T08:00:00Z", []string{"2026-11-23"}},
		{"digits only", "1234567 articles", nil},
		{"letters only", "defaced", nil},
		{"hex literal", "0x1f2e3d4c5b", nil},
		{"uuid in a URL", "https://v2as.com/article/2bb8bff3-7a74-414e-b85b-ccd132f0f4fe", nil},
		{"sha-256", strings.Repeat("ab12", 16), nil},
		{"issue as a word", "the issue is the 5 s delay", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stamps("extract/extract.go", tc.text)
			if !slices.Equal(got, tc.want) {
				t.Errorf("stamps(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// stamps returns the stamps in text, a comment or a doc of file.
func stamps(file, text string) []string {
	text = stampURL.ReplaceAllString(text, "")
	allowed := func(s string) bool { return s == goReferenceDate || slices.Contains(stampAllowed[file], s) }
	var out []string
	out = append(out, stampIssue.FindAllString(text, -1)...)
	for _, m := range stampDate.FindAllStringSubmatch(text, -1) {
		if d := m[1]; !allowed(d) {
			out = append(out, d)
		}
	}
	for _, h := range stampHash.FindAllString(text, -1) {
		if strings.ContainsAny(h, "0123456789") && strings.ContainsAny(h, "abcdef") && !allowed(h) {
			out = append(out, h)
		}
	}
	return out
}

// stampsUnder lists "file:line: stamp" for the comments of the non-test Go
// files under root (hidden and testdata directories skipped) and for
// README.md and docs/*.md.
func stampsUnder(root string) ([]string, error) {
	var out []string
	report := func(rel string, line int, text string) {
		for i, l := range strings.Split(text, "\n") {
			for _, s := range stamps(rel, l) {
				out = append(out, fmt.Sprintf("%s:%d: %q", rel, line+i, s))
			}
		}
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go"):
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					report(rel, fset.Position(c.Slash).Line, c.Text)
				}
			}
		case rel == "README.md" || (strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md")):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			report(rel, 1, string(b))
		}
		return nil
	})
	return out, err
}
