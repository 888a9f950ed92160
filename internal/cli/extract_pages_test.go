package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExtractShowsPages: `extract URL` names the pages of a multi-page
// article and which one the URL is, by the generic rule or by the
// extract.pager selector of the --site entry covering the URL; a page of
// one page has no pages key.
func TestExtractShowsPages(t *testing.T) {
	page := func(pager string) string {
		return `<html><head><meta charset="utf-8"><title>长江边小城的绿色答卷</title></head><body><h1>长江边小城的绿色答卷</h1>
<div class="box_con"><p>五月二十日，记者来到长江边的一座小城，探访当地推进生态保护和乡村振兴的做法，当地干部介绍了退捕渔民转岗的情况。</p>
<p>清晨的江面上薄雾未散，渔政船已经开始巡航。十年禁渔以来，江里的鱼明显多了，江豚也常常露出水面。</p>` + pager + `</div></body></html>`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	serve := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/n1/c1-40001234-2.html", serve(page(`<div class="zdfy clearfix"><a href="c1-40001234.html">【1】</a><a href="c1-40001234-2.html">【2】</a><a href="c1-40001234-3.html">【3】</a></div>`)))
	mux.HandleFunc("/odd/a.html", serve(page(`<div class="pgs"><a href="a-2.html">››</a></div>`)))
	mux.HandleFunc("/one/a.html", serve(page("")))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	site := filepath.Join(dir, "sites.yaml")
	yaml := fmt.Sprintf("storage: %s\nsites:\n  - name: odd\n    start_urls: [\"%s/odd/\"]\n    allowed_domains: [127.0.0.1]\n    article_url: '/odd/'\n    extract: {pager: \"div.pgs\"}\n",
		filepath.Join(dir, "news.db"), srv.URL)
	if err := os.WriteFile(site, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		args       []string
		pages      []string
		page       int
	}{
		{"generic rule, page 2", "/n1/c1-40001234-2.html", nil,
			[]string{"/n1/c1-40001234.html", "/n1/c1-40001234-2.html", "/n1/c1-40001234-3.html"}, 2},
		{"the site's pager selector", "/odd/a.html", []string{"--site", site}, []string{"/odd/a.html", "/odd/a-2.html"}, 1},
		{"no selector: the odd pager is not read", "/odd/a.html", nil, nil, 0},
		{"one page", "/one/a.html", nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"extract", srv.URL + tc.path}, tc.args...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var out struct {
				Pages []string `json:"pages"`
				Page  int      `json:"page"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range tc.pages {
				want = append(want, srv.URL+p)
			}
			if !slices.Equal(out.Pages, want) || out.Page != tc.page {
				t.Errorf("pages %q page %d, want %q page %d", out.Pages, out.Page, want, tc.page)
			}
		})
	}
}
