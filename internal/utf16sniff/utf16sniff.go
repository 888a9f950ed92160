// Package utf16sniff recognises UTF-16 text without a byte order mark by
// its zero bytes. The markup of a page, and every line of a robots.txt,
// is mostly ASCII, which UTF-16 writes with a zero byte in every other
// position (after the character in little-endian, before it in
// big-endian), while ASCII-compatible encodings (UTF-8, GB18030, Big5)
// have no zero bytes in text. A sample with zeros in at least a tenth of
// one parity's positions (16 at least; Chinese text has none, the markup
// around it does) and twenty times fewer in the other is UTF-16.
//
// Package decode (page bodies) and the crawler (robots.txt, link
// extraction), which may not import decode, share it.
package utf16sniff

import "golang.org/x/text/encoding/unicode"

// Sample is how many leading bytes ByZeros looks at.
const Sample = 1024

// ByZeros reports whether body's first Sample bytes are UTF-16 and in
// which byte order.
func ByZeros(body []byte) (unicode.Endianness, bool) {
	n := min(len(body), Sample) &^ 1
	var even, odd int // zero bytes at even and odd offsets
	for i := 0; i < n; i += 2 {
		if body[i] == 0 {
			even++
		}
		if body[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	switch {
	case pairs < 16:
		return unicode.LittleEndian, false
	case odd >= 16 && odd*10 >= pairs && even*20 <= odd:
		return unicode.LittleEndian, true
	case even >= 16 && even*10 >= pairs && odd*20 <= even:
		return unicode.BigEndian, true
	}
	return unicode.LittleEndian, false
}
