package discovery

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParseSitemap(t *testing.T) {
	cst := time.FixedZone("CST", 8*3600)
	news := []Link{
		{URL: "https://news.qq.com/rain/a/20240520A01ABC00", Time: time.Date(2024, 5, 20, 10, 0, 0, 0, cst), Title: "科技公司发布新一代芯片"},
		{URL: "https://news.qq.com/rain/a/20240520A02DEF00?a=1&b=2", Time: time.Date(2024, 5, 20, 9, 30, 12, 0, cst)},
		{URL: "https://news.qq.com/rain/a/20240520A03GHI00", Time: time.Date(2024, 5, 20, 0, 0, 0, 0, cst), Title: "多地迎来降雨 & 降温"},
	}
	base := "https://news.qq.com/sitemap/index.xml"
	for _, tc := range []struct {
		name      string
		body      []byte
		wantIndex bool
		want      []Link
		skipped   int
	}{
		{"qq sitemap index", readTestdata(t, "qq_sitemap_index.xml"), true, []Link{
			{URL: "https://news.qq.com/sitemap/sitemap_1081500468.xml.gz", Time: time.Date(2024, 5, 20, 10, 5, 0, 0, cst)},
			{URL: "https://news.qq.com/sitemap/sitemap_1081500469.xml", Time: time.Date(2024, 5, 20, 0, 0, 0, 0, cst)},
		}, 1},
		{"news urlset", readTestdata(t, "qq_sitemap_news.xml"), false, news, 1},
		{"gzipped news urlset", readTestdata(t, "qq_sitemap_news.xml.gz"), false, news, 1},
		{"text sitemap", []byte("\xEF\xBB\xBFhttps://news.qq.com/rain/a/1\r\n\nhttps://news.qq.com/rain/a/2\nnot a url\n"), false,
			[]Link{{URL: "https://news.qq.com/rain/a/1"}, {URL: "https://news.qq.com/rain/a/2"}}, 1},
		{"gzipped text sitemap", gz(t, []byte("https://news.qq.com/rain/a/1\n")), false, []Link{{URL: "https://news.qq.com/rain/a/1"}}, 0},
		{"empty urlset", []byte(`<?xml version="1.0"?><urlset/>`), false, nil, 0},
		{"gb2312 declared sitemap", []byte("<?xml version=\"1.0\" encoding=\"gb2312\"?><urlset><url><loc>https://a.example/1</loc><news:news><news:title>\xd6\xd0\xce\xc4</news:title></news:news></url></urlset>"), false,
			[]Link{{URL: "https://a.example/1", Title: "中文"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := ParseSitemap(tc.body, mustURL(t, base), DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			got := sm.URLs
			if tc.wantIndex {
				got = sm.Sitemaps
				if len(sm.URLs) > 0 {
					t.Errorf("index gave urls %v", sm.URLs)
				}
			}
			if sm.Index != tc.wantIndex || sm.Truncated || sm.Skipped != tc.skipped {
				t.Errorf("index %v truncated %v skipped %d, want %v false %d", sm.Index, sm.Truncated, sm.Skipped, tc.wantIndex, tc.skipped)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b Link) bool { return a.URL == b.URL && a.Title == b.Title && a.Time.Equal(b.Time) }) {
				t.Errorf("links\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// bigSitemap is a urlset of n entries with Google News tags, as large
// news sitemaps are.
func bigSitemap(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://news.qq.com/rain/a/20240520A%07d</loc><lastmod>2024-05-20T10:00:00+08:00</lastmod>"+
			"<news:news><news:publication><news:name>腾讯新闻</news:name><news:language>zh</news:language></news:publication>"+
			"<news:publication_date>2024-05-20T10:00:00+08:00</news:publication_date><news:title>新闻标题 %d</news:title></news:news></url>\n", i, i)
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

// TestParseSitemapBadInput covers the sitemaps.org limits and documents
// that are not sitemaps.
func TestParseSitemapBadInput(t *testing.T) {
	base := mustURL(t, "https://news.qq.com/sitemap/index.xml")
	t.Run("over 50,000 urls keeps the first 50,000", func(t *testing.T) {
		sm, err := ParseSitemap(bigSitemap(DefaultMaxURLs+1), base, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !sm.Truncated || len(sm.URLs) != DefaultMaxURLs {
			t.Fatalf("truncated %v with %d urls", sm.Truncated, len(sm.URLs))
		}
		if last := sm.URLs[len(sm.URLs)-1].URL; last != fmt.Sprintf("https://news.qq.com/rain/a/20240520A%07d", DefaultMaxURLs-1) {
			t.Errorf("last kept %s", last)
		}
	})
	t.Run("exactly the limit is not truncated", func(t *testing.T) {
		sm, err := ParseSitemap(bigSitemap(100), base, Limits{MaxURLs: 100})
		if err != nil || sm.Truncated || len(sm.URLs) != 100 {
			t.Fatalf("err %v truncated %v urls %d", err, sm.Truncated, len(sm.URLs))
		}
	})
	t.Run("index over the limit", func(t *testing.T) {
		idx := "<sitemapindex>" + strings.Repeat("<sitemap><loc>https://a.example/s.xml</loc></sitemap>", 5) + "</sitemapindex>"
		sm, err := ParseSitemap([]byte(idx), base, Limits{MaxURLs: 3})
		if err != nil || !sm.Truncated || len(sm.Sitemaps) != 3 {
			t.Fatalf("err %v truncated %v sitemaps %d", err, sm.Truncated, len(sm.Sitemaps))
		}
	})
	bomb := gz(t, make([]byte, DefaultMaxBytes+1))
	xmlBomb := gz(t, append([]byte("<urlset>"), bytes.Repeat([]byte(" "), 4<<20)...))
	for _, tc := range []struct {
		name string
		body []byte
		lim  Limits
		want error
	}{
		{"gzip bomb of zeros past 50 MB", bomb, DefaultLimits(), ErrTooLarge},
		{"gzip bomb of xml past the limit", xmlBomb, Limits{MaxBytes: 1 << 20}, ErrTooLarge},
		{"gzip of xml past the limit", gz(t, bigSitemap(2000)), Limits{MaxBytes: 64 << 10}, ErrTooLarge},
		{"plain body past the limit", bigSitemap(2000), Limits{MaxBytes: 64 << 10}, ErrTooLarge},
		{"html page", []byte("<!DOCTYPE html><html><body>404</body></html>"), DefaultLimits(), ErrNotSitemap},
		{"rss feed", readTestdata(t, "atom.xml"), DefaultLimits(), ErrNotSitemap},
		{"json", []byte(`{"error":"not found"}`), DefaultLimits(), ErrNotSitemap},
		{"empty", nil, DefaultLimits(), ErrNotSitemap},
		{"bad gzip", []byte("\x1f\x8b\x08garbage"), DefaultLimits(), ErrNotSitemap},
		{"truncated gzip", gz(t, bigSitemap(3))[:40], DefaultLimits(), ErrNotSitemap},
		{"gzip under a tiny limit", gz(t, bigSitemap(3)), Limits{MaxBytes: 100}, ErrTooLarge},
		{"no root element", []byte("<?xml version=\"1.0\"?>"), DefaultLimits(), ErrNotSitemap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := ParseSitemap(tc.body, base, tc.lim)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if len(sm.URLs)+len(sm.Sitemaps) != 0 {
				t.Errorf("links with %v", err)
			}
		})
	}
	for _, tc := range []struct{ name, body string }{
		{"syntax error keeps the entries before it", "<urlset><url><loc>https://a.example/1</loc></url><url><loc>\x01</loc></url></urlset>"},
		{"truncated download keeps the entries before it", "<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.ex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := ParseSitemap([]byte(tc.body), base, DefaultLimits())
			if err == nil || len(sm.URLs) != 1 || !strings.Contains(err.Error(), "after 1 entries") {
				t.Fatalf("err %v urls %v", err, sm.URLs)
			}
		})
	}
	t.Run("element nesting bomb", func(t *testing.T) {
		body := "<urlset><url>" + strings.Repeat("<a>", 100000)
		if _, err := ParseSitemap([]byte(body), base, DefaultLimits()); err == nil || !strings.Contains(err.Error(), "nested deeper") {
			t.Fatalf("err %v", err)
		}
	})
}
