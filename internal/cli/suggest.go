package cli

import (
	"fmt"

	"github.com/newsdedup/newscrawl/config"
)

// maxSuggestDistance is the largest edit distance (Levenshtein) at which
// an unknown command is taken for a typo of a known one.
const maxSuggestDistance = 2

// suggest is `; did you mean "crawl"?` for a name within
// maxSuggestDistance edits of a command (or a prefix of one), else "".
func suggest(name string) string {
	best, bestD := "", maxSuggestDistance+1
	for _, c := range commands() {
		d := config.EditDistance(name, c.name)
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
