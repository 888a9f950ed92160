package report

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/progress"
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

// delayTally counts a site's discovery delays by the value the page shows
// for them (progress.FormatDelay: whole seconds under a minute, whole
// minutes under an hour, tenths of an hour under two days, tenths of a
// day beyond), keeping for each shown value how many delays show it and
// the least of them. FormatDelay never decreases as the delay grows, so
// the delays showing one value are a run of the sorted delays, and the
// nearest-rank percentile (crawler.Delays) lies in the bin that the
// counts up to that rank reach: the page shows exactly what sorting every
// delay showed. The bins' number depends on how far the delays spread,
// not on how many they are: at most 590 below two days, then ten a day.
type delayTally struct {
	n    int
	bins map[string]delayBin
}

// delayBin is one shown value's count and least delay.
type delayBin struct {
	least time.Duration
	n     int
}

func newDelayTally() *delayTally { return &delayTally{bins: map[string]delayBin{}} }

func (t *delayTally) add(d time.Duration) {
	k := progress.FormatDelay(d)
	b, seen := t.bins[k]
	if !seen || d < b.least {
		b.least = d
	}
	b.n++
	t.bins[k] = b
	t.n++
}

// stats returns the count, median and 90th percentile (nearest rank, as
// crawler.Delays) of the delays; each percentile is the least delay that
// shows as the exact percentile does.
func (t *delayTally) stats() crawler.DelayStats {
	if t.n == 0 {
		return crawler.DelayStats{}
	}
	bins := slices.SortedFunc(maps.Values(t.bins), func(a, b delayBin) int { return cmp.Compare(a.least, b.least) })
	rank := func(q float64) time.Duration {
		i := min(max(int(math.Ceil(q*float64(t.n)))-1, 0), t.n-1)
		seen := 0
		for _, b := range bins {
			if seen += b.n; i < seen {
				return b.least
			}
		}
		return bins[len(bins)-1].least
	}
	return crawler.DelayStats{N: t.n, Median: rank(0.5), P90: rank(0.9)}
}

// siteFetches sums the runs' per-site counters and adds the delays.
func siteFetches(r *Report, delays map[string]*delayTally) []SiteFetch {
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
	for site, t := range delays {
		get(site).Delay = t.stats()
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
