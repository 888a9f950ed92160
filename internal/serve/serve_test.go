package serve_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/internal/serve"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := memory.New()
	if err := sample.Fill(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	h, err := serve.New(s, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// pages are the routes of the view with a valid argument each.
var pages = []string{
	"/",
	"/run/2",
	"/search?q=" + url.QueryEscape("国务院"),
	"/search?q=" + url.QueryEscape("<script>"),
	"/cluster/1",
	"/cluster/5",
	"/article/1",
	"/article/5",
	"/pair?url=" + url.QueryEscape("https://www.sohu.com/a/100"),
	"/pair?url=" + url.QueryEscape("https://news.qq.com/a/1"),
}

func TestRoutes(t *testing.T) {
	srv := newServer(t)
	for _, tc := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/", 200, []string{`id="runs"`, "sina", "sohu", "qq", "completed"}},
		// Outcomes named and counted as in the crawl summary: the 404 is
		// gone, not an error.
		{"/#outcomes", 200, []string{`<th>not_article</th><th>errors</th><th>gone</th><th>part</th>`,
			`<tr><td><a href="/site/sohu">sohu</a></td><td class="n">5</td><td class="n">0</td><td class="n">4</td><td class="n">0</td><td class="n">0</td><td class="n">1</td><td class="n">0</td></tr>`}},
		{"/run/1", 200, []string{"13: 4 stored, 4 duplicates, 4 not_article, 0 errors, 1 gone"}},
		{"/search?q=" + url.QueryEscape("地铁"), 200, []string{"3 result(s)", "地铁十九号线北段月底开通", "/pair?url=https%3a%2f%2fnews.qq.com%2fa%2f2"}},
		{"/search?q=", 200, []string{"Search titles"}},
		{"/cluster/1", 200, []string{"Cluster 1", "3 member(s)", "sohu.com/a/100", "sohu.com/a/200", "containment"}},
		{"/article/2", 200, []string{"地铁十九号线北段月底开通", "Duplicates of this article", "exact"}},
		{"/pair?url=" + url.QueryEscape("https://www.sohu.com/a/100"), 200, []string{"<mark>", "reason jaccard", "Hamming distance</td><td>0 (candidate when ≤ 3)"}},
		{"/article/999", 404, nil},
		{"/article/abc", 400, nil},
		{"/cluster/999", 404, nil},
		{"/pair?url=" + url.QueryEscape("https://news.sina.com.cn/c/2026-11-20/doc-0.shtml"), 404, []string{"not a duplicate"}},
		{"/pair", 400, nil},
		{"/nope", 404, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, _, body := get(t, srv, tc.path)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %q", w)
				}
			}
		})
	}
}

// TestEscapesStoredText: titles, texts and site names carry markup; no page
// may serve it as markup, and the CSP forbids script anyway.
func TestEscapesStoredText(t *testing.T) {
	srv := newServer(t)
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			status, hdr, body := get(t, srv, p)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			if bad := activeContent(t, body); bad != "" {
				t.Errorf("served active content: %s", bad)
			}
			if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
				t.Errorf("CSP %q", csp)
			}
			if ct := hdr.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	// The hostile strings are shown, escaped.
	_, _, body := get(t, srv, "/article/5")
	if !strings.Contains(body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;国务院常务会议") {
		t.Errorf("escaped title not shown:\n%s", body)
	}
}

// TestActiveContentCheck: the checker of TestEscapesStoredText finds what
// an unescaped view would serve.
func TestActiveContentCheck(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"<p>" + sample.ScriptTitle + "</p>", "<script>"},
		{"<p>" + sample.ScriptSite + "</p>", "<img>"},
		{`<p onclick="x">a</p>`, "attribute onclick on <p>"},
		{"<p>&lt;script&gt;</p>", ""},
	} {
		t.Run(tc.body, func(t *testing.T) {
			if got := activeContent(t, tc.body); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	srv := newServer(t)
	for _, p := range pages {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			t.Run(m+" "+p, func(t *testing.T) {
				req, err := http.NewRequest(m, srv.URL+p, strings.NewReader("q=x"))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
					t.Fatalf("status %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
				}
			})
		}
	}
}

// activeContent parses body and describes the first element that could run
// script or load something: a script, img, iframe, object or embed element,
// or an on* attribute; "" when there is none.
func activeContent(t *testing.T, body string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "script", "img", "iframe", "object", "embed":
			return "<" + n.Data + ">"
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(strings.ToLower(a.Key), "on") {
				return "attribute " + a.Key + " on <" + n.Data + ">"
			}
		}
	}
	return ""
}

func TestRunPage(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	defer s.Close()
	r, err := s.BeginRun(ctx, "configs/sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r.Status, r.FinishedAt = storage.RunCompleted, sample.Start
	r.Stats.Sites = []storage.SiteCounters{{Site: sample.ScriptSite, Counters: map[string]int64{"robots_blocked": 7, "retries": 2}}}
	if err := s.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	h, err := serve.New(s, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/run/1", 200, `<tr><td>robots_blocked</td><td class="n">7</td></tr>`},
		{"/run/1", 200, "&lt;img src=x"},
		{"/run/2", 404, ""},
		{"/run/x", 400, ""},
		{"/", 200, `<a href="/run/1">1</a>`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, _, body := get(t, srv, tc.path)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("status %d: %s", status, body)
			}
			if bad := activeContent(t, body); status == 200 && bad != "" {
				t.Errorf("active content %s", bad)
			}
		})
	}
}

// TestArticlePages: a multi-page article lists its pages in order with the
// missing one marked; its later pages count in the sites table.
func TestArticlePages(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	pages := []string{"http://m/1.html", "http://m/1-2.html", "http://m/1-3.html"}
	c := &storage.Commit{Page: storage.Page{URL: pages[0], Site: "people", RunID: 1, Outcome: storage.OutcomeStored},
		Article: &storage.Article{Site: "people", RunID: 1, Title: "长江边小城的绿色答卷", Text: "第一页。\n第二页。", ContentHash: "00",
			Pages: pages, PagesMissing: pages[2:]},
		Parts: pages[1:2]}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	h, err := serve.New(s, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, _, body := get(t, srv, "/article/1")
	for _, w := range []string{`id="pages"`, "3, text stitched in this order", `href="http://m/1-2.html"`,
		`http://m/1-3.html</a> <span class="muted">(could not be fetched: its text is missing)</span>`} {
		if !strings.Contains(body, w) {
			t.Errorf("article page: missing %q in\n%s", w, body)
		}
	}
	if strings.Contains(body, `http://m/1-2.html</a> <span class="muted">`) {
		t.Error("a fetched page is marked missing")
	}
	_, _, body = get(t, srv, "/")
	if !strings.Contains(body, `people</a></td><td class="n">2</td><td class="n">1</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">1</td>`) {
		t.Errorf("sites table without the later page:\n%s", body)
	}
}
