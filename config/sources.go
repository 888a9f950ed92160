package config

import (
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"strings"
)

// templateField matches a placeholder of url_template ("{id}",
// "{data.id}").
var templateField = regexp.MustCompile(`\{[^{}]+\}`)

// RequestMethod is the api's HTTP method, upper-cased (GET when unset).
func (a API) RequestMethod() string {
	if a.Method == "" {
		return DefaultAPIMethod
	}
	return strings.ToUpper(a.Method)
}

// RequestContentType is the Content-Type of the api's body:
// content_type, or DefaultContentType when a body is given without one.
func (a API) RequestContentType() string {
	if a.ContentType == "" && a.Body != "" {
		return DefaultContentType
	}
	return a.ContentType
}

// PageCount is pages, at least 1 (an API made in code may leave it 0).
func (a API) PageCount() int { return max(a.Pages, 1) }

// validateSources checks sitemaps, feeds and apis of the site at path at.
func (s *Site) validateSources(at string, add addFunc) {
	for _, l := range []struct {
		key  string
		urls []string
	}{{"sitemaps", s.Sitemaps}, {"feeds", s.Feeds}} {
		for j, u := range l.urls {
			if !absHTTP(u) {
				add(fmt.Sprintf("%s.%s[%d]", at, l.key, j), "must be an absolute http(s) URL, got %q", u)
			}
		}
	}
	for j := range s.APIs {
		s.APIs[j].validate(fmt.Sprintf("%s.apis[%d]", at, j), add)
	}
}

// validate checks one api entry at path at.
func (a *API) validate(at string, add addFunc) {
	switch {
	case a.URL == "":
		add(at+".url", "the endpoint is required (an absolute http(s) URL)")
	case !absHTTP(strings.ReplaceAll(a.URL, PagePlaceholder, "1")):
		add(at+".url", "the endpoint must be an absolute http(s) URL, got %q", a.URL)
	}
	if a.Pages < 1 || a.Pages > MaxAPIPages {
		add(at+".pages", "must be in [1, %d], got %d", MaxAPIPages, a.Pages)
	}
	m := a.RequestMethod()
	if m != "GET" && m != "POST" {
		add(at+".method", "must be GET or POST, got %q", a.Method)
	}
	if a.Body != "" && m == "GET" {
		add(at+".body", "a body needs method: POST")
	}
	if a.ContentType != "" {
		if a.Body == "" {
			add(at+".content_type", "is the type of a body, and there is none")
		} else if _, _, err := mime.ParseMediaType(a.ContentType); err != nil {
			add(at+".content_type", "invalid media type %q: %v", a.ContentType, err)
		}
	}
	if a.Pages > 1 && !strings.Contains(a.URL, PagePlaceholder) && !strings.Contains(a.Body, PagePlaceholder) {
		add(at+".pages", "%d pages need %s in url or body (every page would be the same request)", a.Pages, PagePlaceholder)
	}
	switch {
	case a.ItemURL != "" && a.URLTemplate != "":
		add(at+".url_template", "give either the item's url field or url_template, not both")
	case a.ItemURL == "" && a.URLTemplate == "":
		add(at, "the item's article URL needs url (the item field, e.g. url: docurl) or url_template")
	case a.URLTemplate != "":
		checkTemplate(at+".url_template", a.URLTemplate, add)
	}
	for _, f := range []struct{ path, val string }{{at + ".items", a.Items}, {at + ".url#item", a.ItemURL}, {at + ".time", a.Time}} {
		if f.val != "" && !fieldPath(f.val) {
			add(f.path, "must be a dotted field path such as result.data, got %q", f.val)
		}
	}
}

// checkTemplate checks a url_template: at least one {field}, and a scheme,
// when the text before the first field names one, of http or https. The
// fields may fill any part of the URL ("https://news.qq.com/rain/a/{id}",
// "https://www.sohu.com{url}" with a path field), so the rest is checked
// on the URLs the items give.
func checkTemplate(at, t string, add addFunc) {
	if !templateField.MatchString(t) {
		add(at, "must name at least one item field in braces, e.g. https://news.qq.com/rain/a/{id}, got %q", t)
		return
	}
	prefix := t[:strings.IndexByte(t, '{')]
	if i := strings.IndexByte(prefix, ':'); i >= 0 && !strings.ContainsAny(prefix[:i], "/?#") {
		if scheme := strings.ToLower(prefix[:i]); scheme != "http" && scheme != "https" {
			add(at, "must give an http(s) URL, got %q", t)
		}
	}
}

// fieldPath reports whether s is a dotted path of non-empty names without
// spaces ("result.data", "data.0.url").
func fieldPath(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" || strings.ContainsAny(part, " \t\r\n{}") {
			return false
		}
	}
	return true
}

// absHTTP reports whether u is an absolute http(s) URL with a host.
func absHTTP(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != ""
}
