package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// Sitemap fixtures follow the sitemaps.org protocol (urlset and
// sitemapindex in the 0.9 namespace) with Google News tags
// (news:publication_date, news:title; developers.google.com/search/docs/
// crawling-indexing/sitemaps/news-sitemap), the form of QQ's news sitemaps
// named by news.qq.com/robots.txt.

func sitemapIndex(locs ...string) http.HandlerFunc {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, l := range locs {
		fmt.Fprintf(&b, "  <sitemap><loc>%s</loc><lastmod>2024-05-20T10:00:00+08:00</lastmod></sitemap>\n", l)
	}
	b.WriteString("</sitemapindex>\n")
	return xmlDoc(b.String())
}

// newsURL is one <url> with its Google News publication date ("" for none).
type newsURL struct{ loc, date string }

func newsSitemap(urls ...newsURL) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` + "\n")
	for _, u := range urls {
		fmt.Fprintf(&b, "  <url><loc>%s</loc>", u.loc)
		if u.date != "" {
			fmt.Fprintf(&b, "<news:news><news:publication><news:name>腾讯新闻</news:name><news:language>zh</news:language></news:publication>"+
				"<news:publication_date>%s</news:publication_date><news:title>标题</news:title></news:news>", u.date)
		}
		b.WriteString("</url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func xmlDoc(doc string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, doc)
	}
}

// gzipFile answers doc gzipped as a .xml.gz file (no Content-Encoding: the
// file itself is compressed).
func gzipFile(doc string) http.HandlerFunc {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(doc))
	zw.Close()
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(buf.Bytes())
	}
}

// TestSitemapsFromRobots: a robots.txt Sitemap: line names an index whose
// sitemaps (one gzipped) list the articles; the index also names itself
// (a loop), a sitemap on a foreign host, and a nested index two levels
// down, beyond maxSitemapDepth.
func TestSitemapsFromRobots(t *testing.T) {
	var ts *testServer
	u := func(p string) string { return ts.URL + p }
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			text(200, "User-agent: *\nDisallow: /private/\n\nSitemap: "+u("/sitemap/index.xml")+"\n")(w, r)
		},
		"/":      listPage(),
		"/art/*": article("a"),
		"/sitemap/index.xml": func(w http.ResponseWriter, r *http.Request) {
			sitemapIndex(u("/sitemap/index.xml"), u("/sitemap/news.xml.gz"), u("/sitemap/a.xml"), "https://other.example/s.xml", u("/sitemap/nested1.xml"))(w, r)
		},
		"/sitemap/news.xml.gz": func(w http.ResponseWriter, r *http.Request) {
			gzipFile(newsSitemap(newsURL{u("/art/n1"), "2024-05-20T10:00:00+08:00"}, newsURL{u("/art/n2"), ""}, newsURL{u("/private/art/3"), ""}))(w, r)
		},
		"/sitemap/a.xml": func(w http.ResponseWriter, r *http.Request) {
			xmlDoc(newsSitemap(newsURL{u("/art/a1"), ""}, newsURL{u("/art/n1"), ""}))(w, r)
		},
		"/sitemap/nested1.xml": func(w http.ResponseWriter, r *http.Request) { sitemapIndex(u("/sitemap/nested2.xml"))(w, r) },
		"/sitemap/nested2.xml": func(w http.ResponseWriter, r *http.Request) { sitemapIndex(u("/sitemap/nested3.xml"))(w, r) },
		"/sitemap/nested3.xml": func(w http.ResponseWriter, r *http.Request) { xmlDoc(newsSitemap(newsURL{u("/art/deep"), ""}))(w, r) },
	})
	cfg := testConfig(t, ts.URL)
	sum, st, proc := crawlRec(t, cfg, Options{})
	got := proc.urls()
	for _, a := range []string{"n1", "n2", "a1"} {
		if got[u("/art/"+a)] == nil {
			t.Errorf("article /art/%s not processed", a)
		}
	}
	if ts.hit("/private/art/3") != 0 || ts.hit("/sitemap/nested3.xml") != 0 || ts.hit("/art/deep") != 0 {
		t.Errorf("fetched what it must not: %v", ts.requests())
	}
	if ts.hit("/sitemap/index.xml") != 1 || ts.hit("/robots.txt") != 1 {
		t.Errorf("index fetched %d times, robots.txt %d, want once each", ts.hit("/sitemap/index.xml"), ts.hit("/robots.txt"))
	}
	want := time.Date(2024, 5, 20, 2, 0, 0, 0, time.UTC)
	if r := got[u("/art/n1")]; r == nil || !r.Listed.Equal(want) {
		t.Errorf("Listed of /art/n1 = %v, want %v", r, want)
	}
	if it, _ := st.item(u("/art/n2")); it.Referer != u("/sitemap/news.xml.gz") || it.Depth != 1 {
		t.Errorf("frontier item %+v", it)
	}
	s := sourceOf(t, sum, SourceRobots, u("/sitemap/index.xml"))
	if s.Requests != 5 || s.Found != 5 || s.Matched != 4 || s.Pushed != 3 || s.Errors != 0 ||
		s.Skipped[SkipLoop] != 1 || s.Skipped[SkipSurfaceOff] != 1 || s.Skipped[SkipTooDeep] != 1 ||
		s.Skipped[SkipRobots] != 1 || s.Skipped[SkipSeen] != 1 || s.Dated != 1 {
		t.Errorf("robots sitemap stats %+v", s)
	}
}

// TestSitemapBadInput: a sitemap that is not one, a gzip bomb, an index
// whose children are more than maxSitemapsPerSite, and a sitemap of a
// configured list are counted per source, never fatal.
func TestSitemapBadInput(t *testing.T) {
	bomb := func() http.HandlerFunc {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>`))
		zero := bytes.Repeat([]byte(" "), 1<<20)
		for range 60 { // 60 MB of spaces inside <loc> inflate past the 50 MB limit
			zw.Write(zero)
		}
		zw.Close()
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-gzip")
			w.Write(buf.Bytes())
		}
	}()
	var many []string
	tests := []struct {
		name    string
		routes  map[string]http.HandlerFunc
		kind    string // error kind counted, "" for none
		skipped string // skip reason counted, "" for none
	}{
		{"html page", map[string]http.HandlerFunc{"/sitemap.xml": listPage("/art/1")}, "not_sitemap", ""},
		{"gzip bomb", map[string]http.HandlerFunc{"/sitemap.xml": bomb}, KindTooLarge, ""},
		{"404", map[string]http.HandlerFunc{}, "http_404", ""},
		{"too many sitemaps", map[string]http.HandlerFunc{"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) { sitemapIndex(many...)(w, r) },
			"/s/*": xmlDoc(newsSitemap())}, "", SkipTooMany},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			routes := map[string]http.HandlerFunc{"/robots.txt": text(404, ""), "/": listPage("/art/1"), "/art/*": article("a")}
			for k, v := range tc.routes {
				routes[k] = v
			}
			ts := newTestServer(t, routes)
			many = many[:0]
			for i := range maxSitemapsPerSite + 5 {
				many = append(many, fmt.Sprintf("%s/s/%d.xml", ts.URL, i))
			}
			cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].Sitemaps = []string{ts.URL + "/sitemap.xml"} })
			sum, _, proc := crawlOnce(t, cfg, Options{RetryBase: time.Millisecond})
			if proc.urls()[ts.URL+"/art/1"] == nil {
				t.Error("start page's article not processed")
			}
			s := sourceOf(t, sum, SourceSitemap, ts.URL+"/sitemap.xml")
			if tc.kind != "" && (s.Errors != 1 || s.ErrorKinds[tc.kind] != 1) {
				t.Errorf("stats %+v, want one %s error", s, tc.kind)
			}
			// The index is one of the maxSitemapsPerSite files read.
			if tc.skipped != "" && (s.Skipped[tc.skipped] != len(many)+1-maxSitemapsPerSite || s.Requests != maxSitemapsPerSite) {
				t.Errorf("stats %+v, want %d requests and %d %s", s, maxSitemapsPerSite, len(many)+1-maxSitemapsPerSite, tc.skipped)
			}
		})
	}
}

// TestListedTimeOfDecidedURL: a sitemap listing again an article decided
// by the first run keeps no time for it in the second (it will not be
// fetched); a new one does.
func TestListedTimeOfDecidedURL(t *testing.T) {
	var ts *testServer
	second := false
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(),
		"/art/*":      article("a"),
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
			urls := []newsURL{{ts.URL + "/art/old", "2024-05-20T10:00:00+08:00"}}
			if second {
				urls = append(urls, newsURL{ts.URL + "/art/new", "2024-05-21T10:00:00+08:00"})
			}
			xmlDoc(newsSitemap(urls...))(w, r)
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].Sitemaps = []string{ts.URL + "/sitemap.xml"} })
	st := memory.New()
	proc := &recProc{store: st}
	for run, want := range []struct{ pushed, decided, dated int64 }{{1, 0, 1}, {1, 1, 1}} {
		second = run == 1
		sum, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := sourceOf(t, sum, SourceSitemap, ts.URL+"/sitemap.xml")
		if s.Pushed != want.pushed || int64(s.Skipped[SkipDecided]) != want.decided || s.Dated != want.dated {
			t.Errorf("run %d: %+v, want pushed %d, decided %d, dated %d", run+1, s, want.pushed, want.decided, want.dated)
		}
	}
}

// TestRobotsSitemapsBackOff: the robots.txt read for its Sitemap: lines
// is a surface of its own: once it and its sitemaps have yielded nothing
// new for fetch.list_backoff_after runs, the next run requests neither.
func TestRobotsSitemapsBackOff(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			text(200, "User-agent: *\nSitemap: "+ts.URL+"/sitemap.xml\n")(w, r)
		},
		"/":      listPage(),
		"/art/*": article("a"),
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
			xmlDoc(newsSitemap(newsURL{ts.URL + "/art/1", ""}))(w, r)
		},
	})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	proc := &recProc{store: st}
	for run, want := range []int{1, 1, 1, 0} { // robots.txt and sitemap requests per run
		before := [2]int{ts.hit("/robots.txt"), ts.hit("/sitemap.xml")}
		if _, err := runCrawl(t, context.Background(), cfg, st, proc, Options{}); err != nil {
			t.Fatal(err)
		}
		if got := [2]int{ts.hit("/robots.txt") - before[0], ts.hit("/sitemap.xml") - before[1]}; got != [2]int{want, want} {
			t.Errorf("run %d: robots.txt and sitemap requested %v times, want %d each", run+1, got, want)
		}
	}
	if proc.count() != 1 {
		t.Errorf("%d articles processed, want 1", proc.count())
	}
}
