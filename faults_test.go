package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// Faults driven end to end through the command and the pipeline (decode →
// extract → dedup → store). Each test is named after its fault and asserts
// the verdict recorded for it. Faults of the fetch stage (gzip bomb,
// oversized page, redirect loops, 429, robots.txt failures, timeouts, ...)
// are tested in crawler/crawler_test.go; docs/FAULTS.md maps every fault to
// its test.

// faultSite serves article pages /a/1.html, /a/2.html, … linked from the
// front page of a site without robots.txt.
type faultSite struct {
	url, db, siteFile string
}

// faultPage is one served page.
type faultPage struct {
	contentType string
	body        []byte
}

func newFaultSite(t *testing.T, pages []faultPage, edit func(string) string) faultSite {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>滚动新闻_江城日报网</title></head><body><h2>滚动新闻</h2><ul class="list">`)
		for i := range pages {
			fmt.Fprintf(w, `<li><a href="/a/%d.html">今日要闻%d</a></li>`, i+1, i+1)
		}
		fmt.Fprint(w, `</ul></body></html>`)
	})
	for i, p := range pages {
		mux.HandleFunc(fmt.Sprintf("/a/%d.html", i+1), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", p.contentType)
			w.Write(p.body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	s := faultSite{url: srv.URL, db: filepath.Join(dir, "news.db"), siteFile: filepath.Join(dir, "sites.yaml")}
	yaml := fmt.Sprintf(`storage: %q
user_agent: "newscrawl-test/1.0 (+https://example.org/newscrawl)"
sites:
  - name: faults
    start_urls: [%q]
    allowed_domains: [%q]
    article_url: '/a/\d+\.html$'
    delay: 0s
`, s.db, srv.URL+"/", strings.TrimPrefix(srv.URL, "http://"))
	if edit != nil {
		yaml = edit(yaml)
	}
	if err := os.WriteFile(s.siteFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// crawl crawls the fault site, expecting exit 0, and returns the store's
// corpus.
func (s faultSite) crawl(t *testing.T) corpus {
	t.Helper()
	res := runCrawl(s.siteFile)
	if res.code != exitOK {
		t.Fatalf("crawl: %v", res)
	}
	return readCorpus(t, s.db)
}

// article returns the page record of /a/n.html and its stored article (nil
// when none).
func (s faultSite) article(t *testing.T, c corpus, n int) (storage.Page, *storage.Article) {
	t.Helper()
	u := fmt.Sprintf("%s/a/%d.html", s.url, n)
	p, ok := c.pages[u]
	if !ok {
		t.Fatalf("no page recorded for %s; pages: %v", u, keys(c.pages))
	}
	if a, ok := c.stored[u]; ok {
		return p, &a
	}
	return p, nil
}

// crawlArticle crawls a fault site of one page and returns that page.
func crawlArticle(t *testing.T, contentType string, page []byte) (storage.Page, *storage.Article) {
	t.Helper()
	s := newFaultSite(t, []faultPage{{contentType, page}}, nil)
	return s.article(t, s.crawl(t), 1)
}

// story returns a fixture story's title and paragraphs.
func story(t *testing.T, id string) (string, []string) {
	t.Helper()
	for _, s := range fixture.Stories() {
		if s.ID == id {
			return s.Title, s.Paragraphs
		}
	}
	t.Fatalf("no fixture story %s", id)
	return "", nil
}

func gbk(t *testing.T, s string) []byte {
	t.Helper()
	b, err := encoding.HTMLEscapeUnsupported(simplifiedchinese.GBK.NewEncoder()).Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// squeeze removes all white space, as the bench scorer compares texts.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '　' {
			return -1
		}
		return r
	}, s)
}

// wantStoredText checks that the page was stored with every paragraph.
func wantStoredText(t *testing.T, p storage.Page, a *storage.Article, title string, paragraphs []string) {
	t.Helper()
	if p.Outcome != storage.OutcomeStored || a == nil {
		t.Fatalf("page recorded as %q (%s %s), want stored", p.Outcome, p.ErrKind, p.Err)
	}
	if a.Title != title {
		t.Errorf("title %q, want %q", a.Title, title)
	}
	text := squeeze(a.Text)
	for i, para := range paragraphs {
		if !strings.Contains(text, squeeze(para)) {
			t.Errorf("paragraph %d missing or garbled in the stored text\nwant: %s\ntext: %s", i, para, a.Text)
		}
	}
	if strings.ContainsRune(a.Text, '\uFFFD') {
		t.Errorf("stored text has replacement characters: %q", a.Text)
	}
}

func TestFaultAllNavigationBody(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>频道导航_江城日报网</title></head><body>`)
	for _, ch := range []string{"国内", "国际", "财经", "体育", "娱乐", "科技", "汽车", "房产", "教育", "健康"} {
		fmt.Fprintf(&b, `<div class="nav"><h3>%s</h3><ul>`, ch)
		for i := 1; i <= 8; i++ {
			fmt.Fprintf(&b, `<li><a href="/">%s频道第%d条推荐新闻标题</a></li>`, ch, i)
		}
		b.WriteString("</ul></div>\n")
	}
	b.WriteString(`<div class="footer"><p>关于我们 | 联系我们 | 广告服务</p><p>版权所有 © 2024 江城日报网</p></div></body></html>`)
	p, a := crawlArticle(t, "text/html; charset=utf-8", []byte(b.String()))
	if p.Outcome != storage.OutcomeNotArticle || a != nil {
		t.Fatalf("navigation-only page recorded as %q, want %q", p.Outcome, storage.OutcomeNotArticle)
	}
	if !strings.Contains(p.Err, "no article") {
		t.Errorf("not_article page without a reason: %q", p.Err)
	}
}

func TestFaultMalformedUnclosedHTML(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	title, paras := story(t, "s2")
	// No </p>, </div>, </body> or </html>; a stray </span>, an unclosed
	// <b> and <font>, a table cell never closed, unquoted attributes.
	var b strings.Builder
	fmt.Fprintf(&b, `<html><head><meta charset="utf-8"><title>%s_江城日报网</title><body><div class="nav"><a href=/>首页</a><a href=/ class=x>国内</a></div>`, title)
	fmt.Fprintf(&b, "\n<table><tr><td><h1>%s</h1></span>\n<div id=\"content\" class=\"content\"><font color=red>", title)
	for _, para := range paras {
		fmt.Fprintf(&b, "\n<p><b>　　%s", para)
	}
	b.WriteString("\n<div class=\"footer\">版权所有 © 2024 江城日报网")
	p, a := crawlArticle(t, "text/html; charset=utf-8", []byte(b.String()))
	wantStoredText(t, p, a, title, paras)
}

func TestFaultInvalidGBKByteSequences(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	title, paras := story(t, "s3")
	page := gbk(t, articleHTML(`<meta http-equiv="Content-Type" content="text/html; charset=gbk">`, title, paras))
	// Damage the middle of the second paragraph: a lead byte with an
	// invalid trail byte, a byte GBK never uses, a lone lead byte.
	head := string([]rune(paras[1])[:len([]rune(paras[1]))/3])
	mid := gbk(t, head)
	i := strings.Index(string(page), string(mid)) + len(mid)
	if i < len(mid) {
		t.Fatal("paragraph not found in the GBK page")
	}
	bad := []byte("\x81\x7f\xff\xb0")
	page = append(page[:i:i], append(bad, page[i:]...)...)
	p, a := crawlArticle(t, "text/html; charset=gbk", page)
	if p.Outcome != storage.OutcomeStored || a == nil {
		t.Fatalf("page with invalid GBK bytes recorded as %q (%s), want stored", p.Outcome, p.Err)
	}
	text := squeeze(a.Text)
	for j, para := range paras {
		if j == 1 {
			continue
		}
		if !strings.Contains(text, squeeze(para)) {
			t.Errorf("undamaged paragraph %d garbled: %s", j, a.Text)
		}
	}
	if !strings.Contains(text, squeeze(head)+"\uFFFD") {
		t.Errorf("damaged paragraph: want its text up to the damage followed by U+FFFD; got %q", a.Text)
	}
}

func TestFaultCharsetMislabelled(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	cases := []struct {
		name, meta string
		gbkBytes   bool
	}{
		{"gb2312 declared, UTF-8 bytes", "gb2312", false},
		{"gbk declared, UTF-8 bytes", "gbk", false},
		{"utf-8 declared, GBK bytes", "utf-8", true},
		{"no charset anywhere, GBK bytes", "", true},
	}
	pages, stories := charsetPages(t, len(cases), func(i int, title string, paras []string) faultPage {
		meta := ""
		if cases[i].meta != "" {
			meta = fmt.Sprintf(`<meta http-equiv="Content-Type" content="text/html; charset=%s">`, cases[i].meta)
		}
		page := []byte(articleHTML(meta, title, paras))
		if cases[i].gbkBytes {
			page = gbk(t, string(page))
		}
		return faultPage{"text/html", page} // no charset in the header
	})
	s := newFaultSite(t, pages, nil)
	c := s.crawl(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, a := s.article(t, c, i+1)
			wantStoredText(t, p, a, stories[i].Title, stories[i].Paragraphs)
		})
	}
}

// charsetPages builds n pages, each of a different fixture story (so that
// none is a duplicate of another).
func charsetPages(t *testing.T, n int, page func(i int, title string, paras []string) faultPage) ([]faultPage, []fixture.Story) {
	t.Helper()
	stories := fixture.Stories()
	if len(stories) < n {
		t.Fatalf("%d fixture stories, need %d", len(stories), n)
	}
	var pages []faultPage
	for i := range n {
		pages = append(pages, page(i, stories[i].Title, stories[i].Paragraphs))
	}
	return pages, stories[:n]
}

func TestFaultConflictingMetaCharsets(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	cases := []struct {
		name     string
		metas    string
		gbkBytes bool
	}{
		{"gbk then utf-8, UTF-8 bytes", `<meta charset="gbk"><meta http-equiv="Content-Type" content="text/html; charset=utf-8">`, false},
		{"utf-8 then gb2312, GBK bytes", `<meta charset="utf-8"><meta http-equiv="Content-Type" content="text/html; charset=gb2312">`, true},
		{"gb2312 then utf-8, GBK bytes", `<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><meta charset="utf-8">`, true},
	}
	pages, stories := charsetPages(t, len(cases), func(i int, title string, paras []string) faultPage {
		page := []byte(articleHTML(cases[i].metas, title, paras))
		if cases[i].gbkBytes {
			page = gbk(t, string(page))
		}
		return faultPage{"text/html", page}
	})
	s := newFaultSite(t, pages, nil)
	c := s.crawl(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, a := s.article(t, c, i+1)
			wantStoredText(t, p, a, stories[i].Title, stories[i].Paragraphs)
		})
	}
}

func TestFaultSiteWithZeroArticleMatches(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	title, paras := story(t, "s1")
	s := newFaultSite(t, []faultPage{{"text/html; charset=utf-8", []byte(articleHTML(`<meta charset="utf-8">`, title, paras))}},
		func(y string) string { return strings.Replace(y, `'/a/\d+\.html$'`, `'/news/\d+\.shtml$'`, 1) })
	res := runCrawl(s.siteFile)
	if res.code != exitOK {
		t.Fatalf("crawl: %v", res)
	}
	if !strings.Contains(res.stdout, "warning: faults: no URL matched article_url") {
		t.Errorf("summary has no zero-match warning:\n%s", res.stdout)
	}
	if c := readCorpus(t, s.db); len(c.stored) != 0 {
		t.Errorf("%d articles stored from a site whose pattern matches nothing", len(c.stored))
	}
}

func TestFaultConfigUnknownKey(t *testing.T) {
	title, paras := story(t, "s1")
	for _, tc := range []struct {
		name, key string
		edit      func(string) string
	}{
		{"top level", "stroage", func(y string) string { return strings.Replace(y, "storage:", "stroage:", 1) }},
		{"dedup section", "windw", func(y string) string { return y + "dedup: {windw: 30d}\n" }},
		{"site", "delays", func(y string) string { return strings.Replace(y, "delay: 0s", "delays: 0s", 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFaultSite(t, []faultPage{{"text/html; charset=utf-8", []byte(articleHTML("", title, paras))}}, tc.edit)
			res := runCrawl(s.siteFile)
			if res.code != exitUsage {
				t.Fatalf("crawl with unknown key %q: %v; want exit %d", tc.key, res, exitUsage)
			}
			if !strings.Contains(res.stderr, tc.key) {
				t.Errorf("the error does not name the key %q:\n%s", tc.key, res.stderr)
			}
			if _, err := os.Stat(s.db); err == nil {
				t.Error("a store was created although the config is invalid")
			}
		})
	}
}

func TestFaultStoreFromNewerSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	title, paras := story(t, "s1")
	s := newFaultSite(t, []faultPage{{"text/html; charset=utf-8", []byte(articleHTML("", title, paras))}}, nil)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, s.db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	const future = sqlite.SchemaVersion + 98
	setUserVersion(t, s.db, future)

	res := runCrawl(s.siteFile)
	if res.code != exitNoStore {
		t.Fatalf("crawl of a newer store: %v; want exit %d", res, exitNoStore)
	}
	for _, want := range []string{"newer", fmt.Sprintf("schema version %d", future)} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("error does not say %q:\n%s", want, res.stderr)
		}
	}
	if v := userVersion(t, s.db); v != future {
		t.Errorf("schema version changed to %d", v)
	}
	conn := sqlConn(t, s.db)
	var runs int
	if err := conn.QueryRow(`SELECT count(*) FROM runs`).Scan(&runs); err != nil || runs != 0 {
		t.Errorf("runs in the newer store: %d (%v), want 0", runs, err)
	}
}

func sqlConn(t *testing.T, db string) *sql.DB {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func setUserVersion(t *testing.T, db string, v int) {
	t.Helper()
	if _, err := sqlConn(t, db).Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

func userVersion(t *testing.T, db string) int {
	t.Helper()
	var v int
	if err := sqlConn(t, db).QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFaultDiskFull crawls into a store whose files may not grow past a
// limit (RLIMIT_FSIZE in a child process; SQLite sees the failed write as it
// sees a full disk). The run stops with exit 1 and an error naming the
// write failure; every committed page is whole (Check passes); the next run,
// with space again, completes the crawl. With no space at all (limit 0, the
// case of a store that cannot be written) an existing store is left as it
// was.
func TestFaultDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts crawl processes")
	}
	for _, tc := range []struct {
		name     string
		limit    int  // bytes a file may grow to
		existing bool // crawl once with space first
	}{
		{"fills during the run", diskFullLimit, false},
		{"no space at all", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sites := fixtureWeb(t, nil, nil)
			db := filepath.Join(t.TempDir(), "news.db")
			siteFile := writeSiteFile(t, sites, db, nil)
			want := fixture.Expected()
			var before corpus
			if tc.existing {
				if res := runCrawl(siteFile); res.code != exitOK {
					t.Fatalf("first crawl: %v", res)
				}
				before = readCorpus(t, db)
			}

			cmd := commandProcess("crawl", "--site", siteFile, "--progress", "0", "--workers", "1")
			cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", fileSizeEnv, tc.limit))
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if code != exitFailure {
				t.Fatalf("crawl on a full disk: exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", code, err, exitFailure, out.String(), errb.String())
			}
			if !strings.Contains(errb.String(), "disk is full") && !strings.Contains(errb.String(), "disk I/O error") {
				t.Errorf("the error does not name the failed write:\n%s", errb.String())
			}
			full := readCorpus(t, db) // Check: nothing half written
			if tc.existing {
				if len(full.runs) != len(before.runs) || len(full.pages) != len(before.pages) || len(full.stored) != len(before.stored) {
					t.Errorf("the store changed: runs %d -> %d, pages %d -> %d", len(before.runs), len(full.runs), len(before.pages), len(full.pages))
				}
			} else {
				if !strings.Contains(out.String(), "run 1 failed") {
					t.Errorf("no summary of the failed run:\n%s", out.String())
				}
				if len(full.stored) >= want.Stored {
					t.Fatalf("the limit of %d bytes did not stop the crawl (%d stored)", tc.limit, len(full.stored))
				}
				if len(full.pages) == 0 {
					t.Errorf("the limit of %d bytes stopped the crawl before it recorded a page: the disk did not fill during the run", tc.limit)
				}
			}
			t.Logf("stopped with %d pages, %d stored, %d duplicates: %s", len(full.pages), len(full.stored), len(full.dups), strings.TrimSpace(errb.String()))

			res := runCrawl(siteFile)
			if res.code != exitOK {
				t.Fatalf("crawl with space again: %v", res)
			}
			final := readCorpus(t, db)
			if len(final.stored) != want.Stored || len(final.dups) != want.Duplicates {
				t.Fatalf("after the disk-full run: %d stored and %d duplicates, want %d and %d", len(final.stored), len(final.dups), want.Stored, want.Duplicates)
			}
			for u, a := range full.stored {
				if b, ok := final.stored[u]; !ok || b.ID != a.ID || b.Text != a.Text {
					t.Errorf("article %s committed before the disk filled changed afterwards", u)
				}
			}
		})
	}
}

// diskFullLimit lets the schema and a few commits into the WAL (4 KiB pages)
// and fails a later write of the fixture crawl (found by trying: 320 KiB
// stops it before the first page is recorded, 1 MiB after a few articles).
const diskFullLimit = 1 << 20

// TestFaultNothingFetched: a run in which no start page can be fetched
// (here: the start page answers 403; then the host is down) exits with
// its own code and warns about the site; the next run, with the page back,
// fetches it again and exits 0.
func TestFaultNothingFetched(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	title, paras := story(t, "s1")
	var status atomic.Int32
	status.Store(http.StatusForbidden)
	page := []byte(articleHTML(`<meta charset="utf-8">`, title, paras))
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		if c := int(status.Load()); c != http.StatusOK {
			http.Error(w, "forbidden", c)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><a href="/a/1.html">要闻</a></body></html>`)
	})
	mux.HandleFunc("/a/1.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	db, siteFile := filepath.Join(dir, "news.db"), filepath.Join(dir, "sites.yaml")
	yaml := fmt.Sprintf(`storage: %q
sites:
  - name: faults
    start_urls: [%q]
    allowed_domains: [%q]
    article_url: '/a/\d+\.html$'
    delay: 0s
`, db, srv.URL+"/", strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(siteFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runCrawl(siteFile)
	if res.code != exitNothing {
		t.Fatalf("crawl with the start page answering 403: %v; want exit %d", res, exitNothing)
	}
	if !strings.Contains(res.stdout, "warning: faults: no start page could be fetched") || !strings.Contains(res.stderr, "nothing could be fetched") {
		t.Errorf("no warning or message:\n%s\n%s", res.stdout, res.stderr)
	}
	status.Store(http.StatusOK)
	if res := runCrawl(siteFile); res.code != exitOK {
		t.Fatalf("crawl with the start page back: %v", res)
	}
	if c := readCorpus(t, db); len(c.stored) != 1 {
		t.Errorf("%d articles stored after the start page came back, want 1", len(c.stored))
	}
}
