// Package progress formats what a crawl tells its operator: the periodic
// progress line (pages per second, outcomes, queue remaining, per site when
// there are several) and the end-of-run summary table (a total row for
// every column, pages equal to the sum of the outcomes, errors of the site
// or network apart from pages that are gone, robots blocks, retries,
// skipped links and bytes), and turns the crawler's counters into the run
// record the store keeps.
package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/storage"
)

// IsGone reports whether an error kind means the page is gone (a 4xx
// answer to a discovered link) rather than a failure of the site or the
// network. 408 (timeout) and 429 (rate limit) are failures: retried, not
// gone.
func IsGone(kind string) bool {
	code, ok := strings.CutPrefix(kind, "http_")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(code)
	return err == nil && n >= 400 && n < 500 && n != 408 && n != 429
}

// Counts are a site's outcomes with errors split into failures and gone
// pages.
type Counts struct {
	Pages      int64 // pages with a recorded outcome: Stored+Duplicates+NotArticle+Errors+Gone+Parts
	Stored     int64
	Duplicates int64
	NotArticle int64
	Errors     int64 // the site or the network failed
	Gone       int64 // 4xx on a discovered link
	Parts      int64 // article pages recorded as later pages of a multi-page article
}

// CountsOf splits s's outcomes.
func CountsOf(s crawler.SiteStats) Counts {
	var gone int64
	for k, n := range s.ErrorKinds {
		if IsGone(k) {
			gone += int64(n)
		}
	}
	c := Counts{Stored: s.Stored, Duplicates: s.Duplicates, NotArticle: s.NotArticle, Errors: s.Errors - gone, Gone: gone, Parts: s.Parts}
	c.Pages = c.Stored + c.Duplicates + c.NotArticle + c.Errors + c.Gone + c.Parts
	return c
}

// Meter formats progress lines; it remembers the previous snapshot for the
// current rate.
type Meter struct {
	prev     crawler.Snapshot
	havePrev bool
}

// Line formats snapshot s. queue holds the frontier URLs not yet done per
// site (nil: unknown). With several sites, one indented line per site
// follows the total line.
func (m *Meter) Line(s crawler.Snapshot, queue map[string]int) string {
	t := CountsOf(s.Total)
	rate := 0.0
	if m.havePrev && s.Elapsed > m.prev.Elapsed {
		rate = float64(t.Pages-CountsOf(m.prev.Total).Pages) / (s.Elapsed - m.prev.Elapsed).Seconds()
	} else if s.Elapsed > 0 {
		rate = float64(t.Pages) / s.Elapsed.Seconds()
	}
	m.prev, m.havePrev = s, true
	var b strings.Builder
	fmt.Fprintf(&b, "[%5.0fs] %6.1f pages/s  pages %d  stored %d  duplicates %d  errors %d  gone %d", s.Elapsed.Seconds(), rate,
		t.Pages, t.Stored, t.Duplicates, t.Errors, t.Gone)
	if queue != nil {
		total := 0
		for _, n := range queue {
			total += n
		}
		fmt.Fprintf(&b, "  queue %d", total)
	}
	if len(s.Sites) > 1 {
		for _, site := range s.Sites {
			c := CountsOf(site)
			fmt.Fprintf(&b, "\n         %-12s pages %d  stored %d  duplicates %d  errors %d  gone %d", site.Name, c.Pages, c.Stored, c.Duplicates, c.Errors, c.Gone)
			if queue != nil {
				fmt.Fprintf(&b, "  queue %d", queue[site.Name])
			}
		}
	}
	return b.String()
}

// RunStats is the run record of sum: the outcome totals (Fetched is the
// number of pages with a recorded outcome, so that it equals the sum of the
// outcomes) and every counter of every site.
func RunStats(sum crawler.Summary) storage.RunStats {
	t := CountsOf(sum.Total)
	rs := storage.RunStats{Fetched: int(t.Pages), Stored: int(t.Stored), Duplicates: int(t.Duplicates),
		NotArticle: int(t.NotArticle), Errors: int(t.Errors + t.Gone), Parts: int(t.Parts)}
	for _, s := range sum.Sites {
		rs.Sites = append(rs.Sites, storage.SiteCounters{Site: s.Name, Counters: Counters(s.SiteStats)})
	}
	return rs
}

// Counters flattens s into named counters: the crawler's JSON names, each
// error kind as "error_kind.<kind>", and "gone".
func Counters(s crawler.SiteStats) map[string]int64 {
	kinds := s.ErrorKinds
	s.ErrorKinds = nil
	b, err := json.Marshal(s)
	out := map[string]int64{}
	if err == nil {
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			for k, v := range m {
				if f, ok := v.(float64); ok {
					out[k] = int64(f)
				}
			}
		}
	}
	for k, n := range kinds {
		out["error_kind."+k] = int64(n)
	}
	out["gone"] = CountsOf(crawler.SiteStats{ErrorKinds: kinds}).Gone
	return out
}

// Summary writes the end-of-run table: one row per site and a total row
// with every column, then the error kinds and warnings per site.
func Summary(w io.Writer, db string, run storage.Run, sum crawler.Summary, elapsed time.Duration) {
	fmt.Fprintf(w, "\nrun %d %s in %s (store %s)\n", run.ID, run.Status, elapsed.Round(time.Millisecond), db)
	// The outcome columns are named as report, serve and the metrics name
	// them.
	head := []string{"site", "pages", "stored", "duplicates", "not_article", "errors", "gone", "articles", "robots", "retries", "skipped", "MB"}
	width := func(i int) int { return max(8, len(head[i])) }
	fmt.Fprintf(w, "%-12s", head[0])
	for i, h := range head[1:] {
		fmt.Fprintf(w, " %*s", width(i+1), h)
	}
	fmt.Fprintln(w)
	row := func(name string, s crawler.SiteStats) {
		c := CountsOf(s)
		skipped := s.SkippedDepth + s.SkippedTrap + s.SkippedURLLength + s.SkippedExtension
		fmt.Fprintf(w, "%-12s", name)
		for i, v := range []int64{int64(c.Pages), int64(c.Stored), int64(c.Duplicates), int64(c.NotArticle), int64(c.Errors), int64(c.Gone),
			int64(s.Articles), int64(s.RobotsBlocked), int64(s.Retries), int64(skipped)} {
			fmt.Fprintf(w, " %*d", width(i+1), v)
		}
		fmt.Fprintf(w, " %*.1f\n", width(len(head)-1), float64(s.Bytes)/(1<<20))
	}
	for _, s := range sum.Sites {
		row(s.Name, s.SiteStats)
	}
	row("total", sum.Total)
	for _, s := range sum.Sites {
		if len(s.ErrorKinds) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(s.ErrorKinds)) {
				parts = append(parts, fmt.Sprintf("%s %d", k, s.ErrorKinds[k]))
			}
			fmt.Fprintf(w, "  %s errors by kind: %s\n", s.Name, strings.Join(parts, ", "))
		}
		if s.SkippedDepth+s.SkippedTrap+s.SkippedURLLength+s.SkippedExtension > 0 {
			fmt.Fprintf(w, "  %s skipped links: depth %d, trap %d, url length %d, file type %d\n", s.Name,
				s.SkippedDepth, s.SkippedTrap, s.SkippedURLLength, s.SkippedExtension)
		}
		if s.ArticlePages+s.ArticlePagesFailed+s.Parts > 0 {
			fmt.Fprintf(w, "  %s multi-page articles: %d later pages fetched, %d could not be had, %d article pages recorded as later pages\n", s.Name,
				s.ArticlePages, s.ArticlePagesFailed, s.Parts)
		}
		if s.Images+s.ImagesTooLarge+s.ImagesSkipped > 0 {
			fmt.Fprintf(w, "  %s lead images: %d fetched (%.1f MB), %d over fetch.max_image, %d skipped (robots, scope, errors)\n", s.Name,
				s.Images, float64(s.ImageBytes)/(1<<20), s.ImagesTooLarge, s.ImagesSkipped)
		}
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "  warning: %s: %s\n", s.Name, warn)
		}
	}
	if sum.FrontierLeft > 0 {
		fmt.Fprintf(w, "  %d URLs left in the queue for the next run\n", sum.FrontierLeft)
	}
	Incremental(w, sum)
	Sources(w, sum)
}

// Incremental writes the figures of a cron run per site: HTTP requests,
// list surfaces answered 304 Not Modified and not due (back-off, or
// claimed by another process), new articles (stored), requests per new
// article, and the discovery delay of the new articles (published_at to
// fetched: median and 90th percentile).
func Incremental(w io.Writer, sum crawler.Summary) {
	// The header does not start with "site": readers of the summary take
	// the table above by its "site" header.
	fmt.Fprintf(w, "%-12s %8s %8s %8s %8s %8s %9s %9s\n", "incremental", "requests", "304", "not-due", "new", "req/new", "delay-p50", "delay-p90")
	for _, s := range sum.Sites {
		perNew := "-"
		if s.Stored > 0 {
			perNew = fmt.Sprintf("%.1f", float64(s.Requests)/float64(s.Stored))
		}
		p50, p90 := "-", "-"
		if s.Discovery.N > 0 {
			p50, p90 = FormatDelay(s.Discovery.Median), FormatDelay(s.Discovery.P90)
		}
		fmt.Fprintf(w, "%-12s %8d %8d %8d %8d %8s %9s %9s\n", s.Name, s.Requests, s.NotModified, s.SurfacesNotDue, s.Stored, perNew, p50, p90)
	}
}

// FormatDelay writes a delay in its largest sensible unit: 45s, 12m,
// 5.2h, 3.1d.
func FormatDelay(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + FormatDelay(-d)
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%.1fh", d.Hours())
	}
	return fmt.Sprintf("%.1fd", d.Hours()/24)
}
