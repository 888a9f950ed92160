package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// prune removes what a reader never sees: comments, scripts, styles, form
// controls, embedded objects and elements hidden by their attributes.
func prune(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode:
			n.RemoveChild(c)
		case c.Type == html.ElementNode && (skipAtoms[c.DataAtom] || isHidden(c)):
			n.RemoveChild(c)
		case c.Type == html.ElementNode && depth < maxRenderDepth:
			prune(c, depth+1)
		}
		c = next
	}
}

// relatedHeadings are headings of related-reading, recommendation and
// similar blocks that portals put inside or after the article body.
var relatedHeadings = []string{
	"相关阅读", "相关新闻", "相关文章", "相关报道", "相关链接", "相关专题", "相关推荐", "相关资讯", "相关内容", "相关稿件",
	"推荐阅读", "延伸阅读", "热点推荐", "热门推荐", "精彩推荐", "为你推荐", "为您推荐", "猜你喜欢", "你可能还喜欢",
	"热门文章", "热门新闻", "热点新闻", "最新新闻", "更多新闻", "更多阅读", "往期回顾", "今日推荐", "编辑推荐", "精彩图片",
	"Related", "Related Articles", "Related Stories", "Related Content", "Read More", "More Stories", "Recommended",
	"Most Popular", "Most Read", "You May Also Like", "Trending", "Read more", "More from",
}

// trimHeading strips decoration around a heading's text: 【相关阅读】,
// 相关阅读：, >> 相关新闻, "You may also like...".
func trimHeading(s string) string {
	return strings.Trim(strings.TrimSpace(s), " \u3000:：【】[]〖〗<>《》>»·•■□◆◇▲△▼●○★☆-—_|｜()（）.…")
}

// relatedPrefixes start the headings of link lists: "More from Wired",
// "Related coverage", "推荐阅读：…", "更多精彩". They are checked only on
// short headings, and removal still needs a link list after the heading.
var relatedPrefixes = []string{"related", "recommended", "read more", "read next", "you may also", "you might also", "most popular", "most read", "trending",
	"more from", "more stories", "more news", "more on ", "more in ", "more articles", "more great", "more coverage", "more like this", "more to explore", "more to read",
	"相关", "推荐", "延伸阅读", "更多", "热门", "热点", "猜你", "精彩推荐", "往期"}

// maxRelatedHeadingRunes bounds a heading matched by prefix.
const maxRelatedHeadingRunes = 40

func isRelatedHeading(s string) bool {
	t := trimHeading(s)
	if t == "" || runeLen(t) > maxRelatedHeadingRunes {
		return false
	}
	for _, h := range relatedHeadings {
		if strings.EqualFold(t, h) {
			return true
		}
	}
	if strings.ContainsAny(s, "。！？，,.!?:：") {
		return false
	}
	lt := strings.ToLower(t)
	for _, p := range relatedPrefixes {
		if strings.HasPrefix(lt, p) {
			return true
		}
	}
	return false
}

// removeRelatedBlocks removes related-reading blocks under root: an element
// whose whole text is a related heading, with the link lists that follow
// it; when the heading's parent holds nothing but the heading and links, the
// parent goes too.
func removeRelatedBlocks(sc *scorer, root *html.Node) {
	var heads []*html.Node
	var find func(n *html.Node, depth int)
	find = func(n *html.Node, depth int) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			s := sc.stats[c]
			if s != nil && s.units > 0 && s.units <= 40 && isRelatedHeading(textOf(c)) {
				heads = append(heads, c)
				continue
			}
			if depth < maxRenderDepth {
				find(c, depth+1)
			}
		}
	}
	find(root, 0)
	for _, h := range heads {
		if h.Parent == nil {
			continue
		}
		// Climb while the heading is the first thing of a small wrapper
		// (<p><strong>相关阅读</strong></p>).
		for h.Parent != nil && h.Parent != root && firstElement(h.Parent) == h && textOf(h.Parent) == textOf(h) {
			h = h.Parent
		}
		parent := h.Parent
		if parent == nil {
			continue
		}
		// Remove the heading and the following siblings that are links or
		// link lists; stop at the first real paragraph.
		var drop []*html.Node
		drop = append(drop, h)
		for s := h.NextSibling; s != nil; s = s.NextSibling {
			if s.Type == html.TextNode {
				if strings.TrimSpace(s.Data) == "" {
					continue
				}
				break
			}
			if s.Type != html.ElementNode {
				continue
			}
			st := sc.stats[s]
			if st == nil {
				break
			}
			switch {
			case st.units == 0,
				st.links > 0 && (s.DataAtom == atom.Ul || s.DataAtom == atom.Ol || s.DataAtom == atom.Dl || s.DataAtom == atom.Table),
				st.links > 0 && st.linkDensity() >= sc.t.LinkBlockDensity:
				drop = append(drop, s)
				continue
			}
			break
		}
		rest := 0
		for c := parent.FirstChild; c != nil; c = c.NextSibling {
			if !contains(drop, c) {
				if c.Type == html.TextNode {
					u, _ := unitsOf(c.Data)
					rest += u
				} else if st := sc.stats[c]; st != nil {
					rest += st.units
				}
			}
		}
		if rest == 0 && parent != root && parent.Parent != nil {
			parent.Parent.RemoveChild(parent)
			continue
		}
		for _, d := range drop {
			if d.Parent == parent {
				parent.RemoveChild(d)
			}
		}
	}
}

func contains(ns []*html.Node, n *html.Node) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}

func firstElement(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return nil
		}
	}
	return nil
}

// Boilerplate inside a chosen container.
const (
	// minLinkBlockLinks: a single link inside the text is prose.
	minLinkBlockLinks = 2
)

// cleanContainer removes boilerplate descendants of the chosen container:
// elements with boilerplate class names, navigation-like elements, link
// lists and related-reading blocks.
func cleanContainer(sc *scorer, root *html.Node, total int) {
	removeRelatedBlocks(sc, root)
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && dropInside(sc, c, total) && !(c.DataAtom == atom.H1 && proseBeforeHeading(sc, root, c)) {
				n.RemoveChild(c)
			} else if c.Type == html.ElementNode && depth < maxRenderDepth {
				walk(c, depth+1)
			}
			c = next
		}
	}
	walk(root, 0)
}

// minProseBeforeHeading is how many text units (about 20 Chinese
// characters) must precede an <h1> inside the article for it to be a
// section heading rather than the headline.
const minProseBeforeHeading = 60

// proseBeforeHeading reports whether at least minProseBeforeHeading text units
// precede n inside root: an <h1> after the article's first paragraphs is a
// section heading (editors that style every heading as <h1>), while the
// headline comes first.
func proseBeforeHeading(sc *scorer, root, n *html.Node) bool {
	units := 0
	for x := n; x != nil && x != root; x = x.Parent {
		for p := x.PrevSibling; p != nil; p = p.PrevSibling {
			if st := sc.stats[p]; st != nil {
				units += st.units - st.linkUnits
			}
			if units >= minProseBeforeHeading {
				return true
			}
		}
	}
	return false
}

func dropInside(sc *scorer, n *html.Node, total int) bool {
	s := sc.stats[n]
	if s == nil {
		return false
	}
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer, atom.Header, atom.Form, atom.Figcaption:
		return s.units*4 < total
	case atom.H1:
		return true
	}
	if s.units*2 < total {
		if v := lowerNames(n); v != "" && boilerplateNames.match(v) && !embedNames.match(v) {
			return true
		}
	}
	if s.links >= minLinkBlockLinks && s.linkDensity() > sc.t.LinkBlockDensity && s.units*2 < total {
		return true
	}
	return isLinkParagraph(n, s)
}

// maxLinkParagraphUnits bounds a link paragraph (about 30 Chinese
// characters, a headline).
const maxLinkParagraphUnits = 3 * maxItemHeadingUnits

// isLinkParagraph reports a short paragraph that is all link text (at
// least minLinkItemShare): a headline pointing to another story ("SEAN
// SPICER ELIMINATED FROM …", 相关新闻 links set as paragraphs), not article
// text. A paragraph showing a URL is a citation and stays.
func isLinkParagraph(n *html.Node, s *nodeStats) bool {
	if n.DataAtom != atom.P || s.units == 0 || s.units > maxLinkParagraphUnits || float64(s.linkUnits) < minLinkItemShare*float64(s.units) {
		return false
	}
	t := textOf(n)
	return !strings.Contains(t, "://") && !strings.Contains(t, "www.")
}

// Line filters applied to the rendered text.
var (
	// rxBoilerLine matches whole lines that are page furniture.
	rxBoilerLine = regexp.MustCompile(`^(?:点击(?:进入|查看|阅读|这里|观看)[^。！？]{0,30}|返回搜狐[，,]?\s*查看更多|查看更多|点击查看更多|我要评论|发表评论|我要纠错|【?纠错】?|打印本页|打印|关闭窗口|关闭|分享到[:：]?.*|收藏本文|责任编辑[:：]?\s*$|正文已结束.*|\[?返回首页\]?|上一页|下一页|返回顶部|扫一扫.*|用微信扫描.*|本文已影响\d+人|Copyright\s*©.*|©.*版权所有.*|版权所有.*|免责声明[:：].*|版权声明[:：].*|Advertisement|ADVERTISEMENT|Advert|广告|Share this article|Share (?:this )?on .*|Share this:?|Sign up for .*)$`)
	// rxTrailingFurniture is furniture glued to the end of the last line.
	rxTrailingFurniture = regexp.MustCompile(`(?:我要评论|\[我要纠错\]|【纠错】|返回搜狐[，,]?\s*查看更多|\(?点击查看更多\)?)$`)
	// rxMetaLine: a line that is only a source or editor note,
	// e.g. "（来源：新华社）", "[责任编辑：张三]", "本文来源：京华时报", "(编辑：李四)".
	rxMetaLine = regexp.MustCompile(`^[(（\[【]?\s*(?:本文)?(?:来源|稿源|责任编辑|责编|编辑)\s*[:：]\s*[^\s]{1,30}\s*[)）\]】]?$`)
)

var (
	// rxNoticeHeading starts a copyright / disclaimer notice; from there to
	// the end the text is boilerplate when it sits in the second half.
	rxNoticeHeading = regexp.MustCompile(`^[【\[(（]?\s*(?:反侵权公告|版权声明|免责声明|特别声明|郑重声明|法律声明|侵权举报|版权所有)`)
	// rxMaintenanceLine is a wiki maintenance notice ("本条目需要补充更多
	// 来源。请协助…"), furniture wherever the box's markup is not named.
	rxMaintenanceLine = regexp.MustCompile(`^(?:本条目|此条目|本文|本條目|此條目|這篇文章|这篇文章|本章节|此章节)[^。]{0,40}(?:需要|可能|没有|沒有|存在|缺少|过于|過於|已过时|含有).{0,120}(?:请|請)(?:协助|協助|帮助|幫助)`)
	// rxColumnTag is a standalone column label such as 【新春走基层】.
	rxColumnTag = regexp.MustCompile(`^[【\[]\s*[^】\]]{1,10}\s*[】\]]$`)
	// rxUILine is an expander or pager control rendered as text.
	rxUILine = regexp.MustCompile(`^.{0,20}第\s*\d+\s*页\s*[/／]?\s*共\s*\d+\s*页.{0,30}$|^[<«\s]*(?:上一页|下一页|首页|尾页|上一篇|下一篇)(?:\s*[|｜]?\s*(?:上一页|下一页|首页|尾页|\d+))*[\s>»]*$|^(?:展开全文|阅读全文|查看全文|点击展开全文|收起全文|全文阅读|点击阅读全文|显示全文|Continue reading|Read the full (?:story|article))\s*[>»]*$`)
)

// maxBylineRunes bounds a standalone byline or dateline line;
// maxBylinePrefix bounds the medium name before 记者 ("新华日报·交汇点记者").
const (
	maxBylineRunes  = 50
	maxBylinePrefix = 10
)

// isLeadingByline reports whether a line at the top of the text is a
// byline ("光明日报记者 王建宏 张文攀") or a dateline ("2005-02-06 13:26
// 来源：新华网") rather than prose.
func isLeadingByline(l string) bool {
	if runeLen(l) > maxBylineRunes || strings.ContainsAny(l, "。！？，,") || rxMetaLine.MatchString(l) {
		return false
	}
	if rxColumnTag.MatchString(l) && !strings.ContainsAny(l, ":：") {
		return true
	}
	if rxDateTime.MatchString(l) {
		return true
	}
	if m := rxReporter.FindStringSubmatchIndex(l); m != nil && runeLen(l[:m[0]]) <= maxBylinePrefix && bylineNames(l[m[2]:m[3]]) != "" {
		// Only the byline itself: little text around the names.
		return runeLen(l) <= 30
	}
	return false
}

var (
	// rxSeparatorLine is decoration only (-----, ====, ***). Such lines
	// are kept in the text (hand-labelled texts keep them), but they do not
	// make a headline copy differ.
	rxSeparatorLine = regexp.MustCompile(`^[\p{P}\p{S}\s]{3,}$`)
	// rxPostFooter marks a blog/forum post footer: posting time, read and
	// comment counters, trackback links.
	rxPostFooter = regexp.MustCompile(`(?i)发表于|发布时间|发布于|阅读[:：(（]?\s*\d|浏览[:：(（]?\s*\d|评论[:：(（]\s*\d|已被阅读|trackback|引用通告|posted (?:at|on|by)|\bby\s+\S+\s*〓`)
)

// isTrailingMeta reports whether a line at the end of the text is a post
// footer or dateline rather than prose.
func isTrailingMeta(l string) bool {
	if runeLen(l) > maxMetaLineRunes || strings.ContainsAny(l, "。！？") {
		return false
	}
	if rxPostFooter.MatchString(l) {
		return true
	}
	return rxDateTime.MatchString(l) && rxDateTime.FindString(l) != "" && runeLen(l) <= maxBylineRunes && !rxMetaLine.MatchString(l) && isDateline(l)
}

// isDateline reports whether a short line is mostly a date: after removing
// the date, at most a few words (a weekday, a paper name) remain.
func isDateline(l string) bool {
	rest := rxDateTime.ReplaceAllString(l, "")
	return runeLen(strings.TrimSpace(rest)) <= 12
}

// isHeadlineCopy reports whether a line repeats the headline, possibly with
// decoration ("标题- -", "标题（图）").
func isHeadlineCopy(l, title string) bool {
	if title == "" {
		return false
	}
	l = strings.TrimSpace(l)
	if l == title {
		return true
	}
	if strings.HasPrefix(l, title) {
		rest := strings.TrimSpace(l[len(title):])
		return runeLen(rest) <= 4 && rxSeparatorLine.MatchString(rest+"---")
	}
	return false
}

// maxTrailingMeta is how many footer lines may be dropped at the end.
const maxTrailingMeta = 3

// maxLeadingMeta is how many lines at the top may be dropped as headline
// copies, bylines and datelines.
const maxLeadingMeta = 5

// cleanLines applies the line filters and removes the headline when it was
// rendered as the first line.
func (e *Extractor) cleanLines(lines []string, art *Article) []string {
	out := make([]string, 0, len(lines))
	leading := true
	for i, l := range lines {
		if (leading || len(out) < 2) && i < maxLeadingMeta && (isHeadlineCopy(l, art.Title) || isLeadingByline(l)) {
			continue
		}
		leading = false
		if rxBoilerLine.MatchString(l) || rxUILine.MatchString(l) || rxMaintenanceLine.MatchString(l) {
			continue
		}
		if rxNoticeHeading.MatchString(l) {
			if i >= len(lines)/2 {
				break
			}
			continue
		}
		out = append(out, l)
	}
	for k := 0; k < maxTrailingMeta && len(out) > 1 && isTrailingMeta(out[len(out)-1]); k++ {
		out = out[:len(out)-1]
	}
	if n := len(out); n > 0 {
		out[n-1] = strings.TrimSpace(rxTrailingFurniture.ReplaceAllString(out[n-1], ""))
		if out[n-1] == "" {
			out = out[:n-1]
		}
	}
	return out
}
