package progress_test

import (
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/progress"
)

func TestIncremental(t *testing.T) {
	sina := crawler.SiteStats{Name: "sina", Requests: 41, NotModified: 30, SurfacesNotDue: 6, Stored: 4}
	qq := crawler.SiteStats{Name: "qq", Requests: 12, NotModified: 11}
	sum := crawler.Summary{Sites: []crawler.SiteSummary{
		{SiteStats: sina, Discovery: crawler.DelayStats{N: 4, Median: 25 * time.Minute, P90: 3 * time.Hour}},
		{SiteStats: qq},
	}}
	var b strings.Builder
	progress.Incremental(&b, sum)
	for _, w := range []string{
		"incremental  requests      304  not-due      new  req/new delay-p50 delay-p90",
		"sina               41       30        6        4     10.2       25m      3.0h",
		"qq                 12       11        0        0        -         -         -",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("missing %q in\n%s", w, b.String())
		}
	}
}

func TestFormatDelay(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{45 * time.Second, "45s"},
		{12*time.Minute + 30*time.Second, "12m"},
		{5*time.Hour + 12*time.Minute, "5.2h"},
		{74 * time.Hour, "3.1d"},
		{-2 * time.Minute, "-2m"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := progress.FormatDelay(tc.d); got != tc.want {
				t.Fatalf("FormatDelay(%s) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}
