package discovery

import (
	"bytes"
	"strconv"
	"strings"
)

// Unwrap removes JSONP callbacks `cb(...)`, `try{cb(...);}catch(e){};`
// wrappers, a leading BOM, `/**/` prefixes, and trailing commas before ] or
// } (outside strings) so the rest is JSON. A `var x = {...};` or
// `window.x = {...};` assignment is unwrapped too. Anything it does not
// recognise (an HTML page, plain text) is returned trimmed but otherwise
// unchanged, so the JSON decoder reports it. Unwrap does not validate.
func Unwrap(body []byte) []byte {
	b := trimBOMSpace(body)
	b = skipComments(b)
	b = unwrapCall(b)
	return dropTrailingCommas(b)
}

// ExpandPage replaces every {page} in template with page.
func ExpandPage(template string, page int) string {
	return strings.ReplaceAll(template, "{page}", strconv.Itoa(page))
}

const utf8BOM = "\xEF\xBB\xBF"

// trimBOMSpace drops a UTF-8 byte order mark and surrounding white space.
func trimBOMSpace(b []byte) []byte {
	b = bytes.TrimSpace(b)
	b = bytes.TrimPrefix(b, []byte(utf8BOM))
	return bytes.TrimSpace(b)
}

// skipComments drops leading /*...*/ block comments (JSONP answers are
// often prefixed with /**/ against content sniffing) and // line comments.
func skipComments(b []byte) []byte {
	for {
		switch {
		case bytes.HasPrefix(b, []byte("/*")):
			end := bytes.Index(b[2:], []byte("*/"))
			if end < 0 {
				return b
			}
			b = bytes.TrimSpace(b[end+4:])
		case bytes.HasPrefix(b, []byte("//")):
			end := bytes.IndexByte(b, '\n')
			if end < 0 {
				return b[:0]
			}
			b = bytes.TrimSpace(b[end+1:])
		default:
			return b
		}
	}
}

// unwrapCall returns the argument of a JSONP call or the value of an
// assignment; plain JSON and unrecognised input come back as they are.
func unwrapCall(b []byte) []byte {
	if len(b) == 0 || b[0] == '{' || b[0] == '[' {
		return bytes.TrimRight(b, "; \t\r\n")
	}
	rest := b
	if after, ok := cutKeyword(rest, "try"); ok && len(after) > 0 && after[0] == '{' {
		rest = bytes.TrimSpace(after[1:])
	}
	for _, kw := range []string{"var", "let", "const"} {
		if after, ok := cutKeyword(rest, kw); ok {
			rest = after
			break
		}
	}
	n := identLen(rest)
	if n == 0 {
		return b
	}
	rest = bytes.TrimSpace(rest[n:])
	if len(rest) == 0 || (rest[0] != '(' && rest[0] != '=') {
		return b
	}
	rest = bytes.TrimSpace(rest[1:])
	if len(rest) == 0 || (rest[0] != '{' && rest[0] != '[') {
		return b
	}
	if end := valueEnd(rest); end > 0 {
		return rest[:end]
	}
	// Unbalanced (a truncated answer): hand over everything up to the
	// wrapper's last parenthesis and let the decoder report it.
	if i := bytes.LastIndexByte(rest, ')'); i > 0 {
		return bytes.TrimSpace(rest[:i])
	}
	return rest
}

// cutKeyword removes a leading keyword followed by a non-identifier byte.
func cutKeyword(b []byte, kw string) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte(kw)) || len(b) == len(kw) || isIdentByte(b[len(kw)]) {
		return b, false
	}
	return bytes.TrimSpace(b[len(kw):]), true
}

// identLen is the length of a leading JavaScript name such as
// data_callback, jQuery1113_1716, window.__INITIAL_STATE__ or $cb.
func identLen(b []byte) int {
	if len(b) == 0 || (b[0] >= '0' && b[0] <= '9') || b[0] == '.' {
		return 0
	}
	n := 0
	for n < len(b) && (isIdentByte(b[n]) || b[n] == '.') {
		n++
	}
	return n
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// valueEnd returns the index just after the bracket closing the object or
// array that b starts with, or -1 when it is not closed. Brackets inside
// strings do not count.
func valueEnd(b []byte) int {
	if i := scanBrackets(b, func(i, depth int) bool { return depth == 0 && (b[i] == '}' || b[i] == ']') }); i >= 0 {
		return i + 1
	}
	return -1
}

// scanBrackets walks the brackets of b ({ [ } ]) outside JSON strings,
// with the nesting depth after each, and returns the index of the first
// one for which stop is true, or -1.
func scanBrackets(b []byte, stop func(i, depth int) bool) int {
	depth := 0
	inStr, esc := false, false
	for i, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		default:
			continue
		}
		if stop(i, depth) {
			return i
		}
	}
	return -1
}

// dropTrailingCommas removes commas that only white space separates from
// a closing ] or } outside strings (NetEase's lists end with "},\n]").
// b is returned as is when it has none.
func dropTrailingCommas(b []byte) []byte {
	var out []byte // nil until the first trailing comma
	last := 0      // b[last:i] is not yet copied to out
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if c != ',' {
			continue
		}
		j := i + 1
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if j < len(b) && (b[j] == ']' || b[j] == '}') {
			if out == nil {
				out = make([]byte, 0, len(b))
			}
			out = append(out, b[last:i]...)
			last = i + 1
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// checkDepth fails with ErrTooDeep when the JSON in b nests objects and
// arrays deeper than max. It scans bytes without decoding, so it runs
// before encoding/json, whose recursion is not bounded by the caller.
func checkDepth(b []byte, max int) error {
	if i := scanBrackets(b, func(_, depth int) bool { return depth > max }); i >= 0 {
		return depthError(max, i)
	}
	return nil
}
