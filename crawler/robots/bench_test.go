package robots

import (
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/crawler/robots/robotstest"
)

// BenchmarkRobotsHostile matches the 20,000 links of one page against a
// 512 KB robots.txt of wildcard rules (231 s of CPU for one page with
// temoto/robotstxt, the parser before this matcher). It reports the
// compile time once and ms per page of 20,000 links.
func BenchmarkRobotsHostile(b *testing.B) {
	links := robotstest.PortalLinks(20_000)
	for _, tc := range []struct {
		name  string
		short bool
	}{{"wildcard", false}, {"short-segments", true}} {
		body := robotstest.Hostile(512<<10, tc.short)
		start := time.Now()
		g := Compile(body, "newscrawl")
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
