package crawler

import (
	"bytes"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"

	"github.com/newsdedup/newscrawl/urlnorm"
)

// extractLinks returns the href of every <a> and <area> element of an HTML
// document and the href of its first <base> element. It runs the
// golang.org/x/net/html tokenizer over the raw bytes: URLs in news pages are
// ASCII (or percent-encoded), so the page's charset does not matter here,
// and script/style contents are skipped by the tokenizer.
func extractLinks(body []byte) (hrefs []string, base string) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return hrefs, base
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !hasAttr {
				continue
			}
			isBase := string(name) == "base"
			if !isBase && string(name) != "a" && string(name) != "area" {
				continue
			}
			for {
				key, val, more := z.TagAttr()
				if string(key) == "href" {
					if isBase {
						if base == "" {
							base = string(val)
						}
					} else if len(val) > 0 {
						hrefs = append(hrefs, string(val))
					}
					break
				}
				if !more {
					break
				}
			}
		}
	}
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
