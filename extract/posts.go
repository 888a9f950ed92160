package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// A page that shows several posts one after another (a blog's front page
// or archive, a forum thread) is about its first: the newest entry of a
// blog, the opening post of a thread. Scored by text, the longest post
// wins wherever it stands. firstPost recognises the shape: the chosen
// block lies inside one of at least minPosts sibling units of the same
// tag and class, each with a date and a text of its own of at least
// minPostUnits; when the chosen unit is not the first, the block at the
// same place in the first unit is taken instead.
const (
	minPosts     = 3
	minPostUnits = 60
	// maxPostDepth bounds how far above the chosen block a post unit is
	// looked for.
	maxPostDepth = 12
)

var rxPostDate = regexp.MustCompile(`(?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}`)

// firstPost returns the block standing where top stands, in the first of
// the post units around it, or nil when top is not in a later post.
func firstPost(sc *scorer, top *html.Node) *html.Node {
	unit := top
	for depth := 0; unit != nil && unit.Parent != nil && depth < maxPostDepth; depth++ {
		if first := firstSiblingPost(sc, unit); first != nil {
			if first == unit {
				return nil
			}
			n := samePlace(unit, top, first)
			if n == nil {
				return nil
			}
			if u, _ := unitsOf(textOf(n)); u < minPostUnits {
				return nil
			}
			return n
		}
		unit = unit.Parent
	}
	return nil
}

// firstSiblingPost returns the first of unit's siblings (unit included)
// that look like it and carry a post, when at least minPosts do and unit
// is one of them; else nil.
func firstSiblingPost(sc *scorer, unit *html.Node) *html.Node {
	if unit.Type != html.ElementNode || !isPost(sc, unit) {
		return nil
	}
	key := unit.Data + "." + attr(unit, "class")
	var first *html.Node
	n := 0
	for c := unit.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.Data+"."+attr(c, "class") != key || !isPost(sc, c) {
			continue
		}
		if first == nil {
			first = c
		}
		n++
	}
	if n < minPosts {
		return nil
	}
	return first
}

// isPost reports whether n has a date and enough text to be a post.
func isPost(sc *scorer, n *html.Node) bool {
	if st := sc.stats[n]; st == nil || st.units < minPostUnits {
		return false
	}
	return rxPostDate.MatchString(textOf(n))
}

// samePlace follows the path from unit down to n (element child indexes
// with their tags) inside other, and returns the node it reaches, or nil.
func samePlace(unit, n, other *html.Node) *html.Node {
	var path []string
	var idx []int
	for p := n; p != unit; p = p.Parent {
		if p == nil {
			return nil
		}
		path = append(path, p.Data)
		idx = append(idx, elementIndex(p))
	}
	at := other
	for i := len(path) - 1; i >= 0; i-- {
		at = nthElement(at, idx[i])
		if at == nil || !strings.EqualFold(at.Data, path[i]) {
			return nil
		}
	}
	return at
}

func elementIndex(n *html.Node) int {
	i := 0
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			i++
		}
	}
	return i
}

func nthElement(n *html.Node, i int) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if i == 0 {
				return c
			}
			i--
		}
	}
	return nil
}
