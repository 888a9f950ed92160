package crawler

import (
	"net/http"
	"testing"
)

// TestRobotsPartialBOM: a robots.txt starting with a partial UTF-8 byte
// order mark ("EF BB" or "EF" before "User-agent") is read as Google reads
// it (robots_test.cc, ID_UTF8ByteOrderMarkIsSkipped): the partial mark is
// skipped and the rules apply; a full mark too.
func TestRobotsPartialBOM(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix string
	}{
		{"full EF BB BF", "\xEF\xBB\xBF"},
		{"partial EF BB", "\xEF\xBB"},
		{"partial EF", "\xEF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(200, tc.prefix+"User-agent: *\nDisallow: /private/\n"),
				"/":           listPage("/art/1", "/private/art/2"),
				"/art/*":      article("a"),
				"/private/*":  article("secret"),
			})
			sum, _, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
			if n := ts.hit("/private/art/2"); n != 0 {
				t.Errorf("disallowed /private/art/2 fetched %d times", n)
			}
			if proc.urls()[ts.URL+"/art/1"] == nil {
				t.Error("allowed article not processed")
			}
			if sum.Total.RobotsBlocked != 1 {
				t.Errorf("RobotsBlocked = %d, want 1", sum.Total.RobotsBlocked)
			}
		})
	}
}
