package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/newsdedup/newscrawl/config"
)

// peopleRSS is an RSS 2.0 channel in GBK, declared only in the XML prolog
// and served as text/xml without a charset, as People's Daily's
// www.people.com.cn/rss/*.xml feeds are (the evidence): <item>
// with <title>, <link> and an RFC 822 <pubDate>.
func peopleRSS(t *testing.T, base string, items ...string) http.HandlerFunc {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="GBK"?>` + "\n<rss version=\"2.0\"><channel><title>人民网 时政</title><link>" + base + "/</link>\n")
	for _, it := range items {
		fmt.Fprintf(&b, "<item><title>新闻标题</title><link>%s%s</link><pubDate>Mon, 20 May 2024 10:00:00 +0800</pubDate></item>\n", base, it)
	}
	b.WriteString("</channel></rss>\n")
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(b.String())
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprint(w, gbk)
	}
}

func TestSourcesFeeds(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(),
		"/art/*":      article("a"),
		"/rss/politics.xml": func(w http.ResponseWriter, r *http.Request) {
			peopleRSS(t, ts.URL, "/art/p1", "/art/p2", "/n1/2024/0520/c1001-1-2.html")(w, r)
		},
		"/rss/broken.xml": listPage("/art/zz"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].FollowURL = `/list/`
		c.Sites[0].Feeds = []string{ts.URL + "/rss/politics.xml", ts.URL + "/rss/broken.xml"}
	})
	sum, _, proc := crawlOnce(t, cfg, Options{})
	got := proc.urls()
	want := time.Date(2024, 5, 20, 2, 0, 0, 0, time.UTC)
	for _, a := range []string{"p1", "p2"} {
		if r := got[ts.URL+"/art/"+a]; r == nil || !r.Listed.Equal(want) {
			t.Errorf("article /art/%s: %v, want processed with Listed %v", a, r, want)
		}
	}
	if s := sourceOf(t, sum, SourceFeed, ts.URL+"/rss/politics.xml"); s.Found != 3 || s.Pushed != 2 || s.Skipped[SkipNoMatch] != 1 || s.Dated != 2 {
		t.Errorf("feed stats %+v", s)
	}
	if s := sourceOf(t, sum, SourceFeed, ts.URL+"/rss/broken.xml"); s.Errors != 1 || s.ErrorKinds["not_feed"] != 1 {
		t.Errorf("broken feed stats %+v", s)
	}
	if ts.hit("/art/zz") != 0 {
		t.Error("a link of the HTML answered for a feed was followed")
	}
}

// TestScriptLinks: article URLs inside the inline scripts of a list page
// (JSON state with escaped slashes, as Sohu's mobile home embeds its list)
// are pushed when they match article_url; other URLs in scripts are not.
func TestScriptLinks(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/": func(w http.ResponseWriter, r *http.Request) {
			esc := strings.ReplaceAll(ts.URL, "/", `\/`)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><script>window.__INITIAL_STATE__={"list":[{"url":"%[1]s\/art\/j1"},{"url":"%[1]s\/art\/j2"},{"url":"%[1]s\/list\/x"},{"img":"%[1]s\/img\/1.jpg"}]};</script></head>`+
				`<body><a href="/art/1">1</a></body></html>`, esc)
		},
		"/art/*": article("a"),
	})
	cfg := testConfig(t, ts.URL)
	sum, st, proc := crawlRec(t, cfg, Options{})
	got := proc.urls()
	for _, a := range []string{"1", "j1", "j2"} {
		if got[ts.URL+"/art/"+a] == nil {
			t.Errorf("article /art/%s not processed", a)
		}
	}
	if ts.hit("/list/x") != 0 || ts.hit("/img/1.jpg") != 0 {
		t.Errorf("a non-article URL of a script was followed: %v", ts.requests())
	}
	if it, _ := st.item(ts.URL + "/art/j1"); it.Depth != 1 || it.Referer != ts.URL+"/" {
		t.Errorf("frontier item %+v", it)
	}
	if s := sourceOf(t, sum, SourceScript, ""); s.Pushed != 2 || s.Skipped[SkipNoMatch] != 2 {
		t.Errorf("script stats %+v", s)
	}
}
