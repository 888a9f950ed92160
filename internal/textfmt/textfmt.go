// Package textfmt formats counts for the command's reports.
package textfmt

import (
	"fmt"
	"sort"
	"strings"
)

// Kinds formats counts by kind as "a 1, b 2" in kind order, or "none".
func Kinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}
