package discovery_test

import (
	"fmt"
	"net/url"

	"github.com/newsdedup/newscrawl/discovery"
)

// A Sina roll API answer as the JSONP the channel pages request: the
// try/catch wrapper and the callback are removed, the items are found at
// result.data, and ctime (unix seconds) becomes the link's time.
func ExampleAPI_Parse() {
	body := []byte(`try{feedCardJsonpCallback({"result":{"status":{"code":0},"data":[` +
		`{"url":"https:\/\/news.sina.com.cn\/c\/2024-05-20\/doc-inavxyz1234567.shtml","title":"南方将迎强降雨","ctime":"1716170400"},` +
		`{"url":"","title":"推广","ctime":"1716170000"},` +
		`]}});}catch(e){};`)
	base, _ := url.Parse("https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page=1")
	api := discovery.API{Items: "result.data", URL: "url", Time: "ctime"}
	r, err := api.ParseResult(body, base, discovery.DefaultLimits())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range r.Links {
		fmt.Println(l.URL, l.Time.UTC().Format("2006-01-02 15:04"), l.Title)
	}
	fmt.Println("skipped:", r.Skipped, "-", r.FirstSkip)

	_, err = api.Parse([]byte("<html><title>验证码</title></html>"), base, discovery.DefaultLimits())
	fmt.Println(err)
	// Output:
	// https://news.sina.com.cn/c/2024-05-20/doc-inavxyz1234567.shtml 2024-05-20 02:00 南方将迎强降雨
	// skipped: 1 - item 1: url "" is not an http(s) link
	// not json: answer starts "<html><title>验证码</title></html>"
}

// QQ's getPCList gives article ids; the article URL is built from a
// template.
func ExampleAPI_Parse_template() {
	body := []byte(`{"ret":0,"data":[{"id":"20240520A01ABC00","title":"芯片","publish_time":"2024-05-20 10:00:00"}]}`)
	api := discovery.API{Items: "data", URLTemplate: "https://news.qq.com/rain/a/{id}", Time: "publish_time"}
	links, err := api.Parse(body, nil, discovery.DefaultLimits())
	fmt.Println(err)
	for _, l := range links {
		fmt.Println(l.URL, l.Time.Format("2006-01-02T15:04:05Z07:00"))
	}
	// Output:
	// <nil>
	// https://news.qq.com/rain/a/20240520A01ABC00 2024-05-20T10:00:00+08:00
}

// A Google News sitemap: the news tags give each URL its publication time
// and title; a gzipped one is recognised by its first bytes.
func ExampleParseSitemap() {
	body := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url>
    <loc>https://news.qq.com/rain/a/20240520A01ABC00</loc>
    <news:news>
      <news:publication><news:name>腾讯新闻</news:name><news:language>zh</news:language></news:publication>
      <news:publication_date>2024-05-20T10:00:00+08:00</news:publication_date>
      <news:title>科技公司发布新一代芯片</news:title>
    </news:news>
  </url>
  <url><loc>https://news.qq.com/rain/a/20240520A02DEF00</loc><lastmod>2024-05-20</lastmod></url>
</urlset>`)
	base, _ := url.Parse("https://news.qq.com/sitemap/sitemap_1081500468.xml")
	sm, err := discovery.ParseSitemap(body, base, discovery.DefaultLimits())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("index:", sm.Index, "truncated:", sm.Truncated)
	for _, l := range sm.URLs {
		fmt.Printf("%s %s %q\n", l.URL, l.Time.Format("2006-01-02 15:04 -0700"), l.Title)
	}

	index := []byte(`<sitemapindex><sitemap><loc>/sitemap/sitemap_1081500468.xml.gz</loc></sitemap></sitemapindex>`)
	sm, _ = discovery.ParseSitemap(index, base, discovery.DefaultLimits())
	fmt.Println("index:", sm.Index, sm.Sitemaps[0].URL)
	// Output:
	// index: false truncated: false
	// https://news.qq.com/rain/a/20240520A01ABC00 2024-05-20 10:00 +0800 "科技公司发布新一代芯片"
	// https://news.qq.com/rain/a/20240520A02DEF00 2024-05-20 00:00 +0800 ""
	// index: true https://news.qq.com/sitemap/sitemap_1081500468.xml.gz
}
