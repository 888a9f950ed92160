package extract

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The boilerplate verdict on the chosen block. Readability-style scoring
// rewards text with commas; a site footer (copyright, ICP licence and
// browser notes written as comma-separated sentences) can out-score a page
// of short forum posts. Whatever the score, a block whose text is mostly
// furniture is never returned as the article: the lines are classified
// (copyright/ICP/联系我们/关于我们 lines, link-separated short items such as
// "关于我们 | 广告服务 | 招聘", lines seen on many other pages of the same
// site), and a block made mostly of them fails. A failing block, or a best
// block with a close runner-up, gets a second opinion from go-readability
// (the design's extractor); the two decide by agreement (see decide).
const (
	// maxFurnitureShare: a block with at least this share of its text
	// units in furniture lines is boilerplate.
	maxFurnitureShare = 0.5
	// maxRepeatedShare: a block with at least this share of its units in
	// lines seen on minRepeatPages other pages of the site is a template
	// block.
	maxRepeatedShare = 0.8
	// minRepeatPages: a line seen on this many other pages of a site is
	// template text (an article line is not repeated on five pages).
	minRepeatPages = 5
	// maxRepeatLineRunes: only short lines count as repeatable template
	// lines; a long paragraph that recurs is a reprint, which dedup
	// handles.
	maxRepeatLineRunes = 80
	// minRepeatLineRunes: very short lines ("首页") are too common to say
	// anything.
	minRepeatLineRunes = 4
	// maxHistoryLines bounds the per-extractor line history; when full it
	// starts again (a footer is re-learnt within minRepeatPages pages).
	maxHistoryLines = 1 << 16
	// minItems and maxItemRunes: a line of at least minItems items of at
	// most maxItemRunes runes separated by | · / is a link bar.
	minItems     = 3
	maxItemRunes = 12
	// maxFooterLineRunes: a furniture keyword on a longer line with a
	// single keyword is prose that mentions it.
	maxFooterLineRunes = 40
	// minAgreement: two extractions whose character-bigram F1 reaches this
	// chose the same block.
	minAgreement = 0.5
	// A second opinion that holds minContained of our text and is
	// minExtension times as long found the rest of a split article (our
	// block was one part of it).
	minContained = 0.9
	minExtension = 1.25
)

// footerKeys are site-furniture keywords of footers and site bars,
// matched literally (a regular expression over long paragraphs was the most
// expensive step of extraction).
var footerKeys = []string{"版权所有", "Copyright", "COPYRIGHT", "copyright", "©", "All Rights Reserved", "All rights reserved", "ALL RIGHTS RESERVED",
	"ICP证", "ICP备", "icp备", "公网安备", "联系我们", "关于我们", "广告服务", "招纳贤才", "招聘信息", "网站地图", "法律声明", "隐私政策", "免责声明", "服务条款",
	"分辨率", "经营许可证", "意见反馈", "设为首页", "加入收藏"}

// footerKeyCount counts the distinct footer keywords in l, up to limit; a
// browser note ("建议使用IE4.0以上版本浏览") counts as one.
func footerKeyCount(l string, limit int) int {
	n := 0
	if i := strings.Index(l, "建议使用"); i >= 0 && strings.Contains(l[i:min(len(l), i+90)], "浏览") {
		n++
	}
	for _, k := range footerKeys {
		if n >= limit {
			break
		}
		if strings.Contains(l, k) {
			n++
		}
	}
	return n
}

// rxItemSep separates the items of a link bar.
var rxItemSep = regexp.MustCompile(`\s*[|｜·•/]\s*|\s{2,}`)

// isFurnitureLine reports a footer or site-bar line.
func isFurnitureLine(l string) bool {
	if n := footerKeyCount(l, 2); n >= 2 || n == 1 && runeLen(l) <= maxFooterLineRunes {
		return true
	}
	return isItemBar(l)
}

// A missed lead: at least minLeadLines lines of at least minLeadUnits units
// with sentence punctuation between the headline and the chosen block.
const (
	minLeadLines = 2
	minLeadUnits = 120
)

// proseBefore reports prose between the headline line and the first body
// line of the page (foreign regions excluded).
func proseBefore(p pageLines, title, body int) bool {
	if title < 0 || body <= title {
		return false
	}
	n := 0
	for i := title + 1; i < body && i < len(p.lines); i++ {
		if i < len(p.foreign) && p.foreign[i] || !strings.ContainsAny(p.lines[i], "。，,.") {
			continue
		}
		if u, _ := unitsOf(p.lines[i]); u >= minLeadUnits {
			n++
		}
	}
	return n >= minLeadLines
}

// maxNavLineUnits: a shorter line without punctuation is a menu item or a
// heading.
const maxNavLineUnits = 40

// leadingPart returns the prose lines of other that come just before the
// first line of ours, back to the headline, furniture, a menu (two short
// lines without punctuation in a row) or a line shown twice, when they hold at least
// minProseUnits of prose; nil otherwise.
func leadingPart(other, ours []string, title string) []string {
	const uniqueRunes = 15
	for _, l := range ours {
		if runeLen(l) < uniqueRunes {
			continue
		}
		for i, o := range other {
			if o != l {
				continue
			}
			seen := make(map[string]bool, i)
			for _, o := range other[:i] {
				if seen[o] {
					seen[o+"\x00twice"] = true
				}
				seen[o] = true
			}
			start, nav := i, 0
			for k := i - 1; k >= 0; k-- {
				// A line shown twice is a caption of a slide show.
				if isFurnitureLine(other[k]) || isHeadlineCopy(other[k], title) || seen[other[k]+"\x00twice"] {
					break
				}
				if u, _ := unitsOf(other[k]); u < maxNavLineUnits && !strings.ContainsAny(other[k], "。！？，.!?,") {
					if nav++; nav >= 2 {
						break
					}
					continue
				}
				nav = 0
				start = k
			}
			if proseUnits(other[start:i]) < minProseUnits {
				return nil
			}
			return other[start:i:i]
		}
		return nil
	}
	return nil
}

// trailingPart returns the prose lines of other that come just after the
// last line of ours (an article that a figure or an advert cut in two),
// up to furniture, a related-reading heading, a menu (two short lines
// without punctuation in a row) or a line ours already holds, when they
// hold at least minProseUnits of prose; nil otherwise.
func trailingPart(other, ours []string) []string {
	const uniqueRunes = 15
	have := make(map[string]bool, len(ours))
	for _, l := range ours {
		have[l] = true
	}
	for j := len(ours) - 1; j >= 0; j-- {
		if runeLen(ours[j]) < uniqueRunes {
			continue
		}
		i := slices.Index(other, ours[j])
		if i < 0 {
			return nil
		}
		end, nav := i+1, 0
		for k := i + 1; k < len(other); k++ {
			l := other[k]
			if isFurnitureLine(l) || isRelatedHeading(l) || have[l] || strings.Contains(l, "://") {
				// (A line showing a URL is a link list: "Listen: http://…".)
				break
			}
			if u, _ := unitsOf(l); u < maxNavLineUnits && !strings.ContainsAny(l, "。！？，.!?,") {
				if nav++; nav >= 2 {
					break
				}
				continue
			}
			nav = 0
			end = k + 1
		}
		if proseUnits(other[i+1:end]) < minProseUnits {
			return nil
		}
		return other[i+1 : end : end]
	}
	return nil
}

// dropFurniture returns lines without the furniture lines.
func dropFurniture(lines []string) []string {
	out := lines[:0:0]
	for _, l := range lines {
		if !isFurnitureLine(l) {
			out = append(out, l)
		}
	}
	return out
}

// isItemBar reports a line of short separated items without a sentence.
func isItemBar(l string) bool {
	if strings.ContainsAny(l, "。！？，,；;") {
		return false
	}
	items := rxItemSep.Split(strings.TrimSpace(l), -1)
	n := 0
	for _, it := range items {
		if it == "" {
			continue
		}
		if runeLen(it) > maxItemRunes {
			return false
		}
		n++
	}
	return n >= minItems
}

// furnitureReason returns why lines are boilerplate, or "".
func (e *Extractor) furnitureReason(site string, lines []string) string {
	total, furniture, repeated := 0, 0, 0
	maxSeen := 0
	for _, l := range lines {
		u, _ := unitsOf(l)
		total += u
		if isFurnitureLine(l) {
			furniture += u
		}
		if n := e.history.pages(site, l); n >= minRepeatPages {
			repeated += u
			maxSeen = max(maxSeen, n)
		}
	}
	switch {
	case total == 0:
		return ""
	case float64(furniture) >= maxFurnitureShare*float64(total):
		return fmt.Sprintf("footer or link bar (%.0f%% of the text)", 100*float64(furniture)/float64(total))
	case float64(repeated) >= maxRepeatedShare*float64(total):
		return fmt.Sprintf("block repeated on %d other pages of the site", maxSeen)
	}
	return ""
}

// lineHistory counts, per site (the host of the page URL) and short line,
// the pages of one extractor on which the line was seen, so that an
// extractor shared by several sites (offline dedup of a directory) does not
// mistake a reprint for a template. It is bounded by maxHistoryLines and
// safe for concurrent use.
type lineHistory struct {
	mu    sync.Mutex
	seed  maphash.Seed
	lines map[uint64]int
	urls  map[uint64]bool
}

func newLineHistory() *lineHistory {
	return &lineHistory{seed: maphash.MakeSeed(), lines: map[uint64]int{}, urls: map[uint64]bool{}}
}

func repeatable(l string) bool {
	n := runeLen(l)
	return n >= minRepeatLineRunes && n <= maxRepeatLineRunes
}

// siteOf is the host of a page URL ("" when it has none).
func siteOf(pageURL string) string {
	if u, err := url.Parse(pageURL); err == nil {
		return u.Host
	}
	return ""
}

func (h *lineHistory) key(site, l string) uint64 {
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	mh.WriteString(site)
	mh.WriteByte(0)
	mh.WriteString(l)
	return mh.Sum64()
}

// pages returns on how many recorded pages of site line l was seen.
func (h *lineHistory) pages(site, l string) int {
	if !repeatable(l) {
		return 0
	}
	k := h.key(site, l)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lines[k]
}

// record adds the short lines of one page; a page URL is recorded once
// (an empty URL is always recorded).
func (h *lineHistory) record(pageURL string, lines []string) {
	site := siteOf(pageURL)
	h.mu.Lock()
	defer h.mu.Unlock()
	if pageURL != "" {
		k := maphash.String(h.seed, pageURL)
		if h.urls[k] {
			return
		}
		h.urls[k] = true
	}
	if len(h.lines)+len(lines) > maxHistoryLines || len(h.urls) > maxHistoryLines {
		h.lines, h.urls = map[uint64]int{}, map[uint64]bool{}
	}
	seen := make(map[uint64]bool, len(lines))
	for _, l := range lines {
		if !repeatable(l) {
			continue
		}
		k := h.key(site, l)
		if !seen[k] {
			seen[k] = true
			h.lines[k]++
		}
	}
}

// SecondOpinion values (Article.SecondOpinion): whether go-readability was
// asked and what it changed.
const (
	SecondOpinionAgreed   = "agreed"   // it chose the same text; ours kept
	SecondOpinionKept     = "kept"     // it disagreed on a close call; ours kept
	SecondOpinionExtended = "extended" // its text holds ours and more prose; its text taken
	SecondOpinionReplaced = "replaced" // our block was boilerplate, its text was not
	SecondOpinionRefused  = "refused"  // both were boilerplate: no article
)

// secondOpinion runs go-readability on a fresh parse of the page (the
// first parse has been pruned and cleaned) and returns its result with the
// link statistics the no-article verdict needs.
func (e *Extractor) secondOpinion(pageURL string, page []byte) bodyResult {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return bodyResult{}
	}
	e.removeSelected(doc)
	prune(doc, 0)
	u, _ := url.Parse(pageURL)
	if u == nil {
		u = &url.URL{}
	}
	p := readability.NewParser()
	p.DisableJSONLD = true
	ra, err := p.ParseAndMutate(doc, u)
	if err != nil || ra.Node == nil {
		return bodyResult{}
	}
	res := bodyResult{lines: renderReadability(ra.Node), method: MethodReadability}
	sc := newScorer(defaultTuning)
	sc.measure(ra.Node, nil, false, 0)
	if st := sc.stats[ra.Node]; st != nil {
		res.contentUnits, res.contentLinkUnits, res.contentImages = st.units, st.linkUnits, st.images
	}
	return res
}

// renderReadability renders go-readability's result. It renames elements
// (a <div> of text becomes a <p>) without updating their atoms, which the
// renderer reads; the atoms are fixed first.
func renderReadability(n *html.Node) []string {
	var fix func(n *html.Node, depth int)
	fix = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			n.DataAtom = atom.Lookup([]byte(n.Data))
		}
		if depth >= maxRenderDepth {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			fix(c, depth+1)
		}
	}
	fix(n, 0)
	return renderLines(n)
}

// overlap compares two texts by character bigrams (whitespace ignored):
// f1 is their bigram F1 (the measure the evaluation uses), inA the share
// of a's bigrams found in b, and na, nb their bigram counts.
type overlap struct {
	f1, inA float64
	na, nb  int
}

func compareTexts(a, b string) overlap {
	ba, bb := bigrams(a), bigrams(b)
	var o overlap
	for _, c := range ba {
		o.na += c
	}
	for _, c := range bb {
		o.nb += c
	}
	if o.na == 0 || o.nb == 0 {
		return o
	}
	common := 0
	for k, c := range ba {
		common += min(c, bb[k])
	}
	o.f1 = 2 * float64(common) / float64(o.na+o.nb)
	o.inA = float64(common) / float64(o.na)
	return o
}

func bigrams(s string) map[[2]rune]int {
	m := map[[2]rune]int{}
	var prev rune
	first := true
	for _, r := range s {
		if isSpace(r) {
			continue
		}
		if !first {
			m[[2]rune{prev, r}]++
		}
		prev, first = r, false
	}
	return m
}
