// Package evalextract measures charset decoding plus article extraction
// (packages decode and extract) on the shared evaluation data: the CWCED
// hand-labelled Chinese pages (character-bigram F1 as in bench/score.py,
// date and author accuracy), the ScrapingHub article-extraction-benchmark
// (its own 4-token-shingle P/R/F1, reimplemented from its evaluate.py), the
// Chinese test pages of trafilatura, newspaper4k, htmltotext-benchmark and
// Mozilla Readability (snippet and expected-text checks), and the article
// pages of the reprint-web bench split (bigram F1 against truth.jsonl,
// related-reading leaks, dates found), with the median time per page, and
// fits the thresholds of extract.Tuning leave-one-site-out (loso.go).
package evalextract

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"golang.org/x/net/html"
	"io"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
)

// Row is one line of the result table.
type Row struct {
	Dataset string
	Pages   int
	Metric  string
	Value   float64
	Count   bool // Value is a count
	Note    string
}

// PageScore is the score of one page, for listing the worst pages.
type PageScore struct {
	Dataset, ID string
	Site        string // the site or host, when the dataset knows it
	F1          float64
	Err         string
}

// Report is the outcome of Run.
type Report struct {
	Rows  []Row
	Pages []PageScore
	// Timings are decode+extract durations of all pages extracted.
	Timings []time.Duration
	// Second counts the second opinions by dataset and outcome
	// (extract.SecondOpinion*); SecondTimings are the durations of the
	// pages that asked for one.
	Second        map[string]map[string]int
	SecondTimings []time.Duration
	// Kinds counts, by dataset, the pages whose body came from script
	// state or the description <meta>, and the pages marked truncated
	// (the kind* names).
	Kinds map[string]map[string]int
	// Below lists the pages under plain readability (Config.CompareBaseline).
	Below []Below
	// Folds are the leave-one-site-out folds (Config.LOSO).
	Folds []Fold
}

// Config selects what Run measures.
type Config struct {
	Shared  string          // the shared data directory
	Split   string          // bench split under Shared/bench ("dev")
	Options extract.Options // extractor options
	// Only, when non-empty, restricts Run to datasets whose name contains it.
	Only string
	// CompareBaseline also runs plain go-readability on every page and
	// lists the pages where the extractor's F1 is more than
	// BaselineMargin below it.
	CompareBaseline bool
	// LOSO also fits extract.Tuning by leave-one-site-out on the datasets
	// that name their sites (reprint web, CWCED, ScrapingHub).
	LOSO bool
}

// BaselineMargin is how far below plain readability's F1 a page must score
// to be listed (the "more than 0.1 below").
const BaselineMargin = 0.1

// Below is a page that scores more than BaselineMargin under plain
// readability.
type Below struct {
	Dataset, ID    string
	Ours, Baseline float64
}

func (r *Report) add(ds string, n int, metric string, v float64, note string) {
	r.Rows = append(r.Rows, Row{Dataset: ds, Pages: n, Metric: metric, Value: v, Note: note})
}

func (r *Report) addCount(ds string, n int, metric string, v int, note string) {
	r.Rows = append(r.Rows, Row{Dataset: ds, Pages: n, Metric: metric, Value: float64(v), Count: true, Note: note})
}

// Run measures every dataset found under cfg.Shared.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if _, err := extract.New(cfg.Options); err != nil {
		return nil, err
	}
	xs := &extractors{opts: cfg.Options, bySite: map[string]*extract.Extractor{}}
	if cfg.Split == "" {
		cfg.Split = "dev"
	}
	r := &Report{}
	steps := []struct {
		name string
		fn   func(context.Context, *extractors, string, *Report) error
	}{
		{"reprint-web", runBench},
		{"cwced", runCWCED},
		{"scrapinghub", runScrapingHub},
		{"trafilatura", runTrafilatura},
		{"newspaper4k", runNewspaper},
		{"htmltotext", runHTMLToText},
		{"readability", runReadabilityPages},
	}
	for _, s := range steps {
		if cfg.Only != "" && !strings.Contains(s.name, cfg.Only) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return r, err
		}
		dir := cfg.Shared
		if s.name == "reprint-web" {
			dir = filepath.Join(cfg.Shared, "bench", cfg.Split)
		}
		if err := s.fn(ctx, xs, dir, r); err != nil {
			return r, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	r.addPerSite()
	if cfg.LOSO && cfg.Options.Engine == "" {
		if err := runLOSO(ctx, cfg, r); err != nil {
			return r, err
		}
	}
	if cfg.CompareBaseline && cfg.Options.Engine == "" {
		bcfg := cfg
		bcfg.CompareBaseline = false
		bcfg.LOSO = false
		bcfg.Options.Engine = extract.EngineReadability
		base, err := Run(ctx, bcfg)
		if err != nil {
			return r, fmt.Errorf("baseline: %w", err)
		}
		r.compare(base)
	}
	if len(r.Timings) > 0 {
		r.addKinds()
		r.addSecondOpinions()
		r.add("all", len(r.Timings), "median ms/page (decode+extract)", medianMS(r.Timings), "including the second opinions")
	}
	return r, nil
}

// extractors holds one Extractor per site, as the crawler does (an
// Extractor learns the template lines of its site's pages).
type extractors struct {
	opts   extract.Options
	bySite map[string]*extract.Extractor
}

// get returns the extractor of a site; expectArticle sets
// Options.ExpectArticle, as the crawler does for pages matching a site's
// article_url.
func (x *extractors) get(site string, expectArticle bool) *extract.Extractor {
	key := site
	if expectArticle {
		key += "\x00article"
	}
	ex := x.bySite[key]
	if ex == nil {
		opts := x.opts
		opts.ExpectArticle = opts.ExpectArticle || expectArticle
		ex, _ = extract.New(opts) // the options were checked by Run
		x.bySite[key] = ex
	}
	return ex
}

// nonArticlePrefix marks the site of a reprint-web page that does not match
// the site's article_url (lists, galleries, videos): it is extracted
// without ExpectArticle.
const nonArticlePrefix = "non-article:"

// siteOf is the host of a page URL, the site key for datasets without
// site names.
func siteOf(pageURL string) string {
	if u, err := url.Parse(pageURL); err == nil {
		return u.Host
	}
	return ""
}

// extractBytes decodes and extracts one page of dataset ds and site,
// timing both and counting the second opinions.
func extractBytes(xs *extractors, r *Report, ds, site, pageURL string, body []byte, contentType string) (*extract.Article, error) {
	start := time.Now()
	utf8Body, _, err := decode.ToUTF8(body, contentType, "")
	if err != nil {
		return nil, err
	}
	// The article pages of the reprint web match their site's article_url,
	// so the crawler extracts them with ExpectArticle.
	expect := ds == "reprint-web" && !strings.HasPrefix(site, nonArticlePrefix)
	site = strings.TrimPrefix(site, nonArticlePrefix)
	a, err := xs.get(ds+"/"+site, expect).Extract(pageURL, utf8Body)
	d := time.Since(start)
	r.Timings = append(r.Timings, d)
	second := ""
	switch {
	case a != nil:
		second = a.SecondOpinion
	case err != nil && strings.Contains(err.Error(), "boilerplate"):
		second = extract.SecondOpinionRefused
	}
	if second != "" {
		r.SecondTimings = append(r.SecondTimings, d)
		r.countSecond(ds, second, 1)
	}
	if a != nil {
		r.countKind(ds, a)
	}
	return a, err
}

func (r *Report) countSecond(ds, outcome string, n int) {
	if r.Second == nil {
		r.Second = map[string]map[string]int{}
	}
	if r.Second[ds] == nil {
		r.Second[ds] = map[string]int{}
	}
	r.Second[ds][outcome] += n
}

// compare lists the pages scoring more than BaselineMargin under the
// baseline report's score of the same page, with a count per dataset.
func (r *Report) compare(base *Report) {
	type key struct{ ds, id string }
	bs := map[key]float64{}
	for _, p := range base.Pages {
		bs[key{p.Dataset, p.ID}] = p.F1
	}
	n := map[string]int{}
	var order []string
	for _, p := range r.Pages {
		if _, ok := n[p.Dataset]; !ok {
			order = append(order, p.Dataset)
			n[p.Dataset] = 0
		}
		b, ok := bs[key{p.Dataset, p.ID}]
		if ok && p.F1 < b-BaselineMargin {
			r.Below = append(r.Below, Below{p.Dataset, p.ID, p.F1, b})
			n[p.Dataset]++
		}
	}
	for _, ds := range order {
		var ids []string
		for _, b := range r.Below {
			if b.Dataset == ds {
				ids = append(ids, fmt.Sprintf("%s (%.2f vs %.2f)", b.ID, b.Ours, b.Baseline))
			}
		}
		r.addCount(ds, 0, fmt.Sprintf("pages > %.1f F1 below plain readability", BaselineMargin), n[ds], strings.Join(ids, " "))
	}
}

// addPerSite adds, for the datasets whose pages know their site, the mean
// F1 of the worst site and the mean over sites (the leave-one-site-out
// rows are added by runLOSO).
func (r *Report) addPerSite() {
	type acc struct {
		sum float64
		n   int
	}
	per := map[string]map[string]*acc{}
	for _, p := range r.Pages {
		if p.Site == "" {
			continue
		}
		if per[p.Dataset] == nil {
			per[p.Dataset] = map[string]*acc{}
		}
		a := per[p.Dataset][p.Site]
		if a == nil {
			a = &acc{}
			per[p.Dataset][p.Site] = a
		}
		a.sum += p.F1
		a.n++
	}
	for _, ds := range slices.Sorted(maps.Keys(per)) {
		sites := per[ds]
		worst, worstF := "", 2.0
		var macro float64
		for _, s := range slices.Sorted(maps.Keys(sites)) {
			m := sites[s].sum / float64(sites[s].n)
			macro += m
			if m < worstF {
				worst, worstF = s, m
			}
		}
		r.add(ds, len(sites), "per-site mean F1: mean over sites", macro/float64(len(sites)), fmt.Sprintf("worst site %s %.4f (%d pages)", worst, worstF, sites[worst].n))
	}
}

// addSecondOpinions adds how often go-readability's second opinion ran,
// per dataset and outcome, and what the pages that asked for it cost.
func (r *Report) addSecondOpinions() {
	asked := 0
	for _, ds := range slices.Sorted(maps.Keys(r.Second)) {
		n := 0
		var parts []string
		for _, k := range []string{extract.SecondOpinionAgreed, extract.SecondOpinionKept, extract.SecondOpinionExtended, extract.SecondOpinionReplaced, extract.SecondOpinionRefused} {
			if c := r.Second[ds][k]; c > 0 {
				n += c
				parts = append(parts, fmt.Sprintf("%s %d", k, c))
			}
		}
		asked += n
		r.addCount(ds, 0, "second opinions (go-readability) asked", n, strings.Join(parts, ", "))
	}
	note := "no page asked for one"
	if len(r.SecondTimings) > 0 {
		note = fmt.Sprintf("median %.2f ms on those pages", medianMS(r.SecondTimings))
	}
	r.addCount("all", len(r.Timings), "pages with a second opinion", asked, note)
}

func medianMS(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
}

// relatedLeak reports whether text contains a piece (headline link or
// summary) of the related-reading block placed on the page that the truth
// text does not contain.
func relatedLeak(text, truth string, pieces []string) bool {
	for _, t := range pieces {
		if runeCount(t) >= minLeakPiece && strings.Contains(text, t) && !strings.Contains(truth, t) {
			return true
		}
	}
	return false
}

// minLeakPiece: shorter block pieces may occur in any text by chance.
const minLeakPiece = 8

func runeCount(s string) int { return len([]rune(s)) }

func runBench(ctx context.Context, xs *extractors, split string, r *Report) error {
	pages, err := LoadBench(split, false)
	if err != nil {
		return err
	}
	firstTiming := len(r.Timings)
	var sumF1 float64
	var ge09, leaks, withBlock, dates, titleExact, empty, noArticle, authors int
	var badAuthors []string
	var sumDrop, sumKeep float64
	var lines metaLineScore
	for _, p := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		body, err := os.ReadFile(p.File)
		if err != nil {
			return err
		}
		a, err := extractBytes(xs, r, "reprint-web", p.Site, p.URL, body, p.ContentType)
		text, title := "", ""
		ps := PageScore{Dataset: "reprint-web", ID: p.Site + p.Path, Site: p.Site}
		if err != nil {
			ps.Err = err.Error()
			noArticle++
		} else {
			text, title = a.Text, a.Title
			if !a.PublishedAt.IsZero() {
				dates++
			}
		}
		if text == "" {
			empty++
		}
		f := BigramF1(text, p.Truth.Text)
		ps.F1 = f
		r.Pages = append(r.Pages, ps)
		sumF1 += f
		if f >= 0.9 {
			ge09++
		}
		if title == p.Truth.Title {
			titleExact++
		}
		lines.add(p, a)
		if a != nil && a.Author != "" {
			authors++
			if !isNameList(a.Author) {
				badAuthors = append(badAuthors, p.Site+p.Path+"="+a.Author)
			}
		}
		if p.Truth.RelatedBlock != nil {
			withBlock++
			if relatedLeak(text, p.Truth.Text, relatedPieces(body, p.ContentType)) {
				leaks++
				r.Pages[len(r.Pages)-1].Err = "related-block leak"
			}
		}
		// The same text scored with and without inside-body metadata lines,
		// to decide whether Text should keep them.
		sumKeep += f
		sumDrop += BigramF1(text, dropMetaLines(p.Truth))
	}
	n := len(pages)
	if n == 0 {
		return fmt.Errorf("no bench pages in %s", split)
	}
	r.add("reprint-web", n, "mean bigram F1", sumF1/float64(n), "vs truth text")
	r.add("reprint-web", n, "share F1>=0.9", float64(ge09)/float64(n), "")
	r.add("reprint-web", n, "mean F1 vs truth without 来源/责任编辑 lines", sumDrop/float64(n), "what stripping them would be scored against")
	r.addCount("reprint-web", withBlock, "pages leaking 相关阅读 block text", leaks, "pages whose truth has a related block")
	r.add("reprint-web", n, "title exact", float64(titleExact)/float64(n), "")
	r.add("reprint-web", n, "median ms/page (decode+extract)", medianMS(r.Timings[firstTiming:]), "")
	if err := runBenchNonArticles(xs, split, r); err != nil {
		return err
	}
	r.addCount("reprint-web", n, "publish dates found", dates, "")
	r.add("reprint-web", n, "date accuracy", math.NaN(), "truth.jsonl labels no publish dates (the pages are real templates around replaced stories)")
	lines.rows(r)
	note := "authors that are not person names (headline fragments, prose)"
	if len(badAuthors) > 0 {
		note += ": " + strings.Join(badAuthors[:min(5, len(badAuthors))], " ")
	}
	r.addCount("reprint-web", authors, "authors that are not names", len(badAuthors), note)
	r.addCount("reprint-web", n, "empty text", empty, fmt.Sprintf("%d with an error", noArticle))
	return nil
}

// runBenchNonArticles extracts the list and "other" pages of the split
// (lists, galleries, videos, about pages, JSON endpoints) and counts the
// ErrNoArticle verdicts, which is the right answer for all of them.
func runBenchNonArticles(xs *extractors, split string, r *Report) error {
	raw, err := os.ReadFile(filepath.Join(split, "pages.jsonl"))
	if err != nil {
		return err
	}
	var rf routesFile
	if err := readJSON(filepath.Join(split, "routes.json"), &rf); err != nil {
		return err
	}
	total, rejected := 0, 0
	var kept []string
	for _, line := range strings.Split(string(raw), "\n") {
		var p struct{ URL, Site, Path, Kind, Subkind string }
		if json.Unmarshal([]byte(line), &p) != nil || (p.Kind != "list" && p.Kind != "other") {
			continue
		}
		for _, s := range rf.Sites {
			rt, ok := s.Routes[p.Path]
			if s.Name != p.Site || !ok || rt.File == "" {
				continue
			}
			body, err := os.ReadFile(filepath.Join(split, rt.File))
			if err != nil {
				return err
			}
			total++
			// Timed apart (the article-page median is about articles);
			// second opinions are counted with the rest.
			side := &Report{}
			_, err = extractBytes(xs, side, "reprint-web", nonArticlePrefix+p.Site, p.URL, body, rt.Headers["Content-Type"])
			for k, c := range side.Second["reprint-web"] {
				r.countSecond("reprint-web", k, c)
			}
			r.SecondTimings = append(r.SecondTimings, side.SecondTimings...)
			if errors.Is(err, extract.ErrNoArticle) {
				rejected++
			} else {
				kept = append(kept, p.Site+p.Path)
			}
		}
	}
	note := "lists, galleries, videos, about, api"
	if len(kept) > 0 {
		note += "; kept: " + strings.Join(kept, " ")
	}
	r.addCount("reprint-web", total, "non-article pages rejected (ErrNoArticle)", rejected, note)
	return nil
}

// metaLineScore compares Source and Editor with the 来源/责任编辑 lines
// the reprint web's generator added to a page (its source_line and
// editor_line edits).
type metaLineScore struct {
	nSource, okSource, nEditor, okEditor int
	misses                               []string
}

func (s *metaLineScore) add(p BenchPage, a *extract.Article) {
	var got extract.Article
	if a != nil {
		got = *a
	}
	for _, e := range p.Truth.Edits {
		want := labelledName(e.Text)
		switch {
		case e.Op == "source_line" && want != "":
			s.nSource++
			if got.Source == want {
				s.okSource++
			} else {
				s.misses = append(s.misses, fmt.Sprintf("%s%s source %q got %q", p.Site, p.Path, want, got.Source))
			}
		case e.Op == "editor_line" && want != "":
			s.nEditor++
			if got.Editor == want {
				s.okEditor++
			} else {
				s.misses = append(s.misses, fmt.Sprintf("%s%s editor %q got %q", p.Site, p.Path, want, got.Editor))
			}
		}
	}
}

func (s *metaLineScore) rows(r *Report) {
	r.add("reprint-web", s.nSource, "source accuracy (来源 lines added)", ratio(s.okSource, s.nSource), fmt.Sprintf("%d of %d: Source equals the name of the source_line edit", s.okSource, s.nSource))
	r.add("reprint-web", s.nEditor, "editor accuracy (责任编辑 lines added)", ratio(s.okEditor, s.nEditor), fmt.Sprintf("%d of %d: Editor equals the name of the editor_line edit", s.okEditor, s.nEditor))
	r.addCount("reprint-web", s.nSource+s.nEditor, "source and editor misses", len(s.misses), strings.Join(s.misses[:min(8, len(s.misses))], "; "))
}

// labelledName is the name in a bench source or editor line
// ("（来源：光明日报）", "[责任编辑：郭婷]", "本文来源：新华社"): the text after
// the colon without the closing bracket; "" when there is no colon.
func labelledName(line string) string {
	i := strings.IndexAny(line, ":：")
	if i < 0 {
		return ""
	}
	name := strings.TrimLeft(line[i:], ":：")
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(name), ")）]】"))
}

// dropMetaLines removes the inside-body source/editor lines from the truth.
func dropMetaLines(t BenchTruth) string {
	text := t.Text
	for _, e := range t.Edits {
		if (e.Op == "source_line" || e.Op == "editor_line") && e.InsideBody && e.Text != "" {
			text = strings.Replace(text, e.Text, "", 1)
		}
	}
	return text
}

// isNameList reports whether an author field is a list of person names:
// Han names of 2-4 characters (a "·" allowed) or Latin names, no sentence
// punctuation. A headline read as a byline ("把新时代改革开放推向前进的根本
// 要求", from "人民日报整版刊文：…") fails it.
func isNameList(s string) bool {
	if strings.ContainsAny(s, "：:，,。！？、；;“”\"") {
		return false
	}
	for _, f := range strings.Fields(s) {
		han := 0
		for _, r := range f {
			if r >= 0x2E80 {
				han++
			}
		}
		if han > 4 && !strings.Contains(f, "·") {
			return false
		}
	}
	return true
}

// relatedPieces returns the texts inside the related-reading block of a
// bench page: the block is the list that follows its 相关阅读 heading; every
// text between tags in it is one piece.
func relatedPieces(body []byte, contentType string) []string {
	u, _, err := decode.ToUTF8(body, contentType, "")
	if err != nil {
		return nil
	}
	s := string(u)
	var out []string
	for {
		i := strings.Index(s, "相关阅读</")
		if i < 0 {
			return out
		}
		s = s[i:]
		end := strings.Index(s, "</ul>")
		if end < 0 {
			return out
		}
		z := html.NewTokenizer(strings.NewReader(s[:end]))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt == html.TextToken {
				if t := strings.TrimSpace(string(z.Text())); t != "" {
					out = append(out, t)
				}
			}
		}
		s = s[end:]
	}
}

// cwcedDate is a CWCED truth date: year, and month/day when given, and
// the time of day (hour and minute) when the label writes one.
type cwcedDate struct {
	y, m, d int
	hh, mm  int
	hasTime bool
}

func parseCWCEDDate(s string) (cwcedDate, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s == "UNKNOWN" {
		return cwcedDate{}, false
	}
	fields := strings.Fields(s)
	parts := strings.Split(fields[0], "-")
	var d cwcedDate
	var nums []int
	for _, p := range parts {
		var v int
		if _, err := fmt.Sscanf(p, "%d", &v); err != nil {
			return cwcedDate{}, false
		}
		nums = append(nums, v)
	}
	if len(nums) == 0 || nums[0] < 1900 {
		return cwcedDate{}, false
	}
	d.y = nums[0]
	if len(nums) > 1 {
		d.m = nums[1]
	}
	if len(nums) > 2 {
		d.d = nums[2]
	}
	if len(fields) > 1 && d.d != 0 {
		var hh, mm int
		if n, _ := fmt.Sscanf(fields[1], "%d:%d", &hh, &mm); n == 2 && hh < 24 && mm < 60 {
			d.hh, d.mm, d.hasTime = hh, mm, true
		}
	}
	return d, true
}

func (d cwcedDate) matches(t time.Time) bool {
	if t.IsZero() {
		return false
	}
	if t.Year() != d.y {
		return false
	}
	if d.m != 0 && int(t.Month()) != d.m {
		return false
	}
	return d.d == 0 || t.Day() == d.d
}

// matchesTime reports whether t is the labelled day and, on the wall
// clock of t's own zone (the portal's, UTC+8 unless the page states
// another), the labelled hour and minute.
func (d cwcedDate) matchesTime(t time.Time) bool {
	return d.hasTime && d.matches(t) && t.Hour() == d.hh && t.Minute() == d.mm
}

// normNames splits an author field into a set of names.
func normNames(s string) map[string]bool {
	s = strings.TrimSpace(s)
	if s == "" || s == "UNKNOWN" {
		return nil
	}
	f := strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\u3000' || r == '、' || r == ',' || r == '，' || r == ';' || r == '；' || r == '/'
	})
	m := map[string]bool{}
	for _, x := range f {
		m[x] = true
	}
	return m
}

func sameNames(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func runCWCED(ctx context.Context, xs *extractors, shared string, r *Report) error {
	dir := filepath.Join(shared, "data", "extraction", "cwced-dev")
	files, err := filepath.Glob(filepath.Join(dir, "original", "*.html"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no pages in %s", dir)
	}
	urls := cwcedURLs(filepath.Join(dir, "pages.tsv"))
	var sumF1 float64
	var nDate, okDate, nTime, okTime, okAuthor, nAuthor, noArt int
	var dateNotes, editorLabels, textNotes, zones []string
	notes, tnotes := cwcedDateNotes(), cwcedTextNotes()
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := strings.TrimSuffix(filepath.Base(f), ".html")
		body, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		truth, err := os.ReadFile(filepath.Join(dir, "cleaned", id+".txt"))
		if err != nil {
			return err
		}
		u := urls[id]
		a, err := extractBytes(xs, r, "cwced", siteOf(u), u, body, "")
		ps := PageScore{Dataset: "cwced", ID: id, Site: siteOf(u)}
		var got extract.Article
		if errors.Is(err, extract.ErrNoArticle) {
			noArt++
		}
		if err != nil {
			ps.Err = err.Error()
		} else {
			got = *a
		}
		ps.F1 = BigramF1(got.Text, string(truth))
		sumF1 += ps.F1
		if n, ok := tnotes[id]; ok {
			textNotes = append(textNotes, n.check(id, body, string(truth), ps.F1))
		}
		if raw, err := os.ReadFile(filepath.Join(dir, "date", id+".txt")); err == nil {
			if d, ok := parseCWCEDDate(string(raw)); ok {
				nDate++
				if d.hasTime {
					nTime++
					if d.matchesTime(got.PublishedAt) {
						okTime++
					} else if d.matches(got.PublishedAt) {
						ps.Err += fmt.Sprintf(" time: want %s got %s;", strings.TrimSpace(string(raw)), got.PublishedAt.Format(time.RFC3339))
					}
				}
				if _, off := got.PublishedAt.Zone(); !got.PublishedAt.IsZero() && off != utc8Offset {
					zones = append(zones, fmt.Sprintf("%s %s", id[:8], got.PublishedAt.Format(time.RFC3339)))
				}
				if d.matches(got.PublishedAt) {
					okDate++
				} else {
					ps.Err += fmt.Sprintf(" date: want %s got %s;", strings.TrimSpace(string(raw)), got.PublishedAt.Format(time.DateTime))
					if n, ok := notes[id]; ok {
						dateNotes = append(dateNotes, n.check(id, body, got.PublishedAt))
					}
				}
			}
		}
		if raw, err := os.ReadFile(filepath.Join(dir, "author", id+".txt")); err == nil && strings.TrimSpace(string(raw)) != "" {
			nAuthor++
			want := normNames(string(raw))
			have := normNames(got.Author)
			if sameNames(want, have) {
				okAuthor++
			} else {
				ps.Err += fmt.Sprintf(" author: want %q got %q;", strings.TrimSpace(string(raw)), got.Author)
				if got.Author == "" && sameNames(want, normNames(got.Editor)) {
					editorLabels = append(editorLabels, fmt.Sprintf("%s (%s)", id[:8], got.Editor))
				}
			}
		}
		r.Pages = append(r.Pages, ps)
	}
	n := len(files)
	r.add("cwced", n, "mean bigram F1", sumF1/float64(n), fmt.Sprintf("vs cleaned/; %d ErrNoArticle", noArt))
	r.add("cwced", nDate, "date accuracy (same day)", ratio(okDate, nDate), fmt.Sprintf("%d of %d pages with a dated truth; year/month-only truths compared at their precision", okDate, nDate))
	r.add("cwced", nTime, "date+time accuracy (labels with a time)", ratio(okTime, nTime), fmt.Sprintf("%d of %d: same day and same hour:minute on the wall clock of our time's zone", okTime, nTime))
	r.addCount("cwced", nDate, "dates not in UTC+8", len(zones), "the portal's zone unless the page states another; "+strings.Join(zones, " "))
	r.add("cwced", nAuthor, "author accuracy", ratio(okAuthor, nAuthor), "name sets equal; UNKNOWN = no author")
	r.addCount("cwced", n, "text labels that are not the article", len(textNotes), "counted as they are in the F1 above; "+strings.Join(textNotes, "; "))
	r.addCount("cwced", nDate-okDate, "date misses that are label disagreements", len(dateNotes), "counted as misses above; "+strings.Join(dateNotes, "; "))
	r.add("cwced", nDate-len(dateNotes), "date accuracy without those labels", ratio(okDate, nDate-len(dateNotes)), fmt.Sprintf("%d of %d: the pages whose label disagrees with the page (evidence above) left out", okDate, nDate-len(dateNotes)))
	r.addCount("cwced", nAuthor-okAuthor, "author misses: label names the editor", len(editorLabels), "counted as misses above; the page shows no author, the label is the name our Editor field holds (责任编辑/编辑): "+strings.Join(editorLabels, " "))
	return nil
}

// cwcedURLs reads the page URLs of pages.tsv (file, kind, host, url) by
// page id; a missing file gives no URLs.
func cwcedURLs(path string) map[string]string {
	out := map[string]string{}
	raw, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Split(line, "\t")
		if len(f) >= 4 && strings.HasSuffix(f[0], ".html") {
			out[strings.TrimSuffix(f[0], ".html")] = strings.TrimSpace(f[3])
		}
	}
	return out
}

// utc8Offset is China Standard Time, the zone of a time a page writes
// without one.
const utc8Offset = 8 * 3600

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func runScrapingHub(ctx context.Context, xs *extractors, shared string, r *Report) error {
	dir := filepath.Join(shared, "data", "extraction", "scrapinghub-article-extraction-benchmark-en")
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
		URL         string `json:"url"`
	}
	if err := readJSON(filepath.Join(dir, "ground-truth.json"), &gt); err != nil {
		return err
	}
	ids := slices.Sorted(maps.Keys(gt))
	var ms []TPFPFN
	var acc float64
	noArt := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		body, err := readGz(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return err
		}
		// The benchmark's HTML files are UTF-8 (README).
		a, err := extractBytes(xs, r, "scrapinghub-en", siteOf(gt[id].URL), gt[id].URL, body, "text/html; charset=utf-8")
		pred := ""
		ps := PageScore{Dataset: "scrapinghub", ID: id, Site: siteOf(gt[id].URL)}
		if errors.Is(err, extract.ErrNoArticle) {
			noArt++
		}
		if err != nil {
			ps.Err = err.Error()
		} else {
			pred = a.Text
		}
		x := ShingleMatch(gt[id].ArticleBody, pred)
		ms = append(ms, x)
		acc += ShingleAccuracy(gt[id].ArticleBody, pred)
		ps.F1 = 0
		if x.TP > 0 {
			ps.F1 = 2 * x.TP / (2*x.TP + x.FP + x.FN)
		}
		r.Pages = append(r.Pages, ps)
	}
	p, rc, f := ShingleScores(ms)
	n := len(ids)
	r.add("scrapinghub-en", n, "F1 (shingle, evaluate.py)", f, fmt.Sprintf("%d ErrNoArticle", noArt))
	r.add("scrapinghub-en", n, "precision", p, "")
	r.add("scrapinghub-en", n, "recall", rc, "")
	r.add("scrapinghub-en", n, "accuracy", acc/float64(n), "")
	r.add("scrapinghub-en", 0, "date accuracy", math.NaN(), "ground-truth.json labels articleBody and url only")
	return nil
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer zr.Close()
	b, err := io.ReadAll(io.LimitReader(zr, extract.MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func runTrafilatura(ctx context.Context, xs *extractors, shared string, r *Report) error {
	dir := filepath.Join(shared, "data", "extraction", "trafilatura-eval-zh")
	var ev map[string]struct {
		File    string   `json:"file"`
		Title   string   `json:"title"`
		Date    string   `json:"date"`
		Author  string   `json:"author"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := readJSON(filepath.Join(dir, "evaldata-zh.json"), &ev); err != nil {
		return err
	}
	urls := slices.Sorted(maps.Keys(ev))
	var with, withN, without, withoutN, dateOK, titleOK, authorOK int
	var misses []string
	for _, u := range urls {
		e := ev[u]
		body, err := os.ReadFile(filepath.Join(dir, "html", e.File))
		if err != nil {
			return err
		}
		a, err := extractBytes(xs, r, "trafilatura-zh", siteOf(u), u, body, "")
		var got extract.Article
		if err == nil {
			got = *a
		}
		pass := 0
		for _, s := range e.With {
			withN++
			if strings.Contains(got.Text, s) {
				with++
				pass++
			}
		}
		for _, s := range e.Without {
			withoutN++
			if !strings.Contains(got.Text, s) {
				without++
				pass++
			}
		}
		if !got.PublishedAt.IsZero() && got.PublishedAt.Format(time.DateOnly) == e.Date {
			dateOK++
		} else {
			misses = append(misses, fmt.Sprintf("%s date: want %s got %s", e.File, e.Date, got.PublishedAt.Format(time.DateTime)))
		}
		// An empty label: the page names no author.
		switch {
		case sameNames(normNames(e.Author), normNames(got.Author)):
			authorOK++
		case e.Author != "" && sameNames(normNames(e.Author), normNames(got.Editor)):
			misses = append(misses, fmt.Sprintf("%s author: want %q got %q, the label is the page's 责任编辑 (our Editor)", e.File, e.Author, got.Author))
		default:
			misses = append(misses, fmt.Sprintf("%s author: want %q got %q", e.File, e.Author, got.Author))
		}
		if strings.TrimSpace(got.Title) == strings.TrimSpace(e.Title) {
			titleOK++
		}
		r.Pages = append(r.Pages, PageScore{Dataset: "trafilatura", ID: e.File, F1: ratio(pass, len(e.With)+len(e.Without))})
	}
	n := len(urls)
	r.addCount("trafilatura-zh", n, "must-contain snippets found", with, fmt.Sprintf("of %d", withN))
	r.addCount("trafilatura-zh", n, "must-not-contain snippets absent", without, fmt.Sprintf("of %d", withoutN))
	r.add("trafilatura-zh", n, "date accuracy", ratio(dateOK, n), fmt.Sprintf("%d of %d: the labelled day (evaldata-zh.json date)", dateOK, n))
	r.add("trafilatura-zh", n, "author accuracy", ratio(authorOK, n), fmt.Sprintf("%d of %d: name sets equal, an empty label wants no author", authorOK, n))
	r.addCount("trafilatura-zh", n, "title exact", titleOK, fmt.Sprintf("of %d", n))
	r.addCount("trafilatura-zh", n, "date and author misses", len(misses), strings.Join(misses, "; "))
	return nil
}

// expectedTextCheck is the pass threshold for datasets with a full expected
// text: the page passes when its bigram F1 reaches it (the bench's own
// "share_f1_ge_0.9" bar).
const expectedTextCheck = 0.9

func scoreExpected(xs *extractors, r *Report, ds, id string, body []byte, want string) (float64, extract.Article) {
	a, err := extractBytes(xs, r, ds, id, "", body, "")
	var got extract.Article
	ps := PageScore{Dataset: ds, ID: id}
	if err != nil {
		ps.Err = err.Error()
	} else {
		got = *a
	}
	ps.F1 = BigramF1(got.Text, want)
	r.Pages = append(r.Pages, ps)
	return ps.F1, got
}

// runExpectedSet scores the {ID, html path, expected text path} pairs of
// a dataset, and the publish dates of the pages dates labels (ID: a date
// or time parseTime-like "2023-11-17T00:00:00", compared by day); a set
// without date labels gets a "date accuracy" row of n/a saying why
// (noDates).
func runExpectedSet(xs *extractors, r *Report, ds string, pairs [][3]string, dates map[string]string, noDates string, titles map[string]string) error {
	var sum float64
	pass, nDate, okDate, okTitle := 0, 0, 0, 0
	var misses []string
	for _, p := range pairs {
		body, err := os.ReadFile(p[1])
		if err != nil {
			return err
		}
		want, err := os.ReadFile(p[2])
		if err != nil {
			return err
		}
		w := string(want)
		if strings.HasSuffix(p[2], ".html") {
			w = htmlText(want)
		}
		f, got := scoreExpected(xs, r, ds, p[0], body, w)
		sum += f
		if t, ok := titles[p[0]]; ok && strings.TrimSpace(got.Title) == strings.TrimSpace(t) {
			okTitle++
		}
		if f >= expectedTextCheck {
			pass++
		}
		if label, ok := dates[p[0]]; ok {
			nDate++
			if d, ok := parseCWCEDDate(strings.Replace(label, "T", " ", 1)); ok && d.matches(got.PublishedAt) {
				okDate++
			} else {
				misses = append(misses, fmt.Sprintf("%s: want %s got %s", p[0], label, got.PublishedAt.Format(time.DateTime)))
			}
		}
	}
	if len(pairs) == 0 {
		return fmt.Errorf("no pages")
	}
	r.addCount(ds, len(pairs), "pages with bigram F1>=0.9", pass, fmt.Sprintf("of %d; mean F1 %.3f", len(pairs), sum/float64(len(pairs))))
	if len(titles) > 0 {
		r.addCount(ds, len(titles), "title exact", okTitle, fmt.Sprintf("of %d labelled titles", len(titles)))
	}
	if nDate == 0 {
		r.add(ds, 0, "date accuracy", math.NaN(), noDates)
		return nil
	}
	note := fmt.Sprintf("%d of %d: the labelled day", okDate, nDate)
	if len(misses) > 0 {
		note += "; " + strings.Join(misses, "; ")
	}
	r.add(ds, nDate, "date accuracy", ratio(okDate, nDate), note)
	return nil
}

func runNewspaper(_ context.Context, xs *extractors, shared string, r *Report) error {
	dir := filepath.Join(shared, "data", "extraction", "newspaper4k-zh", "tests", "data")
	pairs := htmlTextPairs(dir, "txt")
	// metadata/ID.json holds the publish_date newspaper4k's tests expect.
	labels, titles := map[string]string{}, map[string]string{}
	for _, p := range pairs {
		var m struct {
			PublishDate string `json:"publish_date"`
			Title       string `json:"title"`
		}
		if err := readJSON(filepath.Join(dir, "metadata", p[0]+".json"), &m); err == nil {
			if m.PublishDate != "" {
				labels[p[0]] = m.PublishDate
			}
			if m.Title != "" {
				titles[p[0]] = m.Title
			}
		}
	}
	return runExpectedSet(xs, r, "newspaper4k-zh", pairs, labels, "", titles)
}

func runHTMLToText(_ context.Context, xs *extractors, shared string, r *Report) error {
	dir := filepath.Join(shared, "data", "extraction", "htmltotext-benchmark-zh", "benchmarkdata", "zh")
	return runExpectedSet(xs, r, "htmltotext-zh", htmlTextPairs(dir, "text"), nil, "the benchmark labels texts only", nil)
}

// htmlTextPairs pairs every dir/html/ID.html with dir/textDir/ID.txt as
// {ID, html path, text path}, the layout of datasets that keep pages and
// expected texts in two parallel directories.
func htmlTextPairs(dir, textDir string) [][3]string {
	htmls, _ := filepath.Glob(filepath.Join(dir, "html", "*.html")) // the pattern is constant, so no ErrBadPattern
	var pairs [][3]string
	for _, h := range htmls {
		id := strings.TrimSuffix(filepath.Base(h), ".html")
		pairs = append(pairs, [3]string{id, h, filepath.Join(dir, textDir, id+".txt")})
	}
	return pairs
}

func runReadabilityPages(_ context.Context, xs *extractors, shared string, r *Report) error {
	dir := filepath.Join(shared, "data", "extraction", "readability-testpages-zh", "test", "test-pages")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var pairs [][3]string
	for _, e := range ents {
		if e.IsDir() {
			pairs = append(pairs, [3]string{e.Name(), filepath.Join(dir, e.Name(), "source.html"), filepath.Join(dir, e.Name(), "expected.html")})
		}
	}
	// expected-metadata.json has a publishedTime field; every page of the
	// set leaves it null.
	dates := map[string]string{}
	for _, p := range pairs {
		var m struct {
			PublishedTime *string `json:"publishedTime"`
		}
		if err := readJSON(filepath.Join(dir, p[0], "expected-metadata.json"), &m); err == nil && m.PublishedTime != nil && *m.PublishedTime != "" {
			dates[p[0]] = *m.PublishedTime
		}
	}
	return runExpectedSet(xs, r, "readability-zh", pairs, dates, "no page labels a date (publishedTime is null in every expected-metadata.json)", nil)
}

// Value returns the value of a row by dataset and metric name.
func (r *Report) Value(dataset, metric string) (float64, bool) {
	for _, row := range r.Rows {
		if row.Dataset == dataset && row.Metric == metric {
			return row.Value, true
		}
	}
	return 0, false
}

// WriteTable prints the report as an aligned text table.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %6s  %-48s %10s  %s\n", "dataset", "pages", "metric", "value", "note")
	for _, row := range r.Rows {
		v := fmt.Sprintf("%.4f", row.Value)
		switch {
		case math.IsNaN(row.Value):
			v = "n/a"
		case row.Count:
			v = fmt.Sprintf("%d", int64(row.Value))
		case strings.Contains(row.Metric, "ms/page"):
			v = fmt.Sprintf("%.2f", row.Value)
		}
		fmt.Fprintf(&b, "%-16s %6d  %-48s %10s  %s\n", row.Dataset, row.Pages, row.Metric, v, row.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Worst returns the n lowest-scoring pages (ties broken by id).
func (r *Report) Worst(n int) []PageScore {
	s := append([]PageScore(nil), r.Pages...)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].F1 != s[j].F1 {
			return s[i].F1 < s[j].F1
		}
		return s[i].ID < s[j].ID
	})
	if n < len(s) {
		s = s[:n]
	}
	return s
}

// htmlText is the text of an HTML fragment, one line per block (whitespace
// does not matter to the bigram metric).
func htmlText(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	var sb strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return sb.String()
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				skip++
			case "p", "div", "br", "li", "h1", "h2", "h3", "h4", "tr":
				sb.WriteByte('\n')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if s := string(name); (s == "script" || s == "style") && skip > 0 {
				skip--
			}
		}
	}
}

// dateNote is a CWCED date label that disagrees with what its page
// shows, written down after reading the page. Accuracy still counts
// against the label; the note is printed when our date is the one the
// page shows and the page holds the quoted evidence.
type dateNote struct {
	ours     string // our date, 2006-01-02
	evidence string // text the page holds, quoted in the note
	why      string
}

func cwcedDateNotes() map[string]dateNote {
	return map[string]dateNote{
		"c3f7d079-7730-4a9c-b041-73fcc4b5b3e4": {"2005-03-06", "2005-03-06 16:17:00", "label 2003-5 is the date line of the research report reprinted in the body (2003年5月 under the 课题组 byline); the page's own date under its header and in the URL (/2005/03/06/) is"},
		"05e98007-d810-4036-b154-2ef2fe68c2af": {"2005-07-05", "7/5/2005 9:23:57 PM", "label 2005-5-7 reads the US-order 发布日期 day-first; the text opens 【看中国2005年07月03日报道】, so 7/5 is July 5:"},
		"e8847578-12f0-44cb-bdb7-4eec53c18ed1": {"2022-01-28", `name="PubDate" content="2022-01-28`, "label 2022-01-27 is the 成文日期 (date written, also under the signature); the 发布日期 cell and the meta say 2022-01-28:"},
	}
}

// check returns the note for the eval's output, saying so when the page
// no longer holds the evidence or our date is not the one it shows.
func (n dateNote) check(id string, page []byte, ours time.Time) string {
	u, _, err := decode.ToUTF8(page, "", "")
	switch {
	case err != nil || !bytes.Contains(u, []byte(n.evidence)):
		return fmt.Sprintf("%s: evidence %q NOT FOUND on the page", id[:8], n.evidence)
	case ours.Format(time.DateOnly) != n.ours:
		return fmt.Sprintf("%s: our date %s is not the page's %s", id[:8], ours.Format(time.DateOnly), n.ours)
	}
	return fmt.Sprintf("%s: %s %q", id[:8], n.why, n.evidence)
}

// textNote is a CWCED text label that is not the page's article, written
// down after reading the page; the F1 still counts against the label.
// evidence must be on the page, and in the label exactly when inLabel.
type textNote struct {
	evidence string
	inLabel  bool
	why      string
}

func cwcedTextNotes() map[string]textNote {
	return map[string]textNote{
		"d8d4c4ec-dc2a-420f-a9f8-5e8ee597b965": {"他觉得自己这4年多，命运就跟这件T恤正反面一样", false, "the label stops after 1,160 characters (…建了一家小锻造厂。) while the page's article runs on to its byline; the label lacks"},
		"386d70f8-19dc-495b-aa14-18cc057e1544": {"错误的版面参数！请确认您是从有效的连接进入。", true, "the page is the forum's error page and login form, and the label is all of its text, with"},
	}
}

func (n textNote) check(id string, page []byte, label string, f1 float64) string {
	u, _, err := decode.ToUTF8(page, "", "")
	if err != nil || !bytes.Contains(u, []byte(n.evidence)) || strings.Contains(label, n.evidence) != n.inLabel {
		return fmt.Sprintf("%s: evidence %q NOT as noted", id[:8], n.evidence)
	}
	return fmt.Sprintf("%s (F1 %.2f): %s %q", id[:8], f1, n.why, n.evidence)
}
