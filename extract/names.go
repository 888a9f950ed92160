package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// namePattern matches class/id strings without regular expressions (they
// are tested on every element, where regexp backtracking was the largest
// cost of extraction): subs are lower-case substrings, tokens are whole
// words of letters (also joined pairwise with "-", e.g. "author-info").
type namePattern struct {
	subs   []string
	tokens map[string]bool
}

func newPattern(subs []string, tokens ...string) namePattern {
	p := namePattern{subs: subs, tokens: map[string]bool{}}
	for _, t := range tokens {
		p.tokens[t] = true
	}
	return p
}

// match reports whether the lower-cased name s matches.
func (p namePattern) match(s string) bool {
	for _, sub := range p.subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	if len(p.tokens) == 0 {
		return false
	}
	prev := ""
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' }) {
		if p.tokens[tok] || prev != "" && p.tokens[prev+"-"+tok] {
			return true
		}
		prev = tok
	}
	return false
}

// lowerNames returns "class id" of n in lower case, or "" when both are
// empty.
func lowerNames(n *html.Node) string {
	c, id := attr(n, "class"), attr(n, "id")
	if c == "" && id == "" {
		return ""
	}
	return strings.ToLower(c + " " + id)
}

var (
	// Readability's positive/negative class patterns (REGEXPS.positive,
	// REGEXPS.negative) plus the names Chinese portals use for bodies
	// (endText, artibody, zw = 正文) and boilerplate (xgyd = 相关阅读,
	// tuijian = 推荐, pinglun = 评论).
	positiveNames = newPattern([]string{"article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "text", "blog", "story", "endtext", "artibody", "zhengwen", "neirong", "detail"}, "zw")
	negativeNames = newPattern([]string{"-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "footer", "gdpr", "masthead", "media", "meta", "outbrain", "promo", "related", "relate", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor", "shopping", "tags", "widget", "xgyd", "xgxw", "tuijian", "recommend", "pinglun", "hotnews", "rank", "copyright", "breadcrumb", "crumb", "nav", "menu", "login", "weibo", "qrcode", "erweima", "advert", "guanggao"}, "hid")
	// Readability's unlikelyCandidates / okMaybeItsACandidate, plus the
	// comment and recommendation boxes of Chinese portals (tie = 跟贴 at
	// NetEase).
	unlikelyNames   = newPattern([]string{"-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap", "disqus", "extra", "footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss", "shoutbox", "sidebar", "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate", "pagination", "pager", "popup", "yom-remote", "gentie", "pinglun", "xgyd", "xgxw", "tuijian", "recommend"}, "tie")
	maybeNames      = newPattern([]string{"and", "article", "body", "column", "content", "main", "mathjax", "shadow"})
	commentBoxNames = newPattern([]string{"comment", "replies", "remark", "disqus", "gentie", "pinglun"}, "tie")
	// embedNames mark a post embedded in the article (a tweet, an
	// Instagram post: "social-media-embed", "embed-twitter"): quoted
	// content, even when the wrapper's other names say social or media.
	embedNames = newPattern(nil, "embed", "embedded")
	// boilerplateNames are blocks that are never article text even inside
	// the article container (matched as whole words).
	boilerplateNames = newPattern(nil, "share", "sharing", "social", "comment", "comments", "related", "relate", "recommend", "tuijian", "xgyd", "xgxw", "toolbar", "tool", "tools", "print", "author-info", "copyright", "statement", "disclaimer", "ad", "ads", "advert", "adv", "gg", "guanggao", "banner", "qrcode", "erweima", "tag", "tags", "keywords", "pager", "pagination", "breadcrumb", "nav", "menu", "footer", "header", "byline", "dateline", "meta", "info", "caption", "pic-info", "picinfo", "pictext", "img-desc", "imgdesc", "editor-info", "subscribe", "subscription", "newsletter", "promo", "cta", "donate", "donation", "follow", "like", "hot", "rank", "more",
		// MediaWiki's maintenance and navigation boxes (本条目需要补充更多来源 …).
		"metadata", "ambox", "mbox", "navbox", "noprint", "hatnote")
)
