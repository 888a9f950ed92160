package extract

import (
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// cst is China Standard Time, used for times written without a zone.
// A fixed zone avoids depending on the tzdata database (China has had no
// daylight saving time since 1991).
var cst = time.FixedZone("CST", 8*3600)

// cstInstant is China Standard Time for instants (unix times): a distinct
// zone value, so that inSiteZone, which re-reads cst wall clocks in the
// site's zone, leaves them as they are.
var cstInstant = time.FixedZone("CST", 8*3600)

// pageMeta is the evidence collected from the whole page before the body is
// extracted.
type pageMeta struct {
	titleTag  string   // text of <title>
	ogTitle   string   // og:title / twitter:title
	headings  []string // texts of <h1> elements, then <h2>, in order
	published string   // raw publish time from <meta> or JSON-LD
	modified  string   // raw last-modified time from <meta>
	author    string   // <meta name=author>
	// account is the name of the publishing account a page marks as such
	// (accountIDs): the source, never part of the author.
	account string
	// authorLinks counts the links to each author page of the site
	// (rel=author, ?author=ID, /author/ID/) with the first name-like text
	// linking there; see linkAuthor.
	authorLinks map[string]*authorLink
	hasOGVideo  bool
	ogType      string
	image       string // og:image / twitter:image, as written
	imageRank   int    // imageMetas rank of image (0: none)
	// description is the og:description, else the description <meta>.
	description string
	// canonical is the <link rel=canonical> href, else og:url, as written.
	canonical string
	// articleEvidence: og:type article or a publish-time <meta> or
	// JSON-LD date says the page is an article.
	articleEvidence bool
	states          []stateScript // scripts that may hold page state
	// timeElement is the datetime of the <time> elements marked as the
	// publish time; timeConflict says they gave different times.
	timeElement  string
	timeConflict bool
}

// publishTimeMetas are <meta> names/properties that carry the publish time
// (lower-cased, trimmed; portals put stray spaces in names like "og:time ").
var publishTimeMetas = map[string]int{
	"article:published_time": 1, "og:release_date": 1, "og:time": 2,
	"publishdate": 1, "pubdate": 1, "publish_time": 1, "publishtime": 1,
	"datepublished": 1, "weibo: article:create_at": 2, "dc.date": 3, "dc.date.issued": 2,
	"dcterms.created": 3, "parsely-pub-date": 2, "sailthru.date": 3, "article.published": 2,
	"publication_date": 2, "date": 4, "og:published_time": 1, "article:published": 2,
	"release_date": 2, "created": 4, "ptime": 2,
}

// modifiedTimeMetas are <meta> names/properties that carry the time a
// page was last changed: the publish time of a page that states no other
// (a wiki entry's last edit), never preferred to a publish time.
var modifiedTimeMetas = map[string]int{
	"article:modified_time": 1, "og:updated_time": 1, "datemodified": 1, "dateupdate": 2,
	"dcterms.modified": 2, "dc.date.modified": 2, "last-modified": 3, "lastmod": 3,
}

// articleTimeRank: a publish-time <meta> ranked this high
// (article:published_time, pubdate, publishdate …) marks an article page.
const articleTimeRank = 2

// scriptDateRank ranks a publish time assigned in a script below every
// <meta> name.
const scriptDateRank = 5

// collectMeta walks the document once for <title>, <meta>, headings and
// JSON-LD.
func collectMeta(doc *html.Node) pageMeta {
	var m pageMeta
	pubRank, modRank := 1<<30, 1<<30
	var h1, h2 []string
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.A:
				m.addAuthorLink(n)
				m.addAccount(n)
			case atom.Title:
				if m.titleTag == "" {
					m.titleTag = strings.TrimSpace(collapse(rawText(n)))
				}
				return
			case atom.Meta:
				m.addMeta(n, &pubRank, &modRank)
			case atom.Time:
				m.addTimeElement(n)
			case atom.Link:
				if strings.EqualFold(strings.TrimSpace(attr(n, "rel")), "canonical") && attr(n, "href") != "" {
					m.canonical = strings.TrimSpace(attr(n, "href"))
				}
			case atom.Script:
				m.addStateScript(n)
				if n.FirstChild != nil && pubRank > scriptDateRank && !strings.Contains(attr(n, "type"), "json") {
					if v := scriptDate(n.FirstChild.Data); v != "" {
						if _, ok := parseTime(v); ok {
							pubRank = scriptDateRank
							m.published = v
						}
					}
				}
				if strings.Contains(attr(n, "type"), "ld+json") && n.FirstChild != nil && pubRank > 1 {
					if v := jsonLDPublished(n.FirstChild.Data); v != "" {
						if _, ok := parseTime(v); ok {
							pubRank = 1
							m.published = v
							m.articleEvidence = true
						}
					}
				}
				return
			case atom.Style, atom.Noscript, atom.Template:
				return
			case atom.H1:
				if len(h1) < 8 {
					if t := textOf(n); t != "" {
						h1 = append(h1, t)
					}
				}
				return
			case atom.H2:
				if len(h2) < 8 {
					if t := textOf(n); t != "" {
						h2 = append(h2, t)
					}
				}
				return
			}
		}
		if depth > maxRenderDepth {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	if m.timeElement != "" && !m.timeConflict && pubRank > timeElementRank {
		m.published, m.articleEvidence = m.timeElement, true
	}
	m.headings = append(h1, h2...)
	return m
}

// addMeta records what a <meta> element says: titles, author, type,
// image, and the publish and modified times, each kept when its name
// ranks above the one recorded (pubRank, modRank).
func (m *pageMeta) addMeta(n *html.Node, pubRank, modRank *int) {
	key := strings.ToLower(strings.TrimSpace(attr(n, "property")))
	if key == "" {
		key = strings.ToLower(strings.TrimSpace(attr(n, "name")))
	}
	if key == "" {
		key = strings.ToLower(strings.TrimSpace(attr(n, "itemprop")))
	}
	content := strings.TrimSpace(attr(n, "content"))
	if key == "" || content == "" {
		return
	}
	switch key {
	case "og:title", "twitter:title":
		if m.ogTitle == "" {
			m.ogTitle = collapse(content)
		}
	case "author", "article:author":
		if m.author == "" {
			m.author = collapse(content)
		}
	case "og:type":
		m.ogType = strings.ToLower(content)
		m.articleEvidence = m.articleEvidence || m.ogType == "article"
	case "og:description":
		m.description = collapse(content)
	case "description", "twitter:description":
		if m.description == "" {
			m.description = collapse(content)
		}
	case "og:url":
		if m.canonical == "" {
			m.canonical = content
		}
	case "og:video", "og:video:url":
		m.hasOGVideo = true
	}
	if img, r := metaImage(key, content); img != "" && (m.imageRank == 0 || r < m.imageRank) && isPhotoURL(img) {
		m.image, m.imageRank = img, r
	}
	if r, ok := modifiedTimeMetas[key]; ok && r < *modRank {
		if _, ok := parseTime(content); ok {
			*modRank = r
			m.modified = content
		}
	}
	if r, ok := publishTimeMetas[key]; ok && r < *pubRank {
		if _, ok := parseTime(content); ok {
			*pubRank = r
			m.published = content
			m.articleEvidence = m.articleEvidence || r <= articleTimeRank
		}
	}
}

// timeElementRank ranks a <time> element marked as the publish time
// (itemprop="datePublished", the HTML5 pubdate attribute) with the
// weakest publish-time <meta> names, above scripts.
const timeElementRank = 4

// addTimeElement records the datetime of a <time> element marked as the
// page's publish time (an unmarked <time> may be a related item's). Marked
// elements giving different times describe a list of items, not the page
// (timeConflict).
func (m *pageMeta) addTimeElement(n *html.Node) {
	marked := strings.EqualFold(attr(n, "itemprop"), "datePublished")
	for _, a := range n.Attr {
		marked = marked || a.Key == "pubdate"
	}
	v := strings.TrimSpace(attr(n, "datetime"))
	if !marked || v == "" {
		return
	}
	if _, ok := parseTime(v); !ok {
		return
	}
	switch m.timeElement {
	case "":
		m.timeElement = v
	case v:
	default:
		m.timeConflict = true
	}
}

// authorLink is one author page linked from a page.
type authorLink struct {
	n    int    // links to it
	name string // the first link text that can be a name
	rel  bool   // a link to it says rel="author"
}

// rxAuthorHref is the author page of blog software: ?author=102,
// /author/name/.
var rxAuthorHref = regexp.MustCompile(`(?i)[?&]author=([^&#]+)|/author/([^/?#]+)`)

// maxAuthorLinkRunes bounds the text of a link read as a name.
const maxAuthorLinkRunes = 20

func (m *pageMeta) addAuthorLink(n *html.Node) {
	rel := strings.Contains(strings.ToLower(attr(n, "rel")), "author")
	href := attr(n, "href")
	id := ""
	if !rel && !containsFold(href, "author") {
		return // most links: no regexp run
	}
	if sm := rxAuthorHref.FindStringSubmatch(href); sm != nil {
		id = sm[1] + sm[2]
	} else if rel {
		id = href
	}
	if id == "" {
		return
	}
	if m.authorLinks == nil {
		m.authorLinks = map[string]*authorLink{}
	}
	a := m.authorLinks[id]
	if a == nil {
		a = &authorLink{}
		m.authorLinks[id] = a
	}
	a.n++
	a.rel = a.rel || rel
	// The name is the text of a link to the author page itself; a link
	// that also selects a category or a month (?pc=125&author=102) is
	// labelled with that.
	if t := textOf(n); a.name == "" && (rel || authorPageOnly(href)) && t != "" && runeLen(t) <= maxAuthorLinkRunes && looksLikePerson(t) && !notNames[t] && !strings.Contains(strings.ToLower(t), "admin") {
		a.name = t
	}
}

// containsFold reports whether s contains the lower-case ASCII word w in
// any case, without allocating.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

// authorPageOnly reports whether href selects nothing but an author:
// ?author=102 alone, or /author/name/ without a query.
func authorPageOnly(href string) bool {
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	q := u.Query()
	if q.Has("author") {
		return len(q) == 1
	}
	return u.RawQuery == ""
}

// linkAuthor returns the name linking to the page's author: the
// rel="author" link, else the author page the page links to most (a blog
// links its owner's categories and archives; a commenter's page is linked
// once per comment), when no other author page is linked as often.
func (m pageMeta) linkAuthor() string {
	best, bestN, tie := "", 0, false
	for _, id := range slices.Sorted(maps.Keys(m.authorLinks)) {
		a := m.authorLinks[id]
		switch {
		case a.name == "":
		case a.rel:
			return a.name
		case a.n > bestN:
			best, bestN, tie = a.name, a.n, false
		case a.n == bestN:
			tie = true
		}
	}
	if tie || bestN < minAuthorLinks {
		return ""
	}
	return best
}

// minAuthorLinks: an author page linked once may be a commenter's.
const minAuthorLinks = 3

// jsonLDPublished returns datePublished from a JSON-LD script, if any.
func jsonLDPublished(s string) string {
	if !strings.Contains(s, "datePublished") {
		return ""
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return ""
	}
	var find func(v any, depth int) string
	find = func(v any, depth int) string {
		if depth > 8 {
			return ""
		}
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["datePublished"].(string); ok {
				return s
			}
			for _, y := range x {
				if s := find(y, depth+1); s != "" {
					return s
				}
			}
		case []any:
			for _, y := range x {
				if s := find(y, depth+1); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return find(v, 0)
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// rawText concatenates the text node children of n (for <title>).
func rawText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// collapse collapses whitespace runs to one space and trims.
func collapse(s string) string {
	var b lineBuilder
	b.text(s)
	return b.line()
}

// titleSeparators split a <title> into the headline and site-name parts.
var titleSeparators = []string{"_", "|", "｜", " - ", " – ", " — ", "--", "-", "—", "–", "－", "·", " :: ", "»"}

// siteWords mark a title segment as a site or channel name.
var siteWords = []string{"网", "新闻", "频道", "中心", "首页", "新浪", "搜狐", "腾讯", "凤凰", "澎湃", "网易",
	"人民", "新华", "财经", "娱乐", "体育", "科技", "订阅", "资讯", "在线", "日报", "晚报", "时报", "报",
	"Paper", "News", "NEWS", ".com", ".cn", "com", "Online"}

// maxSiteNameWords bounds a Latin site name after a title separator.
const maxSiteNameWords = 4

func isSiteSegment(s string) bool {
	s = strings.TrimSpace(s)
	n := runeLen(s)
	if n == 0 {
		return true
	}
	if n > 20 {
		return false
	}
	for _, w := range siteWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	// Short Latin-only segments are usually site names ("The Paper",
	// "Springfield Gazette").
	for _, r := range s {
		if r >= 0x80 {
			return false
		}
	}
	return len(strings.Fields(s)) <= maxSiteNameWords
}

// stripSiteSuffix removes trailing site/channel parts from a <title>:
// "标题_新闻中心_新浪网" -> "标题", "标题-搜狐新闻" -> "标题".
func stripSiteSuffix(t string) string {
	t = strings.TrimSpace(t)
	for {
		best := -1
		sepLen := 0
		for _, sep := range titleSeparators {
			if i := strings.LastIndex(t, sep); i > best {
				best, sepLen = i, len(sep)
			}
		}
		if best <= 0 {
			return t
		}
		head, tail := strings.TrimSpace(t[:best]), t[best+sepLen:]
		if runeLen(head) < 2 || !isSiteSegment(tail) {
			return t
		}
		t = head
	}
}

// chooseTitle picks the headline: the longest heading that the <title> or
// og:title contains (the page's own headline element), else og:title or the
// <title> without its site suffix, else the first heading.
func chooseTitle(m pageMeta) string {
	best := ""
	for _, h := range m.headings {
		n := runeLen(h)
		if n < 4 || n > 120 {
			continue
		}
		if (strings.Contains(m.titleTag, h) || strings.Contains(m.ogTitle, h)) && n > runeLen(best) {
			best = h
		}
	}
	if best != "" {
		return best
	}
	// A short headline ("滇池") that the <title> opens before a separator.
	for _, h := range m.headings {
		if n := runeLen(h); n >= 2 && n < 4 && strings.HasPrefix(m.titleTag, h) {
			rest := strings.TrimSpace(m.titleTag[len(h):])
			for _, sep := range titleSeparators {
				if strings.HasPrefix(rest, strings.TrimSpace(sep)) {
					return h
				}
			}
		}
	}
	for _, t := range []string{m.ogTitle, m.titleTag} {
		if t == "" || strings.ContainsAny(t, "{}+") && strings.Contains(t, "document") {
			continue
		}
		if s := stripSiteSuffix(t); s != "" {
			return s
		}
	}
	for _, h := range m.headings {
		if runeLen(h) >= 4 {
			return h
		}
	}
	return ""
}

// Date patterns in page text: 2012年06月15日 10:20, 2012-06-15 10:20:33,
// 2012/06/15, 2012.06.15, 2012-06-15T10:20. The separators of one date
// must agree, so ranges like "12/01/2004 - 01/01/2005" do not read as dates.
var (
	rxDateTime = regexp.MustCompile(`((?:19|20)\d\d)(?:\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日|-(\d{1,2})-(\d{1,2})|/(\d{1,2})/(\d{1,2})|\.(\d{1,2})\.(\d{1,2}))(?:\s*(?:T|\s)?\s*(?:(?:星期|周|週)[一二三四五六日天]\s*)?(?:上午|下午|晚上|中午|凌晨|早上)?\s*(\d{1,2})\s*[:：时]\s*(\d{1,2})(?:\s*[:：分]\s*(\d{1,2}))?)?`)
	// rxYearMonth is a month date ("1998年3月号"), used only when a page
	// has no full date at all.
	rxYearMonth = regexp.MustCompile(`((?:19|20)\d\d)\s*年\s*(\d{1,2})\s*月`)
	rxZone      = regexp.MustCompile(`(Z|[+-]\d\d:?\d\d)$`)
	// rxUSDate is the US month/day/year form ("9/17/2004 5:54:13 AM") of
	// English-language server software, ranked below the forms above.
	rxUSDate = regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/((?:19|20)\d\d)(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?)?`)
)

// parseTime parses the date formats found in <meta> tags and page text.
// Times without a zone are China Standard Time.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	if sec, err := strconv.ParseInt(s, 10, 64); err == nil && sec > 631152000 && sec < 2082758400 { // 1990..2036, unix seconds
		return time.Unix(sec, 0).In(cstInstant), true
	}
	t, ok := findDate(s)
	if !ok {
		return time.Time{}, false
	}
	if z := rxZone.FindString(s); z != "" && strings.Contains(s, "T") {
		// Keep a zone that was written after a time, e.g. 2012-06-15T10:20+0800.
		if loc, err := time.Parse("Z07:00", normZone(z)); err == nil {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc.Location())
		}
	}
	return t, true
}

func normZone(z string) string {
	if z == "Z" {
		return z
	}
	if len(z) == 5 {
		return z[:3] + ":" + z[3:]
	}
	return z
}

// findDate returns the first plausible date (and time) in s.
func findDate(s string) (time.Time, bool) {
	for _, m := range rxDateTime.FindAllStringSubmatch(s, 4) {
		if t, _, ok := dateFromMatch(m); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// dateFromMatch validates a rxDateTime match; hasTime reports whether it
// included a time of day.
func dateFromMatch(m []string) (t time.Time, hasTime, ok bool) {
	y, _ := strconv.Atoi(m[1])
	var mo, d int
	for i := 2; i <= 8; i += 2 {
		if m[i] != "" {
			mo, _ = strconv.Atoi(m[i])
			d, _ = strconv.Atoi(m[i+1])
			break
		}
	}
	if y < minYear || y > maxYear || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, false, false
	}
	var hh, mm, ss int
	if m[10] != "" {
		hh, _ = strconv.Atoi(m[10])
		mm, _ = strconv.Atoi(m[11])
		if m[12] != "" {
			ss, _ = strconv.Atoi(m[12])
		}
		hasTime = true
		// 下午3:00, 晚上8:30 (a 12-hour clock, as Hong Kong and Taiwan
		// pages write it): afternoon and evening hours.
		if hh < 12 && (strings.Contains(m[0], "下午") || strings.Contains(m[0], "晚上")) {
			hh += 12
		}
		if hh > 23 || mm > 59 || ss > 59 {
			hh, mm, ss, hasTime = 0, 0, 0, false
		}
	}
	t = time.Date(y, time.Month(mo), d, hh, mm, ss, 0, cst)
	if t.Day() != d { // 2012-02-31
		return time.Time{}, false, false
	}
	return t, hasTime, true
}

// Plausible publish years: the web era up to a bound well past today.
const (
	minYear = 1990
	maxYear = 2099
)

// usDateFromMatch validates a rxUSDate match.
func usDateFromMatch(m []string) (time.Time, bool, bool) {
	mo, _ := strconv.Atoi(m[1])
	d, _ := strconv.Atoi(m[2])
	hh, mm, ss := m[4], m[5], m[6]
	if hh != "" && (m[7] == "PM" || m[7] == "pm" || m[7] == "Pm" || m[7] == "pM") {
		if h, _ := strconv.Atoi(hh); h < 12 {
			hh = strconv.Itoa(h + 12)
		}
	}
	return dateFromMatch([]string{m[0], m[3], strconv.Itoa(mo), strconv.Itoa(d), "", "", "", "", "", "", hh, mm, ss})
}

// accountIDs are the ids of the elements that name the publishing account
// of a WeChat 公众号 article: #js_name in the current markup, #post-user in
// the older one (both beside the byline's .rich_media_meta_text author
// span; see TapasTech/hugo-grabber src/rules.js for the older selectors).
var accountIDs = map[string]bool{"js_name": true, "post-user": true}

// addAccount records the account an account element names (the first).
func (m *pageMeta) addAccount(n *html.Node) {
	if m.account != "" || !accountIDs[attr(n, "id")] {
		return
	}
	if name := strings.TrimSpace(collapse(rawText(n))); runeLen(name) <= maxAccountRunes {
		m.account = name
	}
}

// maxAccountRunes bounds an account name (WeChat allows 30 characters).
const maxAccountRunes = 30
