// Package metrics exposes a crawl's figures to Prometheus
// (github.com/prometheus/client_golang): pages by site and outcome, fetch
// and decision latency histograms, index size, queue depth, robots.txt
// blocks and retries, and the figures of incremental runs (requests, 304s,
// backed-off surfaces, discovery delay). Each crawl builds its own Metrics with its own
// registry (no global state), feeds it from the crawler's progress
// snapshots and the pipeline's timings, and serves it with Handler.
//
// Metric names (all prefixed newscrawl_):
//
//	pages_total{site,outcome}              counter  outcome: stored, duplicate, not_article, error (the site or the network failed), gone (a 4xx answer), as the crawl summary counts them
//	robots_blocked_total{site}             counter  URLs not fetched because robots.txt disallows them
//	retries_total{site}                    counter  extra attempts after transient failures
//	fetched_bytes_total{site}              counter  decompressed body bytes
//	fetch_duration_seconds{site}           histogram one HTTP fetch (all attempts of a page)
//	decision_duration_seconds              histogram decode, extract, fingerprint, decide and commit of an article page
//	index_fingerprints                     gauge    fingerprints in the near-duplicate index
//	queue_depth{site}                      gauge    frontier URLs not yet done
//	requests_total{site}                   counter  HTTP requests sent (robots.txt included)
//	not_modified_total{site}               counter  list surfaces answered 304 Not Modified
//	surfaces_not_due_total{site}           counter  list surfaces skipped: backed off or claimed by another process
//	discovery_delay_seconds{site}          histogram published_at to fetch of each stored article
//
// Requests per new article is requests_total / pages_total{outcome="stored"}.
//
// plus the Go runtime and process collectors (go_*, process_*).
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric name.
const Namespace = "newscrawl"

// Outcome label values of pages_total.
const (
	OutcomeStored     = "stored"
	OutcomeDuplicate  = "duplicate"
	OutcomeNotArticle = "not_article"
	OutcomeError      = "error"
	OutcomeGone       = "gone"
	OutcomePart       = "part" // a later page of a multi-page article
)

// Histogram buckets (seconds). Fetches of portal pages take 50 ms to a few
// seconds on a good day and up to fetch.timeout (20 s by default);
// decisions take milliseconds (extraction median 3.9 ms/page, README).
var (
	FetchBuckets    = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 60}
	DecisionBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}
	// DiscoveryBuckets: portals' list pages show a story within minutes of
	// publication; a cron crawl finds it one period later (5 min to 1 h),
	// a backed-off list up to hours later, an archive crawl days later.
	DiscoveryBuckets = []float64{60, 300, 900, 1800, 3600, 2 * 3600, 6 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400}
)

// SiteCounts are the cumulative counters of one site in a run, as the
// crawler's progress snapshots carry them (crawler.SiteStats).
type SiteCounts struct {
	Site                                  string
	Stored, Duplicates, NotArticle        int64
	Errors, Gone                          int64 // failures of the site or network; 4xx answers (progress.Counts)
	RobotsBlocked, Retries, Bytes         int64
	Requests, NotModified, SurfacesNotDue int64
	Parts                                 int64 // later pages of multi-page articles
}

// Metrics holds one crawl's metrics and their registry. It is safe for
// concurrent use.
type Metrics struct {
	reg      *prometheus.Registry
	pages    *prometheus.CounterVec
	robots   *prometheus.CounterVec
	retries  *prometheus.CounterVec
	bytes    *prometheus.CounterVec
	fetch    *prometheus.HistogramVec
	decision prometheus.Histogram
	index    prometheus.Gauge
	queue    *prometheus.GaugeVec
	requests *prometheus.CounterVec
	notMod   *prometheus.CounterVec
	notDue   *prometheus.CounterVec
	delay    *prometheus.HistogramVec

	mu   sync.Mutex
	last map[string]SiteCounts // counters already added, per site
}

// New returns the metrics of one crawl on a fresh registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "pages_total",
			Help: "Pages recorded, by site and outcome (stored, duplicate, not_article, error: the site or the network failed, gone: a 4xx answer, part: a later page of a multi-page article)."}, []string{"site", "outcome"}),
		robots: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "robots_blocked_total",
			Help: "URLs not fetched because robots.txt disallows them."}, []string{"site"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "retries_total",
			Help: "Extra fetch attempts after transient failures (5xx, 429, timeouts, resets)."}, []string{"site"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "fetched_bytes_total",
			Help: "Decompressed body bytes of fetched pages."}, []string{"site"}),
		fetch: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "fetch_duration_seconds",
			Help: "Time to fetch one page, every attempt included.", Buckets: FetchBuckets}, []string{"site"}),
		decision: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "decision_duration_seconds",
			Help: "Time from a fetched article page to its committed outcome (decode, extract, fingerprint, decide, commit).", Buckets: DecisionBuckets}),
		index: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "index_fingerprints",
			Help: "Fingerprints in the near-duplicate index (stored articles and indexed duplicates)."}),
		queue: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "queue_depth",
			Help: "Frontier URLs not yet done (pending or in flight)."}, []string{"site"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "requests_total",
			Help: "HTTP requests sent (attempts, robots.txt included)."}, []string{"site"}),
		notMod: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "not_modified_total",
			Help: "List surfaces (list pages, sitemaps, feeds, APIs) answered 304 Not Modified."}, []string{"site"}),
		notDue: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "surfaces_not_due_total",
			Help: "List surfaces not fetched: backed off after runs with nothing new, or claimed by another process."}, []string{"site"}),
		delay: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "discovery_delay_seconds",
			Help: "Time from an article's published_at to its fetch, for stored articles.", Buckets: DiscoveryBuckets}, []string{"site"}),
		last: map[string]SiteCounts{},
	}
	m.reg.MustRegister(m.pages, m.robots, m.retries, m.bytes, m.fetch, m.decision, m.index, m.queue,
		m.requests, m.notMod, m.notDue, m.delay,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is the crawl's registry (for tests and for adding collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveSites adds what the cumulative counters grew by since the last
// call. Counters that went down (a new run reusing these Metrics) start
// again from the new value.
func (m *Metrics) ObserveSites(sites []SiteCounts) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range sites {
		old := m.last[s.Site]
		add := func(c prometheus.Counter, now, before int64) {
			if now < before {
				before = 0
			}
			if now > before {
				c.Add(float64(now - before))
			}
		}
		add(m.pages.WithLabelValues(s.Site, OutcomeStored), s.Stored, old.Stored)
		add(m.pages.WithLabelValues(s.Site, OutcomeDuplicate), s.Duplicates, old.Duplicates)
		add(m.pages.WithLabelValues(s.Site, OutcomeNotArticle), s.NotArticle, old.NotArticle)
		add(m.pages.WithLabelValues(s.Site, OutcomeError), s.Errors, old.Errors)
		add(m.pages.WithLabelValues(s.Site, OutcomeGone), s.Gone, old.Gone)
		add(m.pages.WithLabelValues(s.Site, OutcomePart), s.Parts, old.Parts)
		add(m.robots.WithLabelValues(s.Site), s.RobotsBlocked, old.RobotsBlocked)
		add(m.retries.WithLabelValues(s.Site), s.Retries, old.Retries)
		add(m.bytes.WithLabelValues(s.Site), s.Bytes, old.Bytes)
		add(m.requests.WithLabelValues(s.Site), s.Requests, old.Requests)
		add(m.notMod.WithLabelValues(s.Site), s.NotModified, old.NotModified)
		add(m.notDue.WithLabelValues(s.Site), s.SurfacesNotDue, old.SurfacesNotDue)
		m.last[s.Site] = s
	}
}

// ObserveFetch records one page fetch of site that took d.
func (m *Metrics) ObserveFetch(site string, d time.Duration) {
	m.fetch.WithLabelValues(site).Observe(d.Seconds())
}

// ObserveDiscovery records the discovery delay of one stored article of
// site (published_at to fetch).
func (m *Metrics) ObserveDiscovery(site string, d time.Duration) {
	m.delay.WithLabelValues(site).Observe(d.Seconds())
}

// ObserveDecision records one article page's decision time.
func (m *Metrics) ObserveDecision(d time.Duration) { m.decision.Observe(d.Seconds()) }

// SetIndexSize sets the number of fingerprints in the index.
func (m *Metrics) SetIndexSize(n int) { m.index.Set(float64(n)) }

// SetQueueDepth sets the frontier URLs of site not yet done.
func (m *Metrics) SetQueueDepth(site string, n int) { m.queue.WithLabelValues(site).Set(float64(n)) }
