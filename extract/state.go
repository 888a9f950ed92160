package extract

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Script state: pages drawn by script (QQ's /rain/a/ pages,
// Next.js and Nuxt sites) may carry the article only in a JSON object a
// script assigns (window.DATA = {…}, window.__INITIAL_STATE__ = {…},
// <script id="__NEXT_DATA__" type="application/json">, a JSON-LD
// articleBody). No JavaScript is run: an object literal that is valid JSON
// is decoded, within size and depth limits; anything else (a Nuxt
// function call, undefined values) is skipped. The longest HTML or text
// field under a body-like key (content, cnt_html, articleBody, …), else
// the longest field holding <p> paragraphs, is the article; the headline,
// publish time and author are read from the same object or its parents.
const (
	// maxStateBytes bounds one state object; a larger one is not decoded
	// (Next.js pages of a few hundred kilobytes are common, 4 MB is far
	// beyond any article's state).
	maxStateBytes = 4 << 20
	// maxStateDepth bounds the nesting of a state object: a deeper
	// object is not decoded, nor walked beyond this depth.
	maxStateDepth = 48
	// maxStateScripts bounds how many scripts of a page are read as state.
	maxStateScripts = 8
	// minStateFieldBytes: shorter strings are not article bodies.
	minStateFieldBytes = 60
	// stateOverDOM: the state's article replaces the DOM's when its prose
	// is this many times the DOM body's (the DOM then holds a summary, a
	// loading shell or the page furniture).
	stateOverDOM = 2
	// maxStateParents is how many enclosing objects are searched for the
	// headline, time and author of the body field.
	maxStateParents = 3
)

// stateMarkers name the script variables that hold a page's state.
var stateMarkers = []string{"window.DATA", "__INITIAL_STATE__", "__NEXT_DATA__", "__NUXT__", "__PRELOADED_STATE__", "__INITIAL_DATA__", "__APOLLO_STATE__"}

// State keys, lower-cased.
var (
	stateBodyKeys = map[string]bool{
		"content": true, "contents": true, "cnt_html": true, "articlebody": true, "article_body": true, "body": true,
		"html": true, "contenthtml": true, "content_html": true, "articlecontent": true, "article_content": true,
		"richtext": true, "rich_text": true, "text": true, "detail": true, "maintext": true, "main_text": true,
	}
	stateTitleKeys  = []string{"title", "headline", "longtitle", "long_title", "article_title", "articletitle"}
	stateTimeKeys   = []string{"pubtime", "pub_time", "publishtime", "publish_time", "datepublished", "pubdate", "ptime", "alt_time", "publishdate", "publish_date", "create_time", "createtime", "ctime", "time"}
	stateAuthorKeys = []string{"author", "authorname", "author_name", "writer", "byline"}
)

// stateScript is a script that may hold page state.
type stateScript struct {
	text string
	json bool // the whole script is one JSON value (type=application/json, ld+json)
}

// addStateScript records script n when it carries page state.
func (m *pageMeta) addStateScript(n *html.Node) {
	if len(m.states) >= maxStateScripts || n.FirstChild == nil {
		return
	}
	s := n.FirstChild.Data
	typ := strings.ToLower(attr(n, "type"))
	switch {
	case strings.Contains(typ, "ld+json"):
		if strings.Contains(s, "articleBody") {
			m.states = append(m.states, stateScript{text: s, json: true})
		}
	case attr(n, "id") == "__NEXT_DATA__" && strings.Contains(typ, "json"):
		m.states = append(m.states, stateScript{text: s, json: true})
	default:
		for _, k := range stateMarkers {
			if strings.Contains(s, k) {
				m.states = append(m.states, stateScript{text: s})
				return
			}
		}
	}
}

// stateArticle is the article found in a page's script state.
type stateArticle struct {
	lines               []string
	title, time, author string
	skipped             []string // state objects a limit kept from being decoded
}

// stateBody returns the longest article of the page's state objects;
// best.skipped says which objects a limit kept from being decoded.
func stateBody(scripts []stateScript) (best stateArticle, bestUnits int) {
	for _, s := range scripts {
		v, skipped := decodeState(s)
		if skipped != "" {
			best.skipped = append(best.skipped, skipped)
		}
		if v == nil {
			continue
		}
		c := stateField{}
		c.find(v, nil, 0)
		if c.value == "" {
			continue
		}
		lines := stateLines(c.value)
		if u := proseUnits(lines); u > bestUnits {
			bestUnits = u
			best.lines = lines
			best.title, best.time, best.author = c.siblings()
		}
	}
	return best, bestUnits
}

// decodeState decodes the JSON value of a state script; v is nil when it
// holds none that can be read without JavaScript, and skipped says why
// when a limit (maxStateBytes, maxStateDepth) was the reason.
func decodeState(s stateScript) (v any, skipped string) {
	text := s.text
	if !s.json {
		i := -1
		for _, k := range stateMarkers {
			if j := strings.Index(text, k); j >= 0 {
				i = j + len(k)
				break
			}
		}
		if i < 0 {
			return nil, ""
		}
		eq := strings.IndexByte(text[i:], '=')
		if eq < 0 {
			return nil, ""
		}
		text = strings.TrimLeft(text[i+eq+1:], " \t\r\n")
		if !strings.HasPrefix(text, "{") {
			return nil, "" // a function call or a reference: needs JavaScript
		}
	} else {
		text = strings.TrimSpace(text)
	}
	end, skipped := jsonValueEnd(text)
	if end == 0 {
		return nil, skipped
	}
	if json.Unmarshal([]byte(text[:end]), &v) != nil {
		return nil, ""
	}
	return v, ""
}

// jsonValueEnd returns the length of the object or array text starts
// with; 0 when it is unterminated, longer than maxStateBytes or nested
// deeper than maxStateDepth (skipped then names the limit).
func jsonValueEnd(text string) (end int, skipped string) {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(text); i++ {
		if i >= maxStateBytes {
			return 0, fmt.Sprintf("script state object over %d bytes not decoded", maxStateBytes)
		}
		c := text[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxStateDepth {
				return 0, fmt.Sprintf("script state object nested deeper than %d not decoded", maxStateDepth)
			}
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i + 1, ""
			}
		}
	}
	return 0, ""
}

// stateField is the best body field found so far and the objects that
// enclose it (innermost first).
type stateField struct {
	value   string
	score   int
	parents []map[string]any
}

// find walks v for the body field: the longest text under a body key or
// holding <p> paragraphs.
func (c *stateField) find(v any, parents []map[string]any, depth int) {
	if depth > maxStateDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		parents = append([]map[string]any{x}, parents[:min(len(parents), maxStateParents-1)]...)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if s, ok := x[k].(string); ok {
				c.consider(strings.ToLower(k), s, parents)
				continue
			}
			c.find(x[k], parents, depth+1)
		}
	case []any:
		for _, y := range x {
			c.find(y, parents, depth+1)
		}
	}
}

// consider scores the string field key: s.
func (c *stateField) consider(key, s string, parents []map[string]any) {
	if len(s) < minStateFieldBytes {
		return
	}
	keyed := stateBodyKeys[key]
	if !keyed && !strings.Contains(s, "<p") {
		return
	}
	score := textRunes(s)
	if !strings.ContainsAny(s, "。！？.!?") || score < minStateFieldBytes/3 {
		return
	}
	if score > c.score {
		c.value, c.score, c.parents = s, score, parents
	}
}

// textRunes counts the runes of s outside tags.
func textRunes(s string) int {
	n, inTag := 0, false
	for _, r := range s {
		switch {
		case r == '<':
			inTag = true
		case r == '>':
			inTag = false
		case !inTag && r > ' ':
			n++
		}
	}
	return n
}

// siblings returns the headline, time and author of the body field: the
// first such key in the innermost enclosing object that has it.
func (c *stateField) siblings() (title, when, author string) {
	for _, p := range c.parents {
		lower := make(map[string]any, len(p))
		for k, v := range p {
			lower[strings.ToLower(k)] = v
		}
		if title == "" {
			title = firstString(lower, stateTitleKeys)
		}
		if when == "" {
			when = stateTime(lower)
		}
		if author == "" {
			author = stateAuthor(lower)
		}
	}
	return title, when, author
}

func firstString(m map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" && utf8.RuneCountInString(s) <= maxStateNameRunes*10 {
			return collapse(strings.TrimSpace(html.UnescapeString(s)))
		}
	}
	return ""
}

// maxStateNameRunes bounds an author name read from state.
const maxStateNameRunes = 30

// stateTime returns a publish time of the object: a date string, or unix
// seconds or milliseconds.
func stateTime(m map[string]any) string {
	for _, k := range stateTimeKeys {
		switch x := m[k].(type) {
		case string:
			if _, ok := parseTime(x); ok {
				return x
			}
		case float64:
			sec := int64(x)
			if sec > 1e12 {
				sec /= 1000
			}
			s := strconv.FormatInt(sec, 10)
			if _, ok := parseTime(s); ok {
				return s
			}
		}
	}
	return ""
}

// stateAuthor returns an author name: a string, {name: …} or a list of
// those (the first).
func stateAuthor(m map[string]any) string {
	for _, k := range stateAuthorKeys {
		v := m[k]
		if l, ok := v.([]any); ok && len(l) > 0 {
			v = l[0]
		}
		if o, ok := v.(map[string]any); ok {
			v = o["name"]
		}
		if s, ok := v.(string); ok {
			s = collapse(strings.TrimSpace(s))
			if s != "" && utf8.RuneCountInString(s) <= maxStateNameRunes {
				return s
			}
		}
	}
	return ""
}

// stateLines renders a body field: HTML through the page renderer (the
// hidden and script parts pruned), text by its line breaks.
func stateLines(s string) []string {
	if strings.Contains(s, "<") && textRunes(s) < utf8.RuneCountInString(s) {
		doc, err := html.Parse(strings.NewReader("<html><body>" + s + "</body></html>"))
		if err == nil {
			prune(doc, 0)
			return renderLines(doc)
		}
	}
	// Text fields of JSON-LD often keep the page's entities (&quot;,
	// &apos;): they are decoded as the HTML parser would.
	var out []string
	for _, l := range strings.Split(html.UnescapeString(s), "\n") {
		if l = collapse(strings.TrimSpace(l)); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// fromState replaces the DOM's body lines by the article of the page's
// script state when the DOM holds no article or much less prose than the
// state (stateOverDOM); the state's headline, time and author fill in
// what the page's <meta> lacks.
func (e *Extractor) fromState(meta *pageMeta, art *Article, res *bodyResult, lines []string) []string {
	st, units := stateBody(meta.states)
	art.Notes = append(art.Notes, st.skipped...)
	if units < minProseUnits {
		return lines
	}
	if dom := proseUnits(lines); dom >= minProseUnits && units < stateOverDOM*dom {
		return lines
	}
	if st.title != "" && e.titleSel == nil {
		art.Title = st.title
	}
	if meta.published == "" {
		meta.published = st.time
	}
	if meta.author == "" {
		meta.author = st.author
	}
	art.Method = MethodState
	*res = bodyResult{lines: st.lines, method: MethodState, pageUnits: res.pageUnits, pageLinkUnits: res.pageLinkUnits, contentUnits: units}
	return e.cleanLines(st.lines, art)
}

// Description briefs.
const (
	// minDescriptionTitleShare: a description read as the article shares
	// at least this share of the headline's character bigrams (a site's
	// generic description shares none).
	minDescriptionTitleShare = 0.2
)

// descriptionOverDOM reports a description with stateOverDOM times the
// prose of the DOM's body that the body does not contain: the DOM's text
// is a caption or furniture beside a brief drawn by script.
func descriptionOverDOM(meta pageMeta, lines []string) bool {
	d := meta.description
	if d == "" || !meta.articleEvidence {
		return false
	}
	du := proseUnits([]string{d})
	if du < minProseUnits || du < stateOverDOM*proseUnits(lines) {
		return false
	}
	return !strings.Contains(strings.Join(lines, ""), d)
}

// fromDescription returns the description <meta> as the article's lines
// when the page failed the no-article verdict but is an article page
// (og:type article, a publish-time <meta>, or Options.ExpectArticle) whose
// description is prose (a sentence, or a clause cut off with …) about its
// headline: a brief whose body the page's
// script draws. nil when it is not.
func (e *Extractor) fromDescription(pageURL string, meta pageMeta, art *Article, res bodyResult) []string {
	d := meta.description
	if !(meta.articleEvidence || e.opts.ExpectArticle) || !strings.ContainsAny(d, "。！？，….!?,") {
		return nil
	}
	lines := []string{d}
	units := proseUnits(lines)
	if units < minProseUnits || compareTexts(art.Title, d).inA < minDescriptionTitleShare {
		return nil
	}
	if e.furnitureReason(siteOf(pageURL), lines) != "" {
		return nil // the site's description, repeated on its pages
	}
	dres := bodyResult{lines: lines, method: MethodDescription, pageUnits: res.pageUnits, pageLinkUnits: res.pageLinkUnits, contentUnits: units}
	text := art.Text
	art.Text = d
	if verdict(pageURL, meta, art, lines, dres, e.opts.ExpectArticle) != nil {
		art.Text = text
		return nil
	}
	art.Method, art.SecondOpinion = MethodDescription, ""
	return lines
}
