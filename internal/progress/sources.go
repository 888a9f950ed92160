package progress

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/crawler"
)

// Sources writes one line per discovery source of each site (sitemaps,
// feeds, APIs, inline scripts): requests, 304s, URLs found, matched,
// pushed, skipped by reason, and errors by kind.
func Sources(w io.Writer, sum crawler.Summary) {
	for _, s := range sum.Sites {
		for _, src := range s.Sources {
			where := src.URL
			if where == "" {
				where = "(inline scripts of list pages)"
			}
			line := fmt.Sprintf("  %s %s %s: %d requests, %d not modified, found %d, matched %d, pushed %d",
				s.Name, src.Kind, where, src.Requests, src.NotModified, src.Found, src.Matched, src.Pushed)
			if len(src.Skipped) > 0 {
				line += ", skipped " + counts(src.Skipped)
			}
			if src.Errors > 0 {
				line += fmt.Sprintf(", errors %s (last: %s)", counts(src.ErrorKinds), src.LastError)
			}
			fmt.Fprintln(w, line)
		}
	}
}

// counts is "a 1, b 2" in key order.
func counts(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
