package decode_test

import (
	"html"
	"os"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/internal/evalextract"
)

// TestBenchCharsets decodes every article page of the reprint-web dev split
// with its served Content-Type and checks the charset against the truth
// (including the ~5% of pages with a wrong meta charset).
func TestBenchCharsets(t *testing.T) {
	pages, err := evalextract.LoadBench(devdatatest.Path(t, "bench", "dev"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 100 {
		t.Fatalf("only %d bench pages", len(pages))
	}
	for _, p := range pages {
		body, err := os.ReadFile(p.File)
		if err != nil {
			t.Fatal(err)
		}
		// Served headers, and no header charset at all.
		for _, ct := range []string{p.ContentType, "text/html"} {
			r, err := decode.Decode(body, ct, "")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"gbk": "gb18030", "utf-8": "utf-8"}[p.Truth.Charset]
			if r.Charset != want {
				t.Errorf("%s%s: charset %s (source %s, declared %q), want %s", p.Site, p.Path, r.Charset, r.Source, r.Declared, want)
			}
			// x/text reads GBK user-defined code points (e.g. 0xAAA5, used by
			// old templates for icons) as U+FFFD; they must stay rare.
			if r.Replacements > 16 {
				t.Errorf("%s%s: %d replacements", p.Site, p.Path, r.Replacements)
			}
			// The headline must come out readable.
			if !strings.Contains(html.UnescapeString(string(r.Body)), p.Truth.Title) {
				t.Errorf("%s%s: decoded page does not contain the headline %q", p.Site, p.Path, p.Truth.Title)
			}
		}
	}
}
