package crawler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler/robots/robotstest"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// Hostile robots.txt, link floods, meta refresh (docs/FAULTS.md).

func TestRobotsEndToEnd(t *testing.T) {
	tests := []struct {
		name, robots string
		allowed      []string // fetched
		disallowed   []string // never requested
	}{
		{"raw UTF-8 rule", "User-agent: *\nDisallow: /新闻/\n", []string{"/art/1"}, []string{"/%E6%96%B0%E9%97%BB/art/2"}},
		{"lower-case escapes", "User-agent: *\nDisallow: /%e6%96%b0%e9%97%bb/\n", []string{"/art/1"}, []string{"/%E6%96%B0%E9%97%BB/art/2"}},
		{"disallow star", "User-agent: *\nDisallow: *\n", nil, []string{"/art/1"}},
		{"longer disallow beats wildcard allow", "User-agent: *\nDisallow: /private/\nAllow: /pub*.html\n", []string{"/art/1"}, []string{"/private/pub/art/3.html"}},
		{"bad lines ignored", "Crawl-delay: NaN\nDisallow /x\nUser-agent: *\nCrawl-delay: NaN\nDisallow: /private/\n", []string{"/art/1"}, []string{"/private/pub/art/3.html"}},
		{"html error page", "<!DOCTYPE html><html><body><h1>Error: User-agent</h1></body></html>", []string{"/art/1", "/private/pub/art/3.html"}, nil},
		{"UTF-16LE with BOM", utf16BOM(false, "User-agent: *\nDisallow: /新闻/\nDisallow: /private/\n"), []string{"/art/1"}, []string{"/%E6%96%B0%E9%97%BB/art/2", "/private/pub/art/3.html"}},
		{"UTF-16BE with BOM", utf16BOM(true, "User-agent: *\r\nDisallow: /private/\r\n"), []string{"/art/1"}, []string{"/private/pub/art/3.html"}},
		{"UTF-16 over 500 KiB parsed up to 500 KiB", utf16BOM(false, "User-agent: *\nDisallow: /private/\n"+strings.Repeat("# filler\n", 600<<10/9)), []string{"/art/1"}, []string{"/private/pub/art/3.html"}},
		{"over 500 KiB parsed up to 500 KiB", "User-agent: *\nDisallow: /private/\n" + strings.Repeat("# filler\n", 600<<10/9), []string{"/art/1"}, []string{"/private/pub/art/3.html"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt":           text(200, tc.robots),
				"/list":                 listPage("/art/1", "/%E6%96%B0%E9%97%BB/art/2", "/private/pub/art/3.html"),
				"/art/*":                article("a"),
				"/%E6%96%B0%E9%97%BB/*": article("b"),
				"/private/*":            article("c"),
			})
			cfg := testConfig(t, ts.URL, func(c *config.Config) {
				c.Sites[0].StartURLs = []string{ts.URL + "/list"}
				c.Sites[0].ArticleURL = `/art/[0-9]+(\.html)?$`
				c.Sites[0].FollowURL = `/list$`
			})
			crawlOnce(t, cfg, Options{})
			for _, p := range tc.allowed {
				if ts.hit(p) != 1 {
					t.Errorf("%s fetched %d times, want 1 (requests %v)", p, ts.hit(p), ts.requests())
				}
			}
			for _, p := range tc.disallowed {
				if ts.hit(p) != 0 {
					t.Errorf("robots violation: %s fetched", p)
				}
			}
		})
	}
}

// TestRobotsMatchedOnRequestedURL: a redirect target is checked against
// robots.txt in the form it is requested, not in the canonical
// (query-sorted) form of the seen set.
func TestRobotsMatchedOnRequestedURL(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /*?z=\n"),
		"/":           listPage("/r/1"),
		"/r/1":        redirect(302, "/art/1?z=1&b=2"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].ArticleURL = `/art/` })
	_, st, _ := crawlOnce(t, cfg, Options{})
	for _, uri := range ts.requests() {
		if strings.HasPrefix(uri, "/art/") {
			t.Errorf("robots violation: fetched %s", uri)
		}
	}
	wantErrorPage(t, st, ts.URL+"/r/1", KindRedirectDisallowed, false) // not an article URL: retried next run
}

// TestRobotsHostileFileCancellation: a 512 KB robots.txt of wildcard rules
// and a page of 20,000 links (231 s of CPU for that page before, and
// SIGTERM took 363 s): the page is handled and a cancellation ends the run
// within 2 s.
func TestRobotsHostileFileCancellation(t *testing.T) {
	links := make([]string, 20_000)
	for i := range links {
		links[i] = fmt.Sprintf("/list/%d?from=home&pos=%d", i, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan struct{})
	page := listPage(links...)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, robotstest.Hostile(512<<10, true)),
		"/": func(w http.ResponseWriter, r *http.Request) {
			page(w, r)
			close(served)
		},
		"/list/*": func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(20 * time.Millisecond)
			listPage()(w, r)
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Fetch.MaxLinksPerPage = 20_000
		c.Fetch.MaxBody = 8 << 20
		c.Sites[0].MaxDepth = 1
	})
	done := make(chan time.Time, 1)
	var sum Summary
	go func() {
		sum, _ = runCrawl(t, ctx, cfg, memory.New(), &recProc{}, Options{})
		done <- time.Now()
	}()
	select {
	case <-served:
	case <-time.After(30 * time.Second):
		t.Fatal("start page not served")
	}
	time.Sleep(500 * time.Millisecond) // the page's links are being matched or fetched
	cancelled := time.Now()
	cancel()
	select {
	case end := <-done:
		if d := end.Sub(cancelled); d > 2*time.Second {
			t.Errorf("run ended %s after cancellation, want <= 2s", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run still going 10 s after cancellation")
	}
	if !sum.Interrupted {
		t.Errorf("summary not interrupted: %+v", sum.Total)
	}
}

func TestLinksPerPageCapped(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(artLinks(50)...),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Fetch.MaxLinksPerPage = 10 })
	sum, _, proc := crawlOnce(t, cfg, Options{})
	if proc.count() != 10 {
		t.Errorf("processed %d articles, want the first 10 links", proc.count())
	}
	if ts.hit("/art/9") != 1 || ts.hit("/art/10") != 0 {
		t.Errorf("links taken are not the first 10 in document order")
	}
	if s := sum.Total; s.SkippedLinkCap != 40 || s.Queued != 11 {
		t.Errorf("SkippedLinkCap %d Queued %d, want 40 and 11", s.SkippedLinkCap, s.Queued)
	}
	if !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "max_links_per_page") }) {
		t.Errorf("no warning about the link cap: %q", sum.Warnings)
	}
}

func TestMaxLinksPerPageValidated(t *testing.T) {
	for _, n := range []int{0, -1, config.MaxLinksPerPageLimit + 1} {
		c := config.Default()
		c.Sites = []config.Site{{Name: "t", StartURLs: []string{"http://127.0.0.1/"}, AllowedDomains: []string{"127.0.0.1"}, ArticleURL: "/art/"}}
		c.Fetch.MaxLinksPerPage = n
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "fetch.max_links_per_page") {
			t.Errorf("max_links_per_page %d: err %v", n, err)
		}
	}
	if config.Default().Fetch.MaxLinksPerPage != config.DefaultMaxLinksPerPage {
		t.Error("default not set")
	}
}

func refreshPage(content string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><meta http-equiv="Refresh" content="%s"><title>moved</title></head><body>moved</body></html>`, content)
	}
}

func TestMetaRefreshFollowed(t *testing.T) {
	other := newTestServer(t, map[string]http.HandlerFunc{"/*": article("elsewhere")})
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
		"/":           listPage("/m/ok", "/m/chain/0", "/m/private", "/m/away", "/m/loop", "/self"),
		"/m/ok":       refreshPage("0; URL='/art/1'"),
		"/m/private":  refreshPage("0;url=/private/art/2"),
		"/m/away":     refreshPage("1, url=" + otherURL + "/art/3"),
		"/m/loop":     refreshPage("0; url=/m/loop2"),
		"/m/loop2":    refreshPage("0; url=/m/loop"),
		"/self":       func(w http.ResponseWriter, r *http.Request) { refreshPage("300")(w, r) },
		"/art/*":      article("a"),
		"/private/*":  article("secret"),
		"/m/chain/*": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/m/chain/"), "%d", &n)
			refreshPage(fmt.Sprintf("0; url=/m/chain/%d", n+1))(w, r)
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Fetch.MaxRedirects = 3
		c.Sites[0].FollowURL = `/(m/|self|$)`
	})
	_, st, proc := crawlOnce(t, cfg, Options{})
	r := proc.urls()[ts.URL+"/art/1"]
	if r == nil || r.RequestURL != ts.URL+"/m/ok" {
		t.Fatalf("refresh target not processed as the page of /m/ok: %+v", r)
	}
	for uri, kind := range map[string]string{
		"/m/chain/0": KindTooManyRedirects,
		"/m/private": KindRedirectDisallowed,
		"/m/away":    KindRedirectDisallowed,
		"/m/loop":    KindRedirectLoop,
	} {
		wantErrorPage(t, st, ts.URL+uri, kind, false) // list pages: retried next run
	}
	if ts.hit("/private/art/2") != 0 || len(other.requests()) != 0 {
		t.Errorf("disallowed refresh targets fetched")
	}
	if n := ts.hit("/m/chain/4"); n != 0 {
		t.Errorf("refresh chain followed beyond max_redirects")
	}
	if p := pageOf(t, st, ts.URL+"/self"); p.Outcome != storage.OutcomeNotArticle || ts.hit("/self") != 1 {
		t.Errorf("self-refreshing list page: %+v, fetched %d times", p, ts.hit("/self"))
	}
}

func TestRefreshURL(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"0; url=/a", "/a"},
		{"0;URL='/a b'", "/a b"},
		{`5, url="http://x/y"`, "http://x/y"},
		{"0; /direct", "/direct"},
		{"300", ""},
		{"", ""},
		{"url=/no-delay", ""},
		{"1.5 ; Url = /z ", "/z"},
	} {
		t.Run(tc.content, func(t *testing.T) {
			if got := refreshURL(tc.content); got != tc.want {
				t.Errorf("refreshURL(%q) = %q, want %q", tc.content, got, tc.want)
			}
		})
	}
}

// Start and list pages are never disabled for good.

// TestStartPageRetriedAfterFailure: a start page that failed in one run
// (403, 404, an off-site redirect to a captcha page, too large, not HTML) is
// fetched again by the next run, and its articles are found then.
func TestStartPageRetriedAfterFailure(t *testing.T) {
	captcha := newTestServer(t, map[string]http.HandlerFunc{"/*": article("captcha")})
	big := strings.Repeat("x", 2<<20)
	for _, tc := range []struct {
		name string
		fail http.HandlerFunc
	}{
		{"403", text(403, "forbidden")},
		{"404", text(404, "gone")},
		{"off-site redirect", redirect(302, strings.Replace(captcha.URL, "127.0.0.1", "localhost", 1)+"/verify")},
		{"too large", text(200, big)},
		{"not html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF-1.4")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var failing atomic.Bool
			failing.Store(true)
			ok := listPage("/art/1")
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(404, ""),
				"/": func(w http.ResponseWriter, r *http.Request) {
					if failing.Load() {
						tc.fail(w, r)
						return
					}
					ok(w, r)
				},
				"/art/*": article("a"),
			})
			cfg := testConfig(t, ts.URL)
			st := memory.New()
			proc := &recProc{store: st}
			sum, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, "no start page could be fetched") }) {
				t.Errorf("run 1: no warning about the start page: %q", sum.Warnings)
			}
			if !sum.NothingFetched {
				t.Error("run 1: NothingFetched not set")
			}
			failing.Store(false)
			sum, err = runCrawl(t, context.Background(), cfg, st, proc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ts.hit("/") != 2 || proc.urls()[ts.URL+"/art/1"] == nil {
				t.Errorf("run 2: start page fetched %d times in all, article processed %v; want the start page again and its article",
					ts.hit("/"), proc.urls()[ts.URL+"/art/1"] != nil)
			}
			if sum.NothingFetched || len(sum.Warnings) != 0 {
				t.Errorf("run 2: nothing fetched %v, warnings %q", sum.NothingFetched, sum.Warnings)
			}
		})
	}
}

// TestStartPagePermanentErrorFromOldStore: a store written before this
// rule holds a permanent error for a start URL; the run fetches it anyway.
func TestStartPagePermanentErrorFromOldStore(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
	})
	st := memory.New()
	old := storage.Page{URL: ts.URL + "/", Site: "t", RunID: 1, Outcome: storage.OutcomeError, Status: 403,
		ErrKind: "http_403", Err: "http status 403", Permanent: true, FetchedAt: time.Now()}
	if err := st.Commit(context.Background(), &storage.Commit{Page: old}); err != nil {
		t.Fatal(err)
	}
	proc := &recProc{store: st}
	if _, err := runCrawl(t, context.Background(), testConfig(t, ts.URL), st, proc, Options{}); err != nil {
		t.Fatal(err)
	}
	if ts.hit("/") != 1 || proc.count() != 1 {
		t.Errorf("start page fetched %d times, %d articles; want 1 and 1", ts.hit("/"), proc.count())
	}
}

// TestArticlePermanentErrorStaysFinal: article URLs keep permanent errors.
func TestArticlePermanentErrorStaysFinal(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/gone"),
		"/art/gone":   text(404, "gone"),
	})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	proc := &recProc{store: st}
	for range 2 {
		if _, err := runCrawl(t, context.Background(), cfg, st, proc, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if ts.hit("/art/gone") != 1 || ts.hit("/") != 2 {
		t.Errorf("article fetched %d times, start page %d; want 1 and 2", ts.hit("/art/gone"), ts.hit("/"))
	}
}

// TestNoStartPageWarningPerSite: only the site whose start pages all fail
// is warned about; the run fetched something, so NothingFetched is false.
func TestNoStartPageWarningPerSite(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/good/":      listPage("/art/1"),
		"/bad/":       text(403, "forbidden"),
		"/bad/2":      text(404, "gone"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		good := c.Sites[0]
		good.Name, good.StartURLs = "good", []string{ts.URL + "/good/"}
		bad := c.Sites[0]
		bad.Name, bad.StartURLs = "bad", []string{ts.URL + "/bad/", ts.URL + "/bad/2"}
		bad.FollowURL = `/bad/`
		good.FollowURL = `/good/`
		c.Sites = []config.Site{good, bad}
	})
	sum, _, _ := crawlOnce(t, cfg, Options{})
	if sum.NothingFetched {
		t.Error("NothingFetched although one site was crawled")
	}
	var startWarnings []string
	for _, w := range sum.Warnings {
		if strings.Contains(w, "no start page") {
			startWarnings = append(startWarnings, w)
		}
	}
	if len(startWarnings) != 1 || !strings.HasPrefix(startWarnings[0], "site bad: no start page could be fetched this run (2 tried") {
		t.Errorf("warnings %q", sum.Warnings)
	}
}

// TestMetaRefreshInConditionalComment: qq.com's pages carry
// <!--[if lte IE 8]><meta http-equiv="refresh" content="0; url=…upgrade.htm"><![endif]-->
// for old browsers: a comment, not a refresh to follow (eval web's qq pages).
func TestMetaRefreshInConditionalComment(t *testing.T) {
	for _, tc := range []struct{ name, page, want string }{
		{"conditional comment", `<html><head><!--[if lte IE 8]><meta http-equiv="refresh" content="0; url=https://new.qq.com/upgrade.htm"><![endif]--></head><body><a href="/a">a</a></body></html>`, ""},
		// A refresh for clients without JavaScript (to a "please enable
		// JavaScript" page) is not followed either: the page itself is what
		// a browser shows.
		{"noscript", `<html><head><noscript><meta http-equiv="refresh" content="0; url=/nojs"></noscript></head></html>`, ""},
		{"plain", `<meta http-equiv="refresh" content="0; url=/next">`, "/next"},
		{"other http-equiv", `<meta http-equiv="content-type" content="0; url=/no">`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extractLinks([]byte(tc.page), 10).refresh; got != tc.want {
				t.Errorf("refresh %q, want %q", got, tc.want)
			}
		})
	}
}

// utf16BOM encodes s as UTF-16 with a byte order mark.
func utf16BOM(bigEndian bool, s string) string {
	var b strings.Builder
	put := func(u uint16) {
		if bigEndian {
			b.WriteByte(byte(u >> 8))
			b.WriteByte(byte(u))
			return
		}
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	put(0xfeff)
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return b.String()
}

// TestRobotsTruncationReported: a robots.txt over the 500 KiB that are
// parsed is reported in the summary once per host (before: its end was
// ignored without a word).
func TestRobotsTruncationReported(t *testing.T) {
	const warning = "robots.txt is larger than 500 KiB: its first 500 KiB were parsed, the rest ignored"
	for _, tc := range []struct {
		name, robots string
		warned       bool
	}{
		{"over 500 KiB", "User-agent: *\nDisallow: /private/\n" + strings.Repeat("# filler\n", 600<<10/9), true},
		{"UTF-16 over 500 KiB", utf16BOM(false, "User-agent: *\nDisallow: /private/\n"+strings.Repeat("# filler\n", 600<<10/9)), true},
		{"small", "User-agent: *\nDisallow: /private/\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(200, tc.robots),
				"/":           listPage("/art/1", "/art/2"),
				"/art/*":      article("a"),
			})
			sum, _, _ := crawlOnce(t, testConfig(t, ts.URL), Options{})
			n := 0
			for _, w := range sum.Warnings {
				if strings.Contains(w, warning) {
					n++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.warned]; n != want {
				t.Errorf("%d truncation warnings, want %d: %q", n, want, sum.Warnings)
			}
		})
	}
}

// TestUTF16ListPageLinks: the links of a list page sent in UTF-16, with a
// byte order mark or without one, are followed (before: the tokenizer read
// the bytes, found no tag, and the page had no links, without a word).
func TestUTF16ListPageLinks(t *testing.T) {
	list := "<html><head><title>列表</title></head><body><ul><li><a href=\"/art/1\">新闻一</a></li><li><a href='/art/2'>新闻二</a></li></ul></body></html>"
	for _, tc := range []struct {
		name, contentType, body string
	}{
		{"little-endian with BOM", "text/html", utf16BOM(false, list)},
		{"big-endian with BOM", "text/html", utf16BOM(true, list)},
		{"little-endian without BOM", "text/html; charset=utf-16le", utf16BOM(false, list)[2:]},
		{"big-endian without BOM, no charset", "text/html", utf16BOM(true, list)[2:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(404, ""),
				"/": func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", tc.contentType)
					fmt.Fprint(w, tc.body)
				},
				"/art/*": article("a"),
			})
			_, _, proc := crawlOnce(t, testConfig(t, ts.URL), Options{})
			for _, p := range []string{"/art/1", "/art/2"} {
				if ts.hit(p) != 1 {
					t.Errorf("%s fetched %d times, want 1 (requests %v)", p, ts.hit(p), ts.requests())
				}
			}
			if proc.count() != 2 {
				t.Errorf("%d articles processed, want 2", proc.count())
			}
		})
	}
}
