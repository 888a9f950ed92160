package extract

import (
	"net/url"
	"regexp"
	"strings"
)

// Stubs: mobile pages (sina.cn, app share pages) show the first
// paragraphs of an article and a marker to read the rest in the app or
// after a click (打开新浪新闻 阅读全文, 展开全文, 查看全文, "Read the full
// story in the app"). A marker line just after the body, or ending it,
// marks the article as truncated.
var (
	rxStubApp = regexp.MustCompile(`(?i)(?:打开|下载|前往|去|用|安装)[^。！？]{0,12}(?:app|客户端|新闻)[^。！？]{0,8}(?:阅读|查看|看)(?:全文|完整|原文|更多)|read (?:the )?(?:full|whole|rest of the) (?:story|article)[^.]{0,24}\bapp\b`)
	// rxStubBare: a bare 展开全文 / 阅读全文 is a marker only as the whole
	// line (a button); "阅读全文(736) | 回复(0)" under a blog post is a
	// link with a read count, not a stub's marker.
	rxStubBare = regexp.MustCompile(`^[\s>»….。:：\-—↓▼]*(?:点击)?(?:展开全文|阅读全文|查看全文|剩余\d*%?全文)[\s>»….。:：\-—↓▼]*$`)
)

const (
	// stubMarkerLines: the marker stands within this many page lines
	// after the body's last line.
	stubMarkerLines = 3
	// maxStubMarkerRunes: a marker is a button or a link, not a sentence.
	maxStubMarkerRunes = 30
	// maxBareStubUnits: a bare 展开全文 after a longer body (~300 Chinese
	// characters) is a collapse button over a text the page holds whole
	// (desktop portals fold long articles); only a marker naming an app
	// or client marks such a body truncated.
	maxBareStubUnits = 900
)

// markTruncated sets art.Truncated when a read-the-rest marker follows the
// body, and art.Canonical when the page names another URL as its
// canonical variant.
func (e *Extractor) markTruncated(pageURL string, li lineInfo, meta pageMeta, art *Article) {
	art.Canonical = canonicalURL(pageURL, meta.canonical)
	short := proseUnits(li.body) < maxBareStubUnits
	if len(li.body) > 0 && isStubMarker(li.body[len(li.body)-1], short) {
		art.Truncated = true
		return
	}
	end := bodyEnd(li.page, li.body, li.bodyLine)
	if end < 0 {
		return
	}
	for i := end + 1; i < len(li.page) && i <= end+stubMarkerLines; i++ {
		if isStubMarker(li.page[i], short) {
			art.Truncated = true
			return
		}
	}
}

// isStubMarker reports a read-the-rest marker: one naming an app, or a
// bare one after a short body.
func isStubMarker(l string, shortBody bool) bool {
	return runeLen(l) <= maxStubMarkerRunes && (shortBody && rxStubBare.MatchString(l) || rxStubApp.MatchString(l))
}

// canonicalURL resolves ref against pageURL and returns it when it is an
// http(s) URL other than the page's own (fragments ignored).
func canonicalURL(pageURL, ref string) string {
	if ref == "" {
		return ""
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return ""
	}
	u, err := base.Parse(strings.TrimSpace(ref))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Fragment = ""
	base.Fragment = ""
	if u.String() == base.String() {
		return ""
	}
	return u.String()
}
