package serve_test

import (
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/newsdedup/newscrawl/internal/browser"
	"github.com/newsdedup/newscrawl/internal/devdata"
	"github.com/newsdedup/newscrawl/internal/sample"
)

var docs = flag.Bool("docs", false, "also write the screenshots to the repository's docs/img")

// TestBrowser drives the view in headless Chromium: overview, a search
// typed into the form, a cluster, a duplicate beside its original, and the
// page whose stored title and text carry <script>.
func TestBrowser(t *testing.T) {
	srv := newServer(t)
	b := browser.Start(t)
	ctx := b.Ctx
	eval := func(js string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	shots := map[string]string{}
	shot := func(name string) {
		_, p := b.Screenshot(t, name)
		shots[name] = p
	}

	t.Run("overview", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		title, err := chromedp.Run(ctx, chromedp.Title())
		if err != nil || title != "overview · newscrawl" {
			t.Fatalf("title %q, %v", title, err)
		}
		if n := eval(`document.querySelectorAll("#runs tr").length`); n != 3.0 {
			t.Errorf("runs table has %v rows, want 3", n)
		}
		if n := eval(`document.querySelectorAll("#sites tr").length`); n != 5.0 {
			t.Errorf("sites table has %v rows, want 5", n)
		}
		shot("serve-overview")
	})
	t.Run("search form", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`header input[name="q"]`), "地铁")); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.RunResponse(ctx, chromedp.Submit(chromedp.CSS(`header form`))); err != nil {
			t.Fatal(err)
		}
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		if !strings.Contains(loc, "/search?q=") {
			t.Fatalf("location %s", loc)
		}
		if got := eval(`document.querySelector("main p").textContent`); got != "3 result(s) for “地铁”" {
			t.Errorf("result line %q", got)
		}
		shot("serve-search")
	})
	t.Run("cluster", func(t *testing.T) {
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`table.hits td a[href^="/cluster/"]`))); err != nil {
			t.Fatal(err)
		}
		if got := eval(`document.querySelector("h1").textContent`); got != "Cluster 2" {
			t.Errorf("h1 %q", got)
		}
		if n := eval(`document.querySelectorAll("table.hits tr").length`); n != 4.0 {
			t.Errorf("%v rows, want 4 (header + 3 members)", n)
		}
		shot("serve-cluster")
	})
	t.Run("pair", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/pair?url="+url.QueryEscape("https://www.sohu.com/a/100"))); err != nil {
			t.Fatal(err)
		}
		if n := eval(`document.querySelectorAll("#dup mark").length`); n == 0.0 {
			t.Error("no highlighted passage in the duplicate")
		}
		if n := eval(`document.querySelectorAll("#orig mark").length`); n == 0.0 {
			t.Error("no highlighted passage in the original")
		}
		// The highlight is visible: mark has a background.
		if bg := eval(`getComputedStyle(document.querySelector("mark")).backgroundColor`); bg == "rgba(0, 0, 0, 0)" {
			t.Errorf("mark background %v", bg)
		}
		// Side by side: the two columns share a row.
		if top := eval(`document.querySelector("#dup").getBoundingClientRect().top === document.querySelector("#orig").getBoundingClientRect().top`); top != true {
			t.Error("duplicate and original are not side by side")
		}
		shot("serve-pair")
	})
	t.Run("stored script is text", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/article/5")); err != nil {
			t.Fatal(err)
		}
		if got := eval(`document.querySelector("#title").textContent`); got != sample.ScriptTitle {
			t.Errorf("title shown as %q, want the literal %q", got, sample.ScriptTitle)
		}
		if n := eval(`document.scripts.length + document.images.length`); n != 0.0 {
			t.Errorf("%v script/img elements in the page", n)
		}
		if got := eval(`document.querySelector("#text p").textContent`); !strings.Contains(got.(string), "<script>alert('body')</script>") {
			t.Errorf("body text %q", got)
		}
		if d := b.Dialogs(); len(d) > 0 {
			t.Errorf("JavaScript dialogs opened: %q", d)
		}
		shot("serve-escaped")
	})
	t.Run("site name is a link", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		if n := eval(`document.querySelectorAll("#sites td:first-child a[href^='/site/']").length`); n != 4.0 {
			t.Fatalf("%v site names are links, want 4", n)
		}
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#sites td:first-child a[href="/site/sohu"]`))); err != nil {
			t.Fatal(err)
		}
		if got := eval(`document.querySelector("h1").textContent`); got != "Site sohu" {
			t.Errorf("h1 %q", got)
		}
		if n := eval(`document.querySelectorAll("table.hits tr").length`); n != 5.0 {
			t.Errorf("%v rows, want 5 (header + sohu's 4 duplicates)", n)
		}
		// The site whose name is markup has a working link too.
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#sites tr:nth-child(2) td:first-child a`))); err != nil {
			t.Fatal(err)
		}
		if got := eval(`document.querySelector("h1").textContent`); got != "Site "+sample.ScriptSite {
			t.Errorf("h1 %q, want the site %q", got, sample.ScriptSite)
		}
		if d := b.Dialogs(); len(d) > 0 {
			t.Errorf("JavaScript dialogs opened: %q", d)
		}
	})
	t.Run("run page lists its articles", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/run/2")); err != nil {
			t.Fatal(err)
		}
		if n := eval(`document.querySelectorAll("#run-articles tr").length`); n != 4.0 {
			t.Errorf("%v rows, want 4 (header + run 2's article and 2 duplicates)", n)
		}
		if n := eval(`document.querySelectorAll("#run-articles a[href^='/article/'], #run-articles a[href^='/pair?']").length`); n.(float64) < 3 {
			t.Errorf("%v article links", n)
		}
	})
	t.Run("404 links back", func(t *testing.T) {
		for _, path := range []string{"/nope", "/article/999", "/run/99"} {
			resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(srv.URL+path))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 404 {
				t.Errorf("%s: status %d", path, resp.Status)
			}
			if n := eval(`document.querySelectorAll("main a[href='/']").length`); n != 1.0 {
				t.Errorf("%s: %v links back to the overview", path, n)
			}
		}
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`main a[href="/"]`))); err != nil {
			t.Fatal(err)
		}
		if got := eval(`location.pathname`); got != "/" {
			t.Errorf("the link led to %v", got)
		}
		shot("serve-404")
	})
	if *docs {
		writeDocs(t, shots, "serve-overview", "serve-pair")
	}
}

// writeDocs copies the named screenshots to docs/img in the repository.
func writeDocs(t *testing.T, shots map[string]string, names ...string) {
	t.Helper()
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "docs", "img")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(shots[n])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote docs/img/%s.png (%d bytes)", n, len(b))
	}
}
