package cli

import (
	"os"
	"strings"
	"testing"
)

// TestCrawlMaxTime: a crawl stopped by --max-time with URLs left exits 6,
// says how many are left, and the next run finishes them (exit 0).
func TestCrawlMaxTime(t *testing.T) {
	siteFile, _ := hostileSite(t)
	b, err := os.ReadFile(siteFile)
	if err != nil {
		t.Fatal(err)
	}
	// A minute between requests: robots.txt, then the list page, is more
	// than --max-time allows; --max-time leaves start-up (the segmenter's
	// dictionary, the index) time to finish on a loaded machine under -race.
	if err := os.WriteFile(siteFile, []byte(strings.Replace(string(b), "delay: 0s", "delay: 60s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMain("crawl", "--site", siteFile, "--progress", "0", "--max-time", "20s")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitIncomplete, r.stderr)
	}
	if !strings.Contains(r.stderr, "stopped at --max-time") || !strings.Contains(r.stderr, "URLs left in the frontier for the next run") {
		t.Errorf("stderr does not say why and what is left:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "0 URLs left") {
		t.Errorf("nothing left after --max-time:\n%s", r.stderr)
	}
	if err := os.WriteFile(siteFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runMain("crawl", "--site", siteFile, "--progress", "0", "--max-time", "0"); r.code != ExitOK {
		t.Fatalf("the next run: exit %d: %s", r.code, r.stderr)
	}
}
