package serve_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/browser"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/serve"
	"github.com/newsdedup/newscrawl/storage"
)

// TestBrowserBothSidesAfterCrawl: a crawl with the default settings keeps
// every duplicate's text, so the view shows both sides of every verdict
// (the duplicate's text beside its original's, with shared passages
// marked) in Chromium.
func TestBrowserBothSidesAfterCrawl(t *testing.T) {
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
	if cfg.Dedup.KeepDuplicateText != true {
		t.Fatal("the fixture's site file sets keep_duplicate_text: the test needs the default")
	}
	if _, err := pipeline.Crawl(ctx, &cfg, pipeline.CrawlOptions{}); err != nil {
		t.Fatal(err)
	}
	store, err := pipeline.OpenExisting(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var dups []string
	if err := store.Duplicates(ctx, func(d storage.Duplicate) error {
		dups = append(dups, d.URL)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := fixture.Expected().Duplicates; len(dups) != want {
		t.Fatalf("%d duplicates, want %d", len(dups), want)
	}
	h, err := serve.New(store, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	b := browser.Start(t)
	for _, u := range dups {
		name := u
		if pu, err := url.Parse(u); err == nil {
			name = pu.Path
		}
		t.Run(name, func(t *testing.T) {
			if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/pair?url="+url.QueryEscape(u))); err != nil {
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
			dupParas := eval(`document.querySelectorAll("#dup p:not(.muted)").length`)
			origParas := eval(`document.querySelectorAll("#orig p:not(.muted)").length`)
			marked := eval(`document.querySelectorAll("#dup mark").length`)
			note, _ := eval(`document.querySelector("#evidence").textContent`).(string)
			if dupParas == 0.0 || origParas == 0.0 || marked == 0.0 {
				t.Errorf("duplicate side %v paragraphs (%v marked), original side %v: want both sides with shared passages", dupParas, marked, origParas)
			}
			if bytes.Contains([]byte(note), []byte("was not kept")) {
				t.Errorf("the evidence says the text was not kept: %s", note)
			}
		})
	}
}
