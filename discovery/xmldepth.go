package discovery

import (
	"bytes"
	"fmt"
)

// checkXMLDepth fails with ErrTooDeep when elements nest deeper than max.
// It scans bytes before any XML parser runs: the feed parsers recurse per
// nesting level, and an element bomb would exhaust the stack. Comments,
// CDATA sections, processing instructions and quoted attribute values are
// skipped; the count is of start tags minus end tags and self-closed tags.
func checkXMLDepth(b []byte, max int) error {
	depth := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '<' || i+1 >= len(b) {
			continue
		}
		switch c := b[i+1]; {
		case c == '/':
			depth--
			i = skipTo(b, i, ">")
		case bytes.HasPrefix(b[i:], []byte("<!--")):
			i = skipTo(b, i+4, "-->")
		case bytes.HasPrefix(b[i:], []byte("<![CDATA[")):
			i = skipTo(b, i+9, "]]>")
		case c == '!' || c == '?':
			i = skipTo(b, i, ">")
		default:
			end := tagEnd(b, i+1)
			if end > 0 && b[end-1] == '/' {
				i = end
				continue
			}
			depth++
			if depth > max {
				return fmt.Errorf("%w: elements deeper than %d levels at byte %d", ErrTooDeep, max, i)
			}
			if end < 0 {
				return nil
			}
			i = end
		}
	}
	return nil
}

// skipTo returns the index of the last byte of the next sep at or after
// from, or len(b) when there is none.
func skipTo(b []byte, from int, sep string) int {
	j := bytes.Index(b[from:], []byte(sep))
	if j < 0 {
		return len(b)
	}
	return from + j + len(sep) - 1
}

// tagEnd returns the index of the > closing the tag whose name starts at
// from, skipping quoted attribute values, or -1.
func tagEnd(b []byte, from int) int {
	var quote byte
	for j := from; j < len(b); j++ {
		c := b[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return j
		}
	}
	return -1
}
