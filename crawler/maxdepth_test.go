package crawler

import (
	"net/http"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/config"
)

// TestMaxDepthZeroFetchesStartPagesOnly: max_depth 0 (which the config now
// keeps instead of replacing it by 3) means the start pages and nothing
// linked from them.
func TestMaxDepthZeroFetchesStartPagesOnly(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/list/1", "/art/1"),
		"/list/*":     listPage("/art/2"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].MaxDepth = 0 })
	sum, _, _ := crawlOnce(t, cfg, Options{})
	if got := ts.requests(); !slices.Equal(got, []string{"/robots.txt", "/"}) {
		t.Errorf("requests %v, want only robots.txt and the start page", got)
	}
	if sum.Total.SkippedDepth != 2 {
		t.Errorf("SkippedDepth = %d, want 2", sum.Total.SkippedDepth)
	}
}
