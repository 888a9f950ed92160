package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/evalextract"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// The multi-page fixture site (testdata/multipage, see the generator notes
// in each page): a People's Daily article in GBK over three pages linked by
// <div class="zdfy"> (-2.html, -3.html), reached first on its page 2; a
// Xinhua article whose ?page=N pages repeat page 1's whole text; a pager
// whose page 3 redirects back to page 2 (a loop); a page 2 that redirects
// off-site; a page 2 that answers 404; a pager that leads on for ever; and
// a single-page article.
const (
	mpPeople = "/n1/2024/0520/c1001-40001234"
	mpXinhua = "/politics/20240520/3a9e1bc04d/c.html"
	// mpRepeat is a page of Xinhua's markup without its page-break
	// markers: a pager whose pages each serve the whole text again,
	// fetched and read.
	mpRepeat = "/politics/20240521/7f0c2d9e1a/c.html"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "multipage", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// multiPageSite serves the fixture site and counts requests per request
// URI. Once mended is set, the page that answered 404 is served and the
// list links to it.
func multiPageSite(t *testing.T) (ts *httptest.Server, hits func() map[string]int, mended *atomic.Bool) {
	t.Helper()
	html := func(charset string, b []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html"+charset)
			w.Write(b)
		}
	}
	redirect := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
	}
	mended = &atomic.Bool{}
	list := func(page string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			body := page
			if mended.Load() {
				body = strings.Replace(page, "<ul>", `<ul><li><a href="/gone/a-2.html">山区学校（二）</a></li>`, 1)
			}
			fmt.Fprint(w, body)
		}
	}
	gone2 := html("; charset=utf-8", []byte(strings.Replace(string(readFixture(t, "gone-3.html")), "当地教育部门表示", "补上的第二页：", 1)))
	routes := map[string]http.HandlerFunc{
		"/": list(`<html><body><ul>
<li><a href="` + mpPeople + `-2.html">长江边小城的绿色答卷（二）</a></li><li><a href="` + mpPeople + `.html">长江边小城的绿色答卷</a></li>
<li><a href="` + mpXinhua + `">新能源汽车产销保持较快增长</a></li><li><a href="` + mpRepeat + `">新能源汽车（重复页）</a></li><li><a href="/loop/a.html">城市更新</a></li>
<li><a href="/off/a.html">海岛渔村</a></li><li><a href="/gone/a.html">山区学校</a></li>
<li><a href="/inf/a.html">无尽分页</a></li><li><a href="/news/single.html">博物馆</a></li>
<li><a href="/bad/a-2.html">古镇修缮（二）</a></li><li><a href="/news/reprint.html">长江边小城的绿色答卷（转载）</a></li></ul></body></html>`),
		"/robots.txt":        func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") },
		mpPeople + ".html":   html("", readFixture(t, "people-1.html")), // GBK, declared only in <meta> as GB2312
		mpPeople + "-2.html": html("", readFixture(t, "people-2.html")),
		mpPeople + "-3.html": html("", readFixture(t, "people-3.html")),
		mpXinhua:             html("; charset=utf-8", readFixture(t, "xinhua.html")), // every ?page=N too
		mpRepeat:             html("; charset=utf-8", readFixture(t, "repeat.html")), // every ?page=N too
		"/loop/a.html":       html("; charset=utf-8", readFixture(t, "loop-1.html")),
		"/loop/a-2.html":     html("; charset=utf-8", readFixture(t, "loop-2.html")),
		"/loop/a-3.html":     redirect("/loop/a-2.html"),
		"/off/a.html":        html("; charset=utf-8", readFixture(t, "off-1.html")),
		"/off/a-2.html":      redirect("http://elsewhere.example.com/off/a-2.html"),
		"/gone/a.html":       html("; charset=utf-8", readFixture(t, "gone-1.html")),
		"/gone/a-3.html":     html("; charset=utf-8", readFixture(t, "gone-3.html")),
		"/news/single.html":  html("; charset=utf-8", readFixture(t, "single.html")),
		"/bad/a-2.html":      html("; charset=utf-8", readFixture(t, "bad-2.html")), // its page 1 answers 404
		"/news/reprint.html": html("; charset=utf-8", readFixture(t, "reprint.html")),
		"/img/pagebreak.gif": http.NotFound,
		"/gone/a-2.html": func(w http.ResponseWriter, r *http.Request) {
			if !mended.Load() {
				http.NotFound(w, r)
				return
			}
			gone2(w, r)
		},
		"/inf/a.html":         infPage(1),
		"/elsewhere/a-2.html": http.NotFound,
	}
	var mu sync.Mutex
	count := map[string]int{}
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count[r.URL.RequestURI()]++
		mu.Unlock()
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/inf/a-%d.html", &n); err == nil && n > 1 {
			infPage(n)(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := count
		count = map[string]int{}
		return out
	}, mended
}

// infPage is page n of an article whose pager always names a next page.
func infPage(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>无尽的分页</title></head><body><h1>无尽的分页</h1><div class="content">
<p>这是一篇分页永远没有尽头的文章的第%d页，每一页都有不同的一段正文，用来检验抓取的页数上限。</p></div>
<div class="page"><a href="/inf/a.html">1</a><a href="/inf/a-%d.html">下一页</a></div></body></html>`, n, n+1)
	}
}

// mpCrawl runs one crawl of the fixture site into store.
func mpCrawl(t *testing.T, ctx context.Context, ts *httptest.Server, store storage.Store, runID int64) (crawler.Summary, string) {
	t.Helper()
	cfg := config.Default()
	cfg.Sites = []config.Site{{Name: "mp", StartURLs: []string{ts.URL + "/"}, AllowedDomains: []string{"127.0.0.1"},
		ArticleURL: `/(n1|politics|loop|gone|off|inf|news|bad)/.*\.html`, Parallelism: 1, MaxDepth: 3}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	eng, _, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewProcessor(&cfg, store, eng, log)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := crawler.New(&cfg, store, pl, crawler.Options{Workers: 1, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := cr.Run(ctx, runID)
	if err != nil {
		t.Fatalf("crawl: %v\nlog:\n%s", err, logs.String())
	}
	return sum, logs.String()
}

// TestCrawlMultiPageArticles crawls the fixture site twice: each multi-page
// article is stored once, under its page 1, with the text of its pages in
// order (bigram F1 >= 0.98 against the joined pages), its page URLs and
// missing pages recorded; no page is stored as an article of its own; a
// page 2 listed first leads to its article; bad pagers (loop, off-site,
// 404, endless) end with what could be had; and the second run fetches
// none of the pages.
func TestCrawlMultiPageArticles(t *testing.T) {
	ctx := context.Background()
	ts, hits, mended := multiPageSite(t)
	store := memory.New()
	sum, logs := mpCrawl(t, ctx, ts, store, 1)
	first := hits()
	u := func(p string) string { return ts.URL + p }

	arts := map[string]storage.Article{}
	err := store.Articles(ctx, func(a storage.Article) error { arts[a.URL] = a; return nil })
	if err != nil {
		t.Fatal(err)
	}
	wantArts := []string{u(mpPeople + ".html"), u(mpXinhua), u(mpRepeat), u("/loop/a.html"), u("/off/a.html"), u("/gone/a.html"), u("/inf/a.html"), u("/news/single.html")}
	var got []string
	for k := range arts {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(wantArts)
	if !slices.Equal(got, wantArts) {
		t.Fatalf("stored articles\n got %q\nwant %q\nlog:\n%s", got, wantArts, logs)
	}
	// Dedup runs on the stitched text: a reprint of pages 2 and 3 alone is
	// a duplicate of the article (it shares nothing with page 1).
	var dups []string
	err = store.Duplicates(ctx, func(d storage.Duplicate) error {
		dups = append(dups, d.URL+" of "+d.DupOfURL)
		return nil
	})
	if want := []string{u("/news/reprint.html") + " of " + u(mpPeople+".html")}; err != nil || !slices.Equal(dups, want) {
		t.Errorf("duplicates %q, %v; want %q", dups, err, want)
	}
	cases := []struct {
		name, url, truth string
		pages, missing   []string
	}{
		{"people (GBK, zdfy, reached on page 2)", u(mpPeople + ".html"), string(readFixture(t, "people.truth.txt")),
			[]string{u(mpPeople + ".html"), u(mpPeople + "-2.html"), u(mpPeople + "-3.html")}, nil},
		{"xinhua (pages repeat page 1)", u(mpXinhua), string(readFixture(t, "xinhua.truth.txt")),
			[]string{u(mpXinhua), u(mpXinhua + "?page=2"), u(mpXinhua + "?page=3")}, nil},
		{"pages repeating page 1, fetched", u(mpRepeat), string(readFixture(t, "repeat.truth.txt")),
			[]string{u(mpRepeat), u(mpRepeat + "?page=2"), u(mpRepeat + "?page=3")}, nil},
		{"404 page 2", u("/gone/a.html"), "", []string{u("/gone/a.html"), u("/gone/a-2.html"), u("/gone/a-3.html")}, []string{u("/gone/a-2.html")}},
		{"off-site page 2", u("/off/a.html"), "", []string{u("/off/a.html"), u("/off/a-2.html")}, []string{u("/off/a-2.html")}},
		{"loop (page 3 redirects to page 2)", u("/loop/a.html"), "", []string{u("/loop/a.html"), u("/loop/a-2.html")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := arts[tc.url]
			if !slices.Equal(a.Pages, tc.pages) || !slices.Equal(a.PagesMissing, tc.missing) {
				t.Fatalf("pages %q missing %q\nwant  %q missing %q", a.Pages, a.PagesMissing, tc.pages, tc.missing)
			}
			if tc.truth != "" {
				f1 := evalextract.BigramF1(a.Text, tc.truth)
				if f1 < 0.98 {
					t.Errorf("stitched text bigram F1 %.4f < 0.98:\n%s", f1, a.Text)
				}
				t.Logf("stitched text bigram F1 %.4f against the joined pages", f1)
			}
			for _, p := range tc.pages[1:] {
				pg, err := store.PageOf(ctx, p)
				if slices.Contains(tc.missing, p) {
					if err == nil && pg.Outcome.Final() {
						t.Errorf("missing page %s recorded as %s", p, pg.Outcome)
					}
					continue
				}
				if err != nil || pg.Outcome != storage.OutcomePart || pg.PartOf != tc.url {
					t.Errorf("page %s: %+v, %v; want a part of %s", p, pg, err, tc.url)
				}
			}
		})
	}
	if a := arts[u("/gone/a.html")]; !strings.Contains(a.Text, "体育教师") || !strings.Contains(a.Text, "塑胶跑道") {
		t.Errorf("article with a 404 page 2 lacks the text of pages 1 and 3: %q", a.Text)
	}
	if a := arts[u("/inf/a.html")]; len(a.Pages) != extract.MaxArticlePages || len(a.PagesMissing) != 0 {
		t.Errorf("endless pager: %d pages (%d missing), want %d", len(a.Pages), len(a.PagesMissing), extract.MaxArticlePages)
	}
	inf := 0
	for k, n := range first {
		if strings.HasPrefix(k, "/inf/") {
			inf += n
		}
		if n > 1 && k != "/robots.txt" {
			t.Errorf("%s requested %d times in one run", k, n)
		}
	}
	if inf > extract.MaxArticlePages {
		t.Errorf("endless pager: %d requests, want at most %d", inf, extract.MaxArticlePages)
	}
	// Xinhua's page 1 holds every page's text (its page-break markers): the
	// other pages are recorded without a request.
	if n := first[mpXinhua+"?page=2"] + first[mpXinhua+"?page=3"]; n != 0 {
		t.Errorf("xinhua pages 2 and 3 requested %d times; page 1 holds their text", n)
	}
	// A page 2 listed alone whose page 1 is gone: not an article of its
	// own, a permanent first_page error (page 1's 404 is permanent).
	if pg, err := store.PageOf(ctx, u("/bad/a-2.html")); err != nil || pg.Outcome != storage.OutcomeError || pg.ErrKind != KindFirstPage || !pg.Permanent {
		t.Errorf("page 2 of a gone article: %+v, %v", pg, err)
	}
	if first["/elsewhere/a-2.html"] != 0 {
		t.Error("the off-site redirect was followed")
	}
	if sum.Total.ArticlePages == 0 || sum.Total.ArticlePagesFailed < 2 {
		t.Errorf("article pages fetched %d, failed %d", sum.Total.ArticlePages, sum.Total.ArticlePagesFailed)
	}

	// The second run: the list page again, no article and no page of one.
	mpCrawl(t, ctx, ts, store, 2)
	for k, n := range hits() {
		if k != "/" && k != "/robots.txt" {
			t.Errorf("second run requested %s (%d times)", k, n)
		}
	}
	// The third run: the missing page answers now; met on the list, it is
	// recorded as a part of its stored article, which is not fetched again.
	mended.Store(true)
	sum, _ = mpCrawl(t, ctx, ts, store, 3)
	if pg, err := store.PageOf(ctx, u("/gone/a-2.html")); err != nil || pg.Outcome != storage.OutcomePart || pg.PartOf != u("/gone/a.html") {
		t.Errorf("mended page 2: %+v, %v; want a part of its article", pg, err)
	}
	if n := hits()["/gone/a.html"]; n != 0 || sum.Total.Parts != 1 || sum.Total.Stored != 0 {
		t.Errorf("third run: page 1 requested %d times, parts %d, stored %d; want 0, 1, 0", n, sum.Total.Parts, sum.Total.Stored)
	}
}

func TestJoinPages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages []string
		want  string
	}{
		{"pages in order", []string{"甲\n乙", "丙", "丁\n戊"}, "甲\n乙\n丙\n丁\n戊"},
		{"a page repeating page 1", []string{"甲\n乙\n丙", "甲\n乙\n丙", "甲\n乙\n丙"}, "甲\n乙\n丙"},
		{"an editor line under every page ends the article", []string{"甲\n(责编：王文)", "乙\n(责编：王文)", "丙\n(责编：王文)"}, "甲\n乙\n丙\n(责编：王文)"},
		{"a line closing some pages only", []string{"甲\n(完)", "乙", "丙\n(完)"}, "甲\n乙\n丙\n(完)"},
		{"a heading on every page stays first", []string{"导语\n甲", "导语\n乙"}, "导语\n甲\n乙"},
		{"repeats within a page stay", []string{"好\n好\n甲", "乙"}, "好\n好\n甲\n乙"},
		{"a page without text", []string{"甲", "", "乙"}, "甲\n乙"},
		{"one page", []string{"  甲  \n\n乙"}, "甲\n乙"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := joinPages(tc.pages); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
