package discovery

import (
	"bytes"
	"fmt"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// decoded is a feed's text in UTF-8 and how it was read.
type decoded struct {
	text    []byte
	charset string
	note    string
}

// fallbackCharset is tried when the bytes are not UTF-8 and no declared
// charset decodes them: GB18030 is the superset of GB2312 and GBK, the
// charsets Chinese portals send undeclared or mislabelled.
const fallbackCharset = "gb18030"

// utf8DamageRatio: bytes with at least this many valid multi-byte UTF-8
// characters per invalid sequence are damaged UTF-8, not another charset.
// GBK text shows the reverse (the GBK fixture: 34 valid, 184 invalid).
const utf8DamageRatio = 10

// maxBadPerMille is how many replaced characters per thousand a decoding
// may produce and still be taken: one stray byte in a long feed is damage,
// many are the wrong charset.
const maxBadPerMille = 1

// decodeFeed returns the feed as UTF-8 with its XML prolog saying so. The
// charset is the one its bytes are, checked against the declarations:
//
//   - a UTF-16 byte order mark decides;
//   - bytes that are valid UTF-8 (or UTF-8 with a few damaged bytes,
//     which are replaced) are UTF-8 whatever is declared: a GB text is
//     almost never valid UTF-8, and a UTF-8 feed labelled GBK is common;
//   - otherwise the charsets declared by the Content-Type and the XML
//     prolog are tried in that order, then GB18030, and the first that
//     decodes with at most maxBadPerMille replacement characters is taken;
//   - a declared single-byte charset (ISO-8859-1, windows-1252), which
//     decodes any bytes, is taken only when GB18030 does not decode them
//     into Chinese text;
//   - when none fits, ErrCharset names what was declared and tried.
func decodeFeed(b []byte, contentType string) (decoded, error) {
	if enc, name := utf16ByBOM(b); enc != nil {
		out, err := enc.NewDecoder().Bytes(b)
		if err != nil {
			return decoded{}, fmt.Errorf("%w: %s: %v", ErrCharset, name, err)
		}
		return decoded{text: setPrologUTF8(out), charset: name}, nil
	}
	declared := declaredCharsets(b, contentType)
	valid, invalid := utf8Stats(b)
	if invalid == 0 || (valid > 0 && invalid*utf8DamageRatio <= valid) {
		d := decoded{text: b, charset: "utf-8"}
		if invalid > 0 {
			d.text = bytes.ToValidUTF8(b, []byte("\uFFFD"))
			d.note = fmt.Sprintf("%d invalid UTF-8 sequences replaced", invalid)
		}
		if valid > 0 {
			for _, c := range declared {
				if !isUTF8Label(c) {
					d.note = joinNote(d.note, fmt.Sprintf("declared %q but the bytes are UTF-8", c))
					break
				}
			}
		}
		d.text = setPrologUTF8(d.text)
		return d, nil
	}
	return decodeLegacy(b, declared)
}

// decodeLegacy tries the declared non-UTF-8 charsets, then GB18030.
func decodeLegacy(b []byte, declared []string) (decoded, error) {
	var tried []string
	gb, gbBad := decodeWith(b, fallbackCharset)
	gbChinese := gb != nil && gbBad == 0 && looksChinese(gb)
	for _, c := range declared {
		if isUTF8Label(c) {
			continue
		}
		enc, name := charset.Lookup(c)
		if enc == nil {
			tried = append(tried, c+" (unknown)")
			continue
		}
		if singleByte(name) && gbChinese {
			return decoded{text: setPrologUTF8(gb), charset: fallbackCharset,
				note: fmt.Sprintf("declared %q but the bytes are Chinese in GB18030", c)}, nil
		}
		out, bad := decodeWith(b, name)
		if out != nil && acceptable(out, bad) {
			return decoded{text: setPrologUTF8(out), charset: name}, nil
		}
		tried = append(tried, name)
	}
	if gb != nil && acceptable(gb, gbBad) {
		note := "no charset declared; the bytes are not UTF-8 but GB18030"
		if len(declared) > 0 {
			note = fmt.Sprintf("declared %s but the bytes are GB18030", strings.Join(quoteAll(declared), ", "))
		}
		return decoded{text: setPrologUTF8(gb), charset: fallbackCharset, note: note}, nil
	}
	tried = append(tried, "utf-8", fallbackCharset)
	return decoded{}, fmt.Errorf("%w: declared %s, the bytes decode cleanly in none of %s",
		ErrCharset, orNone(quoteAll(declared)), strings.Join(tried, ", "))
}

// decodeWith decodes b in the named charset and counts the replacement
// characters the decoding produced (beyond those already in b).
func decodeWith(b []byte, name string) ([]byte, int) {
	enc, _ := charset.Lookup(name)
	if enc == nil {
		return nil, 0
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return nil, 0
	}
	return out, bytes.Count(out, []byte("\uFFFD")) - bytes.Count(b, []byte("\uFFFD"))
}

func acceptable(out []byte, bad int) bool {
	return bad == 0 || bad*1000 <= maxBadPerMille*utf8.RuneCount(out)
}

// commonHan are the most frequent characters of Chinese news text; text
// decoded from the wrong bytes rarely contains them.
const commonHan = "的一是在不了有和人这中大为上国年会新发"

// minCommonHan is how many of commonHan's characters a Chinese text of
// some length shows.
const minCommonHan = 2

// looksChinese reports whether decoded text reads as Chinese: most of its
// non-ASCII characters are Han and it uses the commonest ones.
func looksChinese(b []byte) bool {
	han, other, common := 0, 0, 0
	seen := map[rune]bool{}
	for _, r := range string(b) {
		switch {
		case r < utf8.RuneSelf:
		case r >= 0x4E00 && r <= 0x9FFF:
			han++
			if !seen[r] && strings.ContainsRune(commonHan, r) {
				seen[r] = true
				common++
			}
		default:
			other++
		}
	}
	return han > 0 && han >= 4*other && common >= minCommonHan
}

// singleByte reports charsets in which every byte sequence is valid, so
// decoding in them proves nothing.
func singleByte(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "iso-8859") || strings.HasPrefix(n, "windows-125") || strings.HasPrefix(n, "koi8") || n == "macintosh"
}

// utf8Stats counts the valid multi-byte runes and the invalid sequences.
func utf8Stats(b []byte) (valid, invalid int) {
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			invalid++
		} else {
			valid++
		}
		b = b[n:]
	}
	return valid, invalid
}

// utf16ByBOM returns a UTF-16 decoder when b starts with its byte order
// mark.
func utf16ByBOM(b []byte) (encoding.Encoding, string) {
	switch {
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "utf-16be"
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "utf-16le"
	}
	return nil, ""
}

// prologEncoding matches the encoding declaration of an XML prolog.
func prologEncoding() *regexp.Regexp {
	return regexp.MustCompile(`^(\s*(?:\xEF\xBB\xBF)?\s*<\?xml[^>]*?\bencoding\s*=\s*)(["'])([^"']*)(["'])`)
}

// declaredCharsets returns the Content-Type charset and the XML prolog's
// encoding, in that order, without repeats.
func declaredCharsets(b []byte, contentType string) []string {
	var out []string
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if c := strings.TrimSpace(params["charset"]); c != "" {
			out = append(out, strings.ToLower(c))
		}
	}
	if m := prologEncoding().FindSubmatch(b[:min(len(b), sniffLen)]); m != nil {
		c := strings.ToLower(strings.TrimSpace(string(m[3])))
		if c != "" && (len(out) == 0 || out[0] != c) {
			out = append(out, c)
		}
	}
	return out
}

// setPrologUTF8 rewrites the prolog's encoding declaration to UTF-8 so the
// XML parser does not decode the text a second time.
func setPrologUTF8(b []byte) []byte {
	re := prologEncoding()
	head := b[:min(len(b), sniffLen)]
	loc := re.FindSubmatchIndex(head)
	if loc == nil || strings.EqualFold(string(b[loc[6]:loc[7]]), "utf-8") {
		return b
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:loc[6]]...)
	out = append(out, "UTF-8"...)
	return append(out, b[loc[7]:]...)
}

func isUTF8Label(c string) bool {
	c = strings.ToLower(c)
	return c == "utf-8" || c == "utf8" || c == "unicode-1-1-utf-8"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "nothing"
	}
	return strings.Join(ss, ", ")
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
