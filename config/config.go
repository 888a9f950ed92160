// Package config reads the crawler's site file (configs/sites.yaml).
//
// Loading follows three steps: defaults, then a walk of the YAML node tree
// (decode.go) that fills the structs and notes every unknown key, duplicate
// key and value of the wrong type, then Validate, which checks the values.
// Every problem is reported at once with its path and line
// ("sites[0].artcle_url (line 14): unknown key (did you mean article_url?)").
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // sites[].timezone names IANA zones on hosts without a zone database

	"github.com/andybalholm/cascadia"
	"go.yaml.in/yaml/v3"
	"golang.org/x/net/html/charset"
	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/idna"
)

// Defaults. Each is the value a site or section gets when the file is silent.
const (
	DefaultStorage     = "data/news.db"
	DefaultUserAgent   = "newscrawl/0.1 (+https://example.org/newscrawl; crawler contact)"
	DefaultDelay       = time.Second
	DefaultParallelism = 2
	DefaultMaxDepth    = 3
	DefaultTimeout     = 20 * time.Second
	DefaultConnectTO   = 10 * time.Second
	DefaultMaxBody     = 10 << 20 // decompressed bytes; portal article pages are 20-500 KB
	// MaxMaxBody is the largest fetch.max_body accepted: a page is held in
	// memory whole, and a larger limit is a typo rather than a wish.
	MaxMaxBody = 1 << 30
	// DefaultMaxImage bounds a lead image (decompressed bytes): news photos
	// are 50 KB to 2 MB.
	DefaultMaxImage = 5 << 20
	// MaxMaxImage is the largest fetch.max_image accepted.
	MaxMaxImage         = 64 << 20
	DefaultRetries      = 3
	DefaultMaxRedirects = 5
	DefaultMaxURLLength = 2048
	// DefaultMaxLinksPerPage: links read from one page (figures in
	// docs/THRESHOLDS.md).
	DefaultMaxLinksPerPage = 5000
	// MaxLinksPerPageLimit is the largest fetch.max_links_per_page accepted.
	MaxLinksPerPageLimit = 1_000_000
	DefaultMaxCrawlDelay = 60 * time.Second
	// DefaultGoneRetry: a page that answered 404 or 410 is tried again a
	// week later (portals restore pulled stories rarely, and late).
	DefaultGoneRetry = 7 * 24 * time.Hour
	// List surfaces that yielded nothing new in DefaultListBackoffAfter
	// runs in a row wait DefaultListBackoffBase, doubling per further empty
	// fetch up to DefaultListBackoffMax: a quiet channel page of a portal
	// is then read four times a day, a busy one every run.
	DefaultListBackoffAfter = 2
	DefaultListBackoffBase  = 15 * time.Minute
	DefaultListBackoffMax   = 6 * time.Hour
	// MaxListBackoffAfter bounds fetch.list_backoff_after.
	MaxListBackoffAfter = 1000
	DefaultMaxPages     = 0 // unlimited
	// DefaultHamming is Manku et al. (2007)'s k=3 for 64-bit Simhash.
	DefaultHamming = 3
	// DefaultJaccard is SpotSigs' verification threshold; it equals
	// dedup.DefaultJaccard (see there for how it was chosen; a test in
	// package main keeps the two equal).
	DefaultJaccard = 0.35
	// LSHMinJaccard is the lowest dedup.jaccard the lsh index serves: its
	// banding's design point (lshindex.DesignJaccard; a test in
	// internal/pipeline keeps them equal).
	LSHMinJaccard = 0.35
)

// Duration is a time.Duration that also accepts a day suffix ("30d").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// ParseDuration parses Go durations ("1s", "500ms", "2h30m"), a day suffix
// ("30d", "1.5d") and bare seconds ("1.5"). Empty, NaN, infinite or
// out-of-range values are errors.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("invalid duration \"\" (want e.g. 1s, 500ms or 30d)")
	}
	num, unit := s, float64(time.Second)
	if strings.HasSuffix(s, "d") {
		num, unit = strings.TrimSuffix(s, "d"), float64(24*time.Hour)
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil {
		v := f * unit
		if math.IsNaN(v) || math.IsInf(v, 0) || v >= math.MaxInt64 || v <= math.MinInt64 {
			return 0, fmt.Errorf("invalid duration %q: out of range", s)
		}
		return time.Duration(v), nil
	} else if num != s {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. 1s, 500ms or 30d)", s)
	}
	return v, nil
}

// Config is the whole site file.
type Config struct {
	Storage string `yaml:"storage"`
	// Redis, when set (redis://host:port/db), is shared by the crawls of
	// one PostgreSQL store: frontier, host politeness and robots.txt.
	Redis     string  `yaml:"redis"`
	UserAgent string  `yaml:"user_agent"`
	Dedup     Dedup   `yaml:"dedup"`
	Fetch     Fetch   `yaml:"fetch"`
	Segment   Segment `yaml:"segment"`
	Fleet     Fleet   `yaml:"fleet"`
	Sites     []Site  `yaml:"sites"`

	// lines maps a value's path ("sites[0].delay") to its line in the
	// file, for Validate's messages; set by Parse.
	lines map[string]int
}

// Dedup configures the near-duplicate engine.
type Dedup struct {
	// Hamming is the Simhash candidate radius of the exhaustive index
	// (dedup.MemoryIndex); no other index takes Hamming candidates, and
	// setting it with them is an error.
	Hamming int     `yaml:"hamming"`
	Jaccard float64 `yaml:"jaccard"` // SpotSigs verification threshold τ
	// Window limits comparison to articles fetched or published within it
	// (0: compare with everything stored).
	Window Duration `yaml:"window"`
	// KeepDuplicateText stores the extracted text of dropped duplicates
	// too (default true: every verdict keeps both sides as evidence; a
	// SQLite store keeps it compressed); false gives the smallest store.
	KeepDuplicateText bool `yaml:"keep_duplicate_text"`
	// Antecedents chooses the SpotSigs antecedent set of Li Yan et al.
	// 2017: learned (default: t1/t2 > 0.8, top 100), basic (的 是 在 了) or
	// optimised (t1/t2 > 0.9).
	Antecedents string `yaml:"antecedents"`
	// PartialReprints is the partial-reprint rule
	// (dedup.Options.PartialReprint, default true): a verified page is
	// stored when it and its stored match both add text of their own under
	// headlines of their own (a follow-up that re-uses an earlier story),
	// recording partial_of and the shared passages; false merges such a
	// page into the story it re-uses.
	PartialReprints bool `yaml:"partial_reprints"`
	// Index is the candidate stage in front of SpotSigs verification:
	// lsh (default: MinHash-LSH plus a head index for briefs, package
	// dedup/lshindex; cost per decision nearly flat in the corpus size),
	// prefix (exact prefix filtering, dedup.PrefixIndex; cost grows with
	// the corpus), exhaustive (dedup.MemoryIndex, the reference) or
	// redis (crawls with redis: and a postgres:// store: lsh's keys in
	// Redis, shared by every process, package dedup/redisindex).
	Index string `yaml:"index"`
}

// Fetch holds fetch limits shared by all sites.
type Fetch struct {
	Timeout        Duration `yaml:"timeout"`
	ConnectTimeout Duration `yaml:"connect_timeout"`
	MaxBody        Size     `yaml:"max_body"` // bytes after decompression
	Retries        int      `yaml:"retries"`
	MaxRedirects   int      `yaml:"max_redirects"`
	MaxURLLength   int      `yaml:"max_url_length"`
	// MaxLinksPerPage: links read from one page, in document order; the
	// rest are counted (skipped_link_cap) and ignored.
	MaxLinksPerPage int      `yaml:"max_links_per_page"`
	MaxCrawlDelay   Duration `yaml:"max_crawl_delay"` // robots Crawl-delay above this: the host is skipped
	IgnoreRobots    bool     `yaml:"ignore_robots"`
	// KeepRaw keeps the HTTP response (status, headers, decompressed body;
	// compressed in the store) of every stored article, for WARC export.
	KeepRaw bool `yaml:"keep_raw"`
	// LeadImages fetches the lead image of article pages whose text is too
	// short to compare (photo pages) and uses its fingerprint as duplicate
	// evidence (dedup.MinImageSimilarity). Images are fingerprinted, never
	// stored.
	LeadImages bool `yaml:"lead_images"`
	// MaxImage bounds a lead image, bytes after decompression; a larger one
	// is refused (counted as images_too_large, logged), never truncated.
	MaxImage Size `yaml:"max_image"`
	// GoneRetry: a URL that answered 404 or 410 is not fetched again
	// until this long after (0: never again).
	GoneRetry Duration `yaml:"gone_retry"`
	// ListInterval is the shortest time between two fetches of one list
	// surface (list page, sitemap, feed, API request) by any of the
	// processes sharing the store (0: every run may fetch it). A fleet of
	// crawls on one postgres:// store sets it below its cron period, so
	// that one process fetches a surface per period.
	ListInterval Duration `yaml:"list_interval"`
	// A list surface that yielded nothing new for ListBackoffAfter runs in
	// a row is fetched ListBackoffBase after its last fetch, then twice
	// that after each further empty fetch, up to ListBackoffMax; one new
	// URL brings it back to every run.
	ListBackoffAfter int      `yaml:"list_backoff_after"`
	ListBackoffBase  Duration `yaml:"list_backoff_base"`
	ListBackoffMax   Duration `yaml:"list_backoff_max"`
}

// Segment configures segmentation and features.
type Segment struct {
	Stopwords string `yaml:"stopwords"` // extra stopword file, one per line
	Synonyms  string `yaml:"synonyms"`  // Cilin-format lexicon for synonym normalisation
}

// Site is one crawled portal.
type Site struct {
	Name           string   `yaml:"name"`
	StartURLs      []string `yaml:"start_urls"`
	AllowedDomains []string `yaml:"allowed_domains"`
	// ImageDomains are further hosts (as in allowed_domains) a page's lead
	// image may come from: the portal's image servers. Only images are
	// fetched from them (fetch.lead_images), under the same robots.txt and
	// politeness rules; no page of theirs is crawled.
	ImageDomains []string `yaml:"image_domains"`
	ArticleURL   string   `yaml:"article_url"`
	FollowURL    string   `yaml:"follow_url"`
	Delay        Duration `yaml:"delay"`
	Parallelism  int      `yaml:"parallelism"`
	MaxDepth     int      `yaml:"max_depth"`
	MaxPages     int      `yaml:"max_pages"` // 0: unlimited
	Charset      string   `yaml:"charset"`
	Remove       []string `yaml:"remove"`
	Extract      Extract  `yaml:"extract"`
	// Sitemaps, Feeds and APIs are list surfaces besides start_urls, read
	// at the start of every run: sitemaps or sitemap indexes (.xml or
	// .xml.gz, sitemaps.org and Google News tags), feeds (RSS, Atom, JSON
	// Feed) and JSON or JSONP list endpoints. The robots.txt "Sitemap:"
	// lines of the hosts of the site's start URLs and surfaces are read
	// too. Every URL they list must still match article_url (or
	// follow_url) and allowed_domains.
	Sitemaps []string `yaml:"sitemaps"`
	Feeds    []string `yaml:"feeds"`
	APIs     []API    `yaml:"apis"`

	// Timezone is the IANA zone (Asia/Shanghai, Asia/Hong_Kong) in which
	// the site writes times without a zone and resolves relative dates
	// (3小时前, 昨天 10:20); empty is China Standard Time.
	Timezone string `yaml:"timezone"`

	// SourceNames are the names the site publishes under in 来源 lines
	// (新华网's: [新华社, 新华网]): a cluster whose 来源 is one of them
	// has this site's copy as its original (export's representative).
	SourceNames []string `yaml:"source_names"`

	// Compiled patterns, set by Validate.
	ArticleRe *regexp.Regexp `yaml:"-"`
	FollowRe  *regexp.Regexp `yaml:"-"`
	// Location is Timezone loaded by Validate (nil when empty).
	Location *time.Location `yaml:"-"`
}

// API is one JSON or JSONP list endpoint of a site. Its file form names
// the key url twice: the endpoint (an absolute URL) and the item field
// holding the article URL (a field name); the decoder tells them apart by
// their values (see decoder.api).
type API struct {
	URL         string `yaml:"url"`   // endpoint; {page} is replaced by 1..pages
	Pages       int    `yaml:"pages"` // pages fetched per run, 1..MaxAPIPages
	Method      string `yaml:"method"`
	Body        string `yaml:"body"` // POST body; {page} is replaced too
	ContentType string `yaml:"content_type"`
	Items       string `yaml:"items"` // dotted path to the item array; "" is the root
	// ItemURL is the item field holding the article URL (the second url
	// key); URLTemplate instead builds it from item fields ("{id}").
	ItemURL     string `yaml:"-"`
	URLTemplate string `yaml:"url_template"`
	Time        string `yaml:"time"` // optional item field: unix seconds or a date string
}

// Defaults and limits of an api entry.
const (
	// MaxAPIPages bounds pages: a list endpoint's first pages hold what
	// was published since the last run; a larger value is a typo or a
	// crawl of the archive, which a list endpoint is not for.
	MaxAPIPages        = 50
	DefaultAPIMethod   = "GET"
	DefaultContentType = "application/json"
	// PagePlaceholder is replaced by the page number in an api's url and
	// body.
	PagePlaceholder = "{page}"
)

// DefaultAPI returns an api entry with its defaults set.
func DefaultAPI() API { return API{Pages: 1, Method: DefaultAPIMethod} }

// HasSources reports whether the site has a list surface besides its
// start URLs.
func (s *Site) HasSources() bool {
	return len(s.Sitemaps) > 0 || len(s.Feeds) > 0 || len(s.APIs) > 0
}

// Extract holds per-site selector overrides for sites where the generic path fails.
type Extract struct {
	Body  string `yaml:"body"`
	Title string `yaml:"title"`
	Time  string `yaml:"time"`
	// Pager names the pager block of the site's multi-page articles
	// (People's Daily: "div.zdfy") when the generic pager rule misses it.
	Pager string `yaml:"pager"`
}

// DefaultSite returns a site with the per-site defaults set; a site in the
// file starts from it, so a key that is present (max_depth: 0, delay: 0s)
// always keeps its value.
func DefaultSite() Site {
	return Site{Delay: Duration(DefaultDelay), Parallelism: DefaultParallelism, MaxDepth: DefaultMaxDepth}
}

// Default returns a configuration with every default set and no sites.
func Default() Config {
	return Config{
		Storage:   DefaultStorage,
		UserAgent: DefaultUserAgent,
		Dedup:     Dedup{Hamming: DefaultHamming, Jaccard: DefaultJaccard, KeepDuplicateText: true, PartialReprints: true},
		Fetch: Fetch{
			Timeout:          Duration(DefaultTimeout),
			ConnectTimeout:   Duration(DefaultConnectTO),
			MaxBody:          DefaultMaxBody,
			LeadImages:       true,
			MaxImage:         DefaultMaxImage,
			Retries:          DefaultRetries,
			MaxRedirects:     DefaultMaxRedirects,
			MaxURLLength:     DefaultMaxURLLength,
			MaxLinksPerPage:  DefaultMaxLinksPerPage,
			MaxCrawlDelay:    Duration(DefaultMaxCrawlDelay),
			GoneRetry:        Duration(DefaultGoneRetry),
			ListBackoffAfter: DefaultListBackoffAfter,
			ListBackoffBase:  Duration(DefaultListBackoffBase),
			ListBackoffMax:   Duration(DefaultListBackoffMax),
		},
		Fleet: DefaultFleet(),
	}
}

// Load reads, parses and validates a site file.
func Load(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	c, err := Parse(f)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a site file over the defaults and validates it. Every
// problem (YAML syntax, unknown or duplicate keys, values of the wrong type,
// invalid values) is returned at once in a *ValidationError, each with its
// path and line. A file larger than MaxFileSize is an error.
func Parse(r io.Reader) (Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return Config{}, fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxFileSize {
		return Config{}, &ValidationError{Problems: []Problem{{Msg: fmt.Sprintf("file is larger than the %s limit", Size(MaxFileSize))}}}
	}
	c := Default()
	d := &decoder{lines: map[string]int{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF): // empty file: Validate says what is missing
	case err != nil:
		return Config{}, &ValidationError{Problems: []Problem{syntaxProblem(data, err)}}
	default:
		var next yaml.Node
		if err := dec.Decode(&next); err == nil {
			d.add("", next.Line, "a second YAML document: a site file holds one")
		} else if !errors.Is(err, io.EOF) {
			d.add("", 0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if len(doc.Content) == 1 {
			d.mapping(doc.Content[0], "", reflect.ValueOf(&c).Elem(), 0)
		}
	}
	c.lines = d.lines
	// The values are validated even when some could not be decoded (those
	// keep their defaults), so that one wrong type does not hide every
	// invalid value after it; a value's own decoding problem is not
	// repeated by its validation.
	problems := append(d.problems, notUnder(c.problems(), d.problems)...)
	if len(d.problems) > 0 {
		// In file order, problems without a line last.
		slices.SortStableFunc(problems, func(a, b Problem) int {
			return cmp.Compare(lineOrder(a.Line), lineOrder(b.Line))
		})
	}
	if len(problems) > 0 {
		return Config{}, newValidationError(problems)
	}
	return c, nil
}

func lineOrder(line int) int {
	if line == 0 {
		return math.MaxInt
	}
	return line
}

// notUnder returns the problems of p whose path is neither the path of a
// problem of decoded, nor inside it, nor above it ("sites" and
// "sites[0].delay" cover each other).
func notUnder(p, decoded []Problem) []Problem {
	var out []Problem
	for _, v := range p {
		covered := false
		for _, d := range decoded {
			if d.Path != "" && (pathWithin(v.Path, d.Path) || pathWithin(d.Path, v.Path)) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, v)
		}
	}
	return out
}

// pathWithin reports whether path is outer or a value inside it.
func pathWithin(path, outer string) bool {
	if !strings.HasPrefix(path, outer) {
		return false
	}
	rest := path[len(outer):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// ValidationError lists every problem found, each with its path and line.
type ValidationError struct{ Problems []Problem }

func newValidationError(p []Problem) *ValidationError {
	if len(p) > maxProblems {
		more := len(p) - maxProblems
		p = append(p[:maxProblems:maxProblems], Problem{Msg: fmt.Sprintf("… and %d more problems", more)})
	}
	return &ValidationError{Problems: p}
}

func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return "invalid config:\n  " + strings.Join(lines, "\n  ")
}

// Validate checks every value and compiles the URL patterns. It reports all
// problems at once as a *ValidationError.
func (c *Config) Validate() error {
	if p := c.problems(); len(p) > 0 {
		return newValidationError(p)
	}
	return nil
}

// problems lists every problem of Validate.
func (c *Config) problems() []Problem {
	var p []Problem
	// A path may carry a "#tag" after the path shown (the second url key
	// of an api entry): its line is recorded under the whole path.
	add := func(path, format string, a ...any) {
		shown, _, _ := strings.Cut(path, "#")
		p = append(p, Problem{Path: shown, Line: c.lines[path], Msg: fmt.Sprintf(format, a...)})
	}
	c.validateGlobal(add)
	c.validateFetch(add)
	c.validateSegment(add)
	c.validateFleet(add)
	if len(c.Sites) == 0 {
		add("sites", "at least one site is required")
	}
	names := map[string]int{}
	for i := range c.Sites {
		c.Sites[i].validate(fmt.Sprintf("sites[%d]", i), i, names, add)
	}
	c.validateSourceNames(add)
	return p
}

// addFunc records a problem at a path.
type addFunc func(path, format string, a ...any)

// validateGlobal checks storage, user_agent and dedup.
func (c *Config) validateGlobal(add addFunc) {
	if strings.TrimSpace(c.Storage) == "" {
		add("storage", "must not be empty")
	}
	if c.Redis != "" && !IsRedisURL(c.Redis) {
		add("redis", "must be a redis://, rediss:// or unix:// URL, got %q", redactURL(c.Redis))
	}
	if strings.TrimSpace(c.UserAgent) == "" {
		add("user_agent", "must not be empty")
	} else if !httpguts.ValidHeaderFieldValue(c.UserAgent) {
		add("user_agent", "must not contain control characters (CR, LF, …), got %q", c.UserAgent)
	}
	if c.Dedup.Hamming < 0 || c.Dedup.Hamming > 16 {
		add("dedup.hamming", "must be in [0, 16], got %d", c.Dedup.Hamming)
	} else if (c.lines["dedup.hamming"] > 0 || c.Dedup.Hamming != 0 && c.Dedup.Hamming != DefaultHamming) && c.Dedup.Index != "exhaustive" {
		add("dedup.hamming", "changes nothing under dedup.index %s: only exhaustive takes Simhash candidates within a Hamming radius; remove it", cmp.Or(c.Dedup.Index, "lsh"))
	}
	if !(c.Dedup.Jaccard > 0 && c.Dedup.Jaccard <= 1) { // NaN fails too
		add("dedup.jaccard", "must be in (0, 1], got %g", c.Dedup.Jaccard)
	}
	if c.Dedup.Window < 0 {
		add("dedup.window", "must be >= 0")
	}
	switch c.Dedup.Antecedents {
	case "", "learned", "basic", "optimised":
	default:
		add("dedup.antecedents", "must be learned, basic or optimised, got %q", c.Dedup.Antecedents)
	}
	switch c.Dedup.Index {
	case "", "lsh", "redis":
		// The banding is tuned for τ = 0.35 (dedup/lshindex): a lower τ
		// would lose pairs between it and 0.35 without a word.
		if c.Dedup.Jaccard > 0 && c.Dedup.Jaccard < LSHMinJaccard {
			add("dedup.index", "%s needs dedup.jaccard >= %g, got %g (use index: prefix for a lower threshold)", cmp.Or(c.Dedup.Index, "lsh"), LSHMinJaccard, c.Dedup.Jaccard)
		}
		if c.Dedup.Index == "redis" && c.Redis == "" {
			add("dedup.index", "redis (the index shared in Redis) needs redis:")
		}
	case "prefix", "exhaustive":
	default:
		add("dedup.index", "must be lsh, prefix, exhaustive or redis, got %q", c.Dedup.Index)
	}
}

// validateFetch checks the fetch section.
func (c *Config) validateFetch(add addFunc) {
	f := c.Fetch
	if f.Timeout <= 0 {
		add("fetch.timeout", "must be > 0")
	}
	if f.ConnectTimeout <= 0 {
		add("fetch.connect_timeout", "must be > 0")
	}
	if f.MaxBody <= 0 || f.MaxBody > MaxMaxBody {
		add("fetch.max_body", "must be in [1, %s], got %d", Size(MaxMaxBody), int64(f.MaxBody))
	}
	if f.MaxImage <= 0 || f.MaxImage > MaxMaxImage {
		add("fetch.max_image", "must be in [1, %s], got %d", Size(MaxMaxImage), int64(f.MaxImage))
	}
	if f.Retries < 0 || f.Retries > 10 {
		add("fetch.retries", "must be in [0, 10], got %d", f.Retries)
	}
	if f.MaxRedirects < 0 || f.MaxRedirects > 20 {
		add("fetch.max_redirects", "must be in [0, 20], got %d", f.MaxRedirects)
	}
	if f.MaxURLLength < 64 {
		add("fetch.max_url_length", "must be >= 64, got %d", f.MaxURLLength)
	}
	if f.MaxLinksPerPage < 1 || f.MaxLinksPerPage > MaxLinksPerPageLimit {
		add("fetch.max_links_per_page", "must be in [1, %d], got %d", MaxLinksPerPageLimit, f.MaxLinksPerPage)
	}
	if f.MaxCrawlDelay <= 0 {
		add("fetch.max_crawl_delay", "must be > 0")
	}
	c.validateRevisit(add)
}

// validateRevisit checks the fetch keys of incremental runs.
func (c *Config) validateRevisit(add addFunc) {
	f := c.Fetch
	if f.GoneRetry < 0 {
		add("fetch.gone_retry", "must be >= 0 (0: never retry), got %s", f.GoneRetry.D())
	}
	if f.ListInterval < 0 {
		add("fetch.list_interval", "must be >= 0, got %s", f.ListInterval.D())
	}
	if f.ListBackoffAfter < 1 || f.ListBackoffAfter > MaxListBackoffAfter {
		add("fetch.list_backoff_after", "must be in [1, %d], got %d", MaxListBackoffAfter, f.ListBackoffAfter)
	}
	if f.ListBackoffBase <= 0 {
		add("fetch.list_backoff_base", "must be > 0, got %s", f.ListBackoffBase.D())
	}
	if f.ListBackoffMax < f.ListBackoffBase {
		add("fetch.list_backoff_max", "must be >= fetch.list_backoff_base (%s), got %s", f.ListBackoffBase.D(), f.ListBackoffMax.D())
	}
}

// validateSegment checks that the segment files exist.
func (c *Config) validateSegment(add addFunc) {
	for _, path := range []struct{ key, val string }{{"segment.stopwords", c.Segment.Stopwords}, {"segment.synonyms", c.Segment.Synonyms}} {
		if path.val != "" {
			if _, err := os.Stat(path.val); err != nil {
				add(path.key, "%v", err)
			}
		}
	}
}

// validate checks site i (at is its path) and compiles its URL patterns;
// names maps the names seen so far to their index.
func (s *Site) validate(at string, i int, names map[string]int, add addFunc) {
	if s.Name == "" {
		add(at+".name", "must not be empty")
	} else if j, dup := names[s.Name]; dup {
		add(at+".name", "%q already used by sites[%d]", s.Name, j)
	} else {
		names[s.Name] = i
	}
	if len(s.StartURLs) == 0 && !s.HasSources() {
		add(at+".start_urls", "at least one URL is required (or sitemaps, feeds or apis)")
	}
	for j, u := range s.StartURLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			add(fmt.Sprintf("%s.start_urls[%d]", at, j), "must be an absolute http(s) URL, got %q", u)
		} else if len(s.AllowedDomains) > 0 && !HostAllowed(pu.Host, s.AllowedDomains) {
			add(fmt.Sprintf("%s.start_urls[%d]", at, j), "host %q is not in allowed_domains", pu.Host)
		}
	}
	if len(s.AllowedDomains) == 0 {
		add(at+".allowed_domains", "at least one domain is required")
	}
	s.validateSources(at, add)
	checkDomains(at+".allowed_domains", s.AllowedDomains, add)
	checkDomains(at+".image_domains", s.ImageDomains, add)
	if s.ArticleURL == "" {
		add(at+".article_url", "must not be empty")
	} else if re, err := regexp.Compile(s.ArticleURL); err != nil {
		add(at+".article_url", "invalid regexp: %v", err)
	} else {
		s.ArticleRe = re
	}
	if s.FollowURL != "" {
		if re, err := regexp.Compile(s.FollowURL); err != nil {
			add(at+".follow_url", "invalid regexp: %v", err)
		} else {
			s.FollowRe = re
		}
	}
	if s.Delay < 0 {
		add(at+".delay", "must be >= 0")
	}
	if s.Parallelism <= 0 || s.Parallelism > 64 {
		add(at+".parallelism", "must be in [1, 64], got %d", s.Parallelism)
	}
	if s.MaxDepth < 0 || s.MaxDepth > 50 {
		add(at+".max_depth", "must be in [0, 50], got %d", s.MaxDepth)
	}
	if s.MaxPages < 0 {
		add(at+".max_pages", "must be >= 0")
	}
	if s.Charset != "" && !KnownCharset(s.Charset) {
		add(at+".charset", "unknown charset %q", s.Charset)
	}
	if s.Timezone != "" {
		if loc, err := time.LoadLocation(s.Timezone); err != nil || s.Timezone == "Local" {
			add(at+".timezone", "unknown time zone %q (an IANA name such as Asia/Shanghai)", s.Timezone)
		} else {
			s.Location = loc
		}
	}
	for j, sel := range s.Remove {
		if _, err := cascadia.ParseGroup(sel); err != nil || strings.TrimSpace(sel) == "" {
			add(fmt.Sprintf("%s.remove[%d]", at, j), "invalid CSS selector %q", sel)
		}
	}
	for _, x := range []struct{ key, sel string }{{"body", s.Extract.Body}, {"title", s.Extract.Title}, {"time", s.Extract.Time}, {"pager", s.Extract.Pager}} {
		if x.sel == "" {
			continue
		}
		if _, err := cascadia.ParseGroup(x.sel); err != nil {
			add(at+".extract."+x.key, "invalid CSS selector %q", x.sel)
		}
	}
}

// checkDomains checks a list of host names or host:port entries.
func checkDomains(at string, domains []string, add addFunc) {
	for j, d := range domains {
		at := fmt.Sprintf("%s[%d]", at, j)
		switch {
		case d == "" || strings.ContainsAny(d, "/ ") || strings.Count(d, ":") > 1:
			add(at, "must be a host name or host:port, got %q", d)
		case strings.Contains(d, "*"):
			add(at, "wildcards are not supported, got %q (an entry allows its subdomains: write %q)", d, strings.TrimLeft(d, "*."))
		case strings.HasPrefix(d, "."):
			add(at, "must not start with a dot, got %q (an entry allows its subdomains: write %q)", d, strings.TrimLeft(d, "."))
		default:
			if _, err := idna.Lookup.ToASCII(strings.TrimSuffix(d, ".")); err != nil && !strings.Contains(d, ":") {
				add(at, "invalid host name %q: %v", d, err)
			}
		}
	}
}

// HostAllowed reports whether hostport (a URL's Host: "host" or
// "host:port") is allowed by domains. An entry "example.com" allows that host
// and its subdomains on any port; an entry "127.0.0.1:8080" allows exactly
// that host and port (several fixture sites share one loopback address).
func HostAllowed(hostport string, domains []string) bool {
	hostport = strings.ToLower(hostport)
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = asciiHost(strings.TrimSuffix(host, "."))
	for _, d := range domains {
		d = strings.ToLower(d)
		if !strings.Contains(d, ":") {
			d = asciiHost(strings.TrimSuffix(d, "."))
		}
		if strings.Contains(d, ":") {
			if hostport == d {
				return true
			}
			continue
		}
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// asciiHost is the IDNA ASCII form of a host name ("新闻.中国" ->
// "xn--efvy88h.xn--fiqs8s"), the form canonical URLs carry, so that an
// entry of allowed_domains written in Unicode matches them (it matched
// nothing: every link of such a site was out of scope). An ASCII name, or
// one IDNA refuses, is returned as it is.
func asciiHost(h string) string {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			if a, err := idna.Lookup.ToASCII(h); err == nil {
				return strings.ToLower(a)
			}
			return h
		}
	}
	return h
}

// KnownCharset reports whether label names an encoding the decoder knows.
func KnownCharset(label string) bool {
	e, _ := charset.Lookup(label)
	return e != nil
}

// IsRedisURL reports whether s has the form of a Redis server URL
// (redis://, rediss:// or unix://, as go-redis parses them).
func IsRedisURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "redis", "rediss":
		return u.Host != ""
	case "unix":
		return u.Path != ""
	}
	return false
}

// redactURL is s with any password replaced, for messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable url)"
	}
	return u.Redacted()
}
