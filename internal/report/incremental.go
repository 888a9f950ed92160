package report

import (
	"maps"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
)

// SiteFetch are a site's figures of incremental crawling over every run
// that recorded per-site counters: HTTP requests, list surfaces answered
// 304 Not Modified and left alone as not due, new (stored) articles,
// requests per new article (0 when none was stored), and the discovery
// delay (published_at to fetch) of its stored articles that have a
// published time.
type SiteFetch struct {
	Site                                 string
	Runs                                 int
	Requests, NotModified, NotDue, Fresh int64
	PerNew                               float64
	Delay                                crawler.DelayStats
}

// Counter names of storage.RunStats.Sites (the crawler's JSON names).
const (
	counterRequests    = "requests"
	counterNotModified = "not_modified"
	counterNotDue      = "surfaces_not_due"
	counterStored      = "stored"
)

// siteFetches sums the runs' per-site counters and adds the delays.
func siteFetches(r *Report, delays map[string][]time.Duration) []SiteFetch {
	by := map[string]*SiteFetch{}
	get := func(site string) *SiteFetch {
		f := by[site]
		if f == nil {
			f = &SiteFetch{Site: site}
			by[site] = f
		}
		return f
	}
	for _, run := range r.Runs {
		for _, s := range run.Stats.Sites {
			f := get(s.Site)
			f.Runs++
			f.Requests += s.Counters[counterRequests]
			f.NotModified += s.Counters[counterNotModified]
			f.NotDue += s.Counters[counterNotDue]
			f.Fresh += s.Counters[counterStored]
		}
	}
	for site, ds := range delays {
		get(site).Delay = crawler.Delays(ds)
	}
	out := make([]SiteFetch, 0, len(by))
	for _, site := range slices.Sorted(maps.Keys(by)) {
		f := by[site]
		if f.Fresh > 0 {
			f.PerNew = float64(f.Requests) / float64(f.Fresh)
		}
		out = append(out, *f)
	}
	return out
}
