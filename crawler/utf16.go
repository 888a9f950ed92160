package crawler

import (
	"bytes"

	"golang.org/x/text/encoding"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/newsdedup/newscrawl/internal/utf16sniff"
)

// bomEncoding returns the UTF-16 decoding of a body that starts with a UTF-16
// byte order mark, or nil.
func bomEncoding(body []byte) encoding.Encoding {
	switch {
	case bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		return xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM)
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}):
		return xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM)
	}
	return nil
}

// utf16Zeros returns the decoding of a body recognised as UTF-16 without
// a byte order mark by its zero bytes (utf16sniff), or nil.
func utf16Zeros(body []byte) encoding.Encoding {
	if order, ok := utf16sniff.ByZeros(body); ok {
		return xunicode.UTF16(order, xunicode.IgnoreBOM)
	}
	return nil
}

// fromUTF16 decodes body with e (bad units become U+FFFD; an odd last
// byte is dropped).
func fromUTF16(body []byte, e encoding.Encoding) []byte {
	out, err := e.NewDecoder().Bytes(body[:len(body)&^1])
	if err != nil {
		return body // cannot happen: bad UTF-16 becomes U+FFFD
	}
	return out
}

// htmlBytes is body as the HTML tokenizer can read it: a UTF-16 page (with
// a byte order mark or recognised by its zero bytes) transcoded to UTF-8,
// any other page as it is (its URLs are ASCII or bytes urlnorm encodes).
// Tokenized as bytes, a UTF-16 page had no tag: its links were lost
// without a word.
func htmlBytes(body []byte) []byte {
	e := bomEncoding(body)
	if e == nil {
		e = utf16Zeros(body)
	}
	if e == nil {
		return body
	}
	return fromUTF16(body, e)
}
