package extract

// Multi-page articles. Portals split long articles over numbered pages
// linked from a pager block under the text:
//   - People's Daily: <div class="zdfy clearfix"> with 【1】【2】【3】 links to
//     c1013-31158394.html, c1013-31158394-2.html, -3.html (the pager markup
//     of extract/testdata/pages/people-gbk.html; issue "discovery" item 2);
//   - Xinhua: <center class="xinhuaPager"> holding <span id="xinhuaPagerBox">
//     with numbered links to path?page=N and 上一页/下一页 (the site's paging
//     script parsePagingFun builds it from the page's own text, split at
//     <img id="xinhuabreak">, so every ?page=N serves the whole text again);
//   - Sina _2.shtml, old ifeng _0.shtml (zero-based: _0 is page 1, _1 page 2),
//     Xinhua's older c_1127517461_2.htm.
//
// The rule: a link is a pager link when its text is a page number (1, 【2】,
// [3], 第4页) or a pager word (下一页, 上一页, 首页, 尾页, next, prev) and its
// URL is a sibling page of the page read: the same scheme, host, directory,
// stem, extension and query with a page suffix -N or _N (at most
// maxPageDigits digits: longer numbers are article ids), or the same URL
// with a page=N parameter. A numbered link whose number is not the page
// its URL names is not a pager link, and a block with more such
// inconsistent links than consistent ones is no pager. Links inside
// comment regions are never pager links (comment paging), index/list
// pages are never multi-page articles (list paging), and a block that also
// links a table of contents (目录) is chapter navigation, whose pages are
// texts of their own. The block with the
// most pager links wins; pages between the first and the last that the
// block does not link (a windowed pager: 1 2 3 … 尾页) are built from the
// URL pattern. A site whose pager this rule misses names it with a CSS
// selector (Options.PagerSelector, the site's extract.pager).

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/newsdedup/newscrawl/urlnorm"
)

// MaxArticlePages bounds the pages of one article: a pager naming more
// pages reports the first MaxArticlePages (Pager.Truncated), and the
// crawl fetches no more than that for one article.
const MaxArticlePages = 30

// maxPageDigits: a -N or _N suffix of more digits is part of an article
// id (People's Daily c1013-31158394.html), not a page number.
const maxPageDigits = 3

// Pager is what a page's pager says about its article's pages.
type Pager struct {
	// Pages are the canonical URLs of the article's pages in page order,
	// page 1 first; nil when the page is not part of a multi-page article.
	Pages []string
	// Current is the index in Pages of the page read (0: page 1); -1 when
	// it lies beyond the first MaxArticlePages pages.
	Current int
	// Truncated: the pager named more than MaxArticlePages pages.
	Truncated bool
	// Whole: the page holds the text of every page, split by a script in
	// the browser (Xinhua's parsePagingFun cuts #detail at
	// <img id="xinhuabreak"> or a hidden <b>pagebreak</b> and serves the
	// same HTML at every ?page=N): the other pages need not be fetched.
	Whole bool
}

// Multi reports whether the page belongs to an article of several pages.
func (p Pager) Multi() bool { return len(p.Pages) > 1 }

// FindPager recognises the pager of a page (UTF-8 HTML) at pageURL;
// selector, when not empty, names the pager block (CSS) instead of the
// generic rule. A page without a pager gives a Pager with no Pages.
func FindPager(pageURL string, page []byte, selector string) (Pager, error) {
	var sel cascadia.Selector
	if selector != "" {
		s, err := cascadia.Compile(selector)
		if err != nil {
			return Pager{}, fmt.Errorf("pager selector %q: %w", selector, err)
		}
		sel = s
	}
	return findPager(pageURL, page, sel)
}

// FindPager is the package's FindPager with the extractor's
// Options.PagerSelector.
func (e *Extractor) FindPager(pageURL string, page []byte) (Pager, error) {
	return findPager(pageURL, page, e.pagerSel)
}

func findPager(pageURL string, page []byte, sel cascadia.Selector) (Pager, error) {
	if len(page) > MaxInputBytes {
		return Pager{}, fmt.Errorf("extract: page of %d bytes exceeds the %d-byte limit", len(page), MaxInputBytes)
	}
	cu, err := urlnorm.Canonical(pageURL, nil)
	if err != nil {
		return Pager{}, fmt.Errorf("pager: page url: %w", err)
	}
	cur, _ := url.Parse(cu)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return Pager{}, fmt.Errorf("extract: parse html: %w", err)
	}
	base := cur
	if b := baseHref(doc); b != "" {
		if bu, err := cur.Parse(b); err == nil && bu.IsAbs() {
			base = bu
		}
	}
	me := pageIDs(cur)
	if len(me) == 0 {
		return Pager{}, nil
	}
	var blocks []*html.Node
	if sel != nil {
		blocks = cascadia.QueryAll(doc, sel)
	}
	best := pickBlock(doc, blocks, sel != nil, base, me)
	if best == nil {
		return Pager{}, nil
	}
	pg := best.pager(cu)
	pg.Whole = pg.Multi() && clientPaged(doc)
	return pg, nil
}

// pageID is a URL seen as a page of a numbered family.
type pageID struct {
	family string // the article's URL with the page number taken out
	kind   byte   // 's' (path suffix) or 'q' (page parameter)
	n      int    // the URL's page number as written; -1: none (page 1)
	sep    string // "-" or "_" for a suffixed URL
}

// pageExts are the extensions of numbered article pages.
var pageExts = []string{".html", ".htm", ".shtml", ".shtm"}

// listStems are file names of list pages, whose pagers are list paging.
var listStems = map[string]bool{"index": true, "list": true, "default": true, "more": true, "roll": true, "": true}

// pageIDs are the ways u can be read as a page of a numbered family: by
// path suffix and by page parameter (a page 1 URL is both).
func pageIDs(u *url.URL) []pageID {
	dir, file := path.Split(u.Path)
	ext := ""
	for _, e := range pageExts {
		if strings.HasSuffix(strings.ToLower(file), e) {
			ext = file[len(file)-len(e):]
			break
		}
	}
	stem := strings.TrimSuffix(file, ext)
	var out []pageID
	q := u.Query()
	if pv, ok := q["page"]; ok && len(pv) == 1 {
		n, ok := pageNumber(pv[0])
		if !ok {
			return nil
		}
		q.Del("page")
		if listStems[strings.ToLower(stem)] {
			return nil
		}
		return []pageID{{family: "q|" + u.Scheme + "://" + u.Host + u.Path + "?" + q.Encode(), kind: 'q', n: n}}
	}
	if ext != "" {
		s, sep, n := splitSuffix(stem)
		if listStems[strings.ToLower(s)] {
			return nil
		}
		out = append(out, pageID{family: "s|" + u.Scheme + "://" + u.Host + dir + s + "|" + ext + "?" + u.RawQuery, kind: 's', n: n, sep: sep})
	}
	if listStems[strings.ToLower(stem)] {
		return out
	}
	return append(out, pageID{family: "q|" + u.Scheme + "://" + u.Host + u.Path + "?" + q.Encode(), kind: 'q', n: -1})
}

// splitSuffix splits a -N or _N page suffix off a file stem (n -1: none).
func splitSuffix(stem string) (base, sep string, n int) {
	i := strings.LastIndexAny(stem, "-_")
	if i <= 0 {
		return stem, "", -1
	}
	v, ok := pageNumber(stem[i+1:])
	if !ok {
		return stem, "", -1
	}
	return stem[:i], stem[i : i+1], v
}

// pageNumber reads a page number of 1 to maxPageDigits ASCII digits.
func pageNumber(s string) (int, bool) {
	if s == "" || len(s) > maxPageDigits {
		return 0, false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	return n, true
}

// pagerLink is a link of a candidate pager block.
type pagerLink struct {
	url    string
	id     pageID   // its reading in the block's family
	ids    []pageID // its readings (pageIDs) before a family is chosen
	number int      // the number the link's text shows; 0: a pager word
}

// pagerBlock is a candidate pager: the links of one block that name pages
// of the page's family.
type pagerBlock struct {
	me    pageID // the page read, as a member of the family
	links []pagerLink
}

// pickBlock groups the page's pager links by block and family and returns
// the block with the most consistent links, or nil. With named blocks
// (a site's pager selector) only links inside them count.
func pickBlock(doc *html.Node, named []*html.Node, useNamed bool, base *url.URL, me []pageID) *pagerBlock {
	type key struct {
		block  *html.Node
		family string
	}
	groups := map[key]*pagerBlock{}
	toc := map[*html.Node]bool{} // blocks linking a table of contents
	var order []key
	visit := func(a *html.Node, block *html.Node) {
		if !useNamed && strings.Contains(textOf(a), "目录") {
			toc[block] = true
		}
		l, ok := readPagerLink(a, base, useNamed)
		if !ok {
			return
		}
		for _, m := range me {
			for _, id := range l.ids {
				if m.family != id.family {
					continue
				}
				k := key{block, m.family}
				g := groups[k]
				if g == nil {
					g = &pagerBlock{me: m}
					groups[k] = g
					order = append(order, k)
				}
				g.links = append(g.links, pagerLink{url: l.url, id: id, number: l.number})
			}
		}
	}
	if useNamed {
		for _, b := range named {
			for a := range b.Descendants() {
				if a.Type == html.ElementNode && a.DataAtom == atom.A {
					visit(a, b)
				}
			}
		}
	} else {
		walkLinks(doc, visit)
	}
	var best *pagerBlock
	bestScore := 0
	for _, k := range order {
		g := groups[k]
		if toc[k.block] {
			continue // chapter navigation (目录, 下一页) of a book or a serial: each page is a text of its own
		}
		if s := g.score(); s > bestScore {
			best, bestScore = g, s
		}
	}
	return best
}

// walkLinks calls fn for every <a> outside comment regions with its
// nearest block ancestor.
func walkLinks(n *html.Node, fn func(a, block *html.Node)) {
	var walk func(n, block *html.Node, depth int)
	walk = func(n, block *html.Node, depth int) {
		if n.Type == html.ElementNode {
			if depth > maxPagerDepth || commentRegion(n) {
				return
			}
			switch n.DataAtom {
			case atom.A:
				fn(n, block)
				return
			case atom.Div, atom.P, atom.Center, atom.Nav, atom.Ul, atom.Ol, atom.Td, atom.Table, atom.Section, atom.Form, atom.Body, atom.Footer, atom.Article:
				block = n
			case atom.Script, atom.Style, atom.Template, atom.Noscript:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, block, depth+1)
		}
	}
	walk(n, n, 0)
}

// maxPagerDepth bounds the element depth the link walk descends (hostile
// nesting never recurses without bound).
const maxPagerDepth = 512

// commentHints mark comment regions, whose paging pages comments.
var commentHints = []string{"comment", "cmt", "pinglun", "reply", "评论"}

func commentRegion(n *html.Node) bool {
	h := strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
	for _, w := range commentHints {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}

// pagerWords are link texts that step through pages.
var pagerWords = map[string]bool{"下一页": true, "上一页": true, "下页": true, "上页": true, "首页": true, "尾页": true,
	"末页": true, "前一页": true, "后一页": true, "next": true, "prev": true, "previous": true, "»": true, "«": true}

// readPagerLink reads an <a> as a pager link: a page number or pager word
// as text (any text inside a block the site named), and an http(s) URL.
func readPagerLink(a *html.Node, base *url.URL, anyText bool) (pagerLink, bool) {
	href := strings.TrimSpace(attr(a, "href"))
	if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(strings.ToLower(href), "javascript:") {
		return pagerLink{}, false
	}
	t := strings.ToLower(strings.Trim(textOf(a), " \u00a0\u3000【】[]()（）<>|《》"))
	number := 0
	if n, ok := pageNumber(strings.TrimSuffix(strings.TrimPrefix(t, "第"), "页")); ok && n > 0 {
		number = n
	} else if !pagerWords[t] && !anyText {
		return pagerLink{}, false
	}
	cu, err := urlnorm.Canonical(href, base)
	if err != nil {
		return pagerLink{}, false
	}
	u, err := url.Parse(cu)
	if err != nil {
		return pagerLink{}, false
	}
	ids := pageIDs(u)
	if len(ids) == 0 {
		return pagerLink{}, false
	}
	return pagerLink{url: cu, ids: ids, number: number}, true
}

// zeroBased reports whether the family numbers its pages from 0 (ifeng
// _0.shtml is page 1).
func (g *pagerBlock) zeroBased() bool {
	if g.me.n == 0 {
		return true
	}
	for _, l := range g.links {
		if l.id.n == 0 {
			return true
		}
	}
	return false
}

// page is the 1-based page number of a member of the family.
func (g *pagerBlock) page(id pageID, zero bool) int {
	switch {
	case id.n < 0:
		return 1
	case zero:
		return id.n + 1
	case id.n == 0:
		return 1
	}
	return id.n
}

// score counts the block's consistent links; 0 when it is no pager (more
// inconsistent numbered links than consistent ones, or no link to another
// page).
func (g *pagerBlock) score() int {
	zero := g.zeroBased()
	mine := g.page(g.me, zero)
	good, bad, other := 0, 0, false
	for _, l := range g.links {
		p := g.page(l.id, zero)
		if l.number > 0 && l.number != p {
			bad++
			continue
		}
		good++
		if p != mine {
			other = true
		}
	}
	if !other || bad > good {
		return 0
	}
	return good
}

// pager builds the article's page list from the block.
func (g *pagerBlock) pager(self string) Pager {
	zero := g.zeroBased()
	byPage := map[int]string{}
	mine := g.page(g.me, zero)
	byPage[mine] = self
	sep := g.me.sep
	last := mine
	for _, l := range g.links {
		p := g.page(l.id, zero)
		if l.number > 0 && l.number != p {
			continue
		}
		if _, ok := byPage[p]; !ok {
			byPage[p] = l.url
		}
		if sep == "" {
			sep = l.id.sep
		}
		last = max(last, p)
	}
	pg := Pager{Current: -1}
	if last > MaxArticlePages {
		pg.Truncated, last = true, MaxArticlePages
	}
	for p := 1; p <= last; p++ {
		u, ok := byPage[p]
		if !ok {
			if u, ok = g.build(self, p, zero, sep); !ok {
				continue
			}
		}
		if slices.Contains(pg.Pages, u) {
			continue
		}
		if u == self {
			pg.Current = len(pg.Pages)
		}
		pg.Pages = append(pg.Pages, u)
	}
	if len(pg.Pages) < 2 {
		return Pager{}
	}
	return pg
}

// build makes the URL of page p of the family from the page read (a page
// the pager does not link); ok is false when the pattern is unknown (a
// suffix family with no suffixed member seen).
func (g *pagerBlock) build(self string, p int, zero bool, sep string) (string, bool) {
	u, err := url.Parse(self)
	if err != nil {
		return "", false
	}
	n := p
	if zero {
		n = p - 1
	}
	switch g.me.kind {
	case 'q':
		q := u.Query()
		if p == 1 && !zero {
			q.Del("page")
		} else {
			q.Set("page", strconv.Itoa(n))
		}
		u.RawQuery = q.Encode()
	default:
		if sep == "" && (p > 1 || zero) {
			return "", false
		}
		dir, file := path.Split(u.Path)
		ext := path.Ext(file)
		stem, _, _ := splitSuffix(strings.TrimSuffix(file, ext))
		if p == 1 && !zero {
			u.Path = dir + stem + ext
		} else {
			u.Path = dir + stem + sep + strconv.Itoa(n) + ext
		}
	}
	c, err := urlnorm.Canonical(u.String(), nil)
	return c, err == nil
}

// clientPaged reports whether the page carries the page-break markers of a
// pager drawn by a script from the page's own text: <img id="xinhuabreak">
// or a hidden <b>pagebreak</b> (Xinhua's paging script splits at both).
func clientPaged(doc *html.Node) bool {
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch {
		case n.DataAtom == atom.Img && attr(n, "id") == "xinhuabreak":
			return true
		case n.DataAtom == atom.B && n.FirstChild != nil && n.FirstChild.Type == html.TextNode &&
			strings.TrimSpace(n.FirstChild.Data) == "pagebreak" &&
			strings.Contains(strings.ReplaceAll(attr(n, "style"), " ", ""), "display:none"):
			return true
		}
	}
	return false
}

// baseHref is the href of the page's first <base>, or "".
func baseHref(doc *html.Node) string {
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Base {
			return attr(n, "href")
		}
	}
	return ""
}
