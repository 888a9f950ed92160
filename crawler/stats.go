package crawler

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// SiteStats are the counters of one site for one run.
type SiteStats struct {
	Name     string `json:"site"`
	Requests int64  `json:"requests"` // HTTP requests sent: attempts, redirect hops excluded, robots.txt included
	Fetched  int64  `json:"fetched"`  // pages with a complete response (any status)
	Bytes    int64  `json:"bytes"`    // decompressed body bytes of fetched pages

	Articles   int64 `json:"articles"`    // article pages handed to the Processor
	Stored     int64 `json:"stored"`      // ... that it stored
	Duplicates int64 `json:"duplicates"`  // ... that it dropped as near-duplicates
	NotArticle int64 `json:"not_article"` // list and other pages, plus article URLs without an article
	Errors     int64 `json:"errors"`      // pages recorded with an error outcome

	ErrorKinds map[string]int `json:"error_kinds,omitempty"` // error pages by kind

	RobotsBlocked int64 `json:"robots_blocked"` // URLs not fetched because robots.txt disallows them (not stored as pages)
	Retries       int64 `json:"retries"`        // extra attempts after transient failures

	SkippedDepth     int64 `json:"skipped_depth"`      // in-scope links beyond max_depth (link occurrences)
	SkippedURLLength int64 `json:"skipped_url_length"` // links longer than fetch.max_url_length
	SkippedTrap      int64 `json:"skipped_trap"`       // links with repeated or too many path segments
	SkippedExtension int64 `json:"skipped_extension"`  // links to non-HTML file types
	SkippedLinkCap   int64 `json:"skipped_link_cap"`   // links of a page beyond fetch.max_links_per_page (not read)
	SkippedDecided   int64 `json:"skipped_decided"`    // queued URLs (or redirect targets) already decided
	ArticleLinks     int64 `json:"article_links"`      // distinct links that matched article_url
	Queued           int64 `json:"queued"`             // URLs added to the frontier

	// List surfaces (list pages, sitemaps, feeds, APIs): answers 304 Not
	// Modified to a conditional request, and surfaces not fetched because
	// they were not due (back-off) or another process claimed them.
	NotModified    int64 `json:"not_modified"`
	SurfacesNotDue int64 `json:"surfaces_not_due"`

	// Lead images (Response.FetchImage): fetched, refused for their size
	// (fetch.max_image), and not fetched or failed for another reason
	// (robots.txt, outside allowed_domains, HTTP error, not an image).
	Images         int64 `json:"images"`
	ImageBytes     int64 `json:"image_bytes"`
	ImagesTooLarge int64 `json:"images_too_large"`
	ImagesSkipped  int64 `json:"images_skipped"`

	// Multi-page articles (Response.FetchPage): later pages fetched for
	// their article, those that could not be had (refused or failed), and
	// article pages recorded as a page of an article (outcome part)
	// instead of an article of their own.
	ArticlePages       int64 `json:"article_pages"`
	ArticlePagesFailed int64 `json:"article_pages_failed"`
	Parts              int64 `json:"parts"`

	// Sources counts what each discovery source (sitemap, feed, api,
	// inline scripts) gave; per site only (Add leaves it out of totals).
	Sources []SourceStats `json:"sources,omitempty"`
}

// Add accumulates o into s (Name is kept).
func (s *SiteStats) Add(o SiteStats) {
	s.Requests += o.Requests
	s.Fetched += o.Fetched
	s.Bytes += o.Bytes
	s.Articles += o.Articles
	s.Stored += o.Stored
	s.Duplicates += o.Duplicates
	s.NotArticle += o.NotArticle
	s.Errors += o.Errors
	for k, v := range o.ErrorKinds {
		if s.ErrorKinds == nil {
			s.ErrorKinds = make(map[string]int)
		}
		s.ErrorKinds[k] += v
	}
	s.RobotsBlocked += o.RobotsBlocked
	s.Retries += o.Retries
	s.SkippedDepth += o.SkippedDepth
	s.SkippedURLLength += o.SkippedURLLength
	s.SkippedTrap += o.SkippedTrap
	s.SkippedExtension += o.SkippedExtension
	s.SkippedLinkCap += o.SkippedLinkCap
	s.SkippedDecided += o.SkippedDecided
	s.ArticleLinks += o.ArticleLinks
	s.Queued += o.Queued
	s.NotModified += o.NotModified
	s.SurfacesNotDue += o.SurfacesNotDue
	s.Images += o.Images
	s.ImageBytes += o.ImageBytes
	s.ImagesTooLarge += o.ImagesTooLarge
	s.ImagesSkipped += o.ImagesSkipped
	s.ArticlePages += o.ArticlePages
	s.ArticlePagesFailed += o.ArticlePagesFailed
	s.Parts += o.Parts
}

// RunStats converts s to the store's per-run counters.
func (s SiteStats) RunStats() storage.RunStats {
	return storage.RunStats{Fetched: int(s.Fetched), Stored: int(s.Stored), Duplicates: int(s.Duplicates),
		NotArticle: int(s.NotArticle), Errors: int(s.Errors)}
}

// Snapshot is the state of a run at one moment, passed to Options.Progress.
type Snapshot struct {
	Elapsed time.Duration `json:"elapsed"`
	Sites   []SiteStats   `json:"sites"` // in config order
	Total   SiteStats     `json:"total"`
	Queued  int64         `json:"queued"` // URLs added to the frontier so far in this run (= Total.Queued)
}

// Totals returns the run totals as the store records them (storage.Run.Stats).
func (s Summary) Totals() storage.RunStats { return s.Total.RunStats() }

// SiteSummary is the outcome of a run for one site.
type SiteSummary struct {
	SiteStats
	Warnings []string `json:"warnings,omitempty"`
	// Discovery is the discovery delay of the articles the run stored
	// (their published_at to their fetch), filled in by the caller that
	// can read them back (the pipeline); zero when unknown.
	Discovery DelayStats `json:"discovery_delay"`
}

// DelayStats summarises delays: how many, their median and 90th
// percentile (nearest rank).
type DelayStats struct {
	N      int           `json:"n"`
	Median time.Duration `json:"median"`
	P90    time.Duration `json:"p90"`
}

// Delays summarises ds (in any order; ds is sorted in place).
func Delays(ds []time.Duration) DelayStats {
	if len(ds) == 0 {
		return DelayStats{}
	}
	slices.Sort(ds)
	rank := func(q float64) time.Duration {
		i := int(math.Ceil(q*float64(len(ds)))) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return DelayStats{N: len(ds), Median: rank(0.5), P90: rank(0.9)}
}

// Summary is the outcome of a run.
type Summary struct {
	RunID       int64         `json:"run_id"`
	Duration    time.Duration `json:"duration"`
	Interrupted bool          `json:"interrupted"` // the context was cancelled before the frontier emptied
	// Completed: the frontier emptied and was reset, so the next run starts
	// again from the start URLs.
	Completed    bool          `json:"completed"`
	FrontierLeft int           `json:"frontier_left"` // items left for the next run (all sites)
	Sites        []SiteSummary `json:"sites"`
	Total        SiteStats     `json:"total"`
	Warnings     []string      `json:"warnings,omitempty"` // every site's warnings, prefixed with the site name
	// NothingFetched: the run was not interrupted, it sent requests, and
	// not one page (start page or any other) came back as a 2xx HTML page:
	// every host unreachable or every start page failing. Cron should hear
	// about it (the crawl command exits with its own code).
	NothingFetched bool `json:"nothing_fetched"`
}

// siteCounters are the live counters of one site.
type siteCounters struct {
	requests, fetched, bytes                           atomic.Int64
	articles, stored, duplicates, notArticle, errPages atomic.Int64
	robotsBlocked, retries                             atomic.Int64
	skipDepth, skipLength, skipTrap, skipExt, skipDone atomic.Int64
	skipLinkCap                                        atomic.Int64
	articleLinks, queued                               atomic.Int64
	notModified, surfacesNotDue                        atomic.Int64
	images, imageBytes, imagesTooLarge, imagesSkipped  atomic.Int64
	articlePages, articlePagesFailed, parts            atomic.Int64
	startOK, startFailed                               atomic.Int64 // start URLs fetched (2xx HTML) / not fetched this run

	lastStartErr string // why the last start URL could not be fetched (under mu)

	sources *sourceBook // per-source counters of the discovery surfaces

	mu       sync.Mutex
	errors   map[string]int
	warnings []string
	warned   map[string]bool
}

func newSiteCounters() *siteCounters {
	return &siteCounters{errors: make(map[string]int), warned: make(map[string]bool), sources: newSourceBook()}
}

func (c *siteCounters) addError(kind string) {
	c.errPages.Add(1)
	c.mu.Lock()
	c.errors[kind]++
	c.mu.Unlock()
}

// warn records a warning once.
func (c *siteCounters) warn(msg string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warned[msg] {
		return false
	}
	c.warned[msg] = true
	c.warnings = append(c.warnings, msg)
	return true
}

func (c *siteCounters) snapshot(site string) SiteStats {
	s := SiteStats{
		Name:     site,
		Requests: c.requests.Load(), Fetched: c.fetched.Load(), Bytes: c.bytes.Load(),
		Articles: c.articles.Load(), Stored: c.stored.Load(), Duplicates: c.duplicates.Load(),
		NotArticle: c.notArticle.Load(), Errors: c.errPages.Load(),
		RobotsBlocked: c.robotsBlocked.Load(), Retries: c.retries.Load(),
		SkippedDepth: c.skipDepth.Load(), SkippedURLLength: c.skipLength.Load(), SkippedTrap: c.skipTrap.Load(),
		SkippedExtension: c.skipExt.Load(), SkippedDecided: c.skipDone.Load(), SkippedLinkCap: c.skipLinkCap.Load(),
		ArticleLinks: c.articleLinks.Load(), Queued: c.queued.Load(),
		NotModified: c.notModified.Load(), SurfacesNotDue: c.surfacesNotDue.Load(),
		Images: c.images.Load(), ImageBytes: c.imageBytes.Load(), ImagesTooLarge: c.imagesTooLarge.Load(), ImagesSkipped: c.imagesSkipped.Load(),
		ArticlePages: c.articlePages.Load(), ArticlePagesFailed: c.articlePagesFailed.Load(), Parts: c.parts.Load(),
	}
	s.Sources = c.sources.list()
	c.mu.Lock()
	if len(c.errors) > 0 {
		s.ErrorKinds = make(map[string]int, len(c.errors))
		for k, v := range c.errors {
			s.ErrorKinds[k] = v
		}
	}
	c.mu.Unlock()
	return s
}

// noteStart records whether a start URL could be fetched (why == "") or not.
func (c *siteCounters) noteStart(url, why string) {
	if why == "" {
		c.startOK.Add(1)
		return
	}
	c.startFailed.Add(1)
	c.mu.Lock()
	c.lastStartErr = url + ": " + why
	c.mu.Unlock()
}

func (c *siteCounters) lastStartError() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastStartErr
}

func (c *siteCounters) warningList() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.warnings...)
}
