package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockAtoms are elements that start a new paragraph line when rendered.
var blockAtoms = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Br: true, atom.Center: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Section: true, atom.Table: true, atom.Tbody: true,
	atom.Td: true, atom.Th: true, atom.Thead: true, atom.Tfoot: true, atom.Tr: true,
	atom.Ul: true, atom.Caption: true, atom.Summary: true, atom.Menu: true,
}

// skipAtoms never contain reader-visible text.
var skipAtoms = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Head: true, atom.Svg: true, atom.Math: true, atom.Select: true,
	atom.Option: true, atom.Textarea: true, atom.Button: true, atom.Input: true,
	atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Video: true,
	atom.Audio: true, atom.Map: true, atom.Title: true, atom.Meta: true, atom.Link: true,
	// Fallbacks for plug-ins and frames: a browser that renders the page
	// never shows them, and their raw text is often escaped ad markup
	// (a <noembed> of ad-server URLs whose commas score like prose).
	atom.Noembed: true, atom.Noframes: true, atom.Param: true, atom.Applet: true,
	atom.Frameset: true, atom.Frame: true,
}

// isHidden reports whether an element is hidden by attributes a reader
// would not see (hidden, aria-hidden, inline display:none/visibility:hidden).
func isHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "style":
			s := strings.ToLower(a.Val)
			if strings.Contains(s, "display") && strings.Contains(strings.ReplaceAll(s, " ", ""), "display:none") {
				return true
			}
			if strings.Contains(s, "visibility") && strings.Contains(strings.ReplaceAll(s, " ", ""), "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// lineBuilder accumulates rendered text as lines. A line that is a piece
// of one text node whose whitespace needs no change (the common case: a
// paragraph) is that piece of the node's text, not a copy; other lines are
// built in one reused buffer and copied once, at their size. The lines of a
// page thus cost little beyond the parse tree's text.
type lineBuilder struct {
	lines []string
	view  string // the current line when it is verbatim text (see verbatim)
	buf   []byte // the current line otherwise
	space bool   // a collapsed whitespace is pending
	// marks, when not nil, receives per line whether any of its text was
	// rendered inside a foreign region (foreign > 0), see renderPage.
	marks   *[]bool
	foreign int
	curMark bool
}

func (b *lineBuilder) text(s string) {
	if b.view == "" && len(b.buf) == 0 {
		if t, trailing, ok := verbatim(s); ok {
			if t == "" {
				b.space = b.space || s != ""
				return
			}
			b.view, b.space = t, trailing
			if b.foreign > 0 {
				b.curMark = true
			}
			return
		}
	} else if b.view != "" {
		b.buf = append(b.buf[:0], b.view...)
		b.view = ""
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if isSpace(r) {
			b.space = true
			continue
		}
		if b.space && len(b.buf) > 0 {
			b.buf = append(b.buf, ' ')
		}
		b.space = false
		b.buf = utf8.AppendRune(b.buf, r)
		if b.foreign > 0 {
			b.curMark = true
		}
	}
}

// verbatim reports whether s, rendered on an empty line, gives its own
// bytes trimmed: t is s without leading and trailing whitespace, ok when t
// is valid UTF-8 and each of its whitespace runs is one ASCII space (what
// a run collapses to); trailing reports whitespace after t.
func verbatim(s string) (t string, trailing, ok bool) {
	start, end := -1, 0
	inRun, runOK := false, false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			if r, size = utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
				return "", false, false // rendered as U+FFFD
			}
		}
		switch {
		case isSpace(r):
			runOK = !inRun && r == ' '
			inRun = true
		case start < 0:
			start, end, inRun = i, i+size, false
		default:
			if inRun && !runOK {
				return "", false, false
			}
			end, inRun = i+size, false
		}
		i += size
	}
	if start < 0 {
		return "", false, true
	}
	return s[start:end], end < len(s), true
}

func (b *lineBuilder) newline() {
	if l := b.line(); l != "" {
		b.lines = append(b.lines, l)
		b.view, b.buf = "", b.buf[:0]
		if b.marks != nil {
			*b.marks = append(*b.marks, b.curMark)
		}
		b.curMark = false
	}
	b.space = false
}

// line is the current line.
func (b *lineBuilder) line() string {
	if b.view != "" {
		return b.view
	}
	return string(b.buf)
}

// isSpace reports whitespace for text collapsing, including the
// ideographic space U+3000 used to indent Chinese paragraphs.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || r == '\u3000' || r == '\u200b' || r == '\ufeff'
}

// renderLines renders the reader-visible text of n as lines: every block
// element and <br> ends a line, whitespace runs collapse to one space and
// empty lines are dropped.
func renderLines(n *html.Node) []string {
	var b lineBuilder
	renderInto(&b, n, 0)
	b.newline()
	return b.lines
}

// maxRenderDepth bounds recursion on pathological nesting; deeper content is
// rendered flat (iteratively) rather than dropped.
const maxRenderDepth = 512

func renderInto(b *lineBuilder, n *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		b.text(n.Data)
		return
	case html.ElementNode:
		if skipAtoms[n.DataAtom] || isHidden(n) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	block := n.Type == html.ElementNode && blockAtoms[n.DataAtom]
	if block {
		b.newline()
	}
	foreign := b.marks != nil && n.Type == html.ElementNode && isForeign(n)
	if foreign {
		b.foreign++
	}
	if depth >= maxRenderDepth {
		renderFlat(b, n)
	} else {
		afterHeading := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if b.marks != nil && !afterHeading && c.Type == html.ElementNode && blockAtoms[c.DataAtom] && isHeadingElement(c) {
				// A related-reading heading: it and the rest of its
				// siblings are the block.
				afterHeading = true
				b.foreign++
			}
			renderInto(b, c, depth+1)
		}
		if afterHeading {
			b.foreign--
		}
	}
	if block {
		b.newline()
	}
	if foreign {
		b.foreign--
	}
}

// renderFlat renders the text of n without recursion (one line per text
// node), used below maxRenderDepth.
func renderFlat(b *lineBuilder, n *html.Node) {
	for c := n.FirstChild; c != nil; {
		if c.Type == html.TextNode {
			b.text(c.Data)
		}
		skip := c.Type == html.ElementNode && (skipAtoms[c.DataAtom] || isHidden(c))
		if c.FirstChild != nil && !skip {
			if c.Type == html.ElementNode && blockAtoms[c.DataAtom] {
				b.newline()
			}
			c = c.FirstChild
			continue
		}
		for c != n && c.NextSibling == nil {
			c = c.Parent
			if c.Type == html.ElementNode && blockAtoms[c.DataAtom] {
				b.newline()
			}
		}
		if c == n {
			return
		}
		c = c.NextSibling
	}
}

// textOf is the whitespace-collapsed text of n on one line.
func textOf(n *html.Node) string {
	return strings.Join(renderLines(n), " ")
}

// runeLen counts the runes of s.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
