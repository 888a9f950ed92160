// Package robotstest builds robots.txt files and link sets for the tests
// and benchmarks of crawler/robots and the crawler: files of many wildcard
// rules, the worst case for a matcher. Only tests import it.
package robotstest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Hostile returns a robots.txt of about size bytes of wildcard rules.
// shortSegments makes every literal segment one or two characters long,
// which defeats the segment filter (every rule's key occurs in most paths):
// the worst case for the matcher.
func Hostile(size int, shortSegments bool) string {
	rng := rand.New(rand.NewPCG(1, 2))
	const alpha = "abcdefghijklmnopqrstuvwxyz0123456789"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	var sb strings.Builder
	sb.WriteString("User-agent: *\n")
	for sb.Len() < size {
		kind := "Disallow"
		if rng.IntN(4) == 0 {
			kind = "Allow"
		}
		var p string
		if shortSegments {
			p = fmt.Sprintf("/*%s*%s*%s", word(1), word(2), word(1))
		} else {
			p = fmt.Sprintf("/%s*%s*%s.html", word(1+rng.IntN(3)), word(4+rng.IntN(4)), word(3))
			if rng.IntN(3) == 0 {
				p = "/*" + word(6) + "*" + word(5) + "$"
			}
		}
		fmt.Fprintf(&sb, "%s: %s\n", kind, p)
	}
	return sb.String()
}

// PortalLinks returns n request paths shaped like a portal's links.
func PortalLinks(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("/news/2026-11-%02d/doc-%08x%08x.shtml?from=list&pos=%d", 1+rng.IntN(28), rng.Uint32(), rng.Uint32(), i)
	}
	return out
}
