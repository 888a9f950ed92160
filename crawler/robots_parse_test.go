package crawler

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRobotsTruncatedAt500KiB: a robots.txt over the limit is parsed up to
// the limit instead of skipping the host.
func TestRobotsTruncatedAt500KiB(t *testing.T) {
	body := "User-agent: *\nDisallow: /p/\n" + strings.Repeat("# padding line\n", robotsLimit/15+10) + "Disallow: /late/\n"
	r := parseRobots([]byte(body), "newscrawl", 0)
	if r.state != robotsOK || !r.truncated {
		t.Fatalf("state %v truncated %v: %s", r.state, r.truncated, r.reason)
	}
	for path, want := range map[string]bool{"/p/x": false, "/late/x": true, "/a": true} {
		u, _ := url.Parse("http://h" + path)
		if got := r.allowed(u); got != want {
			t.Errorf("allowed(%s) = %v, want %v", path, got, want)
		}
	}
}

// FuzzParseRobots: any robots.txt body (UTF-16 with a byte order mark
// included) parses without a panic into a non-negative Crawl-delay, and
// a host is skipped exactly when that delay is above the limit.
func FuzzParseRobots(f *testing.F) {
	f.Add([]byte("User-agent: *\nCrawl-delay: 1e400\nDisallow: /x/\n"))
	f.Add([]byte(utf16BOM(false, "User-agent: *\nCrawl-delay: 5\nDisallow: /新闻/\n")))
	f.Add([]byte(utf16BOM(true, "User-agent: *\r\nCrawl-delay: inf\r\n")))
	f.Add([]byte("\xfe\xff\x00"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := parseRobots(body, "newscrawl", time.Minute)
		if r.crawlDelay < 0 {
			t.Fatalf("negative Crawl-delay %s", r.crawlDelay)
		}
		if (r.crawlDelay > time.Minute) != (r.state == robotsDelayTooLarge) {
			t.Fatalf("Crawl-delay %s with state %v", r.crawlDelay, r.state)
		}
	})
}
