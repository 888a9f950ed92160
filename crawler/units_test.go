package crawler

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
)

func TestExtractLinks(t *testing.T) {
	page := []byte(`<html><head><base href="http://b.example/dir/"><base href="/ignored/">
<script>var s = '<a href="/in-script">';</script><style>a{}</style></head>
<body><a href="/one">1</a><A HREF='two?x=1&amp;y=2'>2</A><a name="x">no href</a><a href="">empty</a>
<map><area href="/three"></map><link href="/style.css"><a href=/four>4</a></body></html>`)
	pl := extractLinks(page, 100)
	hrefs, base := pl.hrefs, pl.base
	if want := []string{"/one", "two?x=1&y=2", "/three", "/four"}; !slices.Equal(hrefs, want) {
		t.Errorf("hrefs %q, want %q", hrefs, want)
	}
	if base != "http://b.example/dir/" {
		t.Errorf("base %q", base)
	}
	pu, _ := url.Parse("http://a.example/x/y.html")
	if got := resolveBase(pu, base).String(); got != "http://b.example/dir/" {
		t.Errorf("resolveBase = %q", got)
	}
	if got := resolveBase(pu, "").String(); got != pu.String() {
		t.Errorf("resolveBase without base = %q", got)
	}
}

func TestIsPathTrap(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/", false},
		{"/12/0615/08/8PTE7SEI0025UESY.html", false},
		{"/c/2011-11-24/doc-i123.shtml", false},
		{"/2012/12/12/a.html", false},
		{"/a/a/a/x.html", true},
		{"/a/b/a/b/a/b/", true},
		{"/1/2/3/4/5/6/7/8/9/10/11/12", false},
		{"/1/2/3/4/5/6/7/8/9/10/11/12/13", true},
	}
	for _, tc := range tests {
		if got := isPathTrap(tc.path); got != tc.want {
			t.Errorf("isPathTrap(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 6, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{"0", 0},
		{"-5", 0},
		{"soon", 0},
		{"Sat, 01 Jun 2024 08:00:30 GMT", 30 * time.Second},
		{"Sat, 01 Jun 2024 07:00:00 GMT", 0},
		{"999999999", 24 * time.Hour},
	}
	for _, tc := range tests {
		if got := parseRetryAfter(tc.v, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestStatusError(t *testing.T) {
	tests := []struct {
		status           int
		retry, permanent bool
	}{
		{404, false, true},
		{410, false, true},
		{403, false, true},
		{300, false, true},
		{408, true, false},
		{429, true, false},
		{500, true, false},
		{503, true, false},
	}
	for _, tc := range tests {
		e := statusError(tc.status, http.Header{}, time.Now())
		if e.Retry != tc.retry || e.Permanent != tc.permanent || e.Kind != httpKind(tc.status) {
			t.Errorf("statusError(%d) = %+v", tc.status, e)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	for attempt := range 40 {
		d := backoff(time.Second, attempt)
		hi := min(time.Second<<min(attempt, 20), maxBackoff)
		if d < hi/2 || d > hi {
			t.Fatalf("backoff(1s, %d) = %s, want in [%s, %s]", attempt, d, hi/2, hi)
		}
	}
}

func TestRobotsGroupMatching(t *testing.T) {
	tests := []struct {
		name, robots string
		path         string
		want         bool
	}{
		{"star group", "User-agent: *\nDisallow: /private/\n", "/private/a", false},
		{"star group allows others", "User-agent: *\nDisallow: /private/\n", "/public/a", true},
		{"exact group wins", "User-agent: *\nDisallow: /\n\nUser-agent: newscrawl\nAllow: /\n", "/a", true},
		{"exact group case-insensitive", "User-agent: *\nAllow: /\n\nUser-agent: NewsCrawl\nDisallow: /a\n", "/a", false},
		{"prefix group does not apply", "User-agent: news\nDisallow: /\n\nUser-agent: *\nAllow: /\n", "/a", true},
		{"longer group does not apply", "User-agent: newscrawlbot\nDisallow: /\n", "/a", true},
		{"other agent only", "User-agent: Baiduspider\nDisallow: /\n", "/a", true},
		{"longest match", "User-agent: *\nDisallow: /a/\nAllow: /a/b/\n", "/a/b/c", true},
		{"wildcard", "User-agent: *\nDisallow: /*.pdf$\n", "/x/y.pdf", false},
		{"query", "User-agent: *\nDisallow: /vote?id=\n", "/vote?id=3", false},
		{"rule before agent dropped", "Disallow: /\nUser-agent: *\nDisallow: /p/\n", "/a", true},
		{"bad crawl-delay dropped", "User-agent: *\nCrawl-delay: soon\nDisallow: /p/\n", "/p/x", false},
		{"robots.txt always allowed", "User-agent: *\nDisallow: /\n", "/robots.txt", true},
		{"empty file", "", "/a", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := parseRobots([]byte(tc.robots), "newscrawl", time.Minute)
			if r.state != robotsOK {
				t.Fatalf("state %v: %s", r.state, r.reason)
			}
			u, _ := url.Parse("http://h" + tc.path)
			if got := r.allowed(u); got != tc.want {
				t.Errorf("allowed(%s) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

func TestRobotsCrawlDelay(t *testing.T) {
	r := parseRobots([]byte("User-agent: *\nCrawl-delay: 2.5\n"), "newscrawl", time.Minute)
	if r.state != robotsOK || r.crawlDelay != 2500*time.Millisecond {
		t.Errorf("rules %+v", r)
	}
	r = parseRobots([]byte("User-agent: *\nCrawl-delay: 120\n"), "newscrawl", time.Minute)
	if r.state != robotsDelayTooLarge {
		t.Errorf("Crawl-delay above the maximum accepted: %+v", r)
	}
	u, _ := url.Parse("http://h/a")
	if r.allowed(u) {
		t.Error("host with a too large Crawl-delay is allowed")
	}
}

// TestRobotsCrawlDelayValues: absurd Crawl-delay values. A delay too large
// for time.Duration ("1e10", "inf") once was ignored as unparsable, so the
// host that asked for the longest wait was crawled at the site's pace.
func TestRobotsCrawlDelayValues(t *testing.T) {
	tests := []struct {
		name, value string
		state       robotsState
		delay       time.Duration // when state is robotsOK
	}{
		{"zero", "0", robotsOK, 0},
		{"fraction", "0.5", robotsOK, 500 * time.Millisecond},
		{"at the limit", "60", robotsOK, time.Minute},
		{"above the limit", "61", robotsDelayTooLarge, 0},
		{"a billion seconds", "1e9", robotsDelayTooLarge, 0},
		{"past time.Duration", "1e10", robotsDelayTooLarge, 0},
		{"past float64", "1e400", robotsDelayTooLarge, 0},
		{"infinite", "inf", robotsDelayTooLarge, 0},
		{"huge integer", "99999999999999999999999", robotsDelayTooLarge, 0},
		{"negative: ignored", "-5", robotsOK, 0},
		{"negative infinite: ignored", "-inf", robotsOK, 0},
		{"NaN: ignored", "NaN", robotsOK, 0},
		{"not a number: ignored", "fast", robotsOK, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := parseRobots([]byte("User-agent: *\nCrawl-delay: "+tc.value+"\n"), "newscrawl", time.Minute)
			if r.state != tc.state {
				t.Fatalf("Crawl-delay %s: state %v (delay %s), want %v", tc.value, r.state, r.crawlDelay, tc.state)
			}
			if r.state == robotsOK && r.crawlDelay != tc.delay {
				t.Errorf("Crawl-delay %s: delay %s, want %s", tc.value, r.crawlDelay, tc.delay)
			}
			if r.state == robotsDelayTooLarge && !strings.Contains(r.reason, "exceeds fetch.max_crawl_delay") {
				t.Errorf("reason %q", r.reason)
			}
		})
	}
}

func TestIsHTML(t *testing.T) {
	tests := []struct {
		ct, body string
		want     bool
	}{
		{"text/html; charset=gbk", "x", true},
		{"application/xhtml+xml", "x", true},
		{"", "<!DOCTYPE html><html>", true},
		{"application/octet-stream", "<html><body>", true},
		{"text/plain", "just text", false},
		{"application/pdf", "%PDF", false},
		{"image/jpeg", "\xff\xd8\xff", false},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.ct != "" {
			h.Set("Content-Type", tc.ct)
		}
		if got := isHTML(h, []byte(tc.body)); got != tc.want {
			t.Errorf("isHTML(%q, %q) = %v", tc.ct, tc.body, got)
		}
	}
}

func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<a href="/x">x</a><base href="/b/">`))
	f.Add([]byte(`<a href='`))
	f.Add([]byte("<script><a href=/no></script><area href=/y>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		hrefs := extractLinks(body, 10).hrefs
		for _, h := range hrefs {
			if h == "" {
				t.Fatal("empty href returned")
			}
		}
	})
}

// TestCompileSiteUnicodeDomain: a site whose start URL and allowed_domains
// are written in Unicode is in scope after canonicalisation (the IDNA
// form): before, the config validated and the crawl failed with "start
// URL ... is outside allowed_domains".
func TestCompileSiteUnicodeDomain(t *testing.T) {
	for _, tc := range []struct {
		name, start string
		domains     []string
	}{
		{"unicode entry", "http://新闻.中国/", []string{"新闻.中国"}},
		{"unicode entry, subdomain", "http://www.新闻.中国/", []string{"新闻.中国"}},
		{"ascii entry, unicode URL", "http://新闻.中国/", []string{"xn--efvy88h.xn--fiqs8s"}},
		{"trailing dot entry", "http://www.example.com/", []string{"example.com."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Site{Name: "s", StartURLs: []string{tc.start}, AllowedDomains: tc.domains, ArticleURL: "x", Parallelism: 1}
			st, err := compileSite(&s)
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse("http://www.xn--efvy88h.xn--fiqs8s/a.html")
			if strings.Contains(tc.start, "example") {
				u, _ = url.Parse("http://news.example.com/a.html")
			}
			if !st.inScope(u) {
				t.Errorf("%s not in scope of %v", u, tc.domains)
			}
		})
	}
}
