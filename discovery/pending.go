package discovery

import (
	"errors"
	"net/url"
)

// Sitemap is a parsed sitemap (urlset) or sitemap index.
type Sitemap struct {
	Index     bool   // a sitemapindex: Sitemaps holds its sitemaps
	Sitemaps  []Link // the sitemaps of an index
	URLs      []Link // the pages of a urlset
	Truncated bool   // more than MaxURLs: first MaxURLs kept
}

var errPending = errors.New("discovery: not implemented in this commit")

// ParseSitemap reads a sitemap (urlset) or sitemap index.
func ParseSitemap(body []byte, base *url.URL, lim Limits) (Sitemap, error) {
	return Sitemap{}, errPending
}

// ParseFeed reads RSS 0.9-2.0, Atom or JSON Feed in any charset.
func ParseFeed(body []byte, contentType string, base *url.URL, lim Limits) ([]Link, error) {
	return nil, errPending
}

// ScriptLinks finds absolute URLs inside inline <script> elements.
func ScriptLinks(html []byte, base *url.URL, lim Limits) []string {
	return nil
}
