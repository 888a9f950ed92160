// Package decode converts fetched HTML bytes to UTF-8.
//
// The charset is chosen in the order a browser uses (WHATWG Encoding /
// HTML "determining the character encoding"): a per-site override from the
// configuration, a byte order mark, the HTTP Content-Type charset, the
// <meta charset> / <meta http-equiv> declarations found in the first
// PrescanLimit bytes, and finally sniffing; UTF-16 without a byte order
// mark is recognised by its zero bytes before any label is read
// (decodeUTF16Bytes). Unlike a browser, a declared
// label is checked against the bytes, because Chinese portals often
// mislabel pages: a page declared as gb2312/gbk/gb18030 whose bytes are valid
// UTF-8 (with non-ASCII content) is decoded as UTF-8, and a page declared
// UTF-8 whose bytes are not valid UTF-8 but decode cleanly as GB18030 is
// decoded as GB18030. Every GB label is decoded with GB18030, the superset of
// GB2312 and GBK. Label lookup and decoding use golang.org/x/net/html/charset
// and golang.org/x/text; there are no hand-written tables. Invalid sequences
// become U+FFFD and are counted; the output is always valid UTF-8.
package decode

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"

	"github.com/newsdedup/newscrawl/internal/utf16sniff"
)

// PrescanLimit is how many leading bytes are searched for <meta> charset
// declarations. The WHATWG prescan uses 1024 bytes, but portal pages put
// scripts and comments before their meta tag: on the reprint-web dev split
// 69 of 694 pages declare their charset between byte 1024 and 4096 (none
// later). The bytes are checked anyway, so a late or missing declaration
// costs nothing but the sniffing.
const PrescanLimit = 4096

// maxCleanGBReplacementRatio is the largest share of U+FFFD characters
// among the non-ASCII characters of a GB18030 decode that still counts as a
// clean decode. Real GBK pages with a few broken characters (truncated
// multibyte sequences, private-use bytes) stay far below 1%; bytes of another
// encoding decoded as GB18030 produce replacements for a large share of their
// characters. Chosen on the reprint-web bench pages (0 replacements on all
// GBK pages) with a margin for damaged real-world pages.
const maxCleanGBReplacementRatio = 0.01

// Source values say how the charset was chosen.
const (
	SourceOverride = "override" // per-site configuration
	SourceBOM      = "bom"      // byte order mark
	SourceHeader   = "header"   // HTTP Content-Type charset
	SourceMeta     = "meta"     // <meta> declaration
	SourceBytes    = "bytes"    // a declaration was overruled by the bytes
	SourceSniff    = "sniff"    // nothing declared; chosen from the bytes
)

// ErrUnknownOverride is returned when the configured override label names
// no encoding known to golang.org/x/net/html/charset.
var ErrUnknownOverride = errors.New("unknown charset override")

// Result is the decoded page and how its charset was chosen.
type Result struct {
	// Body is the page as valid UTF-8, without a byte order mark.
	Body []byte
	// Charset is the canonical WHATWG name of the encoding used to decode
	// ("utf-8", "gb18030", "big5", "windows-1252", ...).
	Charset string
	// Source says how Charset was chosen (one of the Source* constants).
	Source string
	// Declared is the label that was declared by the chosen source, or by
	// the overruled declaration when Source is SourceBytes.
	Declared string
	// Replacements counts invalid byte sequences replaced by U+FFFD.
	Replacements int
}

// ToUTF8 decodes body to UTF-8. contentType is the HTTP Content-Type header
// value (may be empty); override is a configured charset label (may be
// empty). label is the canonical name of the encoding used. The only error
// is an unknown override label; bad bytes never fail.
func ToUTF8(body []byte, contentType, override string) (out []byte, label string, err error) {
	r, err := Decode(body, contentType, override)
	if err != nil {
		return nil, "", err
	}
	return r.Body, r.Charset, nil
}

// Decode is ToUTF8 with the full Result.
func Decode(body []byte, contentType, override string) (Result, error) {
	if override != "" {
		enc, name := lookup(override)
		if enc == nil {
			return Result{}, fmt.Errorf("%w: %q", ErrUnknownOverride, override)
		}
		r := decodeWith(body, enc, name)
		r.Source, r.Declared = SourceOverride, override
		return r, nil
	}
	if r, ok := decodeBOM(body); ok {
		return r, nil
	}
	if r, ok := decodeUTF16Bytes(body); ok {
		r.Declared = headerCharset(contentType)
		if r.Declared == "" {
			if labels := MetaCharsets(body); len(labels) > 0 {
				r.Declared = labels[0]
			}
		}
		return r, nil
	}
	if label := headerCharset(contentType); label != "" {
		if enc, name := lookup(label); enc != nil {
			return checked(body, enc, name, SourceHeader, label), nil
		}
	}
	if labels := MetaCharsets(body); len(labels) > 0 {
		return fromMeta(body, labels), nil
	}
	return sniff(body), nil
}

// Lookup reports the canonical name of the encoding for label, or "" when
// the label is unknown. GB2312 and GBK labels resolve to "gb18030", the
// encoding they are decoded with.
func Lookup(label string) string {
	_, name := lookup(label)
	return name
}

// lookup resolves a label through the WHATWG table of x/net/html/charset,
// mapping the GB family to GB18030.
func lookup(label string) (encoding.Encoding, string) {
	label = strings.ToLower(strings.TrimSpace(label))
	if label == "gb-18030" { // the name saintfish/chardet reports
		label = "gb18030"
	}
	enc, name := charset.Lookup(label)
	if enc == nil {
		return nil, ""
	}
	switch name {
	case "gbk", "gb18030":
		return simplifiedchinese.GB18030, "gb18030"
	case "big5":
		return traditionalchinese.Big5, "big5"
	case "utf-8":
		return encoding.Nop, "utf-8"
	case "utf-16le", "utf-16be":
		// A <meta> or header cannot sensibly declare UTF-16 for bytes that
		// were parsed as ASCII-compatible; WHATWG treats it as UTF-8. Only
		// a BOM selects UTF-16 (decodeBOM).
		return encoding.Nop, "utf-8"
	}
	return enc, name
}

func headerCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		// Tolerate sloppy headers such as "text/html;charset=gbk;".
		// ASCII case folding only: strings.ToLower would change the
		// length of invalid UTF-8 and so the index (a fuzzer found it).
		i := indexFoldASCII(contentType, "charset=")
		if i < 0 {
			return ""
		}
		v := contentType[i+len("charset="):]
		if j := strings.IndexAny(v, "; \t"); j >= 0 {
			v = v[:j]
		}
		return strings.Trim(v, `"'`)
	}
	return params["charset"]
}

// indexFoldASCII is strings.Index with ASCII case folding; sub is lower-case ASCII.
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

func decodeBOM(body []byte) (Result, bool) {
	switch {
	case bytes.HasPrefix(body, []byte{0xef, 0xbb, 0xbf}):
		r := decodeUTF8(body[3:])
		r.Source, r.Declared = SourceBOM, "utf-8"
		return r, true
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}):
		r := decodeWith(body, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "utf-16be")
		r.Source, r.Declared = SourceBOM, "utf-16be"
		return r, true
	case bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		r := decodeWith(body, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "utf-16le")
		r.Source, r.Declared = SourceBOM, "utf-16le"
		return r, true
	}
	return Result{}, false
}

// decodeUTF16Bytes decodes a page recognised as UTF-16 without a byte
// order mark by its zero bytes (utf16sniff), whatever it declares: a
// <meta> or a header saying "utf-16" is otherwise read as UTF-8 (WHATWG),
// and a page sent as UTF-16 without a BOM came out as mojibake and was
// stored as such.
func decodeUTF16Bytes(body []byte) (Result, bool) {
	order, ok := utf16sniff.ByZeros(body)
	if !ok {
		return Result{}, false
	}
	label := "utf-16le"
	if order == unicode.BigEndian {
		label = "utf-16be"
	}
	r := decodeWith(body, unicode.UTF16(order, unicode.IgnoreBOM), label)
	r.Source = SourceBytes
	return r, true
}

// MetaCharsets returns the charset labels declared by <meta charset> and
// <meta http-equiv="Content-Type" content="...; charset=..."> elements in
// the first PrescanLimit bytes of body, in document order, following the
// WHATWG prescan rules for a single meta element.
func MetaCharsets(body []byte) []string {
	if len(body) > PrescanLimit {
		body = body[:PrescanLimit]
	}
	if !bytes.Contains(body, []byte("harset")) && !bytes.Contains(body, []byte("HARSET")) {
		return nil
	}
	var labels []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return labels
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "meta" {
			continue
		}
		var cs, content string
		pragma := false
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch string(k) {
			case "charset":
				if cs == "" {
					cs = strings.TrimSpace(string(v))
				}
			case "http-equiv":
				pragma = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
			case "content":
				content = string(v)
			}
		}
		if cs == "" && pragma {
			cs = charsetFromContent(content)
		}
		if cs != "" {
			labels = append(labels, cs)
		}
	}
}

// charsetFromContent extracts the charset from a meta content attribute
// ("text/html; charset=gb2312"), as the WHATWG algorithm does.
func charsetFromContent(s string) string {
	for {
		i := indexFoldASCII(s, "charset")
		if i < 0 {
			return ""
		}
		s = s[i+len("charset"):]
		t := strings.TrimLeft(s, " \t\n\f\r")
		if !strings.HasPrefix(t, "=") {
			continue
		}
		t = strings.TrimLeft(t[1:], " \t\n\f\r")
		if t == "" {
			return ""
		}
		if q := t[0]; q == '"' || q == '\'' {
			t = t[1:]
			if j := strings.IndexByte(t, q); j >= 0 {
				return t[:j]
			}
			return ""
		}
		if j := strings.IndexAny(t, "; \t\n\f\r"); j >= 0 {
			t = t[:j]
		}
		return t
	}
}

// fromMeta decodes with the meta declarations. With several distinct
// declarations the bytes decide among them.
func fromMeta(body []byte, labels []string) Result {
	type cand struct {
		enc         encoding.Encoding
		name, label string
	}
	var cands []cand
	seen := map[string]bool{}
	for _, l := range labels {
		enc, name := lookup(l)
		if enc == nil || seen[name] {
			continue
		}
		seen[name] = true
		cands = append(cands, cand{enc, name, l})
	}
	switch len(cands) {
	case 0:
		return sniff(body)
	case 1:
		return checked(body, cands[0].enc, cands[0].name, SourceMeta, cands[0].label)
	}
	// Conflicting declarations: prefer the one the bytes support.
	valid, nonASCII := utf8Stats(body)
	if valid && nonASCII {
		if seen["utf-8"] {
			r := decodeUTF8(body)
			r.Source, r.Declared = SourceMeta, "utf-8"
			return r
		}
	}
	if seen["gb18030"] && !valid {
		r := decodeWith(body, simplifiedchinese.GB18030, "gb18030")
		if cleanGB(r) {
			r.Source, r.Declared = SourceMeta, "gb18030"
			return r
		}
	}
	return checked(body, cands[0].enc, cands[0].name, SourceMeta, cands[0].label)
}

// checked decodes with a declared encoding unless the bytes clearly
// contradict it (see the package comment).
func checked(body []byte, enc encoding.Encoding, name, source, declared string) Result {
	valid, nonASCII := utf8Stats(body)
	switch {
	case name == "utf-8":
		if valid {
			r := decodeUTF8(body)
			r.Source, r.Declared = source, declared
			return r
		}
		if gb := decodeWith(body, simplifiedchinese.GB18030, "gb18030"); cleanGB(gb) {
			gb.Source, gb.Declared = SourceBytes, declared
			return gb
		}
		r := decodeUTF8(body)
		r.Source, r.Declared = source, declared
		return r
	case valid && nonASCII:
		// Any legacy label on bytes that are valid UTF-8 with non-ASCII
		// content: real GBK/Big5/Latin-1 text is practically never valid
		// UTF-8, mislabelled UTF-8 pages are common.
		r := decodeUTF8(body)
		r.Source, r.Declared = SourceBytes, declared
		return r
	}
	r := decodeWith(body, enc, name)
	r.Source, r.Declared = source, declared
	return r
}

// sniff chooses an encoding from the bytes alone: UTF-8 when valid, else
// GB18030 when it decodes cleanly, else Big5 when that does, else GB18030
// when it still reads most characters (a damaged Chinese page), else
// windows-1252 (the WHATWG default for unlabelled legacy pages).
func sniff(body []byte) Result {
	if valid, _ := utf8Stats(body); valid {
		r := decodeUTF8(body)
		r.Source = SourceSniff
		return r
	}
	r := sniffLegacy(body)
	r.Source = SourceSniff
	return r
}

// maxDamagedGBReplacementRatio is the largest share of U+FFFD among the
// non-ASCII characters for which an unlabelled page is still read as a
// damaged GB18030 page rather than windows-1252: with 4 in 5 characters
// readable the page is Chinese text, while Latin-1 bytes read as GB18030 fail
// on most of their characters.
const maxDamagedGBReplacementRatio = 0.2

func sniffLegacy(body []byte) Result {
	gb := decodeWith(body, simplifiedchinese.GB18030, "gb18030")
	if cleanRatio(gb, maxCleanGBReplacementRatio) {
		return gb
	}
	b5 := decodeWith(body, traditionalchinese.Big5, "big5")
	if cleanRatio(b5, maxCleanGBReplacementRatio) {
		return b5
	}
	if cleanRatio(gb, maxDamagedGBReplacementRatio) {
		return gb
	}
	enc, name := lookup("windows-1252")
	return decodeWith(body, enc, name)
}

func cleanGB(r Result) bool { return cleanRatio(r, maxCleanGBReplacementRatio) }

// cleanRatio reports whether the replacements are at most ratio of the
// non-ASCII characters of the decoded text.
func cleanRatio(r Result, ratio float64) bool {
	if r.Replacements == 0 {
		return true
	}
	n := nonASCIIRunes(r.Body)
	return n > 0 && float64(r.Replacements) <= ratio*float64(n)
}

func nonASCIIRunes(b []byte) int {
	n := 0
	for _, c := range b {
		// Count rune starts of multibyte sequences.
		if c >= 0xC0 {
			n++
		}
	}
	return n
}

// maxUTF8InvalidRatio is the largest number of invalid sequences, as a share
// of the valid multibyte characters, for which bytes still count as UTF-8
// (a UTF-8 page with a few damaged bytes, which become U+FFFD). GBK bytes
// read as UTF-8 give the opposite picture: on the 423 pages of the reprint
// web (../shared/bench/dev/sites) that are not valid UTF-8 the valid
// multibyte characters were at most 0.37 per invalid sequence, against at
// least 20 here (go test -v -run TestLegacyPagesAreNotMostlyUTF8 ./decode).
const maxUTF8InvalidRatio = 0.05

// utf8Stats reports whether b is UTF-8 and whether it has any non-ASCII
// byte. Bytes are UTF-8 when they are valid, or when invalid sequences are
// at most maxUTF8InvalidRatio of the valid multibyte characters (before,
// one bad byte sent an undeclared UTF-8 page to GB18030: mojibake). A
// trailing incomplete rune (a truncated body) is not counted as invalid.
func utf8Stats(b []byte) (valid, nonASCII bool) {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return true, false
	}
	rest := b[i:]
	if utf8.Valid(rest) {
		return true, true
	}
	return mostlyUTF8(rest), true
}

// mostlyUTF8 counts invalid sequences and valid multibyte characters of b
// and compares them with maxUTF8InvalidRatio. It stops as soon as the rest
// of b cannot bring the share below the limit.
func mostlyUTF8(b []byte) bool {
	invalid, multi := 0, 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			b = b[1:]
			continue
		}
		c, size := utf8.DecodeRune(b)
		if c == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(b) {
				break // truncated last character
			}
			invalid++
			// Every remaining byte pair a character at best.
			if float64(invalid) > maxUTF8InvalidRatio*float64(multi+len(b)/2) {
				return false
			}
			b = b[1:]
			continue
		}
		multi++
		b = b[size:]
	}
	return float64(invalid) <= maxUTF8InvalidRatio*float64(multi)
}

func decodeUTF8(b []byte) Result {
	r := Result{Charset: "utf-8"}
	if utf8.Valid(b) {
		r.Body = b
		return r
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		c, size := utf8.DecodeRune(b)
		if c == utf8.RuneError && size <= 1 {
			r.Replacements++
			out = append(out, "\uFFFD"...)
			b = b[1:]
			continue
		}
		out = append(out, b[:size]...)
		b = b[size:]
	}
	r.Body = out
	return r
}

// decodeWith decodes b with enc and counts the U+FFFD characters of the
// output as replacements. The x/text decoders replace invalid sequences
// with U+FFFD and never fail on bad bytes (GBK user-defined code points such
// as 0xAAA5, which old templates use for icons, also come out as U+FFFD).
func decodeWith(b []byte, enc encoding.Encoding, name string) Result {
	if enc == encoding.Nop {
		return decodeUTF8(b)
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil || !utf8.Valid(out) {
		// Defensive: should not happen with x/text decoders. Fall back to
		// a byte-wise reading that is always valid.
		out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	}
	r := Result{Body: out, Charset: name}
	r.Replacements = bytes.Count(out, []byte("\uFFFD"))
	return r
}
