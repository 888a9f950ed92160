package evalextract

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
)

// Leave-one-site-out: the three thresholds of extract.Tuning are fitted
// by a grid search on every site of a dataset but one, and the fitted
// values extract that site's pages; the dataset's figure is then computed
// from those held-out pages. Each page is decoded once and extracted once
// per grid point, so a fold costs only a sum over the cached scores.

// tuningGrid returns the grid the folds search: each threshold at its
// default and one step either side.
func tuningGrid() []extract.Tuning {
	var g []extract.Tuning
	for _, l := range []float64{0.4, extract.DefaultLinkBlockDensity, 0.6} {
		for _, s := range []float64{0.1, extract.DefaultSiblingScoreShare, 0.3} {
			for _, c := range []float64{0.7, extract.DefaultCloseRunnerUp, 0.9} {
				g = append(g, extract.Tuning{LinkBlockDensity: l, SiblingScoreShare: s, CloseRunnerUp: c})
			}
		}
	}
	return g
}

func isDefaultTuning(t extract.Tuning) bool {
	return t == extract.Tuning{LinkBlockDensity: extract.DefaultLinkBlockDensity, SiblingScoreShare: extract.DefaultSiblingScoreShare, CloseRunnerUp: extract.DefaultCloseRunnerUp}
}

func tuningString(t extract.Tuning) string {
	return fmt.Sprintf("%.1f/%.1f/%.1f", t.LinkBlockDensity, t.SiblingScoreShare, t.CloseRunnerUp)
}

// losoPage is one page of a dataset scored in the folds.
type losoPage struct {
	site, url string
	body      []byte     // UTF-8
	doc       *html.Node // body parsed once; each extraction takes a copy
	expect    bool       // extracted with Options.ExpectArticle
	truth     string
}

// losoSet is one dataset: its pages in extraction order and its metric.
type losoSet struct {
	name   string
	pages  []losoPage
	micro  bool // ScrapingHub's shingle F1 over all pages, else mean bigram F1
	scores [][]pageScore
}

// pageScore is a page's score at one grid point.
type pageScore struct {
	f1 float64
	m  TPFPFN
}

// Fold is the outcome of one held-out site.
type Fold struct {
	Dataset, Site string
	Pages         int
	Tuning        extract.Tuning // fitted without the site
	F1            float64        // the site's figure with it (mean page F1)
}

// runLOSO extracts every page of the site-labelled datasets at every grid
// point and adds the leave-one-site-out rows and folds to r.
func runLOSO(ctx context.Context, cfg Config, r *Report) error {
	sets, err := loadLOSO(cfg)
	if err != nil {
		return err
	}
	grid := tuningGrid()
	for _, s := range sets {
		s.scores = make([][]pageScore, len(grid))
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gi := range next {
				for _, s := range sets {
					s.scores[gi] = s.extractAll(grid[gi])
				}
			}
		}()
	}
	for gi := range grid {
		if ctx.Err() != nil {
			break
		}
		next <- gi
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, s := range sets {
		s.addFolds(grid, r)
	}
	return nil
}

// extractAll extracts the set's pages with fresh extractors (one per
// site, as the main run) and scores them.
func (s *losoSet) extractAll(t extract.Tuning) []pageScore {
	xs := &extractors{opts: extract.Options{Tuning: t}, bySite: map[string]*extract.Extractor{}}
	out := make([]pageScore, len(s.pages))
	for i, p := range s.pages {
		text := ""
		if a, err := xs.get(s.name+"/"+p.site, p.expect).ExtractParsed(p.url, p.body, cloneTree(p.doc)); err == nil {
			text = a.Text
		}
		if s.micro {
			m := ShingleMatch(p.truth, text)
			out[i] = pageScore{m: m, f1: pageF1(m)}
		} else {
			out[i] = pageScore{f1: BigramF1(text, p.truth)}
		}
	}
	return out
}

func pageF1(m TPFPFN) float64 {
	if m.TP == 0 {
		return 0
	}
	return 2 * m.TP / (2*m.TP + m.FP + m.FN)
}

// figure is the dataset's metric over the pages that keep(i) accepts,
// page i scored at grid point at(i).
func (s *losoSet) figure(keep func(i int) bool, at func(i int) int) float64 {
	var sum float64
	var n int
	var ms []TPFPFN
	for i := range s.pages {
		if !keep(i) {
			continue
		}
		ps := s.scores[at(i)][i]
		sum += ps.f1
		n++
		ms = append(ms, ps.m)
	}
	if s.micro {
		_, _, f := ShingleScores(ms)
		return f
	}
	return ratioF(sum, n)
}

func ratioF(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// best returns the grid point with the highest figure over the accepted
// pages; ties keep the default, then the earlier point.
func (s *losoSet) best(grid []extract.Tuning, keep func(i int) bool) int {
	bi, bv := -1, -1.0
	for gi := range grid {
		v := s.figure(keep, func(int) int { return gi })
		if v > bv || v == bv && isDefaultTuning(grid[gi]) {
			bi, bv = gi, v
		}
	}
	return bi
}

// addFolds fits every fold and adds the rows: the figure at the defaults
// (the in-sample figure of the main table), fitted on all sites, and
// leave-one-site-out, with the values the folds chose.
func (s *losoSet) addFolds(grid []extract.Tuning, r *Report) {
	all := func(int) bool { return true }
	def := slices.IndexFunc(grid, isDefaultTuning)
	sites := map[string]bool{}
	for _, p := range s.pages {
		sites[p.site] = true
	}
	chosen := map[string]int{}
	counts := map[int]int{}
	for _, site := range slices.Sorted(maps.Keys(sites)) {
		gi := s.best(grid, func(i int) bool { return s.pages[i].site != site })
		chosen[site] = gi
		counts[gi]++
		in := func(i int) bool { return s.pages[i].site == site }
		n := 0
		for i := range s.pages {
			if in(i) {
				n++
			}
		}
		r.Folds = append(r.Folds, Fold{Dataset: s.name, Site: site, Pages: n, Tuning: grid[gi], F1: s.figure(in, func(int) int { return gi })})
	}
	loso := s.figure(all, func(i int) int { return chosen[s.pages[i].site] })
	fit := s.best(grid, all)
	lo, hi := 2.0, -1.0
	for gi := range grid {
		v := s.figure(all, func(int) int { return gi })
		lo, hi = min(lo, v), max(hi, v)
	}
	var parts []string
	for _, gi := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s x%d", tuningString(grid[gi]), counts[gi]))
	}
	metric := "mean bigram F1"
	if s.micro {
		metric = "F1 (shingle)"
	}
	r.add(s.name, len(s.pages), "LOSO: "+metric+" at the defaults", s.figure(all, func(int) int { return def }), "in-sample; link-block density/sibling share/close runner-up "+tuningString(grid[def]))
	r.add(s.name, len(s.pages), "LOSO: "+metric+" fitted on all sites", s.figure(all, func(int) int { return fit }), fmt.Sprintf("in-sample; best of the grid: %s (grid range %.4f-%.4f)", tuningString(grid[fit]), lo, hi))
	r.add(s.name, len(sites), "LOSO: "+metric+" leave-one-site-out", loso, fmt.Sprintf("%d grid points; folds chose %s", len(grid), strings.Join(parts, ", ")))
}

// loadLOSO reads and decodes the pages of the datasets that name their
// sites (as Run does), restricted by cfg.Only.
func loadLOSO(cfg Config) ([]*losoSet, error) {
	var sets []*losoSet
	loaders := []struct {
		name string
		fn   func(Config) (*losoSet, error)
	}{{"reprint-web", loadLOSOBench}, {"cwced", loadLOSOCWCED}, {"scrapinghub", loadLOSOScrapingHub}}
	for _, l := range loaders {
		if cfg.Only != "" && !strings.Contains(l.name, cfg.Only) {
			continue
		}
		s, err := l.fn(cfg)
		if err == nil {
			err = s.parse()
		}
		if err != nil {
			return nil, fmt.Errorf("leave-one-site-out: %s: %w", l.name, err)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// parse parses every page once.
func (s *losoSet) parse() error {
	for i := range s.pages {
		doc, err := html.Parse(bytes.NewReader(s.pages[i].body))
		if err != nil {
			return fmt.Errorf("%s: %w", s.pages[i].url, err)
		}
		s.pages[i].doc = doc
	}
	return nil
}

func loadLOSOBench(cfg Config) (*losoSet, error) {
	pages, err := LoadBench(filepath.Join(cfg.Shared, "bench", cfg.Split), false)
	if err != nil {
		return nil, err
	}
	s := &losoSet{name: "reprint-web"}
	for _, p := range pages {
		body, err := readUTF8(p.File, p.ContentType)
		if err != nil {
			return nil, err
		}
		s.pages = append(s.pages, losoPage{site: p.Site, url: p.URL, body: body, expect: true, truth: p.Truth.Text})
	}
	return s, nil
}

func loadLOSOCWCED(cfg Config) (*losoSet, error) {
	dir := filepath.Join(cfg.Shared, "data", "extraction", "cwced-dev")
	files, err := filepath.Glob(filepath.Join(dir, "original", "*.html"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no pages in %s", dir)
	}
	urls := cwcedURLs(filepath.Join(dir, "pages.tsv"))
	s := &losoSet{name: "cwced"}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".html")
		body, err := readUTF8(f, "")
		if err != nil {
			return nil, err
		}
		truth, err := os.ReadFile(filepath.Join(dir, "cleaned", id+".txt"))
		if err != nil {
			return nil, err
		}
		u := urls[id]
		site := siteOf(u)
		if site == "" {
			site = "(no url)"
		}
		s.pages = append(s.pages, losoPage{site: site, url: u, body: body, truth: string(truth)})
	}
	return s, nil
}

func loadLOSOScrapingHub(cfg Config) (*losoSet, error) {
	dir := filepath.Join(cfg.Shared, "data", "extraction", "scrapinghub-article-extraction-benchmark-en")
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
		URL         string `json:"url"`
	}
	if err := readJSON(filepath.Join(dir, "ground-truth.json"), &gt); err != nil {
		return nil, err
	}
	s := &losoSet{name: "scrapinghub-en", micro: true}
	for _, id := range slices.Sorted(maps.Keys(gt)) {
		raw, err := readGz(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return nil, err
		}
		body, _, err := decode.ToUTF8(raw, "text/html; charset=utf-8", "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		s.pages = append(s.pages, losoPage{site: siteOf(gt[id].URL), url: gt[id].URL, body: body, truth: gt[id].ArticleBody})
	}
	return s, nil
}

func readUTF8(path, contentType string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	body, _, err := decode.ToUTF8(raw, contentType, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return body, nil
}

// cloneTree returns a deep copy of the tree under n (strings are shared:
// Extract replaces nodes and attributes, it never edits a string in place).
func cloneTree(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
	if len(n.Attr) > 0 {
		c.Attr = slices.Clone(n.Attr)
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.AppendChild(cloneTree(ch))
	}
	return c
}
