// Package urlnorm canonicalises URLs so that one page has one key in the
// crawl frontier and in the store.
//
// The method is RFC 3986 section 6.2.2 syntax-based normalisation (case,
// percent-encoding and dot-segment normalisation) plus the scheme-based
// step of section 6.2.3 (default ports, empty path), followed by the usual
// crawler-specific steps: the fragment is dropped, well-known tracking
// parameters are removed (see trackingParams) and the remaining query
// parameters are sorted, so that links differing only in utm_* tags or in
// parameter order name one page. Only http and https URLs are accepted.
//
// Canonical is idempotent: Canonical(Canonical(x)) == Canonical(x) for every
// x it accepts (checked by FuzzCanonical).
package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Errors returned by Canonical; test with errors.Is.
var (
	// ErrScheme: the URL is not http or https (mailto:, javascript:, ftp:, ...).
	ErrScheme = errors.New("not an http(s) url")
	// ErrHost: the host is empty or not a valid host name or IP literal.
	ErrHost = errors.New("invalid host")
	// ErrSyntax: the URL cannot be parsed.
	ErrSyntax = errors.New("invalid url")
)

// trackingPrefixes are query-parameter name prefixes that only carry
// campaign attribution (Google Analytics UTM tags; "share*" tags that
// Chinese portals and apps add to shared links: share_from, share_token,
// sharer_shareid ...). Names are compared in lower case.
var trackingPrefixes = []string{"utm_", "share"}

// trackingParams are exact parameter names (lower case) that only carry
// attribution, click ids or session ids, never article identity:
//
//   - spm, scm: Alibaba/UC and Sohu "super position model" click tracking;
//   - from: entry-point tags (from=wap, from=timeline, from=singlemessage);
//   - adtag: Tencent (qq.com) ad tracking;
//   - wfr: Baidu (baijiahao) "from spider/feed" tag;
//   - tt_from: Toutiao share tag;
//   - isappinstalled: WeChat share tag;
//   - vd_source: Bilibili share tag;
//   - fbclid, gclid, dclid, msclkid, yclid, igshid: ad-network click ids;
//   - mc_cid, mc_eid: Mailchimp; _hsenc, _hsmi: HubSpot;
//   - jsessionid, phpsessid, aspsessionid, sessionid, session_id, cfid,
//     cftoken: session ids (Java servlets, PHP, ASP, ColdFusion) that a
//     site without cookies writes into every link; a fresh one per
//     response made every link of every page a new URL, so one article
//     was fetched again through each page that linked to it (a crawler
//     trap). Java's path form ";jsessionid=..." is removed from the path.
//
// Parameters that can identify an article (id, aid, docid, p, page, ...)
// are deliberately not listed, nor is the ambiguous "sid" (a section id on
// some portals).
var trackingParams = map[string]bool{
	"spm": true, "scm": true, "from": true, "adtag": true, "wfr": true,
	"tt_from": true, "isappinstalled": true, "vd_source": true,
	"fbclid": true, "gclid": true, "dclid": true, "msclkid": true, "yclid": true, "igshid": true,
	"mc_cid": true, "mc_eid": true, "_hsenc": true, "_hsmi": true,
	"jsessionid": true, "phpsessid": true, "aspsessionid": true, "sessionid": true, "session_id": true,
	"cfid": true, "cftoken": true,
}

// sessionPathParam is the path parameter of Java servlets' URL rewriting
// ("/a.html;jsessionid=0A1B?x=1"), compared in lower case.
const sessionPathParam = ";jsessionid="

// indexFoldASCII is strings.Index of the lower-case ASCII sub in s,
// ignoring the case of s's ASCII letters (byte offsets of s).
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// dropSessionPathParams removes every ";jsessionid=..." from an escaped
// path, each up to the end of its segment.
func dropSessionPathParams(p string) string {
	for {
		i := indexFoldASCII(p, sessionPathParam)
		if i < 0 {
			return p
		}
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			p = p[:i]
		} else {
			p = p[:i] + p[i+1+j:]
		}
	}
}

// IsTrackingParam reports whether a query parameter name (already
// percent-decoded) is dropped by Canonical.
func IsTrackingParam(name string) bool {
	n := strings.ToLower(name)
	if trackingParams[n] {
		return true
	}
	for _, p := range trackingPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// Canonical returns the canonical absolute form of raw, resolved against
// base when raw is relative (base may be nil for absolute input).
//
// Steps: leading/trailing spaces and embedded tab/CR/LF are removed (as
// browsers do); backslashes before the query become slashes; the reference
// is resolved; the scheme must be http or https; the host is lower-cased,
// converted to IDNA ASCII form and loses a trailing dot; default ports and
// user info are dropped; percent-encodings of unreserved characters are
// decoded, the others upper-cased, and characters that must be encoded are
// encoded; ";jsessionid=" path parameters and dot segments are removed;
// an empty path becomes "/"; tracking and session parameters are removed and the remaining parameters are sorted; the
// fragment is dropped.
func Canonical(raw string, base *url.URL) (string, error) {
	s := preclean(raw)
	if s == "" {
		if base == nil {
			return "", fmt.Errorf("%w: empty", ErrSyntax)
		}
		// An empty reference is the base document itself.
		s = base.String()
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	if base != nil && !u.IsAbs() {
		u = base.ResolveReference(u)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%w: %q", ErrScheme, u.Scheme)
	}
	if u.Opaque != "" {
		return "", fmt.Errorf("%w: opaque url %q", ErrSyntax, raw)
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return "", err
	}
	port := u.Port() // "host:" yields "": the default port
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("%w: port %q", ErrHost, port)
		}
		port = strconv.Itoa(n) // drops leading zeros
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		}
	}

	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	p := removeDotSegments(dropSessionPathParams(normEscapes(u.EscapedPath(), pathOK)))
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	b.WriteString(p)
	if q := canonicalQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// preclean trims C0 controls and spaces at both ends, deletes tab, CR and LF
// anywhere, percent-encodes the remaining control bytes, escapes '%' signs
// that do not start a valid escape (so that url.Parse accepts them) and turns
// backslashes into slashes before the query, as WHATWG URL parsers do for
// http(s).
func preclean(raw string) string {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	var b strings.Builder
	b.Grow(len(s))
	inQuery := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '?' || c == '#':
			inQuery = true
			b.WriteByte(c)
		case c == '\\' && !inQuery:
			b.WriteByte('/')
		case c == '%':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				b.WriteByte(c)
			} else {
				b.WriteString("%25")
			}
		case c < ' ' || c == 0x7f:
			writeEscape(&b, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// canonicalHost lower-cases a host name and converts it to its ASCII (IDNA)
// form, or normalises an IP literal. It rejects empty and malformed hosts.
func canonicalHost(raw string) (string, error) {
	h := strings.TrimSuffix(raw, ".")
	if h == "" {
		return "", fmt.Errorf("%w: empty host", ErrHost)
	}
	if strings.Contains(h, ":") { // IPv6 literal (brackets already stripped)
		ip := net.ParseIP(h)
		if ip == nil || strings.Contains(h, "%") {
			return "", fmt.Errorf("%w: %q", ErrHost, h)
		}
		if v4 := ip.To4(); v4 != nil { // IPv4-mapped: write the plain IPv4 form
			return v4.String(), nil
		}
		return "[" + ip.String() + "]", nil
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("%w: %q: %w", ErrHost, h, err)
		}
		h = a
	}
	if h == "" { // IDNA mapping deletes ignorable code points such as U+00AD
		return "", fmt.Errorf("%w: empty host after IDNA mapping of %q", ErrHost, raw)
	}
	h = strings.ToLower(h)
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("%w: %q", ErrHost, h)
		}
	}
	if strings.HasPrefix(h, ".") || strings.Contains(h, "..") || strings.HasSuffix(h, ".") {
		return "", fmt.Errorf("%w: %q", ErrHost, h)
	}
	return h, nil
}

// Character classes of RFC 3986.
func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool {
	switch c {
	case '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=':
		return true
	}
	return false
}

// pathOK: pchar plus '/' (RFC 3986 section 3.3).
func pathOK(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/' }

// queryOK: pchar plus '/' and '?' (RFC 3986 section 3.4).
func queryOK(c byte) bool { return pathOK(c) || c == '?' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

const upperHex = "0123456789ABCDEF"

func writeEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(upperHex[c>>4])
	b.WriteByte(upperHex[c&15])
}

// normEscapes normalises percent-encoding: escapes of unreserved characters
// are decoded, other escapes get upper-case hex digits, a '%' that starts no
// valid escape becomes "%25", and bytes not allowed by ok are encoded.
func normEscapes(s string, ok func(byte) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				v := unhex(s[i+1])<<4 | unhex(s[i+2])
				if isUnreserved(v) {
					b.WriteByte(v)
				} else {
					writeEscape(&b, v)
				}
				i += 2
				continue
			}
			b.WriteString("%25")
			continue
		}
		if ok(c) {
			b.WriteByte(c)
		} else {
			writeEscape(&b, c)
		}
	}
	return b.String()
}

// removeDotSegments implements RFC 3986 section 5.2.4 on an escaped path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			// Never pop the leading empty segment of an absolute path.
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// canonicalQuery normalises percent-encoding, drops empty and tracking
// parameters and sorts the rest (byte order of the normalised "name=value"
// strings, which is deterministic and idempotent).
func canonicalQuery(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(normEscapes(q, queryOK), "&")
	kept := parts[:0]
	for _, p := range parts {
		if p == "" {
			continue
		}
		name, _, _ := strings.Cut(p, "=")
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
		if IsTrackingParam(name) {
			continue
		}
		kept = append(kept, p)
	}
	sort.Strings(kept)
	return strings.Join(kept, "&")
}
