package crawler

import (
	"maps"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// Source kinds, as SourceStats.Kind names them.
const (
	SourceRobots  = "robots_sitemap" // a sitemap named by a robots.txt Sitemap: line
	SourceSitemap = "sitemap"        // a sitemap of the site's sitemaps
	SourceFeed    = "feed"
	SourceAPI     = "api"
	SourceScript  = "script" // article URLs inside inline scripts of list pages
)

// Reasons a listed URL was not pushed (SourceStats.Skipped keys).
const (
	SkipBadURL     = "bad_url"     // not a URL that canonicalises (or an API item without one)
	SkipOffDomain  = "off_domain"  // outside allowed_domains (or on a port the site does not use)
	SkipNoMatch    = "no_match"    // matches neither article_url nor follow_url (scripts: not article_url)
	SkipURLLength  = "url_length"  // longer than fetch.max_url_length
	SkipTrap       = "trap"        // repeated or too many path segments
	SkipRobots     = "robots"      // disallowed by robots.txt
	SkipSeen       = "seen"        // already queued or fetched in this run
	SkipDecided    = "decided"     // already decided (or queued) in the store: Push refused it
	SkipDepth      = "depth"       // script links beyond max_depth
	SkipLoop       = "loop"        // a sitemap index naming a sitemap already read
	SkipTooDeep    = "too_deep"    // sitemap index nesting beyond maxSitemapDepth
	SkipTooMany    = "too_many"    // sitemaps beyond maxSitemapsPerSite
	SkipSurfaceOff = "surface_off" // a sitemap index child outside the index's host and allowed_domains
)

// SourceStats count what one discovery source of a site gave in a run:
// a sitemap (with the sitemaps of an index it names), a feed, an api entry
// (all its pages) or the inline scripts of the site's list pages.
type SourceStats struct {
	Kind string `json:"kind"`
	URL  string `json:"url"` // as configured; an api's endpoint with {page}; "" for scripts

	Requests    int64          `json:"requests"`     // surface requests (sitemap index children included, retries excluded)
	NotModified int64          `json:"not_modified"` // answered 304
	NotDue      int64          `json:"not_due"`      // not fetched: not due this run
	Errors      int64          `json:"errors"`       // surfaces that failed (HTTP error, not JSON, not a sitemap...)
	ErrorKinds  map[string]int `json:"error_kinds,omitempty"`
	LastError   string         `json:"last_error,omitempty"`

	Found    int64          `json:"found"`    // URLs listed
	Matched  int64          `json:"matched"`  // in allowed_domains and matching article_url or follow_url
	Articles int64          `json:"articles"` // ... of them matching article_url
	Pushed   int64          `json:"pushed"`   // new to the frontier
	Skipped  map[string]int `json:"skipped,omitempty"`
	Dated    int64          `json:"dated"` // article URLs given a listed time (the first source to date a URL counts it)
}

// sourceBook holds the SourceStats of one site, in the order the sources
// were first used.
type sourceBook struct {
	mu    sync.Mutex
	order []*SourceStats
	by    map[[2]string]*SourceStats
}

func newSourceBook() *sourceBook { return &sourceBook{by: make(map[[2]string]*SourceStats)} }

// update applies f to the stats of source (kind, url), creating them.
func (b *sourceBook) update(kind, url string, f func(*SourceStats)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := [2]string{kind, url}
	s := b.by[k]
	if s == nil {
		s = &SourceStats{Kind: kind, URL: url}
		b.by[k] = s
		b.order = append(b.order, s)
	}
	f(s)
}

func (b *sourceBook) list() []SourceStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]SourceStats, len(b.order))
	for i, s := range b.order {
		out[i] = *s
		out[i].ErrorKinds = maps.Clone(s.ErrorKinds)
		out[i].Skipped = maps.Clone(s.Skipped)
	}
	return out
}

// skip counts n URLs skipped for reason.
func (s *SourceStats) skip(reason string, n int) {
	if n <= 0 {
		return
	}
	if s.Skipped == nil {
		s.Skipped = make(map[string]int)
	}
	s.Skipped[reason] += n
}

// fail counts a failed surface.
func (s *SourceStats) fail(kind, msg string) {
	s.Errors++
	if s.ErrorKinds == nil {
		s.ErrorKinds = make(map[string]int)
	}
	s.ErrorKinds[kind]++
	s.LastError = msg
}

// maxListedTimes bounds the listed times a run keeps (one per URL pushed
// from a source with a time, until its page is fetched): about 150 bytes
// each, so 30 MB at the bound; later times are dropped (the page's own
// time is still read).
const maxListedTimes = 200_000

// maxListedAhead: a listed time further in the future than this is not
// believed (a wrong time zone or a placeholder date).
const maxListedAhead = 24 * time.Hour

// listedTimes maps a canonical URL to the publication time a source gave.
// A URL listed again by a later run (still queued after an interrupted
// run) gets its time again, so the map need not be persisted.
type listedTimes struct {
	mu sync.Mutex
	m  map[string]time.Time
}

func newListedTimes() *listedTimes { return &listedTimes{m: make(map[string]time.Time)} }

// note records t for u when t is believable and u has no time yet; it
// reports whether it did.
func (l *listedTimes) note(u string, t, now time.Time) bool {
	if t.IsZero() || storage.ValidTime("published_at", t) != nil || t.After(now.Add(maxListedAhead)) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.m[u]; ok || len(l.m) >= maxListedTimes {
		return false
	}
	l.m[u] = t
	return true
}

// take returns and forgets the time of the first of urls that has one.
func (l *listedTimes) take(urls ...string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var t time.Time
	for _, u := range urls {
		if v, ok := l.m[u]; ok {
			if t.IsZero() {
				t = v
			}
			delete(l.m, u)
		}
	}
	return t
}
