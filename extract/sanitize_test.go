package extract_test

import (
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/extract"
)

// TestControlCharactersStripped: ESC sequences, bidi overrides and other
// control characters, raw or as character references, never reach the
// title or text; paragraphs stay on their own lines.
func TestControlCharactersStripped(t *testing.T) {
	const p1 = "正文第一段，有足够长的内容来构成一篇文章，讲述了一件事情的经过。"
	const p2 = "正文第二段，继续讲述事情的结果与影响，并引用了有关人士的说法。"
	for _, tc := range []struct{ name, title, inject, wantTitle string }{
		// Only the control characters go; the printable rest of an escape
		// sequence stays as text (harmless on a terminal without its ESC).
		{"raw ESC sequence", "标题\x1b[31m红", "\x1b\x07\x00", "标题[31m红"},
		{"raw bidi override", "标题\u202e红", "\u202e\u2066\u200f", "标题红"},
		{"character references", "标题&#x202E;红", "&#x202D;&#27;&#x7f;&#xFEFF;", "标题红"},
		{"C1 controls and CR", "标题\u009b红", "\r\u008d\u0085", "标题红"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := "<html><head><title>" + tc.title + "</title></head><body><div id=\"a\"><p>" +
				tc.inject + p1 + tc.inject + "</p><p>" + tc.inject + "</p><p>" + p2 + tc.inject + "</p></div></body></html>"
			ex, _ := extract.New(extract.Options{})
			a, err := ex.Extract("", []byte(page))
			if err != nil {
				t.Fatal(err)
			}
			if a.Title != tc.wantTitle {
				t.Errorf("title %q", a.Title)
			}
			if a.Text != p1+"\n"+p2 {
				t.Errorf("text %q, want the two paragraphs on two lines", a.Text)
			}
			for _, s := range []string{a.Title, a.Text} {
				if i := strings.IndexFunc(s, func(r rune) bool {
					return r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
				}); i >= 0 {
					t.Errorf("control character left in %q", s)
				}
			}
		})
	}
}
