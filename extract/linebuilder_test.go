package extract

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// refLines is lineBuilder as it was before verbatim lines: every rune
// copied into a strings.Builder.
type refLines struct {
	lines   []string
	marks   []bool
	cur     strings.Builder
	space   bool
	curMark bool
}

func (b *refLines) text(s string, foreign bool) {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if isSpace(r) {
			b.space = true
			continue
		}
		if b.space && b.cur.Len() > 0 {
			b.cur.WriteByte(' ')
		}
		b.space = false
		b.cur.WriteRune(r)
		if foreign {
			b.curMark = true
		}
	}
}

func (b *refLines) newline() {
	if b.cur.Len() > 0 {
		b.lines = append(b.lines, b.cur.String())
		b.cur.Reset()
		b.marks = append(b.marks, b.curMark)
		b.curMark = false
	}
	b.space = false
}

// renderCalls feeds calls (text, "\n" for a line break, a leading "!" for
// text in a foreign region) to lineBuilder and to the reference.
func renderCalls(calls []string) (got, want []string, gotMarks, wantMarks []bool) {
	var marks []bool
	b := lineBuilder{marks: &marks}
	var ref refLines
	for _, c := range calls {
		if c == "\n" {
			b.newline()
			ref.newline()
			continue
		}
		foreign := strings.HasPrefix(c, "!")
		c = strings.TrimPrefix(c, "!")
		if foreign {
			b.foreign++
		}
		b.text(c)
		if foreign {
			b.foreign--
		}
		ref.text(c, foreign)
	}
	b.newline()
	ref.newline()
	return b.lines, ref.lines, marks, ref.marks
}

func TestLineBuilderMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string
	}{
		{"one paragraph", []string{"中新网7月11日电 第五届两岸经贸文化论坛"}},
		{"leading and trailing space", []string{"  \n 正文 一段\t", "后文"}},
		{"space run inside", []string{"a  b"}},
		{"tab inside", []string{"a\tb"}},
		{"ideographic space", []string{"\u3000\u3000第一段", "\n", "第二\u3000段"}},
		{"zero-width space", []string{"a\u200bb"}},
		{"invalid byte", []string{"a\xffb"}},
		{"literal U+FFFD", []string{"a\uFFFDb"}},
		{"two nodes on one line", []string{"记者", " 张三 ", "报道"}},
		{"space-only node between", []string{"记者", "   ", "报道"}},
		{"empty nodes", []string{"", "\n", "", "a", ""}},
		{"foreign then own", []string{"!相关阅读", "正文", "\n", "正文"}},
		{"own then foreign", []string{"正文", "!推荐"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want, gm, wm := renderCalls(tc.calls)
			if !slices.Equal(got, want) || !slices.Equal(gm, wm) {
				t.Errorf("lines %q marks %v, want %q %v", got, gm, want, wm)
			}
		})
	}
}

// TestLineBuilderSharesText: a paragraph's line is its text node's text,
// not a copy.
func TestLineBuilderSharesText(t *testing.T) {
	node := " 第五届两岸经贸文化论坛11日上午9时在湖南长沙开幕。\n"
	var b lineBuilder
	b.text(node)
	b.newline()
	if len(b.lines) != 1 || !strings.Contains(node, b.lines[0]) {
		t.Fatalf("lines %q", b.lines)
	}
	if l := b.lines[0]; unsafeData(l) != unsafeData(node[1:]) {
		t.Error("the line is a copy of the text node's text")
	}
}

func FuzzLineBuilder(f *testing.F) {
	f.Add("a b\nc\t d", "!x  y", "\u3000z\xff")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		calls := []string{a, b, "\n", c, a}
		got, want, gm, wm := renderCalls(calls)
		if !slices.Equal(got, want) || !slices.Equal(gm, wm) {
			t.Errorf("lines %q marks %v, want %q %v", got, gm, want, wm)
		}
	})
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }
