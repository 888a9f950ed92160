// Package report writes one self-contained HTML page about a store: per run
// and per site, stored articles, duplicates and errors over time; the
// cluster-size distribution; histograms of the Jaccard and Hamming distance
// of the duplicate verdicts with the thresholds marked; the largest clusters;
// the error kinds; and per site what incremental crawling cost and found
// (requests, 304s, new articles, discovery delay). Plots are inline SVG drawn here; the page loads
// nothing (no script, no style sheet, no font, no image), so it reads the
// same offline, attached to a mail or archived with the corpus.
package report

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/progress"
	"github.com/newsdedup/newscrawl/storage"
)

// Source is what a report reads. storage.Store satisfies it.
type Source interface {
	Runs(ctx context.Context) ([]storage.Run, error)
	Pages(ctx context.Context, fn func(storage.Page) error) error
	Articles(ctx context.Context, fn func(storage.Article) error) error
	Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error
	Article(ctx context.Context, id int64) (storage.Article, error)
}

// Report limits.
const (
	// LargestClusters is how many of the largest clusters are listed.
	LargestClusters = 15
	// MaxClusterBar: clusters of this size or more share the last bar of
	// the size distribution.
	MaxClusterBar = 20
	// JaccardBins is the number of bins of the Jaccard histogram over [0, 1].
	JaccardBins = 20
	// MaxHammingBar: distances of this or more share the last bar.
	MaxHammingBar = 32
)

// Counts are page outcomes, named and counted as the crawl's summary
// counts them (internal/progress.Counts): Errors are failures of the site
// or the network, Gone the pages a 4xx answered (progress.IsGone).
type Counts struct {
	Pages, Stored, Duplicates, NotArticle, Errors, Gone int
	Parts                                               int // later pages of multi-page articles
}

func (c *Counts) add(p storage.Page) {
	c.Pages++
	switch p.Outcome {
	case storage.OutcomeStored:
		c.Stored++
	case storage.OutcomeDuplicate:
		c.Duplicates++
	case storage.OutcomeNotArticle:
		c.NotArticle++
	case storage.OutcomeError:
		if progress.IsGone(p.ErrKind) {
			c.Gone++
		} else {
			c.Errors++
		}
	case storage.OutcomePart:
		c.Parts++
	}
}

// runCounts are the totals of a run record (progress.RunCounts).
func runCounts(rs storage.RunStats) Counts {
	c := progress.RunCounts(rs)
	return Counts{Pages: int(c.Pages), Stored: int(c.Stored), Duplicates: int(c.Duplicates), NotArticle: int(c.NotArticle),
		Errors: int(c.Errors), Gone: int(c.Gone), Parts: int(c.Parts)}
}

// Cluster is one cluster of the largest-clusters table.
type Cluster struct {
	ID       int64
	Size     int // stored articles plus duplicates
	Articles int
	Sites    int
	Title    string // title of the cluster's oldest stored article
	URL      string
}

// Kind counts errors of one kind.
type Kind struct {
	Kind string
	N    int
}

// Report holds the figures of the page.
type Report struct {
	Generated  time.Time
	Thresholds explain.Thresholds
	Runs       []storage.Run
	// RunTotals[i] are Runs[i]'s totals with gone pages apart from errors.
	RunTotals []Counts
	Sites     []string
	// BySiteRun[site][i] counts the pages last recorded in Runs[i]. A URL
	// fetched again in a later run (an error retried, a list page) counts
	// in its latest run only; Runs[i].Stats counts every fetch.
	BySiteRun map[string][]Counts
	BySite    map[string]Counts
	Total     Counts
	// ClusterSizes[s] is the number of clusters of size s (index 0 unused).
	ClusterSizes  map[int]int
	Largest       []Cluster
	JaccardHist   []int // JaccardBins bins over [0, 1]
	HammingHist   []int // 0..MaxHammingBar (last bin: that or more)
	Reasons       []Kind
	ErrorKinds    []Kind
	DuplicateRate float64 // duplicates / (stored + duplicates)
	// Counters are every per-site counter the last run recorded
	// (storage.RunStats.Sites): names sorted, one column per site.
	Counters []CounterRow
	// CounterSites are the columns of Counters.
	CounterSites []string
	CountersRun  int64 // the run they come from (0: none recorded)
	// Fetching is per site what incremental crawling cost and found.
	Fetching []SiteFetch
}

// CounterRow is one counter of the last run, per site (in CounterSites
// order).
type CounterRow struct {
	Name   string
	Values []int64
}

// Build reads src and computes the report's figures.
func Build(ctx context.Context, src Source, th explain.Thresholds, now time.Time) (*Report, error) {
	runs, err := src.Runs(ctx)
	if err == nil && th.Source == "" {
		th = latestThresholds(runs, th)
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	r := &Report{Generated: now.UTC(), Thresholds: th, Runs: runs, BySiteRun: map[string][]Counts{}, BySite: map[string]Counts{},
		ClusterSizes: map[int]int{}, JaccardHist: make([]int, JaccardBins), HammingHist: make([]int, MaxHammingBar+1)}
	runIndex := map[int64]int{}
	for i, run := range runs {
		runIndex[run.ID] = i
		r.RunTotals = append(r.RunTotals, runCounts(run.Stats))
	}
	if err := r.countPages(ctx, src, runIndex); err != nil {
		return nil, err
	}

	// A store that counts its clusters leaves nothing per cluster here.
	cr, counted := src.(clusterReader)
	var clusters *clusterTally
	if !counted {
		clusters = newClusterTally()
	}
	delays := map[string]*delayTally{}
	err = articlesWithoutText(ctx, src, func(a storage.Article) error {
		if !a.PublishedAt.IsZero() && !a.FetchedAt.IsZero() {
			t := delays[a.Site]
			if t == nil {
				t = newDelayTally()
				delays[a.Site] = t
			}
			t.add(max(a.FetchedAt.Sub(a.PublishedAt), 0))
		}
		if clusters != nil {
			clusters.member(a.Cluster, a.Site, a.ID, a.Title != "")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	reasons := map[string]int{}
	err = duplicatesWithoutText(ctx, src, func(d storage.Duplicate) error {
		if clusters != nil {
			clusters.member(d.Cluster, d.Site, 0, false)
		}
		bin := min(int(d.Jaccard*JaccardBins), JaccardBins-1)
		r.JaccardHist[max(bin, 0)]++
		r.HammingHist[min(max(d.Distance, 0), MaxHammingBar)]++
		reason := d.Reason
		if reason == "" {
			reason = "not recorded"
		}
		reasons[reason]++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	r.Reasons = sortedKinds(reasons)
	if counted {
		err = storeClusters(ctx, cr, r, LargestClusters)
	} else {
		clusters.sizes(r)
		r.Largest, err = clusters.largest(ctx, src, LargestClusters)
	}
	if err != nil {
		return nil, err
	}
	r.counters()
	r.Fetching = siteFetches(r, delays)
	if n := r.Total.Stored + r.Total.Duplicates; n > 0 {
		r.DuplicateRate = float64(r.Total.Duplicates) / float64(n)
	}
	return r, nil
}

// countPages counts the pages' outcomes per site and run, per site, in
// total and by error kind.
func (r *Report) countPages(ctx context.Context, src Source, runIndex map[int64]int) error {
	kinds := map[string]int{}
	err := src.Pages(ctx, func(p storage.Page) error {
		row := r.BySiteRun[p.Site]
		if row == nil {
			row = make([]Counts, len(r.Runs))
			r.BySiteRun[p.Site] = row
		}
		if i, ok := runIndex[p.RunID]; ok {
			row[i].add(p)
		}
		c := r.BySite[p.Site]
		c.add(p)
		r.BySite[p.Site] = c
		r.Total.add(p)
		if p.Outcome == storage.OutcomeError {
			k := p.ErrKind
			if k == "" {
				k = "unknown"
			}
			kinds[k]++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	r.Sites = slices.Sorted(maps.Keys(r.BySite))
	r.ErrorKinds = sortedKinds(kinds)
	return nil
}

func sortedKinds(m map[string]int) []Kind {
	var out []Kind
	for k, n := range m {
		out = append(out, Kind{k, n})
	}
	slices.SortFunc(out, func(a, b Kind) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Kind, b.Kind)) })
	return out
}

//go:embed report.html
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":   func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"delay": progress.FormatDelay,
	"time": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04Z")
	},
}).Parse(pageTemplate))

// WriteHTML writes the page.
func (r *Report) WriteHTML(w io.Writer) error {
	data := map[string]any{"R": r, "Plots": r.plots()}
	if err := page.Execute(w, data); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Plot is one figure of the page.
type Plot struct {
	ID      string
	SVG     template.HTML
	Caption string
}

func (r *Report) plots() []Plot {
	xs := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		xs[i] = strconv.FormatInt(run.ID, 10)
	}
	var ps []Plot
	n := len(r.Runs)
	stored, dups, errs, gone, pages := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, c := range r.RunTotals {
		stored[i], dups[i], errs[i], gone[i], pages[i] = float64(c.Stored), float64(c.Duplicates), float64(c.Errors), float64(c.Gone), float64(c.Pages)
	}
	ps = append(ps, Plot{ID: "runs", SVG: linePlot("All sites, per run", "run", xs, []series{
		{"stored", colorStored, stored}, {"duplicates", colorDup, dups}, {"errors", colorEr, errs}, {"gone", colorGone, gone}, {"pages", palette[3], pages}}),
		Caption: "Counters each run recorded (every fetch of the run)."})
	for i, site := range r.Sites {
		row := r.BySiteRun[site]
		s, d, e, g := make([]float64, len(row)), make([]float64, len(row)), make([]float64, len(row)), make([]float64, len(row))
		for j, c := range row {
			s[j], d[j], e[j], g[j] = float64(c.Stored), float64(c.Duplicates), float64(c.Errors), float64(c.Gone)
		}
		ps = append(ps, Plot{ID: fmt.Sprintf("site-%d", i), SVG: linePlot("Site "+site+", per run", "run", xs, []series{
			{"stored", colorStored, s}, {"duplicates", colorDup, d}, {"errors", colorEr, e}, {"gone", colorGone, g}}),
			Caption: "Pages of " + site + " by the run that last recorded them."})
	}
	maxSize := 1
	for s := range r.ClusterSizes {
		maxSize = max(maxSize, min(s, MaxClusterBar))
	}
	var sizes []bar
	for s := 1; s <= maxSize; s++ {
		n, label := r.ClusterSizes[s], strconv.Itoa(s)
		if s == MaxClusterBar {
			n = 0
			for size, k := range r.ClusterSizes {
				if size >= MaxClusterBar {
					n += k
				}
			}
			label += "+"
		}
		sizes = append(sizes, bar{label, n})
	}
	ps = append(ps, Plot{ID: "cluster-sizes", SVG: barChart("Cluster sizes", "articles + duplicates per cluster", sizes, palette[3]),
		Caption: "Number of clusters of each size; size 1 is a story nobody reprinted."})
	var jb []bar
	for i, n := range r.JaccardHist {
		jb = append(jb, bar{fmt.Sprintf("%.2f", float64(i)/JaccardBins), n})
	}
	ps = append(ps, Plot{ID: "jaccard", SVG: barChart("SpotSigs Jaccard of duplicate verdicts", "Jaccard (bin start)", jb, colorDup,
		marker{r.Thresholds.Jaccard * JaccardBins, fmt.Sprintf("τ = %.2f", r.Thresholds.Jaccard)}),
		Caption: "Verdicts left of τ were taken on containment (briefs) or exact text."})
	var hb []bar
	for i, n := range r.HammingHist {
		label := strconv.Itoa(i)
		if i == MaxHammingBar {
			label += "+"
		}
		hb = append(hb, bar{label, n})
	}
	ps = append(ps, Plot{ID: "hamming", SVG: barChart("Simhash Hamming distance of duplicate verdicts", "bits", hb, colorDup,
		marker{float64(r.Thresholds.Hamming) + 1, fmt.Sprintf("k = %d", r.Thresholds.Hamming)}),
		Caption: "Right of k: pairs the SpotSigs index found that Simhash alone would have missed."})
	if len(r.ErrorKinds) > 0 {
		var eb []bar
		for _, k := range r.ErrorKinds {
			eb = append(eb, bar{k.Kind, k.N})
		}
		ps = append(ps, Plot{ID: "errors", SVG: barChart("Error kinds", "kind", eb, colorEr), Caption: "Pages whose last record is an error or gone (a 4xx answer: http_404, http_410, …)."})
	}
	return ps
}

// counters fills Counters from the last run that recorded per-site
// counters.
func (r *Report) counters() {
	for i := len(r.Runs) - 1; i >= 0; i-- {
		sites := r.Runs[i].Stats.Sites
		if len(sites) == 0 {
			continue
		}
		names := map[string]bool{}
		for _, s := range sites {
			r.CounterSites = append(r.CounterSites, s.Site)
			for k := range s.Counters {
				names[k] = true
			}
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			row := CounterRow{Name: n}
			for _, s := range sites {
				row.Values = append(row.Values, s.Counters[n])
			}
			r.Counters = append(r.Counters, row)
		}
		r.CountersRun = r.Runs[i].ID
		return
	}
}

// latestThresholds returns the thresholds the latest run that recorded
// its settings decided with, else th marked as the defaults. The
// histograms mark one threshold: a store crawled with several shows the
// latest.
func latestThresholds(runs []storage.Run, th explain.Thresholds) explain.Thresholds {
	for i := len(runs) - 1; i >= 0; i-- {
		if t, ok := th.FromRun(runs[i]); ok {
			return t
		}
	}
	th.Source = "defaults"
	return th
}
