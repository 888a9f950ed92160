package dedup

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/segment"
)

// TitleSet returns the headline's character-bigram set (sorted hashes),
// after normalisation and with the decorations reprint sites add removed:
// bracketed tags (【关注】, (图), （附视频）) and a short leading label
// ending in a colon (快讯：, 独家：).
func TitleSet(title string) []uint64 {
	t := segment.Normalize(title)
	t = stripBrackets(t)
	if i := strings.IndexAny(t, ":："); i > 0 && utf8.RuneCountInString(t[:i]) <= 4 {
		t = t[i+len(":"):]
		t = strings.TrimLeft(t, ":：")
	}
	var rs []rune
	for _, r := range t {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			rs = append(rs, r)
		}
	}
	if len(rs) < 2 {
		if len(rs) == 1 {
			return []uint64{uint64(rs[0])}
		}
		return nil
	}
	out := make([]uint64, 0, len(rs)-1)
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, uint64(rs[i])<<32|uint64(rs[i+1]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func stripBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '【', '(', '（', '[', '〔':
			depth++
		case '】', ')', '）', ']', '〕':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// titleOverlap is |A∩B| / min(|A|, |B|) of two sorted sets: a shortened
// headline still overlaps its original fully. Empty sets give 0.
func titleOverlap(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return float64(n) / float64(min(len(a), len(b)))
}
