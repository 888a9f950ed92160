package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestDiscover: every kind of surface is read once, nothing is pushed or
// written, no article is fetched, and URLs the store has decided are told
// from new ones.
func TestDiscover(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			text(200, "User-agent: *\nDisallow: /private/\nSitemap: "+ts.URL+"/sitemap.xml\n")(w, r)
		},
		"/": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><script>var s={"u":"%s\/art\/j1"};</script><a href="/art/1">1</a><a href="/private/art/2">2</a></html>`,
				strings.ReplaceAll(ts.URL, "/", `\/`))
		},
		"/art/*": article("a"),
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
			xmlDoc(newsSitemap(newsURL{ts.URL + "/art/1", ""}, newsURL{ts.URL + "/art/s1", ""}))(w, r)
		},
		"/rss.xml": func(w http.ResponseWriter, r *http.Request) { peopleRSS(t, ts.URL, "/art/old", "/art/f1")(w, r) },
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].Feeds = []string{ts.URL + "/rss.xml"} })
	st := memory.New()
	now := time.Now()
	if err := st.Commit(context.Background(), &storage.Commit{
		Page:    storage.Page{URL: ts.URL + "/art/old", Site: "t", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: now},
		Article: &storage.Article{URL: ts.URL + "/art/old", Site: "t", RunID: 1, Title: "t", Text: "x", FetchedAt: now}}); err != nil {
		t.Fatal(err)
	}
	res, err := Discover(context.Background(), cfg, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Site != "t" {
		t.Fatalf("result %+v", res)
	}
	src := func(kind, u string) SourceStats {
		for _, s := range res[0].Sources {
			if s.Kind == kind && s.URL == u {
				return s
			}
		}
		t.Fatalf("no source %s %s in %+v", kind, u, res[0].Sources)
		return SourceStats{}
	}
	tests := []struct {
		name                          string
		got                           SourceStats
		found, articles, new, decided int64
		skipped                       map[string]int
	}{
		{"start page", src(SourcePage, ts.URL+"/"), 2, 1, 1, 0, map[string]int{SkipRobots: 1}},
		{"inline scripts", src(SourceScript, ""), 1, 1, 1, 0, nil},
		{"robots.txt sitemap", src(SourceRobots, ts.URL+"/sitemap.xml"), 2, 2, 1, 0, map[string]int{SkipSeen: 1}},
		{"feed", src(SourceFeed, ts.URL+"/rss.xml"), 2, 2, 1, 1, map[string]int{SkipDecided: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.got
			if s.Found != tc.found || s.Articles != tc.articles || s.Pushed != tc.new || int64(s.Skipped[SkipDecided]) != tc.decided || s.Errors != 0 {
				t.Errorf("stats %+v", s)
			}
			for k, v := range tc.skipped {
				if s.Skipped[k] != v {
					t.Errorf("skipped %s = %d, want %d (%v)", k, s.Skipped[k], v, s.Skipped)
				}
			}
		})
	}
	for _, u := range ts.requests() {
		if strings.HasPrefix(u, "/art/") || strings.HasPrefix(u, "/private/") {
			t.Errorf("discover requested %s", u)
		}
	}
	if n, _ := st.Pending(context.Background(), ""); n != 0 {
		t.Errorf("%d URLs pushed to the store's frontier", n)
	}
}
