package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page regions that never hold the article's own metadata: related-article
// and recommendation blocks, comment threads, footers and sidebars. Their
// lines are marked when the page is rendered, and the publish date and the
// byline are never taken from a marked line (a related headline
// "人民日报整版刊文：…" is not a "文：" byline; a related article's date is
// not this article's).
var foreignNames = newPattern([]string{"comment", "footer", "related", "recommend", "tuijian", "xgyd", "xgxw", "pinglun", "gentie", "sidebar", "hotnews", "copyright"}, "tie", "foot", "ft", "relate", "hot", "rank", "aside", "side", "metadata", "ambox", "mbox", "navbox")

// ownFooterNames are the article's own footer (byline, posting time):
// "post-footer", "entry-footer", "article-foot".
var ownFooterNames = newPattern([]string{"post-foot", "postfoot", "entry-foot", "article-foot", "story-foot", "post_foot", "entry_foot", "article_foot", "content-foot", "news-foot"})

// isForeign reports an element that starts a foreign region.
func isForeign(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Aside, atom.Nav:
		return true
	case atom.Footer:
		// An article's <footer> holds its byline.
		for p, i := n.Parent, 0; p != nil && i < 4; p, i = p.Parent, i+1 {
			if p.DataAtom == atom.Article {
				return false
			}
		}
		return true
	}
	v := lowerNames(n)
	return v != "" && foreignNames.match(v) && !ownFooterNames.match(v)
}

// maxHeadingBytes bounds the text of an element tested as a related-block
// heading (the test reads at most this much of it).
const maxHeadingBytes = 4 * maxRelatedHeadingRunes

// isHeadingElement reports an element whose whole (short) text is a
// related-reading heading: the siblings after it are the block.
func isHeadingElement(n *html.Node) bool {
	var b strings.Builder
	var walk func(n *html.Node, depth int) bool
	walk = func(n *html.Node, depth int) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if b.Len()+len(c.Data) > maxHeadingBytes {
					return false // not copied: a paragraph's text node can be megabytes
				}
				b.WriteString(c.Data)
			case html.ElementNode:
				if depth > 4 || skipAtoms[c.DataAtom] {
					continue
				}
				if !walk(c, depth+1) {
					return false
				}
			}
		}
		return true
	}
	if !walk(n, 0) {
		return false
	}
	// Only the exact headings: prefixes ("更多…", "热门…") also start
	// navigation items, and the siblings after those are the page.
	t := trimHeading(b.String())
	for _, h := range relatedHeadings {
		if strings.EqualFold(t, h) {
			return true
		}
	}
	return false
}

// pageLines is the rendered page with a mark on every line inside a
// foreign region.
type pageLines struct {
	lines   []string
	foreign []bool
}

// renderPage renders the whole page, marking foreign lines.
func renderPage(doc *html.Node) pageLines {
	var b lineBuilder
	b.marks = &[]bool{}
	renderInto(&b, doc, 0)
	b.newline()
	return pageLines{lines: b.lines, foreign: *b.marks}
}

// trustedMarks returns the foreign marks of the page, or nil when most of
// the article's own lines are marked: the page wraps its article in an
// element named like a region ("…-side", "…hot…"), and the marks say
// nothing there.
func trustedMarks(p pageLines, body []string) []bool {
	in := make(map[string]bool, len(body))
	for _, l := range body {
		in[l] = true
	}
	total, marked := 0, 0
	for i, l := range p.lines {
		if in[l] {
			total++
			if p.foreign[i] {
				marked++
			}
		}
	}
	if marked*2 > total {
		return nil
	}
	return p.foreign
}
