package extract

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// No-article verdict thresholds.
const (
	// minProseUnits: the shortest real article in the reprint-web truth is
	// a 20-character brief (60 units); anything shorter, once bylines and
	// source/editor lines are discounted, is page furniture.
	minProseUnits = 45
	// maxListLinkDensity: content whose text is mostly link text is a list
	// of headlines, not an article (Readability treats link density > 0.5
	// as boilerplate when cleaning).
	maxListLinkDensity = 0.5
	// maxMediaPageUnits: a video or gallery page (by its URL, title or
	// markup) with less prose than this (~100 Chinese characters) is a
	// player or a slide show with captions, not an article.
	maxMediaPageUnits = 300
	// minGalleryImages: galleries show many pictures.
	minGalleryImages = 3
	// Fragmented text: at least minFragments lines whose median is under
	// maxFragmentUnits (~6 Chinese characters) and no sentence punctuation
	// anywhere is a widget or menu ("条数： / 10条 / 40条 ..."), not prose.
	minFragments     = 4
	maxFragmentUnits = 20
)

var (
	rxVideoTitle   = regexp.MustCompile(`^[【\[(（]?\s*(?:视频|Video|VIDEO)\s*[】\])）:：]`)
	rxGalleryTitle = regexp.MustCompile(`^[【\[(（]?\s*(?:组图|图集|高清组图|图片|多图|Photos?|Gallery)\s*[】\])）:：]`)
	rxVideoPath    = regexp.MustCompile(`(?i)/(?:video|videos|v|vod|shipin|tv)/`)
	rxGalleryPath  = regexp.MustCompile(`(?i)/(?:photo|photos|photoview|slide|slides|gallery|galleries|pic|pics|tuku|tupian)/`)
	rxVideoText    = regexp.MustCompile(`视频时长|时长\s*[:：]?\s*\d{1,2}:\d{2}|播放次数|正在播放`)
	// siteInfoTitles are titles of site information pages.
	siteInfoTitles = []string{"关于我们", "联系我们", "网站简介", "公司简介", "About Us", "About", "Contact Us", "Contact", "版权声明", "免责声明", "隐私政策", "Privacy Policy", "网站地图", "Site Map", "招聘信息", "广告服务"}
)

// verdict returns ErrNoArticle, wrapped with the reason, for pages that
// hold no article. A page known to be an article (expectArticle) is not
// judged by its link density or fragments: it is refused only when no
// article text remains.
func verdict(pageURL string, m pageMeta, art *Article, lines []string, res bodyResult, expectArticle bool) error {
	path := ""
	if u, err := url.Parse(pageURL); err == nil {
		path = u.Path
	}
	prose := proseUnits(lines)
	title := strings.TrimSpace(art.Title)
	for _, t := range siteInfoTitles {
		if strings.EqualFold(title, t) {
			return fmt.Errorf("%w: site information page (%q)", ErrNoArticle, title)
		}
	}
	if prose < maxMediaPageUnits {
		video := rxVideoTitle.MatchString(title) || rxVideoPath.MatchString(path) || m.hasOGVideo ||
			strings.HasPrefix(m.ogType, "video") || rxVideoText.MatchString(art.Text)
		if video {
			return fmt.Errorf("%w: video page", ErrNoArticle)
		}
		gallery := rxGalleryTitle.MatchString(title) || rxGalleryPath.MatchString(path)
		if gallery && (res.contentImages >= minGalleryImages || prose < minProseUnits*2 || rxGalleryPath.MatchString(path)) {
			return fmt.Errorf("%w: gallery page", ErrNoArticle)
		}
	}
	if res.linkItemsDropped {
		if isBrief(lines, title) {
			expectArticle = true
		} else {
			res.contentUnits, res.contentLinkUnits = res.listUnits, res.listLinkUnits
		}
	}
	if expectArticle {
		if prose < minProseUnits {
			return fmt.Errorf("%w: no article text", ErrNoArticle)
		}
		return nil
	}
	if res.contentUnits > 0 && float64(res.contentLinkUnits) > maxListLinkDensity*float64(res.contentUnits) {
		return fmt.Errorf("%w: list page (link density %.2f)", ErrNoArticle, float64(res.contentLinkUnits)/float64(res.contentUnits))
	}
	if prose < maxMediaPageUnits && isFragmented(lines) {
		return fmt.Errorf("%w: navigation fragments, no prose", ErrNoArticle)
	}
	if prose < minProseUnits {
		if res.pageUnits > 0 && float64(res.pageLinkUnits) > maxListLinkDensity*float64(res.pageUnits) {
			return fmt.Errorf("%w: navigation or list page", ErrNoArticle)
		}
		return fmt.Errorf("%w: no main text", ErrNoArticle)
	}
	return nil
}

// Briefs: a one- to three-paragraph story on a page whose URL has an
// article's shape (a date, or a long numeric or NetEase-style document
// id), followed in its container by link lists (重点推荐, 相关新闻), is an
// article even without Options.ExpectArticle: its link items are dropped
// as on a known article page, and the remaining prose is kept when it is
// about the headline. Otherwise the page is judged with the link items
// counted, as a list.
const (
	maxBriefParagraphs = 3
	// minBriefTitleShare: the brief holds at least this share of the
	// headline's character bigrams (a list page's teasers do not).
	minBriefTitleShare = 0.3
	// minBriefSentenceUnits: a paragraph of the brief is a sentence of at
	// least this many units (~10 Chinese characters).
	minBriefSentenceUnits = 30
)

var (
	// rxArticlePath: a document id of five or more digits
	// (doc-inaexkqp1234567.shtml, 20120615/000123.htm) or NetEase's
	// 16-character id (AS3K9R2J00253B0H.html) ends the path.
	rxArticlePath = regexp.MustCompile(`(?i)/[\w-]*\d{5,}[\w-]*\.(?:s?html?|shtml)$|/[0-9A-Z]{16}\.html$`)
	// rxListPath: index and list pages.
	rxListPath = regexp.MustCompile(`(?i)/(?:index|list|channel|more|node|column|special|tag|search)[\w-]*(?:\.\w+)?/?$`)
)

// articleShapedURL reports a URL shaped like an article's: a date or a
// document id in the path, and no index or list page name.
func articleShapedURL(pageURL string) bool {
	u, err := url.Parse(pageURL)
	if err != nil || u.Path == "" || rxListPath.MatchString(u.Path) {
		return false
	}
	if _, ok := urlDate(pageURL); ok {
		return true
	}
	return rxArticlePath.MatchString(u.Path)
}

// isBrief reports lines that are a brief about title: one to
// maxBriefParagraphs sentences of prose sharing the headline's words.
func isBrief(lines []string, title string) bool {
	paras := 0
	for _, l := range lines {
		if u, _ := unitsOf(l); u >= minBriefSentenceUnits && strings.ContainsAny(l, "。！？；!?;") {
			paras++
		}
	}
	if paras == 0 || paras > maxBriefParagraphs || proseUnits(lines) < minProseUnits {
		return false
	}
	return compareTexts(title, strings.Join(lines, "")).inA >= minBriefTitleShare
}

// Link items: a block element whose text is at least minLinkItemShare link
// text is a headline link, not prose with keyword links; a short line
// without punctuation just before one is its block heading (重点推荐).
const (
	minLinkItemShare    = 0.9
	maxItemHeadingUnits = 30
)

// dropLinkItems removes the link items under root and returns the units
// and link units removed.
func dropLinkItems(sc *scorer, root *html.Node) (units, linkUnits int) {
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type != html.ElementNode {
				c = next
				continue
			}
			s := sc.stats[c]
			if !blockAtoms[c.DataAtom] {
				// Inline links are keyword links of the prose.
				c = next
				continue
			}
			if s != nil && s.units > 0 && float64(s.linkUnits) >= minLinkItemShare*float64(s.units) {
				if p := prevElement(c); p != nil {
					if ps := sc.stats[p]; ps != nil && ps.units > 0 && ps.units <= maxItemHeadingUnits && ps.linkUnits == 0 && !strings.ContainsAny(textOf(p), "。！？，,") {
						units += ps.units
						n.RemoveChild(p)
					}
				}
				units += s.units
				linkUnits += s.linkUnits
				n.RemoveChild(c)
			} else if depth < maxRenderDepth {
				walk(c, depth+1)
			}
			c = next
		}
	}
	walk(root, 0)
	return units, linkUnits
}

func prevElement(n *html.Node) *html.Node {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		switch {
		case p.Type == html.ElementNode:
			return p
		case p.Type == html.TextNode && strings.TrimSpace(p.Data) != "":
			return nil
		}
	}
	return nil
}

// proseUnits counts the text units of lines that are not metadata
// (source, editor, byline and date lines).
func proseUnits(lines []string) int {
	n := 0
	for _, l := range lines {
		if rxMetaLine.MatchString(l) || isTrailingMeta(l) {
			continue
		}
		u, _ := unitsOf(l)
		n += u
	}
	return n
}

// isFragmented reports text made of short fragments without a sentence.
func isFragmented(lines []string) bool {
	if len(lines) < minFragments {
		return false
	}
	us := make([]int, 0, len(lines))
	for _, l := range lines {
		if strings.ContainsAny(l, "。！？!?；;") {
			return false
		}
		u, _ := unitsOf(l)
		us = append(us, u)
	}
	slices.Sort(us)
	return us[len(us)/2] < maxFragmentUnits
}
