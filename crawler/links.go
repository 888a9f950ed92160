package crawler

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// pageLinks is what a page offers to follow.
type pageLinks struct {
	hrefs   []string // href of <a> and <area>, in document order, at most the limit
	base    string   // href of the first <base>
	refresh string   // URL of the first <meta http-equiv="refresh"> that names one
	excess  int      // hrefs beyond the limit, counted, not kept
}

// extractLinks returns the links of an HTML document: the href of its <a>
// and <area> elements (at most limit, the rest only counted), of its first
// <base> element, and the URL of its first meta refresh. It runs the
// golang.org/x/net/html tokenizer over the raw bytes: URLs in news pages are
// ASCII (or percent-encoded), so the page's charset does not matter here
// (except UTF-16, transcoded first: htmlBytes), and script/style contents
// are skipped by the tokenizer.
func extractLinks(body []byte, limit int) pageLinks {
	var pl pageLinks
	z := html.NewTokenizer(bytes.NewReader(htmlBytes(body)))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return pl
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !hasAttr {
				continue
			}
			switch string(name) {
			case "a", "area":
				if v, ok := tagAttr(z, "href"); ok && len(v) > 0 {
					if len(pl.hrefs) < limit {
						pl.hrefs = append(pl.hrefs, string(v))
					} else {
						pl.excess++
					}
				}
			case "base":
				if v, ok := tagAttr(z, "href"); ok && pl.base == "" {
					pl.base = string(v)
				}
			case "meta":
				if pl.refresh == "" {
					pl.refresh = metaRefresh(z)
				}
			}
		}
	}
}

// tagAttr returns the value of the first attribute key of the current tag
// (z.TagAttr consumes the attributes: call it once per tag).
func tagAttr(z *html.Tokenizer, key string) ([]byte, bool) {
	for {
		k, v, more := z.TagAttr()
		if string(k) == key {
			return v, true
		}
		if !more {
			return nil, false
		}
	}
}

// metaRefresh returns the URL of a <meta http-equiv="refresh"
// content="N; url=..."> tag, or "" (no URL: a reload of the page itself).
func metaRefresh(z *html.Tokenizer) string {
	var equiv, content string
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "http-equiv":
			equiv = string(v)
		case "content":
			content = string(v)
		}
		if !more {
			break
		}
	}
	if !strings.EqualFold(strings.TrimSpace(equiv), "refresh") {
		return ""
	}
	return refreshURL(content)
}

// refreshURL parses the content of a meta refresh as the HTML standard's
// "shared declarative refresh steps" do: a delay (digits and dots), then
// optionally ";" or "," and whitespace, an optional "url=", and the URL,
// optionally quoted.
func refreshURL(content string) string {
	s := strings.TrimLeft(content, " \t\n\f\r")
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return ""
	}
	s = strings.TrimLeft(s[i:], " \t\n\f\r")
	s = strings.TrimLeft(s, ";,")
	s = strings.TrimLeft(s, " \t\n\f\r")
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		rest := strings.TrimLeft(s[3:], " \t\n\f\r")
		if strings.HasPrefix(rest, "=") {
			s = strings.TrimLeft(rest[1:], " \t\n\f\r")
		}
	}
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	return strings.TrimSpace(s)
}

// Trap guards. The idea follows Heritrix's PathologicalPathDecideRule
// (identical path segments repeated, "/a/a/a/") and
// TooManyPathSegmentsDecideRule; the limits are ours.
const (
	// maxSegmentRepeats: a path in which one segment occurs this often is a trap.
	maxSegmentRepeats = 3
	// maxPathSegments: deeper paths are traps (portal article paths have 2-6).
	maxPathSegments = 12
)

// isPathTrap reports paths with too many segments or a segment repeated
// maxSegmentRepeats times (relative-link loops such as /a/b/a/b/a/b/).
func isPathTrap(p string) bool {
	p = strings.Trim(p, "/")
	if p == "" {
		return false
	}
	segs := strings.Split(p, "/")
	if len(segs) > maxPathSegments {
		return true
	}
	counts := make(map[string]int, len(segs))
	for _, s := range segs {
		if s == "" {
			continue
		}
		counts[s]++
		if counts[s] >= maxSegmentRepeats {
			return true
		}
	}
	return false
}

// ignoredExtensions are file types that are never HTML pages; links to them
// are not followed. The list is a subset of Scrapy's
// scrapy.linkextractors.IGNORED_EXTENSIONS.
var ignoredExtensions = map[string]bool{
	// images
	"jpg": true, "jpeg": true, "png": true, "gif": true, "bmp": true, "webp": true, "svg": true,
	"ico": true, "tif": true, "tiff": true, "psd": true,
	// audio and video
	"mp3": true, "wav": true, "wma": true, "ogg": true, "m4a": true, "aac": true, "flac": true,
	"mp4": true, "avi": true, "mov": true, "wmv": true, "flv": true, "mkv": true, "webm": true,
	"m4v": true, "3gp": true, "rm": true, "rmvb": true, "swf": true,
	// documents and archives
	"pdf": true, "doc": true, "docx": true, "xls": true, "xlsx": true, "ppt": true, "pptx": true,
	"zip": true, "rar": true, "7z": true, "gz": true, "tgz": true, "bz2": true, "tar": true,
	"exe": true, "apk": true, "dmg": true, "iso": true, "bin": true,
	// page resources
	"css": true, "js": true,
}

func hasIgnoredExtension(p string) bool {
	ext := strings.TrimPrefix(path.Ext(p), ".")
	return ext != "" && ignoredExtensions[strings.ToLower(ext)]
}

// linkKind is what a discovered in-scope URL is to the crawler.
type linkKind int

const (
	linkIgnore  linkKind = iota // matches neither article_url nor follow_url
	linkArticle                 // matches article_url
	linkFollow                  // list or other page to follow
)

// resolveBase returns the URL links of a page are resolved against: the
// page URL, or its <base href> resolved against the page URL.
func resolveBase(page *url.URL, base string) *url.URL {
	if base == "" {
		return page
	}
	c, err := urlnorm.Canonical(base, page)
	if err != nil {
		return page
	}
	b, err := url.Parse(c)
	if err != nil {
		return page
	}
	return b
}

// discoverCheckEvery: discover looks at ctx every this many links, so that
// a page of many links under a costly robots.txt does not delay shutdown.
const discoverCheckEvery = 256

// discover pushes the in-scope links of a page to the frontier (at most
// fetch.max_links_per_page of them are read). It gives up with ctx's error
// when ctx ends; store writes use bg.
func (r *run) discover(ctx, bg context.Context, st *siteState, page *url.URL, depth int, pl pageLinks) (found, error) {
	if pl.excess > 0 {
		st.stats.skipLinkCap.Add(int64(pl.excess))
		r.warn(st, fmt.Sprintf("pages with more than fetch.max_links_per_page (%d) links: the rest were ignored (skipped_link_cap)", r.maxLinks))
	}
	hrefs, baseHref := pl.hrefs, pl.base
	if len(hrefs) == 0 {
		return found{}, nil
	}
	base := resolveBase(page, baseHref)
	local := make(map[string]struct{}, len(hrefs))
	var items []storage.FrontierItem
	var f found
	for i, h := range hrefs {
		if i%discoverCheckEvery == 0 && ctx.Err() != nil {
			return f, ctx.Err()
		}
		cu, err := urlnorm.Canonical(h, base)
		if err != nil {
			continue
		}
		if _, dup := local[cu]; dup {
			continue
		}
		local[cu] = struct{}{}
		lu, err := url.Parse(cu)
		if err != nil || !st.inScope(lu) {
			continue
		}
		kind := st.classify(cu)
		switch {
		case kind == linkIgnore:
			continue
		case len(cu) > r.maxURLLength:
			st.stats.skipLength.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "url_length", "from", page.String())
			continue
		case isPathTrap(lu.Path):
			st.stats.skipTrap.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "trap", "from", page.String())
			continue
		case kind == linkFollow && hasIgnoredExtension(lu.Path):
			st.stats.skipExt.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "file_type", "from", page.String())
			continue
		}
		f.links = append(f.links, cu)
		switch {
		case r.seen.has(cu):
			continue
		case depth+1 > st.cfg.MaxDepth:
			st.stats.skipDepth.Add(1)
			r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "depth", "depth", depth+1, "from", page.String())
			continue
		}
		if rules := r.robots.peek(lu.Scheme + "://" + lu.Host); rules != nil && rules.state == robotsOK && !rules.allowed(lu) {
			if r.seen.add(cu) {
				st.stats.robotsBlocked.Add(1)
				r.log.Info("skipped link", "site", st.name, "url", cu, "reason", "robots", "from", page.String())
			}
			f.links = f.links[:len(f.links)-1] // not kept for the next run either
			continue
		}
		if !r.seen.add(cu) {
			continue
		}
		if kind == linkArticle {
			st.stats.articleLinks.Add(1)
		}
		items = append(items, storage.FrontierItem{URL: cu, Site: st.name, Depth: depth + 1, Referer: page.String()})
	}
	err := r.push(bg, st, page, items, &f)
	return f, err
}
