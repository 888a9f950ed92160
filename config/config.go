// Package config reads the crawler's site file (configs/sites.yaml).
//
// Loading follows three steps: defaults, then a strict YAML parse in which
// unknown keys are errors, then Validate, which reports every problem at once
// with the path of the offending value ("sites[1].delay: must be > 0").
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/cascadia"
	"go.yaml.in/yaml/v3"
	"golang.org/x/net/html/charset"
)

// Defaults. Each is the value a site or section gets when the file is silent.
const (
	DefaultStorage       = "data/news.db"
	DefaultUserAgent     = "newscrawl/0.1 (+https://example.org/newscrawl; crawler contact)"
	DefaultDelay         = time.Second
	DefaultParallelism   = 2
	DefaultMaxDepth      = 3
	DefaultTimeout       = 20 * time.Second
	DefaultConnectTO     = 10 * time.Second
	DefaultMaxBody       = 10 << 20 // decompressed bytes; portal article pages are 20-500 KB
	DefaultRetries       = 3
	DefaultMaxRedirects  = 5
	DefaultMaxURLLength  = 2048
	DefaultMaxCrawlDelay = 60 * time.Second
	DefaultMaxPages      = 0 // unlimited
	// DefaultHamming is Manku et al. (2007)'s k=3 for 64-bit Simhash.
	DefaultHamming = 3
	// DefaultJaccard is SpotSigs' verification threshold; it equals
	// dedup.DefaultJaccard (see there for how it was chosen; a test in
	// package main keeps the two equal).
	DefaultJaccard = 0.35
)

// Duration is a time.Duration that also accepts a day suffix ("30d").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalYAML parses "1s", "500ms", "30d" or a bare number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ParseDuration parses Go durations plus a "d" (day) suffix and bare seconds.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if strings.HasSuffix(s, "d") {
		n, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	return v, nil
}

// Config is the whole site file.
type Config struct {
	Storage   string  `yaml:"storage"`
	UserAgent string  `yaml:"user_agent"`
	Dedup     Dedup   `yaml:"dedup"`
	Fetch     Fetch   `yaml:"fetch"`
	Segment   Segment `yaml:"segment"`
	Sites     []Site  `yaml:"sites"`
}

// Dedup configures the near-duplicate engine.
type Dedup struct {
	Hamming int     `yaml:"hamming"` // Simhash candidate radius
	Jaccard float64 `yaml:"jaccard"` // SpotSigs verification threshold τ
	// Window limits comparison to articles fetched or published within it
	// (0: compare with everything stored).
	Window Duration `yaml:"window"`
	// KeepDuplicateText stores the extracted text of dropped duplicates too.
	KeepDuplicateText bool `yaml:"keep_duplicate_text"`
	// Simhash feature options (candidate generation only: SpotSigs verifies).
	Hash       string `yaml:"hash"`       // fnv1a (default), sdbm (Li Gang et al. 2013) or xxhash
	Weighting  string `yaml:"weighting"`  // tf (default) or tfidf
	TopM       int    `yaml:"top_m"`      // keep the m heaviest features (P-Simhash: 20); 0 keeps all
	JTidf      bool   `yaml:"jtidf"`      // co-occurrence down-weighting (P-Simhash §2.1)
	Positional bool   `yaml:"positional"` // P-Simhash positional signature
	// Antecedents chooses the SpotSigs antecedent set of Li Yan et al.
	// 2017: learned (default: t1/t2 > 0.8, top 100), basic (的 是 在 了) or
	// optimised (t1/t2 > 0.9).
	Antecedents string `yaml:"antecedents"`
}

// Fetch holds fetch limits shared by all sites.
type Fetch struct {
	Timeout        Duration `yaml:"timeout"`
	ConnectTimeout Duration `yaml:"connect_timeout"`
	MaxBody        int64    `yaml:"max_body"` // bytes after decompression
	Retries        int      `yaml:"retries"`
	MaxRedirects   int      `yaml:"max_redirects"`
	MaxURLLength   int      `yaml:"max_url_length"`
	MaxCrawlDelay  Duration `yaml:"max_crawl_delay"` // robots Crawl-delay above this: the host is skipped
	IgnoreRobots   bool     `yaml:"ignore_robots"`
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
	ArticleURL     string   `yaml:"article_url"`
	FollowURL      string   `yaml:"follow_url"`
	Delay          Duration `yaml:"delay"`
	Parallelism    int      `yaml:"parallelism"`
	MaxDepth       int      `yaml:"max_depth"`
	MaxPages       int      `yaml:"max_pages"` // 0: unlimited
	Charset        string   `yaml:"charset"`
	Remove         []string `yaml:"remove"`
	Extract        Extract  `yaml:"extract"`

	delaySet bool
	// Compiled patterns, set by Validate.
	ArticleRe *regexp.Regexp `yaml:"-"`
	FollowRe  *regexp.Regexp `yaml:"-"`
}

// Extract holds per-site selector overrides for sites where the generic path fails.
type Extract struct {
	Body  string `yaml:"body"`
	Title string `yaml:"title"`
	Time  string `yaml:"time"`
}

// UnmarshalYAML decodes a site strictly and notes whether delay was given
// (delay: 0 is legal and means "no delay", distinct from absent).
//
// yaml.v3 does not carry the decoder's KnownFields setting into a custom
// unmarshaler, so unknown keys are checked here against the struct tags.
func (s *Site) UnmarshalYAML(n *yaml.Node) error {
	type plain Site
	if err := checkKeys(n, reflect.TypeOf(plain{}), "config.Site"); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "delay" {
			s.delaySet = true
		}
	}
	p := plain(*s)
	if err := n.Decode(&p); err != nil {
		return err
	}
	set := s.delaySet
	*s = Site(p)
	s.delaySet = set
	return nil
}

// checkKeys reports the first mapping key of n (recursively, through nested
// structs) that has no field in t.
func checkKeys(n *yaml.Node, t reflect.Type, name string) error {
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			fields[tag] = t.Field(i).Type
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		if !ok {
			return fmt.Errorf("line %d: field %s not found in type %s", k.Line, k.Value, name)
		}
		if err := checkKeys(n.Content[i+1], ft, ft.String()); err != nil {
			return err
		}
	}
	return nil
}

// Default returns a configuration with every default set and no sites.
func Default() Config {
	return Config{
		Storage:   DefaultStorage,
		UserAgent: DefaultUserAgent,
		Dedup:     Dedup{Hamming: DefaultHamming, Jaccard: DefaultJaccard},
		Fetch: Fetch{
			Timeout:        Duration(DefaultTimeout),
			ConnectTimeout: Duration(DefaultConnectTO),
			MaxBody:        DefaultMaxBody,
			Retries:        DefaultRetries,
			MaxRedirects:   DefaultMaxRedirects,
			MaxURLLength:   DefaultMaxURLLength,
			MaxCrawlDelay:  Duration(DefaultMaxCrawlDelay),
		},
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

// Parse decodes a site file over the defaults and validates it.
func Parse(r io.Reader) (Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, 4<<20))
	if err != nil {
		return Config{}, err
	}
	c := Default()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("parse: %w", err)
	}
	for i := range c.Sites {
		s := &c.Sites[i]
		if !s.delaySet {
			s.Delay = Duration(DefaultDelay)
		}
		if s.Parallelism == 0 {
			s.Parallelism = DefaultParallelism
		}
		if s.MaxDepth == 0 {
			s.MaxDepth = DefaultMaxDepth
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// ValidationError lists every problem found, each with its path.
type ValidationError struct{ Problems []string }

func (e *ValidationError) Error() string {
	return "invalid config:\n  " + strings.Join(e.Problems, "\n  ")
}

// Validate checks every value and compiles the URL patterns. It reports all
// problems at once as a *ValidationError.
func (c *Config) Validate() error {
	var p []string
	add := func(path, format string, a ...any) { p = append(p, path+": "+fmt.Sprintf(format, a...)) }
	if strings.TrimSpace(c.Storage) == "" {
		add("storage", "must not be empty")
	}
	if strings.TrimSpace(c.UserAgent) == "" {
		add("user_agent", "must not be empty")
	}
	if c.Dedup.Hamming < 0 || c.Dedup.Hamming > 16 {
		add("dedup.hamming", "must be in [0, 16], got %d", c.Dedup.Hamming)
	}
	if c.Dedup.Jaccard <= 0 || c.Dedup.Jaccard > 1 {
		add("dedup.jaccard", "must be in (0, 1], got %g", c.Dedup.Jaccard)
	}
	if c.Dedup.Window < 0 {
		add("dedup.window", "must be >= 0")
	}
	switch c.Dedup.Hash {
	case "", "fnv1a", "sdbm", "xxhash":
	default:
		add("dedup.hash", "must be fnv1a, sdbm or xxhash, got %q", c.Dedup.Hash)
	}
	switch c.Dedup.Weighting {
	case "", "tf", "tfidf":
	default:
		add("dedup.weighting", "must be tf or tfidf, got %q", c.Dedup.Weighting)
	}
	switch c.Dedup.Antecedents {
	case "", "learned", "basic", "optimised":
	default:
		add("dedup.antecedents", "must be learned, basic or optimised, got %q", c.Dedup.Antecedents)
	}
	if c.Dedup.TopM < 0 {
		add("dedup.top_m", "must be >= 0")
	}
	f := c.Fetch
	if f.Timeout <= 0 {
		add("fetch.timeout", "must be > 0")
	}
	if f.ConnectTimeout <= 0 {
		add("fetch.connect_timeout", "must be > 0")
	}
	if f.MaxBody <= 0 {
		add("fetch.max_body", "must be > 0")
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
	if f.MaxCrawlDelay <= 0 {
		add("fetch.max_crawl_delay", "must be > 0")
	}
	for _, path := range []struct{ key, val string }{{"segment.stopwords", c.Segment.Stopwords}, {"segment.synonyms", c.Segment.Synonyms}} {
		if path.val != "" {
			if _, err := os.Stat(path.val); err != nil {
				add(path.key, "%v", err)
			}
		}
	}
	if len(c.Sites) == 0 {
		add("sites", "at least one site is required")
	}
	names := map[string]int{}
	for i := range c.Sites {
		s := &c.Sites[i]
		at := fmt.Sprintf("sites[%d]", i)
		if s.Name == "" {
			add(at+".name", "must not be empty")
		} else if j, dup := names[s.Name]; dup {
			add(at+".name", "%q already used by sites[%d]", s.Name, j)
		} else {
			names[s.Name] = i
		}
		if len(s.StartURLs) == 0 {
			add(at+".start_urls", "at least one URL is required")
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
		for j, d := range s.AllowedDomains {
			if d == "" || strings.ContainsAny(d, "/ ") || strings.Count(d, ":") > 1 {
				add(fmt.Sprintf("%s.allowed_domains[%d]", at, j), "must be a host name or host:port, got %q", d)
			}
		}
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
		for j, sel := range s.Remove {
			if _, err := cascadia.ParseGroup(sel); err != nil || strings.TrimSpace(sel) == "" {
				add(fmt.Sprintf("%s.remove[%d]", at, j), "invalid CSS selector %q", sel)
			}
		}
		for _, x := range []struct{ key, sel string }{{"body", s.Extract.Body}, {"title", s.Extract.Title}, {"time", s.Extract.Time}} {
			if x.sel == "" {
				continue
			}
			if _, err := cascadia.ParseGroup(x.sel); err != nil {
				add(at+".extract."+x.key, "invalid CSS selector %q", x.sel)
			}
		}
	}
	if len(p) > 0 {
		return &ValidationError{Problems: p}
	}
	return nil
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
	host = strings.TrimSuffix(host, ".")
	for _, d := range domains {
		d = strings.ToLower(d)
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

// KnownCharset reports whether label names an encoding the decoder knows.
func KnownCharset(label string) bool {
	e, _ := charset.Lookup(label)
	return e != nil
}
