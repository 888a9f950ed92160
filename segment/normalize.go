package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize folds text into the form that segmentation, the dictionary and
// the stopword and synonym lists use, in one pass:
//
//   - full-width ASCII forms U+FF01..U+FF5E become their ASCII counterparts
//     (the same mapping as golang.org/x/text/width.Fold on that block, checked
//     by TestNormalizeMatchesWidthFold) and the ideographic space U+3000 a space;
//   - letters are lower-cased (unicode.ToLower);
//   - every run of white space (unicode.IsSpace, which includes U+3000 and
//     U+00A0) and of control characters becomes one ASCII space; leading and
//     trailing space is removed;
//   - zero-width characters (U+200B..U+200D, U+2060, U+FEFF) and invalid UTF-8
//     bytes are removed.
func Normalize(text string) string {
	return normalizeUnits(text, nil)
}

// normalizeUnits is Normalize; when b is not nil it also records the units
// of the result in b.units (start offsets) and b.runes (the rune of a
// one-rune unit, -1 for a multi-rune alphanumeric unit). A unit is a maximal
// run of letters and digits encoded in at most two UTF-8 bytes, or any other
// single rune (see isAlnumUnit).
func normalizeUnits(text string, b *cutBuffers) string {
	var out strings.Builder
	out.Grow(len(text))
	var units []int32
	var runes []rune
	if b != nil {
		units, runes = b.units[:0], b.runes[:0]
	}
	pendingSpace := false
	prevAlnum := false
	for i := 0; i < len(text); {
		c := text[i]
		// Fast path for CJK ideographs U+3400..U+9FFF (lead bytes E3..E9),
		// the bulk of Chinese text: copied as they are. An ideograph after
		// white space takes the general path below, which writes the space
		// first and then the ideograph unchanged (it has no case and is
		// never part of an alphanumeric unit).
		if !pendingSpace && c >= 0xE3 && c <= 0xE9 && i+2 < len(text) && text[i+1]&0xC0 == 0x80 && text[i+2]&0xC0 == 0x80 {
			if r := rune(c&0x0F)<<12 | rune(text[i+1]&0x3F)<<6 | rune(text[i+2]&0x3F); r >= 0x3400 && r < 0xA000 {
				if b != nil {
					units = append(units, int32(out.Len()))
					runes = append(runes, r)
				}
				out.WriteString(text[i : i+3])
				i += 3
				prevAlnum = false
				continue
			}
		}
		var r rune
		size := 1
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			case c <= ' ' || c == 0x7f:
				pendingSpace = true
				continue
			}
			r = rune(c)
		} else {
			r, size = utf8.DecodeRuneInString(text[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1:
				continue
			case r >= 0xFF01 && r <= 0xFF5E:
				r -= 0xFEE0
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
			case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
				continue
			case unicode.IsSpace(r) || unicode.IsControl(r):
				pendingSpace = true
				continue
			default:
				r = unicode.ToLower(r)
			}
			size = utf8.RuneLen(r)
		}
		if pendingSpace {
			pendingSpace = false
			if out.Len() > 0 {
				if b != nil {
					units = append(units, int32(out.Len()))
					runes = append(runes, ' ')
				}
				out.WriteByte(' ')
				prevAlnum = false
			}
		}
		alnum := isAlnumUnit(r, size)
		if b != nil {
			if alnum && prevAlnum {
				runes[len(runes)-1] = -1
			} else {
				units = append(units, int32(out.Len()))
				runes = append(runes, r)
			}
		}
		prevAlnum = alnum
		if size == 1 {
			out.WriteByte(byte(r))
		} else {
			out.WriteRune(r)
		}
	}
	if b != nil {
		b.units, b.runes = units, runes
	}
	return out.String()
}
