package extract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenResult is what a golden file records for one page.
type goldenResult struct {
	Charset     string `json:"charset"`
	CharsetFrom string `json:"charset_from"`
	Title       string `json:"title,omitempty"`
	Text        string `json:"text,omitempty"`
	PublishedAt string `json:"published_at,omitempty"`
	Source      string `json:"source,omitempty"`
	Author      string `json:"author,omitempty"`
	Editor      string `json:"editor,omitempty"`
	Method      string `json:"method,omitempty"`
	Second      string `json:"second_opinion,omitempty"`
	LeadImage   string `json:"lead_image,omitempty"`
	Truncated   bool   `json:"truncated,omitempty"`
	Canonical   string `json:"canonical,omitempty"`
	Channel     string `json:"channel,omitempty"`
	Error       string `json:"error,omitempty"`
}

// goldenURL is the URL a test page is extracted under: the line of
// testdata/pages/NAME.url when there is one (a page whose shape needs a URL
// without a date), else a dated news URL.
func goldenURL(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "pages", name+".url"))
	switch {
	case err == nil:
		return strings.TrimSpace(string(b))
	case errors.Is(err, os.ErrNotExist):
		return "http://news.example.com/2012/0615/" + name + ".html"
	}
	t.Fatal(err)
	return ""
}

// goldenFetched is the time a test page was fetched: the RFC 3339 line of
// testdata/pages/NAME.fetched when there is one (a page showing relative
// dates), else the zero time.
func goldenFetched(t *testing.T, name string) time.Time {
	b, err := os.ReadFile(filepath.Join("testdata", "pages", name+".fetched"))
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}
	}
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestGolden decodes and extracts the hand-written pages of
// testdata/pages (two of them GBK-encoded), checks invariants, then
// compares with testdata/golden (regenerate with -update).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/pages/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test pages: %v", err)
	}
	ex, err := extract.New(extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".html")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := decode.Decode(raw, "", "")
			if err != nil {
				t.Fatal(err)
			}
			got := goldenResult{Charset: dec.Charset, CharsetFrom: dec.Source}
			art, err := ex.ExtractFetched(goldenURL(t, name), dec.Body, goldenFetched(t, name))
			switch {
			case errors.Is(err, extract.ErrNoArticle):
				got.Error = err.Error()
			case err != nil:
				t.Fatal(err)
			default:
				checkInvariants(t, dec.Body, art)
				got.Title, got.Text, got.Source, got.Author, got.Editor, got.Method, got.Second = art.Title, art.Text, art.Source, art.Author, art.Editor, art.Method, art.SecondOpinion
				got.LeadImage, got.Truncated, got.Canonical, got.Channel = art.LeadImage, art.Truncated, art.Canonical, art.Channel
				if !art.PublishedAt.IsZero() {
					got.PublishedAt = art.PublishedAt.Format(time.RFC3339)
				}
			}
			compareGolden(t, filepath.Join("testdata", "golden", name+".json"), got)
		})
	}
}

func compareGolden(t *testing.T, path string, got goldenResult) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, b) {
		t.Errorf("golden mismatch for %s\n--- got\n%s\n--- want\n%s", path, b, want)
	}
}

// checkInvariants: valid UTF-8, no script/style text, no navigation or
// footer link as a line of text, no hidden text.
func checkInvariants(t *testing.T, page []byte, a *extract.Article) {
	t.Helper()
	for _, s := range []string{a.Title, a.Text, a.Source, a.Author, a.Editor} {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 in %q", s)
		}
	}
	for _, bad := range []string{"SCRIPTSENTINEL", "STYLESENTINEL", "不应出现", "never shown", "document.write"} {
		if strings.Contains(a.Text, bad) {
			t.Errorf("text contains script/style/hidden content %q", bad)
		}
	}
	if a.Text == "" || a.Title == "" {
		t.Errorf("empty title or text: %+v", a)
	}
	nav := navigationTexts(t, page)
	for _, l := range strings.Split(a.Text, "\n") {
		if nav[strings.TrimSpace(l)] {
			t.Errorf("navigation line %q in text", l)
		}
		if strings.TrimSpace(l) == "" {
			t.Errorf("empty line in text %q", a.Text)
		}
	}
}

// navigationTexts returns the link texts inside navigation, footer and
// sidebar elements of the page.
func navigationTexts(t *testing.T, page []byte) map[string]bool {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var walk func(n *html.Node, inNav bool)
	walk = func(n *html.Node, inNav bool) {
		if n.Type == html.ElementNode {
			names := ""
			for _, a := range n.Attr {
				if a.Key == "class" || a.Key == "id" {
					names += " " + strings.ToLower(a.Val)
				}
			}
			switch {
			case n.Data == "nav", n.Data == "footer", n.Data == "aside",
				strings.Contains(names, "nav"), strings.Contains(names, "footer"), strings.Contains(names, "sidebar"), strings.Contains(names, "right"):
				inNav = true
			}
			if n.Data == "a" && inNav {
				var b strings.Builder
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.TextNode {
						b.WriteString(c.Data)
					}
				}
				if s := strings.TrimSpace(b.String()); s != "" {
					out[s] = true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inNav)
		}
	}
	walk(doc, false)
	if len(out) == 0 {
		t.Fatal("test page without navigation links")
	}
	return out
}
