package crawler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// hostileRobots returns a robots.txt of about size bytes of wildcard rules.
// shortSegments makes every literal segment one or two characters long,
// which defeats the segment filter (every rule's key occurs in most paths):
// the worst case for the matcher.
func hostileRobots(size int, shortSegments bool) string {
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

// portalLinks returns n request paths shaped like a portal's links.
func portalLinks(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("/news/2026-11-%02d/doc-%08x%08x.shtml?from=list&pos=%d", 1+rng.IntN(28), rng.Uint32(), rng.Uint32(), i)
	}
	return out
}

// BenchmarkRobotsHostile matches the 20,000 links of one page against a
// 512 KB robots.txt of wildcard rules (issue 10: 231 s of CPU for one page
// with temoto/robotstxt). It reports the compile time once and ms per page
// of 20,000 links.
func BenchmarkRobotsHostile(b *testing.B) {
	links := portalLinks(20_000)
	for _, tc := range []struct {
		name  string
		short bool
	}{{"wildcard", false}, {"short-segments", true}} {
		body := hostileRobots(512<<10, tc.short)
		start := time.Now()
		g := compileRobots(body, "newscrawl")
		compile := time.Since(start)
		b.Run(tc.name, func(b *testing.B) {
			allowed := 0
			for b.Loop() {
				allowed = 0
				for _, l := range links {
					if g.matcher.allowed(l) {
						allowed++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(links)), "ns/link")
			b.ReportMetric(compile.Seconds()*1000, "ms-compile")
			b.ReportMetric(float64(g.rules), "rules")
			b.ReportMetric(float64(allowed), "allowed")
		})
	}
}
