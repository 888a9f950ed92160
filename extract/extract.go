// Package extract finds the main article of a news page: headline, text,
// publish time, source, author and editor.
//
// The page (already decoded to UTF-8, see package decode) is parsed once
// with golang.org/x/net/html. The body is found by Readability's method
// (Mozilla Readability.js, as ported in codeberg.org/readeck/go-readability):
// unlikely blocks (comments, footers, menus) are dropped by class/id,
// paragraphs are scored by commas and length and credit their ancestors,
// link density discounts candidates, and siblings of the best candidate
// are merged. The scoring is reimplemented here in one bottom-up pass with
// changes measured on Chinese portals (see content.go): Chinese punctuation
// counts like commas, CJK characters weigh three Latin ones, class hints
// scale scores instead of adding a fixed 25, there is no 500-character
// retry loop (which on short Chinese articles returned comment threads),
// and same-class article chunks further out are merged. Inside the chosen
// block, related-reading and recommendation blocks (相关阅读, 推荐阅读, ...),
// share and comment bars, link lists and captions are cut, then line
// filters remove furniture (返回搜狐，查看更多, pagers, copyright notices,
// bylines and datelines at the edges). Plain go-readability remains
// available as Options.Engine = EngineReadability to measure the baseline.
//
// Pages that are lists, galleries, videos or site information get
// ErrNoArticle with the reason instead of a few lines of navigation. The
// chosen block then gets a boilerplate verdict (boilerplate.go): a block
// made mostly of footer, ICP and link-bar lines, or of lines repeated on
// other pages of the same site, is never the article. A failing block, a
// close runner-up or prose left between the headline and the block asks
// plain go-readability for a second opinion, and the two decide by
// agreement (character-bigram overlap). A page known to be an article
// (Options.ExpectArticle, the site's article_url) is refused only when no
// article text remains.
//
// Pages drawn by script are read without running it (state.go): when the
// DOM holds no article, or much less prose than a JSON state object of a
// script (window.DATA, __INITIAL_STATE__, __NEXT_DATA__, JSON-LD
// articleBody), the state's longest body field is the article
// (MethodState); a brief whose only text is the description <meta> of an
// article page is taken from there (MethodDescription). A container hidden
// by its inline style that holds most of the page's text (WeChat's
// #js_content, shown by its script) is read (hidden.go). A stub that shows
// the start of an article and a read-the-rest marker is marked Truncated,
// with its canonical variant (stub.go).
//
// Metadata prefers the page's own evidence (<meta>, JSON-LD, scripts, the
// headline element, the URL) over text patterns (发布时间, 来源：, 责任编辑：,
// 记者 …), and never reads text patterns from related-article, comment or
// footer regions (region.go). Dates without a year take it from the meta
// or URL date; times without a zone are in the site's zone
// (Options.Location, China Standard Time by default), and relative dates
// (3小时前, 昨天 10:20) are resolved against the fetch time (ExtractFetched).
//
// FindPager (pager.go) reads the pager of a multi-page article: the URLs
// of its pages in order and which one the page is.
package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// ErrNoArticle is returned (wrapped with a reason) for pages that hold no
// article: lists, galleries, videos, navigation-only pages.
var ErrNoArticle = errors.New("no article")

// MaxInputBytes bounds the HTML accepted by Extract. The crawler's fetch
// limit is 10 MB; anything larger is refused rather than truncated.
const MaxInputBytes = 16 << 20

// Article is an extracted news article.
type Article struct {
	Title       string
	Text        string // paragraphs joined by "\n"
	PublishedAt time.Time
	Source      string
	Author      string
	Editor      string
	Method      string // how the body was found: one of the Method* values
	// SecondOpinion is "" when go-readability was not asked, else one of
	// the SecondOpinion* values.
	SecondOpinion string
	// LeadImage is the absolute http(s) URL of the article's lead image:
	// the og:image / twitter:image <meta>, else the first <img> of the
	// article block that is not an icon, a logo or a tracking pixel
	// (declared sides of at least 100 pixels, no such word in its name).
	// Empty when there is none; data: URLs and SVG are never reported.
	LeadImage string
	// SelectorMisses names the configured selectors (Options.BodySelector,
	// TitleSelector, TimeSelector: "body", "title", "time") that matched
	// nothing on this page, so that the generic rule was used instead; the
	// caller warns about them (a site's markup changed).
	SelectorMisses []string
	// Truncated says the page shows only the start of the article and a
	// marker to read the rest elsewhere (打开新浪新闻 阅读全文, 展开全文,
	// "read the full story in the app"): Text is not the whole article.
	Truncated bool
	// Canonical is the absolute http(s) URL the page names as its
	// canonical variant (<link rel=canonical>, else og:url) when it is
	// not the page's own URL: for a truncated mobile page, the variant
	// to fetch instead. Empty otherwise.
	Canonical string
	// Channel is ChannelNewsroom, ChannelSelfMedia or ChannelUnknown: whose
	// article the page is, from the marks the portals give (channel.go).
	Channel string
	// Notes say what a limit kept extraction from reading ("script state
	// object over 4194304 bytes not decoded"); nil when nothing was.
	Notes []string
}

// Method values.
const (
	MethodDensity     = "density"     // Readability-style scoring of this package
	MethodSelector    = "selector"    // Options.BodySelector
	MethodReadability = "readability" // go-readability (Options.Engine)
	// MethodState: the body is a field of a JSON state object of a script
	// (window.DATA, __NEXT_DATA__, JSON-LD articleBody, see state.go).
	MethodState = "state"
	// MethodDescription: the page's only article text is its description
	// <meta> (a brief whose body is drawn by script).
	MethodDescription = "description"
)

// EngineReadability selects plain go-readability for the body instead of
// this package's scorer; it exists to measure the baseline.
const EngineReadability = "readability"

// Options are per-site overrides from the configuration.
type Options struct {
	// Engine is "" (this package's scorer) or EngineReadability.
	Engine string
	// Remove lists CSS selectors of elements deleted before anything else.
	Remove []string
	// BodySelector, TitleSelector and TimeSelector select the article
	// body, headline and publish time directly when set.
	BodySelector, TitleSelector, TimeSelector string
	// PagerSelector names the pager block of multi-page articles (the
	// site's extract.pager) when the generic rule of FindPager misses it.
	PagerSelector string
	// StripMetaLines removes 来源/责任编辑 lines that sit inside the body
	// from Text (they are captured into Source/Editor either way). Off by
	// default: the reprint-web truth counts such lines as body text, and
	// keeping them measured better (docs/THRESHOLDS.md).
	StripMetaLines bool
	// Tuning overrides the thresholds the evaluation fits; its zero
	// fields take the defaults.
	Tuning Tuning
	// Location is the site's time zone: times a page writes without a
	// zone are read in it, relative dates are resolved in it. Nil is
	// China Standard Time (Asia/Shanghai, UTC+8 without daylight saving).
	Location *time.Location
	// ExpectArticle says the page is known to be an article (the site's
	// article_url matched it). A short text is then kept even when the
	// container holds more link text than prose (a brief with keyword
	// links followed by a promo link block): link lists are dropped and
	// the page is refused only when no article text remains.
	ExpectArticle bool
}

// Extractor extracts articles. It holds compiled selectors and a bounded
// history of the short lines of the pages it has seen (template lines
// repeated across a site's pages, see furnitureReason); it is safe for
// concurrent use. Use one Extractor per site.
type Extractor struct {
	opts     Options
	tuning   Tuning // opts.Tuning with the defaults filled in
	remove   []cascadia.Selector
	bodySel  cascadia.Selector
	titleSel cascadia.Selector
	timeSel  cascadia.Selector
	pagerSel cascadia.Selector // nil: the generic pager rule (pager.go)
	history  *lineHistory      // short lines seen on earlier pages
	loc      *time.Location    // opts.Location, cst when nil
}

// New compiles the selectors of opts.
func New(opts Options) (*Extractor, error) {
	t, err := opts.Tuning.resolve()
	if err != nil {
		return nil, err
	}
	e := &Extractor{opts: opts, tuning: t, history: newLineHistory(), loc: opts.Location}
	if e.loc == nil {
		e.loc = cst
	}
	for _, s := range opts.Remove {
		sel, err := cascadia.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("remove selector %q: %w", s, err)
		}
		e.remove = append(e.remove, sel)
	}
	for _, x := range []struct {
		src string
		dst *cascadia.Selector
		key string
	}{{opts.BodySelector, &e.bodySel, "body"}, {opts.TitleSelector, &e.titleSel, "title"}, {opts.TimeSelector, &e.timeSel, "time"}, {opts.PagerSelector, &e.pagerSel, "pager"}} {
		if x.src == "" {
			continue
		}
		sel, err := cascadia.Compile(x.src)
		if err != nil {
			return nil, fmt.Errorf("%s selector %q: %w", x.key, x.src, err)
		}
		*x.dst = sel
	}
	return e, nil
}

// Extract extracts the article of a page. pageURL is used to resolve
// relative links (may be empty); page must already be UTF-8 (see package
// decode). Relative dates (3小时前, 昨天 10:20) are not resolved: use
// ExtractFetched.
func (e *Extractor) Extract(pageURL string, page []byte) (*Article, error) {
	return e.ExtractFetched(pageURL, page, time.Time{})
}

// ExtractFetched is Extract for a page fetched at fetchedAt: dates the page
// shows relative to the time it was served (刚刚, 5分钟前, 3小时前, 昨天
// 10:20, 前天) are resolved against fetchedAt in the site's zone
// (Options.Location). A zero fetchedAt leaves them unresolved.
func (e *Extractor) ExtractFetched(pageURL string, page []byte, fetchedAt time.Time) (*Article, error) {
	if len(page) > MaxInputBytes {
		return nil, fmt.Errorf("extract: page of %d bytes exceeds the %d-byte limit", len(page), MaxInputBytes)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("extract: parse html: %w", err)
	}
	return e.extractParsed(pageURL, page, doc, fetchedAt)
}

// ExtractParsed is Extract on doc, the tree html.Parse made of page (an
// evaluation parses a page once and extracts copies of the tree many
// times). doc is modified; page is still read by the second opinion.
func (e *Extractor) ExtractParsed(pageURL string, page []byte, doc *html.Node) (*Article, error) {
	return e.extractParsed(pageURL, page, doc, time.Time{})
}

func (e *Extractor) extractParsed(pageURL string, page []byte, doc *html.Node, fetchedAt time.Time) (*Article, error) {
	if len(page) > MaxInputBytes {
		return nil, fmt.Errorf("extract: page of %d bytes exceeds the %d-byte limit", len(page), MaxInputBytes)
	}
	e.removeSelected(doc)
	unhideMain(doc)
	meta := collectMeta(doc)
	art := &Article{Title: chooseTitle(meta)}
	e.selectTitle(doc, art)
	selTime, haveSelTime := e.selectorTime(doc)
	if e.timeSel != nil && !haveSelTime {
		art.SelectorMisses = append(art.SelectorMisses, "time")
	}
	page0 := renderPage(doc)
	pageLines := page0.lines
	defer e.history.record(pageURL, pageLines)

	res := e.body(doc, pageURL)
	art.Method = res.method
	if e.bodySel != nil && res.method != MethodSelector {
		art.SelectorMisses = append(art.SelectorMisses, "body")
	}
	if art.LeadImage = resolveImage(pageURL, meta.image); art.LeadImage == "" {
		art.LeadImage = resolveImage(pageURL, res.leadImage)
	}
	lines := e.cleanLines(res.lines, art)
	if len(meta.states) > 0 && res.method != MethodSelector {
		lines = e.fromState(&meta, art, &res, lines)
	}
	if res.method == MethodDensity {
		var err error
		trusted := page0
		trusted.foreign = trustedMarks(page0, lines)
		lead := proseBefore(trusted, titleLine(pageLines, art.Title), bodyLine(pageLines, lines))
		if lines, err = e.decide(pageURL, page, art, &res, lines, lead); err != nil {
			return nil, err
		}
	}
	art.Text = strings.Join(lines, "\n")
	if err := verdict(pageURL, meta, art, lines, res, e.opts.ExpectArticle); err != nil || descriptionOverDOM(meta, lines) {
		switch d := e.fromDescription(pageURL, meta, art, res); {
		case d != nil:
			lines = d
		case err != nil:
			return nil, err
		}
	}

	li := lineInfo{page: pageLines, foreign: trustedMarks(page0, lines), body: lines, titleLine: titleLine(pageLines, art.Title), bodyLine: -1}
	li.bodyLine = bodyLine(pageLines, lines)
	art.PublishedAt = e.publishTime(pageURL, &li, meta, selTime, haveSelTime, fetchedAt)
	findMeta(li, art, meta.author)
	if art.Author == "" {
		art.Author = ownerAuthor(li, meta)
	}
	withAccount(art, meta.account)
	art.Channel = channelOf(pageURL, pageLines)
	e.markTruncated(pageURL, li, meta, art)
	if e.opts.StripMetaLines {
		kept := lines[:0]
		for _, l := range lines {
			if !rxMetaLine.MatchString(l) {
				kept = append(kept, l)
			}
		}
		art.Text = strings.Join(kept, "\n")
	}
	if sanitize(art); art.Text == "" {
		return nil, fmt.Errorf("%w: no text left after removing control characters", ErrNoArticle)
	}
	return art, nil
}

// publishTime picks the publish time: the time selector, the page's
// <meta>/JSON-LD/script/state time, else a date in the text (a date-only
// <meta> takes its time of day from the text), else a relative date near
// the headline, else the last-modified meta or the URL's day. Times
// written without a zone are read in the site's zone.
func (e *Extractor) publishTime(pageURL string, li *lineInfo, meta pageMeta, selTime time.Time, haveSelTime bool, fetchedAt time.Time) time.Time {
	metaTime, metaOK := parseTime(meta.published)
	li.urlDay, _ = urlDate(pageURL)
	li.yearHint = li.urlDay
	modTime, modOK := parseTime(meta.modified)
	switch {
	case metaOK:
		li.yearHint = metaTime
	case li.yearHint.IsZero() && modOK:
		li.yearHint = modTime
	}
	var t time.Time
	switch {
	case haveSelTime:
		t = selTime
	case metaOK:
		t = metaTime
		// A date-only <meta> ("2019-06-15"): take the time of day from the
		// page text when it shows the same day.
		if !strings.Contains(meta.published, ":") {
			if tt, ok := textDate(*li); ok && sameDay(tt, t) {
				t = tt
			}
		}
	default:
		tt, score, ok := textDateScored(*li)
		rel, relOK := relativeDate(*li, fetchedAt, e.loc)
		switch {
		case relOK && (!ok || score < scoreTrusted):
			// "3小时前" under the headline and no labelled date: the
			// date the page was served with.
			t = rel
		case modOK && li.urlDay.IsZero() && (!ok || score < scoreTrusted):
			// No publish time stated and no date labelled near the
			// headline: the page's last-modified meta, not a date
			// from its reference list or prose.
			t = modTime
		case ok:
			t = tt
		case !li.urlDay.IsZero():
			t = li.urlDay
		}
	}
	return inSiteZone(t, e.loc)
}

func (e *Extractor) removeSelected(doc *html.Node) {
	for _, sel := range e.remove {
		for _, n := range cascadia.QueryAll(doc, sel) {
			if n.Parent != nil {
				n.Parent.RemoveChild(n)
			}
		}
	}
}

// decide applies the boilerplate verdict to the chosen block's lines and,
// when the block fails it, a runner-up scored close to it or prose stands
// between the headline and the block (proseLead: a missed lead), asks
// go-readability for a second opinion. Agreement keeps our (cleaner) text
// or, for a failing block, refuses the page; a failing block against a
// clean second opinion is replaced by it; a close call where the two
// disagree keeps ours (SecondOpinionKept, counted by the evaluation).
func (e *Extractor) decide(pageURL string, page []byte, art *Article, res *bodyResult, lines []string, proseLead bool) ([]string, error) {
	site := siteOf(pageURL)
	reason := e.furnitureReason(site, res.lines)
	if reason == "" {
		reason = e.furnitureReason(site, lines)
	}
	if reason == "" && res.runnerUp < e.tuning.CloseRunnerUp && !proseLead {
		return lines, nil
	}
	// Readability merges a footer that follows the posts into the body;
	// its furniture lines are dropped before the two are compared.
	second := e.secondOpinion(pageURL, page)
	rd := dropFurniture(e.cleanLines(second.lines, art))
	rdReason := e.furnitureReason(site, rd)
	o := compareTexts(strings.Join(lines, "\n"), strings.Join(rd, "\n"))
	agree := o.f1 >= minAgreement
	switch {
	case reason == "" && rdReason == "" && o.inA >= minContained && float64(o.nb) >= minExtension*float64(o.na) &&
		float64(second.contentLinkUnits) <= maxListLinkDensity*float64(second.contentUnits) && leadingPart(rd, lines, art.Title) != nil:
		// Our block was the later part of a split article; the second
		// opinion's lines before it are its start. What follows our last
		// line in the second opinion is taken only while it is prose
		// (trailingPart: comments, link lists and menus end it).
		art.SecondOpinion = SecondOpinionExtended
		ext := append(leadingPart(rd, lines, art.Title), lines...)
		// A figure or an advert may also have cut the article's end off.
		ext = append(ext, trailingPart(rd, lines)...)
		res.lines = ext
		return ext, nil
	case agree && reason == "":
		art.SecondOpinion = SecondOpinionAgreed
	case reason == "":
		art.SecondOpinion = SecondOpinionKept
	case !agree && rdReason == "" && proseUnits(rd) >= minProseUnits:
		art.SecondOpinion = SecondOpinionReplaced
		art.Method = MethodReadability
		second.lines = rd
		second.pageUnits, second.pageLinkUnits = res.pageUnits, res.pageLinkUnits
		*res = second
		return rd, nil
	default:
		art.SecondOpinion = SecondOpinionRefused
		return nil, fmt.Errorf("%w: boilerplate: %s", ErrNoArticle, reason)
	}
	return lines, nil
}

// bodyResult is the rendered body and the statistics the no-article
// verdict needs.
type bodyResult struct {
	lines  []string
	method string
	// Text units and link units of the whole page and of the chosen
	// content before cleaning; images in the chosen content.
	pageUnits, pageLinkUnits       int
	contentUnits, contentLinkUnits int
	contentImages                  int
	// runnerUp is the score of the best candidate outside the chosen
	// content relative to the best candidate's (0 when none).
	runnerUp float64
	// leadImage is the first photo <img> of the chosen content, as written.
	leadImage string
	// linkItemsDropped: the content's link items were dropped on an
	// article-shaped URL without Options.ExpectArticle; listUnits and
	// listLinkUnits are the content's counts before (see isBrief).
	linkItemsDropped         bool
	listUnits, listLinkUnits int
}

// body finds the article body and renders it as lines.
func (e *Extractor) body(doc *html.Node, pageURL string) bodyResult {
	if e.bodySel != nil {
		if n := cascadia.Query(doc, e.bodySel); n != nil {
			prune(n, 0)
			return bodyResult{lines: renderLines(n), method: MethodSelector, leadImage: firstLeadImage([]*html.Node{n})}
		}
	}
	prune(doc, 0)
	if e.opts.Engine == EngineReadability {
		return readabilityBody(doc, pageURL)
	}
	sc := newScorer(e.tuning)
	sc.measure(doc, nil, false, 0)
	removeUnlikely(sc, doc, sc.stats[doc].units, 0)
	sc = newScorer(e.tuning)
	sc.measure(doc, nil, false, 0)
	sc.scoreParagraphs(doc)
	ds := sc.stats[doc]
	res := bodyResult{pageUnits: ds.units, pageLinkUnits: ds.linkUnits}
	top, cands := sc.topCandidate()
	if top == nil {
		return res
	}
	if p := firstPost(sc, top); p != nil {
		top = p
	}
	nodes := sc.withCousins(top, sc.withSiblings(top))
	res.runnerUp = runnerUp(cands, nodes)
	for _, n := range nodes {
		st := sc.stats[n]
		res.contentUnits += st.units
		res.contentLinkUnits += st.linkUnits
		res.contentImages += st.images
	}
	briefURL := !e.opts.ExpectArticle && articleShapedURL(pageURL)
	if (e.opts.ExpectArticle || briefURL) && float64(res.contentLinkUnits) > maxListLinkDensity*float64(res.contentUnits) {
		// A known article page (or an article-shaped URL, see isBrief)
		// whose container is mostly links: a short story with keyword
		// links and a promo block. The link items go; what remains is
		// judged as the article.
		res.linkItemsDropped = briefURL
		res.listUnits, res.listLinkUnits = res.contentUnits, res.contentLinkUnits
		for _, n := range nodes {
			u, l := dropLinkItems(sc, n)
			res.contentUnits -= u
			res.contentLinkUnits -= l
		}
	}
	res.leadImage = firstLeadImage(nodes)
	for _, n := range nodes {
		cleanContainer(sc, n, res.contentUnits)
		res.lines = append(res.lines, renderLines(n)...)
	}
	res.method = MethodDensity
	return res
}

// readabilityBody is the Readability baseline (Options.Engine).
func readabilityBody(doc *html.Node, pageURL string) bodyResult {
	u, _ := url.Parse(pageURL)
	if u == nil {
		u = &url.URL{}
	}
	p := readability.NewParser()
	p.DisableJSONLD = true
	if ra, err := p.ParseAndMutate(doc, u); err == nil && ra.Node != nil {
		return bodyResult{lines: renderReadability(ra.Node), method: MethodReadability}
	}
	return bodyResult{}
}

// selectTitle sets art's title from the title selector, or records that
// it matched nothing.
func (e *Extractor) selectTitle(doc *html.Node, art *Article) {
	if e.titleSel == nil {
		return
	}
	if n := cascadia.Query(doc, e.titleSel); n != nil {
		if t := textOf(n); t != "" {
			art.Title = t
			return
		}
	}
	art.SelectorMisses = append(art.SelectorMisses, "title")
}

func (e *Extractor) selectorTime(doc *html.Node) (time.Time, bool) {
	if e.timeSel == nil {
		return time.Time{}, false
	}
	n := cascadia.Query(doc, e.timeSel)
	if n == nil {
		return time.Time{}, false
	}
	for _, s := range []string{attr(n, "datetime"), attr(n, "content"), textOf(n)} {
		if t, ok := parseTime(s); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// titleLine returns the index of the page line holding the headline: an
// exact match first, else the first line containing it; -1 when absent.
func titleLine(lines []string, title string) int {
	if title == "" {
		return -1
	}
	for i, l := range lines {
		if l == title {
			return i
		}
	}
	if runeLen(title) >= 4 {
		for i, l := range lines {
			if strings.Contains(l, title) {
				return i
			}
		}
	}
	return -1
}

// bodyLine returns the index of the first body line in the page lines,
// located through the first body line long enough to be unique; -1 when
// not found.
func bodyLine(page, body []string) int {
	const uniqueRunes = 15
	for k, l := range body {
		if k >= 5 {
			break
		}
		if runeLen(l) < uniqueRunes {
			continue
		}
		for i, p := range page {
			if p == l {
				return max(0, i-k)
			}
		}
	}
	return -1
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}
