package discovery

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ScriptLinks finds absolute URLs inside inline <script> elements and JSON
// state (also JSON-escaped `https:\/\/...` and \u002F forms), resolved and
// deduplicated, at most lim.MaxURLs; the caller filters them with the
// site's article_url. Protocol-relative URLs in quotes ("//www.sohu.com/a/
// ...", as Sohu's mobile state gives them) take the page's scheme. Only
// the first lim.MaxBytes of the page are read.
func ScriptLinks(page []byte, base *url.URL, lim Limits) []string {
	lim = lim.orDefault()
	if int64(len(page)) > lim.MaxBytes {
		page = page[:lim.MaxBytes]
	}
	var out []string
	seen := map[string]bool{}
	z := html.NewTokenizer(bytes.NewReader(page))
	inScript := false
	for len(out) < lim.MaxURLs {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			inScript = atom.Lookup(name) == atom.Script && !hasSrc(z, hasAttr)
		case html.TextToken:
			if inScript {
				out = scriptURLs(unescapeJS(z.Text()), base, lim.MaxURLs, seen, out)
			}
		default:
			inScript = false
		}
	}
	return out
}

// hasSrc reports a src attribute on the current tag: an external script's
// inline text is not run.
func hasSrc(z *html.Tokenizer, more bool) bool {
	for more {
		var k []byte
		k, _, more = z.TagAttr()
		if string(k) == "src" {
			return true
		}
	}
	return false
}

// unescapeJS undoes the escapes JSON and JavaScript strings put in URLs.
func unescapeJS(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	return strings.NewReplacer(
		`\/`, "/",
		`\u002F`, "/", `\u002f`, "/",
		`\u003A`, ":", `\u003a`, ":",
		`\u0026`, "&", `\u003D`, "=", `\u003d`, "=", `\u003F`, "?", `\u003f`, "?",
		`\x2F`, "/", `\x2f`, "/", `\x3A`, ":", `\x3a`, ":",
	).Replace(string(b))
}

// scriptURLs appends the new URLs of s to out, up to max.
func scriptURLs(s string, base *url.URL, max int, seen map[string]bool, out []string) []string {
	for i := 0; len(out) < max; {
		j := strings.Index(s[i:], "//")
		if j < 0 {
			return out
		}
		j += i
		start := urlStart(s, j)
		end := j + 2
		for end < len(s) && urlByte(s[end]) {
			end++
		}
		i = end
		if start < 0 {
			continue
		}
		raw := trimURLTail(s[start:end])
		if !hostLike(raw[strings.Index(raw, "//")+2:]) {
			continue
		}
		abs, ok := resolve(raw, base)
		if !ok || seen[abs] {
			continue
		}
		seen[abs] = true
		out = append(out, abs)
	}
	return out
}

// urlStart returns where the URL whose "//" is at j starts: at its
// http: or https: scheme, or at the // itself after a quote
// (protocol-relative); -1 when it is neither (a comment, a regexp).
func urlStart(s string, j int) int {
	for _, scheme := range []string{"https:", "http:"} {
		if j >= len(scheme) && strings.EqualFold(s[j-len(scheme):j], scheme) {
			return j - len(scheme)
		}
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		return j
	}
	return -1
}

// urlByte reports bytes that may continue a URL in script text.
func urlByte(c byte) bool {
	return c > ' ' && c != 0x7f && !strings.ContainsRune("\"'<>\\`{}|^", rune(c))
}

// trimURLTail drops punctuation that ends a sentence or a statement
// rather than the URL, and a closing bracket without its opening one.
func trimURLTail(u string) string {
	for len(u) > 0 {
		c := u[len(u)-1]
		switch {
		case strings.IndexByte(".,;:!?", c) >= 0:
		case c == ')' && strings.Count(u, "(") < strings.Count(u, ")"):
		case c == ']' && strings.Count(u, "[") < strings.Count(u, "]"):
		default:
			return u
		}
		u = u[:len(u)-1]
	}
	return u
}

// hostLike reports whether rest starts with a host name of at least two
// labels, so "//" in comments and paths is not taken for a URL.
func hostLike(rest string) bool {
	host := rest
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	if host == "" || !strings.Contains(host, ".") || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c == '.' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	return true
}
