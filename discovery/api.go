package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Link is one article link a list surface gives.
type Link struct {
	URL   string    // absolute (resolved against the document URL), not yet canonicalised
	Time  time.Time // publication time the source gives; zero when none
	Title string
}

// API describes a JSON/JSONP list endpoint's answer (config keys
// items/url/url_template/time). Relative item URLs resolve against the
// base the caller passes, normally the API's own URL; when the API is on
// another host than the articles (Sohu's blockdata answers from
// odin.sohu.com with paths of www.sohu.com), build the URL with
// URLTemplate instead ("https://www.sohu.com/a/{id}_{authorId}").
type API struct {
	Items       string         // dotted path to the item array; "" = the root ("result.data", "data", "data.list"; numeric segments index arrays)
	URL         string         // item field holding the article URL (dotted path allowed); relative URLs resolved against base
	URLTemplate string         // instead of URL: "https://news.qq.com/rain/a/{id}" built from item fields ({a.b} paths allowed)
	Time        string         // optional item field: unix seconds or ms (number or numeric string) or a date string
	Location    *time.Location // zone for date strings without one (nil: Asia/Shanghai)
	Title       string         // optional item field holding the title ("" = "title")
}

// APIResult is what one API answer gave, with the items that gave no link
// counted rather than dropped silently.
type APIResult struct {
	Links      []Link
	Items      int    // elements of the item array
	Skipped    int    // items that gave no usable URL (field missing, empty, not http(s), not an object)
	Duplicates int    // items whose URL an earlier item already gave
	Truncated  bool   // more than MaxURLs links: the first MaxURLs kept
	FirstSkip  string // why the first skipped item was skipped, for logs
}

// defaultTitleField is the item field read as the title when API.Title is
// empty; every portal list seen names it so.
const defaultTitleField = "title"

// Validate reports a description that cannot work: exactly one of URL and
// URLTemplate is needed, and a template's braces must pair.
func (a API) Validate() error {
	var errs []error
	switch {
	case a.URL == "" && a.URLTemplate == "":
		errs = append(errs, errors.New("api: one of url and url_template is needed"))
	case a.URL != "" && a.URLTemplate != "":
		errs = append(errs, errors.New("api: url and url_template are exclusive"))
	}
	if a.URLTemplate != "" {
		if _, err := templateFields(a.URLTemplate); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range [][2]string{{"items", a.Items}, {"url", a.URL}, {"time", a.Time}, {"title", a.Title}} {
		if f[1] != "" && slices.Contains(strings.Split(f[1], "."), "") {
			errs = append(errs, fmt.Errorf("api: %s path %q has an empty segment", f[0], f[1]))
		}
	}
	return errors.Join(errs...)
}

// ParseResult unwraps body (see Unwrap), refuses it when it is not JSON
// (ErrNotJSON, quoting its start), larger than lim.MaxBytes (ErrTooLarge)
// or nested deeper than lim.MaxDepth (ErrTooDeep, measured before
// decoding), finds the item array at a.Items (ErrPath naming the path when
// it is missing) and makes one link per item. Items without the URL field
// are skipped and counted; duplicate URLs are counted once.
func (a API) ParseResult(body []byte, base *url.URL, lim Limits) (APIResult, error) {
	lim = lim.orDefault()
	if err := a.Validate(); err != nil {
		return APIResult{}, err
	}
	if int64(len(body)) > lim.MaxBytes {
		return APIResult{}, fmt.Errorf("%w: api answer of %d bytes, limit %d", ErrTooLarge, len(body), lim.MaxBytes)
	}
	root, err := decodeJSON(body, lim)
	if err != nil {
		return APIResult{}, err
	}
	items, err := itemArray(root, a.Items)
	if err != nil {
		return APIResult{}, err
	}
	return a.links(items, base, lim), nil
}

// decodeJSON unwraps and decodes an answer, numbers kept as json.Number so
// millisecond times and long ids keep every digit.
func decodeJSON(body []byte, lim Limits) (any, error) {
	b := Unwrap(body)
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return nil, fmt.Errorf("%w: answer starts %q", ErrNotJSON, excerpt(trimBOMSpace(body)))
	}
	if err := checkDepth(b, lim.MaxDepth); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("%w: %v; answer starts %q", ErrNotJSON, err, excerpt(trimBOMSpace(body)))
	}
	return root, nil
}

func depthError(max, offset int) error {
	return fmt.Errorf("%w: deeper than %d levels at byte %d", ErrTooDeep, max, offset)
}

// itemArray finds the array at path.
func itemArray(root any, path string) ([]any, error) {
	v, err := lookup(root, path)
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: items %q is %s, not an array", ErrPath, path, describe(v))
	}
	return arr, nil
}

// lookup follows a dotted path: object keys, or array indexes for numeric
// segments. "" is the value itself. The error names the path and what was
// there instead.
func lookup(v any, path string) (any, error) {
	if path == "" {
		return v, nil
	}
	done := ""
	for seg := range strings.SplitSeq(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[seg]
			if !ok {
				return nil, fmt.Errorf("%w: %q: no key %q in %s", ErrPath, path, seg, describeAt(done, t))
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, fmt.Errorf("%w: %q: no index %q in %s", ErrPath, path, seg, describeAt(done, t))
			}
			v = t[i]
		default:
			return nil, fmt.Errorf("%w: %q: %s has no field %q", ErrPath, path, describeAt(done, v), seg)
		}
		done = joinPath(done, seg)
	}
	return v, nil
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// maxKeysShown bounds the keys an error message lists.
const maxKeysShown = 8

func describeAt(path string, v any) string {
	where := "the root"
	if path != "" {
		where = strconv.Quote(path)
	}
	return where + " (" + describe(v) + ")"
}

// describe names a decoded JSON value's kind, with an object's keys.
func describe(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		more := ""
		if len(keys) > maxKeysShown {
			keys, more = keys[:maxKeysShown], ", …"
		}
		return "an object with keys " + strings.Join(keys, ", ") + more
	case []any:
		return fmt.Sprintf("an array of %d", len(t))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// scalar returns a string or number field as text.
func scalar(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	}
	return "", false
}

// links makes the links of the items, counting those that give none.
func (a API) links(items []any, base *url.URL, lim Limits) APIResult {
	r := APIResult{Items: len(items)}
	seen := make(map[string]bool, len(items))
	titleField := a.Title
	if titleField == "" {
		titleField = defaultTitleField
	}
	for i, it := range items {
		link, why := a.link(it, base, titleField)
		if why != "" {
			r.Skipped++
			if r.FirstSkip == "" {
				r.FirstSkip = fmt.Sprintf("item %d: %s", i, why)
			}
			continue
		}
		if seen[link.URL] {
			r.Duplicates++
			continue
		}
		if len(r.Links) >= lim.MaxURLs {
			r.Truncated = true
			break
		}
		seen[link.URL] = true
		r.Links = append(r.Links, link)
	}
	return r
}

// link makes one item's link, or says why it cannot.
func (a API) link(item any, base *url.URL, titleField string) (Link, string) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Link{}, "is " + describe(item) + ", not an object"
	}
	var raw string
	if a.URLTemplate != "" {
		s, err := expandTemplate(a.URLTemplate, obj)
		if err != nil {
			return Link{}, err.Error()
		}
		raw = s
	} else {
		v, err := lookup(obj, a.URL)
		if err != nil {
			return Link{}, fmt.Sprintf("no url field %q", a.URL)
		}
		s, ok := scalar(v)
		if !ok {
			return Link{}, fmt.Sprintf("url field %q is %s", a.URL, describe(v))
		}
		raw = s
	}
	abs, ok := resolve(raw, base)
	if !ok {
		return Link{}, fmt.Sprintf("url %q is not an http(s) link", excerpt([]byte(raw)))
	}
	l := Link{URL: abs}
	if v, err := lookup(obj, titleField); err == nil {
		l.Title, _ = scalar(v)
		l.Title = strings.TrimSpace(l.Title)
	}
	if a.Time != "" {
		if v, err := lookup(obj, a.Time); err == nil {
			if s, ok := scalar(v); ok {
				l.Time, _ = ParseTime(s, a.Location)
			}
		}
	}
	return l, ""
}

// templateFields lists the {field} paths of a URL template.
func templateFields(tmpl string) ([]string, error) {
	var fields []string
	rest := tmpl
	for {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			return fields, nil
		}
		if rest[i] == '}' {
			return nil, fmt.Errorf("api: url_template %q has a } without {", tmpl)
		}
		j := strings.IndexAny(rest[i+1:], "{}")
		if j < 0 || rest[i+1+j] == '{' {
			return nil, fmt.Errorf("api: url_template %q has an unclosed {", tmpl)
		}
		name := rest[i+1 : i+1+j]
		if name == "" || slices.Contains(strings.Split(name, "."), "") {
			return nil, fmt.Errorf("api: url_template %q has an empty field {%s}", tmpl, name)
		}
		fields = append(fields, name)
		rest = rest[i+2+j:]
	}
}

// expandTemplate fills each {path} with the item's field as it is, with
// only the bytes a URL cannot hold escaped: a field may be an id
// ("https://news.qq.com/rain/a/{id}") or a whole path with its query
// ("https://www.sohu.com{url}" for Sohu's "/a/<id>_<author>?scm=...").
func expandTemplate(tmpl string, obj map[string]any) (string, error) {
	fields, err := templateFields(tmpl)
	if err != nil {
		return "", err
	}
	out := tmpl
	for _, f := range fields {
		v, err := lookup(obj, f)
		if err != nil {
			return "", fmt.Errorf("no template field %q", f)
		}
		s, ok := scalar(v)
		s = strings.TrimSpace(s)
		if !ok || s == "" {
			return "", fmt.Errorf("template field %q is %s", f, describe(v))
		}
		out = strings.Replace(out, "{"+f+"}", escapeUnsafe(s), 1)
	}
	return out, nil
}

// escapeUnsafe percent-encodes the bytes that may not appear in a URL
// (controls, space, non-ASCII, and "<>\^`{|}) and keeps the rest, so
// slashes, queries and existing escapes pass through.
func escapeUnsafe(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// resolve makes raw absolute against base and keeps only http(s) URLs with
// a host.
func resolve(raw string, base *url.URL) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	// url.Parse accepts some hosts ("//::") whose String it then refuses
	// to read back; a link must survive the next parse.
	out := u.String()
	if _, err := url.Parse(out); err != nil {
		return "", false
	}
	return out, true
}
