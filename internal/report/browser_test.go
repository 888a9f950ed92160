package report_test

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/browser"
	"github.com/newsdedup/newscrawl/internal/devdata"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/report"
)

// axisLabelY is the y attribute of x-axis labels (svg.go: plotH-padB+16).
const axisLabelY = "218.0"

var docs = flag.Bool("docs", false, "also write the screenshot to the repository's docs/img")

// TestBrowser opens the report in headless Chromium: every plot is drawn,
// and the page loads nothing besides itself.
func TestBrowser(t *testing.T) {
	var page strings.Builder
	if err := build(t).WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" { // asked by the browser itself, not by the page
			http.NotFound(w, r)
			return
		}
		if r.URL.Path != "/report.html" {
			t.Errorf("the report requested %s", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page.String()))
	}))
	defer srv.Close()
	b := browser.Start(t)
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/report.html")); err != nil {
		t.Fatal(err)
	}
	eval := func(js string) any {
		t.Helper()
		v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[any](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	if n := eval(`[...document.querySelectorAll("figure svg")].filter(s => s.getBoundingClientRect().width > 300 && s.querySelectorAll("rect,polyline").length > 1).length`); n != 9.0 {
		t.Errorf("%v plots drawn, want 9", n)
	}
	// x-axis labels (the text on the axis baseline) do not overlap: the
	// Jaccard histogram's 20 bins once drew "0.000.050.10…".
	if bad := eval(`[...document.querySelectorAll("figure svg")].flatMap(s => {
		const ts = [...s.querySelectorAll("text")].filter(t => t.getAttribute("y") === "` + axisLabelY + `");
		const out = [];
		for (let i = 1; i < ts.length; i++) {
			const a = ts[i-1].getBoundingClientRect(), b = ts[i].getBoundingClientRect();
			if (a.right > b.left) out.push(s.closest("figure").id + ": " + ts[i-1].textContent + " / " + ts[i].textContent);
		}
		return out;
	})`); len(bad.([]any)) != 0 {
		t.Errorf("overlapping x-axis labels: %v", bad)
	}
	// Resources the page itself loaded (the browser's own favicon request
	// is not the page's).
	if res := eval(`performance.getEntriesByType("resource").map(e => e.name).filter(n => !n.endsWith("/favicon.ico"))`); len(res.([]any)) != 0 {
		t.Errorf("the page loaded %v", res)
	}
	if d := b.Dialogs(); len(d) > 0 {
		t.Errorf("dialogs: %q", d)
	}
	if _, p := b.Screenshot(t, "report"); *docs {
		writeDocsShot(t, p)
	}
}

// writeDocsShot writes the documentation's screenshot of the report: not
// of the sample store, whose hostile site name and back-dated runs test
// the page's escaping, but of a crawl of the bundled fixture portals, as a
// user's first report looks.
func writeDocsShot(t *testing.T, sampleShot string) {
	t.Helper()
	ctx := context.Background()
	sites, stop, err := fixture.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	db := filepath.Join(t.TempDir(), "news.db")
	cfg, err := config.Parse(bytes.NewReader(fixture.SiteYAML(sites, db)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Crawl(ctx, &cfg, pipeline.CrawlOptions{}); err != nil {
		t.Fatal(err)
	}
	store, err := pipeline.OpenExisting(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	r, err := report.Build(ctx, store, explain.Default(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page.String()))
	}))
	defer srv.Close()
	b := browser.Start(t)
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/report.html")); err != nil {
		t.Fatal(err)
	}
	png, p := b.Screenshot(t, "report-docs")
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, "docs", "img", "report.png")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s from %s (%d bytes; the sample's is %s)", dst, p, len(png), sampleShot)
}
