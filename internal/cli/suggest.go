package cli

import "fmt"

// maxSuggestDistance is the largest edit distance (Levenshtein) at which
// an unknown command is taken for a typo of a known one.
const maxSuggestDistance = 2

// suggest is `; did you mean "crawl"?` for a name within
// maxSuggestDistance edits of a command (or a prefix of one), else "".
func suggest(name string) string {
	best, bestD := "", maxSuggestDistance+1
	for _, c := range commands() {
		d := editDistance(name, c.name)
		if len(name) >= 3 && len(name) < len(c.name) && c.name[:len(name)] == name {
			d = 1
		}
		if d < bestD {
			best, bestD = c.name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
