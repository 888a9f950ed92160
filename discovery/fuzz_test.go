package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzLimits keep each fuzz input cheap and make the bounds reachable.
func fuzzLimits() Limits { return Limits{MaxURLs: 20, MaxBytes: 1 << 16, MaxDepth: 12} }

func fuzzBase() *url.URL {
	u, _ := url.Parse("https://www.example.cn/list/index.html")
	return u
}

// checkLinks asserts the properties every returned link has.
func checkLinks(t *testing.T, links []Link, lim Limits) {
	t.Helper()
	if len(links) > lim.MaxURLs {
		t.Fatalf("%d links over MaxURLs %d", len(links), lim.MaxURLs)
	}
	for _, l := range links {
		checkAbsolute(t, l.URL)
		if !utf8.ValidString(l.Title) {
			t.Fatalf("title %q is not UTF-8", l.Title)
		}
	}
}

func checkAbsolute(t *testing.T, s string) {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		t.Fatalf("returned URL %q is not absolute http(s) (%v)", s, err)
	}
}

func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		f.Add(readTestdata(f, n))
	}
}

// FuzzUnwrap: no panic; the output is never longer than the input; valid
// JSON stays equivalent; and unwrapping twice changes nothing more.
func FuzzUnwrap(f *testing.F) {
	addFixtures(f, "sina_roll.jsonp", "netease_cm_yaowen.jsonp", "qq_getpclist.json", "sohu_blockdata.json", "captcha.html")
	for _, s := range []string{`cb({"a":[1,]})`, `try{x([1]);}catch(e){};`, `/**/cb(`, `{"a":"\"),"}`, `var a = [1,2,];`, "\xEF\xBB\xBF[1]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Unwrap(in)
		if len(out) > len(in) {
			t.Fatalf("output %d bytes longer than input %d", len(out), len(in))
		}
		if again := Unwrap(out); json.Valid(out) && !bytes.Equal(again, out) {
			t.Fatalf("unwrapping valid JSON %q changed it to %q", out, again)
		}
		if json.Valid(in) && (in[0] == '{' || in[0] == '[') {
			var a, b any
			_ = json.Unmarshal(in, &a)
			if err := json.Unmarshal(out, &b); err != nil {
				t.Fatalf("valid JSON %q unwrapped to invalid %q: %v", in, out, err)
			}
		}
	})
}

// FuzzAPIParse: no panic, bounded output, only absolute links, and an
// error is one of the documented kinds.
func FuzzAPIParse(f *testing.F) {
	addFixtures(f, "sina_roll.jsonp", "netease_cm_yaowen.jsonp", "qq_getpclist.json", "sohu_blockdata.json", "captcha.html")
	f.Add([]byte(`[{"url":"/a"},{"url":"//b.example/c"},{"id":"x"}]`))
	f.Add([]byte(strings.Repeat("[", 40)))
	apis := []API{
		{Items: "result.data", URL: "url", Time: "ctime"},
		{URL: "docurl", Time: "time"},
		{Items: "data", URLTemplate: "https://news.qq.com/rain/a/{id}", Time: "publish_time"},
		{Items: "data.TPLFeedMul_2_9_feedData.list", URL: "url", Time: "postTime"},
		{URL: "url"},
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := fuzzLimits()
		for _, a := range apis {
			r, err := a.ParseResult(in, fuzzBase(), lim)
			if err != nil {
				if !errors.Is(err, ErrNotJSON) && !errors.Is(err, ErrTooDeep) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrPath) {
					t.Fatalf("undocumented error %v", err)
				}
				if r.Links != nil {
					t.Fatal("links with an error")
				}
				continue
			}
			checkLinks(t, r.Links, lim)
			if len(r.Links)+r.Skipped+r.Duplicates > r.Items {
				t.Fatalf("%d links + %d skipped + %d duplicates of %d items", len(r.Links), r.Skipped, r.Duplicates, r.Items)
			}
		}
	})
}

// FuzzParseSitemap: no panic, bounded output, only absolute links.
func FuzzParseSitemap(f *testing.F) {
	addFixtures(f, "qq_sitemap_index.xml", "qq_sitemap_news.xml", "qq_sitemap_news.xml.gz", "atom.xml")
	f.Add([]byte("https://a.example/1\nhttps://a.example/2\n"))
	f.Add([]byte(`<urlset><url><loc>/x</loc><lastmod>2024-05-20</lastmod></url></urlset>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := fuzzLimits()
		sm, err := ParseSitemap(in, fuzzBase(), lim)
		if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrNotSitemap) {
			if len(sm.URLs)+len(sm.Sitemaps) > 0 {
				t.Fatalf("links with %v", err)
			}
		}
		checkLinks(t, sm.URLs, lim)
		checkLinks(t, sm.Sitemaps, lim)
		if sm.Index && len(sm.URLs) > 0 || !sm.Index && len(sm.Sitemaps) > 0 {
			t.Fatalf("index %v with %d urls and %d sitemaps", sm.Index, len(sm.URLs), len(sm.Sitemaps))
		}
	})
}

// FuzzParseFeed: no panic, bounded output, only absolute links, UTF-8
// titles whatever the input bytes.
func FuzzParseFeed(f *testing.F) {
	addFixtures(f, "people_politics_gbk.xml", "atom.xml", "jsonfeed.json", "qq_sitemap_index.xml")
	f.Add([]byte(`<rss version="2.0"><channel><item><title>t</title><link>/a</link><pubDate>2024-05-20 10:00:00</pubDate></item></channel></rss>`))
	cts := []string{"", "text/xml; charset=gbk", "application/rss+xml; charset=utf-8", "text/xml; charset=iso-8859-1"}
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := fuzzLimits()
		for _, ct := range cts {
			r, err := ParseFeedResult(in, ct, fuzzBase(), lim)
			if err != nil {
				if r.Links != nil {
					t.Fatal("links with an error")
				}
				continue
			}
			checkLinks(t, r.Links, lim)
		}
	})
}

// FuzzScriptLinks: no panic, at most MaxURLs, only absolute, no repeats.
func FuzzScriptLinks(f *testing.F) {
	addFixtures(f, "sohu_m_home.html", "captcha.html")
	f.Add([]byte(`<script>"https:\/\/a.example\/1" '//b.example/2'</script>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := fuzzLimits()
		got := ScriptLinks(in, fuzzBase(), lim)
		if len(got) > lim.MaxURLs {
			t.Fatalf("%d links", len(got))
		}
		seen := map[string]bool{}
		for _, u := range got {
			checkAbsolute(t, u)
			if seen[u] {
				t.Fatalf("%q twice", u)
			}
			seen[u] = true
		}
	})
}

// FuzzRobotsSitemaps: no panic, bounded, no empty or repeated values.
func FuzzRobotsSitemaps(f *testing.F) {
	addFixtures(f, "qq_robots.txt")
	f.Fuzz(func(t *testing.T, in []byte) {
		got := RobotsSitemaps(in)
		if len(got) > maxRobotsSitemaps {
			t.Fatalf("%d sitemaps", len(got))
		}
		seen := map[string]bool{}
		for _, s := range got {
			if s == "" || seen[s] || strings.ContainsAny(s, "\r\n") {
				t.Fatalf("bad value %q", s)
			}
			seen[s] = true
		}
	})
}
