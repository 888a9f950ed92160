package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressFlag: `crawl --progress 0` prints no progress line (as its
// help and the cron example say); a positive interval prints at least the
// final one on stderr.
func TestProgressFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	sites := fixtureWeb(t, nil, nil)
	for _, tc := range []struct {
		name, every string
		want        bool
	}{
		{"off", "0", false},
		{"on", "1h", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			siteFile := writeSiteFile(t, sites, filepath.Join(t.TempDir(), "news.db"), nil)
			res := runCrawl(siteFile, "--progress", tc.every) // the later --progress wins
			if res.code != exitOK {
				t.Fatalf("crawl: %v", res)
			}
			if got := strings.Contains(res.stderr, " pages/s "); got != tc.want {
				t.Errorf("progress line on stderr: %v, want %v\n%s", got, tc.want, res.stderr)
			}
		})
	}
}
