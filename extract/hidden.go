package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// Hidden main text: WeChat article pages serve the article inside
// <div class="rich_media_content" id="js_content" style="visibility: hidden;">,
// a style their script lifts once the page is laid out. A container hidden
// by its inline style whose text is most of the page's text is the page's
// main text, not a hidden extra: its hiding declarations are removed so
// that it is read like visible text. Hidden elements inside it (decoy
// text, display:none inside an article) stay hidden, and a hidden block
// beside a visible article (less than the share below) is still dropped.
const (
	// hiddenMainShare: a hidden container holding at least this share of
	// the page's text (in bytes of non-space text) is the main text.
	hiddenMainShare = 0.5
	// minHiddenMainBytes: a smaller hidden container is never unhidden
	// (about 100 Chinese characters).
	minHiddenMainBytes = 300
)

// unhideMain lifts the inline hiding of the container that holds the
// page's main text, if one does.
func unhideMain(doc *html.Node) {
	var best *html.Node
	bestBytes, total := 0, 0
	var walk func(n *html.Node, depth int, hidden *html.Node) int
	walk = func(n *html.Node, depth int, hidden *html.Node) int {
		sum := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				sum += len(strings.TrimSpace(c.Data))
			case c.Type != html.ElementNode || skipAtoms[c.DataAtom] || depth >= maxRenderDepth:
			case hidden == nil && styleHidden(c):
				b := walk(c, depth+1, c)
				if b > bestBytes {
					best, bestBytes = c, b
				}
				sum += b
			default:
				sum += walk(c, depth+1, hidden)
			}
		}
		return sum
	}
	total = walk(doc, 0, nil)
	if best == nil || bestBytes < minHiddenMainBytes || float64(bestBytes) < hiddenMainShare*float64(total) {
		return
	}
	for i, a := range best.Attr {
		if a.Key == "style" {
			best.Attr[i].Val = unhideStyle(a.Val)
		}
	}
}

// styleHidden reports an element hidden by its inline style alone
// (display:none or visibility:hidden), the hiding a page's script lifts.
func styleHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "hidden" || (a.Key == "aria-hidden" && a.Val == "true") {
			return false
		}
	}
	s := attr(n, "style")
	return s != "" && isHidden(n)
}

// unhideStyle drops the display:none and visibility:hidden declarations
// of an inline style.
func unhideStyle(style string) string {
	var kept []string
	for _, d := range strings.Split(style, ";") {
		k, v, _ := strings.Cut(d, ":")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
		if (k == "display" && strings.HasPrefix(v, "none")) || (k == "visibility" && strings.HasPrefix(v, "hidden")) {
			continue
		}
		if strings.TrimSpace(d) != "" {
			kept = append(kept, strings.TrimSpace(d))
		}
	}
	return strings.Join(kept, "; ")
}
