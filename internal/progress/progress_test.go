package progress_test

import (
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/progress"
	"github.com/newsdedup/newscrawl/storage"
)

func TestIsGone(t *testing.T) {
	for kind, want := range map[string]bool{
		"http_404": true, "http_410": true, "http_403": true, "http_429": false, "http_408": false,
		"http_500": false, "timeout": false, "too_large": false, "http_x": false,
	} {
		t.Run(kind, func(t *testing.T) {
			if got := progress.IsGone(kind); got != want {
				t.Errorf("IsGone(%q) = %v", kind, got)
			}
		})
	}
}

var sina = crawler.SiteStats{Name: "sina", Requests: 40, Fetched: 30, Bytes: 3 << 20, Articles: 20, Stored: 12, Duplicates: 6,
	NotArticle: 8, Errors: 5, ErrorKinds: map[string]int{"http_404": 2, "too_large": 2, "timeout": 1},
	RobotsBlocked: 3, Retries: 4, SkippedDepth: 7, SkippedTrap: 1}
var qq = crawler.SiteStats{Name: "qq", Stored: 1, NotArticle: 1}

func TestCountsOf(t *testing.T) {
	got := progress.CountsOf(sina)
	want := progress.Counts{Pages: 31, Stored: 12, Duplicates: 6, NotArticle: 8, Errors: 3, Gone: 2}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestLine(t *testing.T) {
	var m progress.Meter
	total := sina
	total.Add(qq)
	s1 := crawler.Snapshot{Elapsed: 10 * time.Second, Sites: []crawler.SiteStats{sina, qq}, Total: total}
	l1 := m.Line(s1, map[string]int{"sina": 50, "qq": 7})
	s2 := s1
	s2.Elapsed = 15 * time.Second
	s2.Total.Stored += 10
	l2 := m.Line(s2, nil)
	for _, tc := range []struct {
		name, line, want string
	}{
		{"overall rate", l1, "   3.3 pages/s"},
		{"totals", l1, "pages 33  stored 13  duplicates 6  errors 3  gone 2  queue 57"},
		{"per site", l1, "\n         sina         pages 31  stored 12  duplicates 6  errors 3  gone 2  queue 50"},
		{"second site", l1, "\n         qq           pages 2  stored 1"},
		{"interval rate", l2, "   2.0 pages/s"},
		{"queue unknown", l2, "gone 2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.line, tc.want) {
				t.Errorf("%q not in\n%s", tc.want, tc.line)
			}
		})
	}
	var one progress.Meter
	if l := one.Line(crawler.Snapshot{Elapsed: time.Second, Sites: []crawler.SiteStats{qq}, Total: qq}, nil); strings.Contains(l, "\n") {
		t.Errorf("one site gets per-site lines: %q", l)
	}
}

func TestRunStats(t *testing.T) {
	total := sina
	total.Add(qq)
	sum := crawler.Summary{Sites: []crawler.SiteSummary{{SiteStats: sina}, {SiteStats: qq}}, Total: total}
	rs := progress.RunStats(sum)
	if rs.Fetched != rs.Stored+rs.Duplicates+rs.NotArticle+rs.Errors {
		t.Errorf("fetched %d is not the sum of outcomes: %+v", rs.Fetched, rs)
	}
	if rs.Fetched != 33 || rs.Errors != 5 || len(rs.Sites) != 2 {
		t.Errorf("%+v", rs)
	}
	c := rs.Sites[0].Counters
	for k, want := range map[string]int64{"requests": 40, "robots_blocked": 3, "retries": 4, "skipped_depth": 7, "bytes": 3 << 20,
		"error_kind.http_404": 2, "error_kind.too_large": 2, "gone": 2} {
		if c[k] != want {
			t.Errorf("counter %s = %d, want %d", k, c[k], want)
		}
	}
}

func TestSummary(t *testing.T) {
	total := sina
	total.Add(qq)
	photos := sina
	photos.Images, photos.ImageBytes, photos.ImagesTooLarge, photos.ImagesSkipped = 4, 3<<20, 1, 2
	paged := qq
	paged.ArticlePages, paged.ArticlePagesFailed, paged.Parts = 5, 1, 2
	sum := crawler.Summary{Sites: []crawler.SiteSummary{{SiteStats: photos, Warnings: []string{"max_pages 10 reached"}}, {SiteStats: paged}},
		Total: total, FrontierLeft: 9}
	var b strings.Builder
	progress.Summary(&b, "data/news.db", storage.Run{ID: 3, Status: storage.RunCompleted}, sum, 2*time.Second)
	out := b.String()
	for _, w := range []string{
		"run 3 completed in 2s (store data/news.db)",
		"site            pages   stored duplicates not_article   errors     gone articles   robots  retries  skipped       MB",
		"sina               31       12          6           8        3        2       20        3        4        8      3.0",
		"total              33       13          6           9        3        2       20        3        4        8      3.0",
		"sina errors by kind: http_404 2, timeout 1, too_large 2",
		"sina skipped links: depth 7, trap 1",
		"warning: sina: max_pages 10 reached",
		"9 URLs left in the queue",
		"sina lead images: 4 fetched (3.0 MB), 1 over fetch.max_image, 2 skipped (robots, scope, errors)",
		"qq multi-page articles: 5 later pages fetched, 1 could not be had, 2 article pages recorded as later pages",
		"qq                  4        1          0           1        0        0", // pages count the 2 parts
	} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in\n%s", w, out)
		}
	}
}

// TestRunCounts: a run record's totals split its errors as the summary
// does: the per-site "gone" counters come out of Errors.
func TestRunCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		rs   storage.RunStats
		want progress.Counts
	}{
		{"crawl", storage.RunStats{Fetched: 700, Stored: 10, Duplicates: 8, NotArticle: 0, Errors: 682, Sites: []storage.SiteCounters{
			{Site: "a", Counters: map[string]int64{"gone": 600}}, {Site: "b", Counters: map[string]int64{"gone": 68, "retries": 3}}}},
			progress.Counts{Pages: 700, Stored: 10, Duplicates: 8, Errors: 14, Gone: 668}},
		{"import (no site counters)", storage.RunStats{Fetched: 5, Stored: 4, Errors: 1}, progress.Counts{Pages: 5, Stored: 4, Errors: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := progress.RunCounts(tc.rs); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
