package extract

import (
	"math"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Content scoring follows Readability's paragraph scoring (Mozilla
// Readability.js grabArticle: 1 point per paragraph, 1 per comma, 1 per 100
// characters up to 3, credited to the parent in full, the grandparent by
// half and higher ancestors by level*3; candidates scaled by 1 - link
// density; top-candidate promotion; sibling merging) with changes for
// Chinese pages: Chinese punctuation counts like commas; text is measured
// in "units" where a CJK character weighs cjkWeight, so Readability's
// character thresholds (25-character paragraphs, 80-character siblings)
// keep their meaning; a block with its own text (a <td> or <div> of
// <br>-separated lines) scores itself as well as its ancestors; class hints
// are factors. All statistics come from one bottom-up pass.
const (
	// cjkWeight: one CJK character carries about as much text as three
	// Latin characters (an English word of ~5 letters plus a space vs.
	// ~1.7 characters per Chinese word).
	cjkWeight = 3
	// minParagraphUnits is Readability's 25-character paragraph minimum.
	minParagraphUnits = 25
	// unitsPerBonus and maxLengthBonus: 1 point per 100 characters, at most 3.
	unitsPerBonus  = 100
	maxLengthBonus = 3
	// ancestorLevels is how many ancestors receive a paragraph's score.
	ancestorLevels = 5
	// minSiblingScore: Readability's sibling threshold is max(10,
	// Tuning.SiblingScoreShare of the top score).
	minSiblingScore = 10
	// positiveClassFactor and negativeClassFactor scale a candidate whose
	// class/id looks like a body or like boilerplate. Readability adds a
	// fixed +/-25, which outweighs a whole short Chinese article (a
	// 200-character brief scores ~20); a factor keeps the hint proportional.
	positiveClassFactor = 1.25
	negativeClassFactor = 0.5
)

// nodeStats holds the text statistics of one element.
type nodeStats struct {
	units     int // text units in the subtree
	linkUnits int // text units inside <a> in the subtree
	ownUnits  int // units of text whose nearest block ancestor is this node
	// That own text cut into paragraphs at runs of two or more <br>
	// (Readability's replaceBrs turns them into <p>): the paragraphs
	// before the current one, and the current one.
	brParas   []ownPara
	cur       ownPara
	lastBr    bool // the last own content was a <br>
	links     int  // <a> elements with text in the subtree
	images    int  // <img> elements in the subtree
	headlines int  // <h1> elements in the subtree
	score     float64
	scored    bool
}

// ownPara is one paragraph of a block's own text.
type ownPara struct{ units, link, punct int }

// score is Readability's paragraph score: 1, plus 1 per comma, plus 1 per
// 100 characters up to 3, scaled by 1 - link density. Paragraphs under
// minParagraphUnits score 0.
func (p ownPara) score() float64 {
	if p.units < minParagraphUnits {
		return 0
	}
	own := float64(p.units)
	return (1 + float64(p.punct) + math.Min(math.Floor(own/unitsPerBonus), maxLengthBonus)) * (1 - float64(p.link)/own)
}

// ownScore scores a block's own text: as one paragraph, or, when runs of
// <br> cut it into several, as the sum of those paragraphs (a <div> of
// <br><br>-separated paragraphs scores like the same <p>s would).
func (s *nodeStats) ownScore() float64 {
	if len(s.brParas) == 0 {
		return s.cur.score()
	}
	sum := s.cur.score()
	for _, p := range s.brParas {
		sum += p.score()
	}
	return sum
}

func (s *nodeStats) linkDensity() float64 {
	if s.units == 0 {
		return 0
	}
	return float64(s.linkUnits) / float64(s.units)
}

// unitsOf returns the weighted length and sentence punctuation count of s.
func unitsOf(s string) (units, punct int) {
	for _, r := range s {
		switch {
		case r < 0x80:
			if r == ',' {
				punct++
			}
			if r > ' ' {
				units++
			}
		case isSpace(r):
		case isCJK(r):
			units += cjkWeight
		default:
			units++
			if isCJKPunct(r) {
				punct++
				units += cjkWeight - 1
			}
		}
	}
	return units, punct
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// isCJKPunct reports Chinese sentence punctuation that Readability's comma
// count should include.
func isCJKPunct(r rune) bool {
	switch r {
	case '，', '。', '、', '；', '：', '！', '？', '\uFE50', '\u060C':
		return true
	}
	return false
}

// paragraphAtoms are blocks that are paragraphs of their parent (their
// score goes to the parent, as Readability scores <p> for the parent).
var paragraphAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Li: true, atom.Dd: true, atom.Dt: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Pre: true, atom.Blockquote: true,
	atom.Figcaption: true, atom.Caption: true, atom.Th: true,
}

// noCandidateAtoms never hold an article body.
var noCandidateAtoms = map[atom.Atom]bool{
	atom.A: true, atom.H1: true, atom.Nav: true, atom.Footer: true, atom.Aside: true,
	atom.Header: true, atom.Ul: true, atom.Ol: true, atom.Select: true,
	atom.Html: true,
}

func classFactorOf(n *html.Node) float64 {
	f := 1.0
	for _, key := range []string{"class", "id"} {
		v := attr(n, key)
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		if negativeNames.match(v) {
			f *= negativeClassFactor
		}
		if positiveNames.match(v) {
			f *= positiveClassFactor
		}
	}
	return f
}

// maxUnlikelyShare: an "unlikely" element that holds more than this share
// of the page's text is a page wrapper with an unlucky class name
// ("Page-ad-margins", "PageBuilder-pageRow"), unless it is a comment box
// without the headline (long discussions outweigh short posts); Readability
// recovers from such removals by re-running without them, here they are
// kept.
const maxUnlikelyShare = 0.4

// removeUnlikely removes elements whose class/id marks them as comments,
// navigation, footers and the like (Readability's first-pass
// stripUnlikelys), except inside tables and for <body> and <a>. sc holds
// the statistics of the document before removal.
func removeUnlikely(sc *scorer, n *html.Node, total, depth int) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			if cs := sc.stats[c]; isUnlikely(c) && (float64(cs.units) <= maxUnlikelyShare*float64(total) || cs.headlines == 0 && isCommentBox(c)) {
				n.RemoveChild(c)
			} else if depth < maxRenderDepth {
				removeUnlikely(sc, c, total, depth+1)
			}
		}
		c = next
	}
}

func isCommentBox(n *html.Node) bool {
	return commentBoxNames.match(lowerNames(n))
}

func isUnlikely(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Body, atom.A, atom.Html, atom.Table, atom.Tbody, atom.Tr, atom.Td, atom.Th:
		return false
	}
	match := lowerNames(n)
	if match == "" || !unlikelyNames.match(match) || maybeNames.match(match) || embedNames.match(match) {
		return false
	}
	for p, i := n.Parent, 0; p != nil && i < 3; p, i = p.Parent, i+1 {
		if p.DataAtom == atom.Table || p.DataAtom == atom.Code {
			return false
		}
	}
	return true
}

// scorer computes statistics for every element of a (pruned) document.
type scorer struct {
	t     Tuning
	stats map[*html.Node]*nodeStats
	order []*html.Node // elements in document order (for deterministic ties)
}

func newScorer(t Tuning) *scorer {
	return &scorer{t: t, stats: make(map[*html.Node]*nodeStats, 1024)}
}

func (sc *scorer) get(n *html.Node) *nodeStats {
	s := sc.stats[n]
	if s == nil {
		s = &nodeStats{}
		sc.stats[n] = s
	}
	return s
}

// measure fills the statistics of the subtree of n and returns its units
// and link units; block is the nearest block ancestor receiving own text.
func (sc *scorer) measure(n *html.Node, block *html.Node, inLink bool, depth int) (units, linkUnits int) {
	switch n.Type {
	case html.TextNode:
		if block == nil {
			return 0, 0
		}
		u, p := unitsOf(n.Data)
		if u == 0 {
			return 0, 0
		}
		bs := sc.get(block)
		bs.ownUnits += u
		bs.cur.units += u
		bs.lastBr = false
		if inLink {
			bs.cur.link += u
			return u, u
		}
		bs.cur.punct += p
		return u, 0
	case html.ElementNode, html.DocumentNode:
	default:
		return 0, 0
	}
	if depth > maxRenderDepth {
		return 0, 0
	}
	isLink := n.DataAtom == atom.A && !wrapsProse(n)
	if n.Type == html.ElementNode && (blockAtoms[n.DataAtom] || n.DataAtom == atom.Body) && n.DataAtom != atom.Br && n.DataAtom != atom.Hr {
		block = n
	}
	if n.DataAtom == atom.Br && block != nil {
		// A second <br> in a row ends the block's current paragraph.
		bs := sc.get(block)
		if bs.lastBr && bs.cur.units > 0 {
			bs.brParas = append(bs.brParas, bs.cur)
			bs.cur = ownPara{}
		}
		bs.lastBr = true
	}
	s := sc.get(n)
	if n.Type == html.ElementNode {
		sc.order = append(sc.order, n)
	}
	switch n.DataAtom {
	case atom.Img:
		s.images++
	case atom.H1:
		s.headlines++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		u, l := sc.measure(c, block, inLink || isLink, depth+1)
		s.units += u
		s.linkUnits += l
		if c.Type == html.ElementNode {
			cs := sc.stats[c]
			s.links += cs.links
			s.images += cs.images
			s.headlines += cs.headlines
		}
	}
	if isLink && s.units > 0 {
		s.links++
	}
	return s.units, s.linkUnits
}

// scoreParagraphs credits every paragraph block to its ancestors.
func (sc *scorer) scoreParagraphs(root *html.Node) {
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if n.Type != html.ElementNode && n.Type != html.DocumentNode {
			return
		}
		if depth > maxRenderDepth {
			return
		}
		if n.Type == html.ElementNode {
			s := sc.stats[n]
			if s != nil && s.ownUnits >= minParagraphUnits && n.DataAtom != atom.H1 {
				if score := s.ownScore(); score > 0 {
					level := 0
					start := n
					if paragraphAtoms[n.DataAtom] {
						start = n.Parent
					}
					if sc.isTeaser(start, n) {
						score *= teaserFactor
					}
					for a := start; a != nil && level < ancestorLevels; a = a.Parent {
						if a.Type != html.ElementNode {
							break
						}
						div := 1.0
						switch {
						case level == 1:
							div = 2
						case level > 1:
							div = float64(level * 3)
						}
						as := sc.get(a)
						as.scored = true
						as.score += score / div
						level++
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
}

// finalScore is the candidate score scaled by link density.
func (sc *scorer) finalScore(n *html.Node) float64 {
	s := sc.stats[n]
	if s == nil || !s.scored {
		return 0
	}
	return s.score * (1 - s.linkDensity()) * classFactorOf(n)
}

// cand is a scored candidate element.
type cand struct {
	n     *html.Node
	score float64
}

// topCandidate returns the best-scoring candidate element, promoted to an
// ancestor when Readability would do so, and the top candidates by score
// (best first) before promotion.
func (sc *scorer) topCandidate() (*html.Node, []cand) {
	const nTop = 5
	var top []cand
	for _, n := range sc.order {
		s := sc.stats[n]
		if !s.scored || noCandidateAtoms[n.DataAtom] || paragraphAtoms[n.DataAtom] {
			continue
		}
		f := sc.finalScore(n)
		if f <= 0 {
			continue
		}
		// Insert keeping top sorted; ties keep document order.
		c := cand{n, f}
		i := len(top)
		for i > 0 && top[i-1].score < f {
			i--
		}
		if i < nTop {
			top = append(top, cand{})
			copy(top[i+1:], top[i:])
			top[i] = c
			if len(top) > nTop {
				top = top[:nTop]
			}
		}
	}
	if len(top) == 0 {
		return nil, nil
	}
	best := top[0].n
	bestScore := top[0].score
	// Several strong candidates sharing an ancestor: the article is split;
	// take the common ancestor (Readability: 3 of the top 5 within 75%).
	var alts []*html.Node
	for _, c := range top[1:] {
		if c.score/bestScore >= 0.75 {
			alts = append(alts, c.n)
		}
	}
	const minAlternatives = 3
	if len(alts) >= minAlternatives {
		for p := best.Parent; p != nil && p.DataAtom != atom.Body && p.Type == html.ElementNode; p = p.Parent {
			contains := 0
			for _, a := range alts {
				if isAncestor(p, a) {
					contains++
				}
			}
			if contains >= minAlternatives {
				best = p
				break
			}
		}
	}
	// Walk up while a parent scores higher (content split across children).
	last := sc.finalScore(best)
	threshold := last / 3
	for p := best.Parent; p != nil && p.Type == html.ElementNode && p.DataAtom != atom.Body; p = p.Parent {
		ps := sc.stats[p]
		if ps == nil || !ps.scored {
			continue
		}
		f := sc.finalScore(p)
		if f < threshold {
			break
		}
		if f > last {
			best = p
			break
		}
		last = f
	}
	// An only child says nothing more than its parent.
	for best.Parent != nil && best.Parent.Type == html.ElementNode && best.Parent.DataAtom != atom.Body && elementChildren(best.Parent) == 1 {
		best = best.Parent
	}
	return best, top
}

// runnerUp returns the score ratio of the best candidate that is not part
// of the chosen content (neither inside nor around any chosen node) to the
// best candidate's score; 0 when there is none.
func runnerUp(top []cand, chosen []*html.Node) float64 {
	if len(top) < 2 || top[0].score <= 0 {
		return 0
	}
	for _, c := range top[1:] {
		related := false
		for _, n := range chosen {
			if c.n == n || isAncestor(n, c.n) || isAncestor(c.n, n) {
				related = true
				break
			}
		}
		if !related {
			return c.score / top[0].score
		}
	}
	return 0
}

func isAncestor(a, n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

func elementChildren(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			k++
		} else if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return 2 // text siblings matter
		}
	}
	return k
}

// sentenceEnd reports whether s ends like a sentence.
func sentenceEnd(s string) bool {
	s = strings.TrimRightFunc(s, isSpace)
	for _, suf := range []string{"。", ".", "！", "？", "!", "?", "”", "\"", "）", ")", "…"} {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

// cousinLevels is how far up the common ancestor of same-class article
// chunks may be (Wired-style pages wrap each run of paragraphs between ads
// in its own "article__body" block, two or three levels below the
// article).
const cousinLevels = 3

// withCousins adds to nodes the elements elsewhere under top's ancestors
// that carry exactly top's tag and class and score like a body part
// (Readability's sibling rule, including its same-class bonus, applied one
// to cousinLevels levels further out). The result is in document order.
func (sc *scorer) withCousins(top *html.Node, nodes []*html.Node) []*html.Node {
	class := attr(top, "class")
	if class == "" {
		return nodes
	}
	root := top
	for i := 0; i < cousinLevels && root.Parent != nil && root.Parent.Type == html.ElementNode && root.Parent.DataAtom != atom.Body; i++ {
		root = root.Parent
	}
	threshold := math.Max(minSiblingScore, sc.finalScore(top)*sc.t.SiblingScoreShare)
	chosen := map[*html.Node]bool{}
	for _, n := range nodes {
		chosen[n] = true
	}
	added := false
	var out []*html.Node
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if chosen[n] {
			out = append(out, n)
			return
		}
		if n != top && n.Type == html.ElementNode && n.DataAtom == top.DataAtom && attr(n, "class") == class {
			if st := sc.stats[n]; st != nil && st.scored && sc.finalScore(n) >= threshold && st.linkDensity() <= sc.t.LinkBlockDensity {
				out = append(out, n)
				added = true
				return
			}
		}
		if depth >= maxRenderDepth {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	if !added {
		return nodes
	}
	// Nodes outside root (none expected) keep their place at the end.
	for _, n := range nodes {
		if !isAncestor(root, n) && n != root {
			out = append(out, n)
		}
	}
	return out
}

// withSiblings returns top and the siblings Readability would append.
func (sc *scorer) withSiblings(top *html.Node) []*html.Node {
	if top.Parent == nil {
		return []*html.Node{top}
	}
	topScore := sc.finalScore(top)
	threshold := math.Max(minSiblingScore, topScore*sc.t.SiblingScoreShare)
	topClass := attr(top, "class")
	var out []*html.Node
	for c := top.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c == top {
			out = append(out, c)
			continue
		}
		if c.Type != html.ElementNode {
			continue
		}
		s := sc.stats[c]
		if s == nil || isBoilerplateBlock(c) {
			continue
		}
		bonus := 0.0
		if topClass != "" && attr(c, "class") == topClass {
			bonus = topScore * sc.t.SiblingScoreShare
		}
		if s.scored && sc.finalScore(c)+bonus >= threshold && !noCandidateAtoms[c.DataAtom] {
			out = append(out, c)
			continue
		}
		if c.DataAtom == atom.P {
			ld := s.linkDensity()
			switch {
			case s.units > 80 && ld < 0.25:
				out = append(out, c)
			case s.units < 80 && s.units > 0 && ld == 0 && sentenceEnd(textOf(c)):
				out = append(out, c)
			}
		}
	}
	return out
}

// isBoilerplateBlock reports a block named like boilerplate (share bars,
// related links, comments) or opening with a related-reading heading; such
// siblings are never merged into the article.
func isBoilerplateBlock(n *html.Node) bool {
	if v := lowerNames(n); v != "" && boilerplateNames.match(v) && !embedNames.match(v) {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return isRelatedHeading(c.Data)
			}
		case html.ElementNode:
			return isRelatedHeading(textOf(c))
		}
	}
	return false
}

// Prose wrapped in a link. An <a> left unclosed before the article makes
// the HTML5 parser put everything after it inside the link, as browsers
// do; its text is then prose, not navigation. A link counts as prose when
// it holds at least proseLinkParas paragraphs of proseParaUnits units each:
// card links on list pages wrap a headline and a one-line summary.
const (
	proseLinkParas = 3
	proseParaUnits = 60 // about 20 Chinese characters
)

func wrapsProse(a *html.Node) bool {
	if a.FirstChild == nil || (a.FirstChild.Type == html.TextNode && a.FirstChild.NextSibling == nil) {
		return false
	}
	paras := 0
	var walk func(n *html.Node, depth int) bool
	walk = func(n *html.Node, depth int) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || depth > maxRenderDepth {
				continue
			}
			if c.DataAtom == atom.P {
				if u, _ := unitsOf(textOf(c)); u >= proseParaUnits {
					if paras++; paras >= proseLinkParas {
						return true
					}
				}
				continue
			}
			if walk(c, depth+1) {
				return true
			}
		}
		return false
	}
	return walk(a, 0)
}

// Teasers. A news stream beside an article ("更多新聞", "相关推荐") is a
// list of items, each a linked headline over a summary paragraph; on a
// busy portal page (Yahoo's stream, 360kuai's feed) its summaries hold
// more text than a short article and, scored as paragraphs, the stream
// outscores the article, whose block then loses to a list that is no
// article at all. A paragraph whose item is headed by a headline that is
// wholly a link is such a summary: it scores teaserFactor of a paragraph.
// An article's own subheadings are not links; a linked headline over
// prose is the shape of a list item, not of an article's section.
const teaserFactor = 0.2

// isTeaser reports whether paragraph p, in its item container item, is a
// teaser's summary: a heading (h2-h6) before p among item's children or
// grandchildren holds text and all of it inside links.
func (sc *scorer) isTeaser(item, p *html.Node) bool {
	if item == nil || item == p || item.Type != html.ElementNode {
		return false
	}
	linkedHeading := func(h *html.Node) bool {
		switch h.DataAtom {
		case atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		default:
			return false
		}
		hs := sc.stats[h]
		return hs != nil && hs.units > 0 && hs.linkUnits == hs.units
	}
	for c := item.FirstChild; c != nil && c != p; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if linkedHeading(c) {
			return true
		}
		if c.DataAtom == atom.A {
			for g := c.FirstChild; g != nil; g = g.NextSibling {
				if g.Type == html.ElementNode && linkedHeading(g) {
					return true
				}
			}
		}
	}
	return false
}
