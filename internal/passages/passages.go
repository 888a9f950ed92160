// Package passages marks the text two documents share, for showing a
// near-duplicate verdict to a person: every run of at least MinRunes
// characters that occurs in both texts is marked, in the manner of the
// w-shingle overlap of Broder et al. (1997) taken over characters, which
// needs no word segmentation and so works the same for Chinese and English.
package passages

import "strings"

// MinRunes is the shortest shared run that is marked: eight characters are
// about two Chinese words or one and a half English ones, long enough that
// common phrases ("记者从", "according to") do not light up whole texts.
const MinRunes = 8

// Segment is a piece of a text, marked Shared when it lies in a run both
// texts contain.
type Segment struct {
	Text   string
	Shared bool
}

// Mark splits a and b into segments, marking in each the characters covered
// by a run of at least MinRunes characters that the other text contains.
// Concatenating a's segments gives a back (likewise for b).
func Mark(a, b string) (sa, sb []Segment) {
	ra, rb := []rune(a), []rune(b)
	return segments(ra, covered(ra, grams(rb))), segments(rb, covered(rb, grams(ra)))
}

// Shared returns the maximal shared runs of a (in a's order, each once).
func Shared(a, b string) []string {
	sa, _ := Mark(a, b)
	var out []string
	seen := map[string]bool{}
	for _, s := range sa {
		t := strings.TrimSpace(s.Text)
		if s.Shared && t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Coverage is the share of a's characters (not counting white space) that
// are marked as shared with b.
func Coverage(a, b string) float64 {
	sa, _ := Mark(a, b)
	var shared, all int
	for _, s := range sa {
		for _, r := range s.Text {
			if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
				continue
			}
			all++
			if s.Shared {
				shared++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(shared) / float64(all)
}

func grams(r []rune) map[string]struct{} {
	m := make(map[string]struct{}, max(len(r)-MinRunes+1, 0))
	for i := 0; i+MinRunes <= len(r); i++ {
		m[string(r[i:i+MinRunes])] = struct{}{}
	}
	return m
}

func covered(r []rune, other map[string]struct{}) []bool {
	mark := make([]bool, len(r))
	for i := 0; i+MinRunes <= len(r); i++ {
		if _, ok := other[string(r[i:i+MinRunes])]; ok {
			for j := i; j < i+MinRunes; j++ {
				mark[j] = true
			}
		}
	}
	return mark
}

func segments(r []rune, mark []bool) []Segment {
	var out []Segment
	start := 0
	for i := 1; i <= len(r); i++ {
		if i == len(r) || mark[i] != mark[start] {
			out = append(out, Segment{Text: string(r[start:i]), Shared: mark[start]})
			start = i
		}
	}
	return out
}
