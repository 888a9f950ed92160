package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// stubPage is a sina.cn-style stub: two paragraphs and 打开新浪新闻 阅读全文,
// with a canonical link to the desktop page.
const stubPage = `<html><head><meta charset="utf-8"><title>今年夏粮收购进度快于上年_手机新浪网</title>%s</head><body>
<nav class="nav"><a href="/">首页</a><a href="/news">新闻</a></nav>
<h1>今年夏粮收购进度快于上年</h1><p class="time">%s</p>
<article class="art_box"><p>记者从国家粮食和物资储备局获悉，截至七月五日，主产区各类粮食企业累计收购小麦四千多万吨，收购进度快于上年同期。</p>
<p>今年小麦质量总体较好，各地粮库敞开收购，农民售粮顺畅，收购价格总体平稳。</p></article>
%s
<footer><a href="/about">关于新浪</a></footer></body></html>`

// TestProcessArticleTruncatedAndRelative: a stub is recorded as not_article
// with the canonical variant in its reason, never stored as the article;
// the same page without the marker is stored, its "3小时前" resolved
// against the fetch time in the site's zone.
func TestProcessArticleTruncatedAndRelative(t *testing.T) {
	const canonical = `<link rel="canonical" href="https://news.sina.example/c/2024-07-08/doc-1.shtml">`
	const marker = `<div class="look_more"><a href="sinanews://x">打开新浪新闻 阅读全文</a></div>`
	fetched := time.Date(2024, 7, 8, 6, 0, 0, 0, time.UTC) // 15:00 in Tokyo
	for _, tc := range []struct {
		name, head, marker string
		want               storage.Outcome
		wantErr            string // in the page's recorded reason
		wantTime           string // the stored article's publish time
	}{
		{"stub with a desktop variant", canonical, marker, storage.OutcomeNotArticle, "full text at https://news.sina.example/c/2024-07-08/doc-1.shtml", ""},
		{"stub without a variant", "", marker, storage.OutcomeNotArticle, "no canonical variant", ""},
		{"whole article", canonical, "", storage.OutcomeStored, "", "2024-07-08T12:00:00+09:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := config.Default()
			tokyo := time.FixedZone("JST", 9*3600)
			cfg.Sites = []config.Site{{Name: "sina", StartURLs: []string{"https://news.sina.example/"}, AllowedDomains: []string{"news.sina.example"}, ArticleURL: `/detail-`, Location: tokyo}}
			store := memory.New()
			pl, _ := testProcessor(t, ctx, &cfg, store, nil)
			url := "https://news.sina.example/2024-07-08/detail-1.d.html"
			body := strings.Replace(strings.Replace(strings.Replace(stubPage, "%s", tc.head, 1), "%s", "3小时前", 1), "%s", tc.marker, 1)
			out, err := pl.ProcessArticle(ctx, &crawler.Response{URL: url, RequestURL: url, Site: &cfg.Sites[0], RunID: 1, Status: 200,
				Header: http.Header{"Content-Type": []string{"text/html; charset=utf-8"}}, Body: []byte(body), FetchedAt: fetched})
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Fatalf("outcome %s, want %s", out, tc.want)
			}
			p, err := store.PageOf(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Err, tc.wantErr) {
				t.Errorf("reason %q, want %q in it", p.Err, tc.wantErr)
			}
			if tc.wantTime == "" {
				if _, err := store.ArticleByURL(ctx, url); err == nil {
					t.Error("a truncated stub was stored as an article")
				}
				return
			}
			a, err := store.ArticleByURL(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.PublishedAt.In(tokyo).Format(time.RFC3339); got != tc.wantTime {
				t.Errorf("published %s, want %s", got, tc.wantTime)
			}
		})
	}
}

// stubSite serves a list linking to mobile stubs (stubPage) whose
// canonical link names: a desktop page in scope holding the whole article,
// a page off the site's allowed domains, a page that answers 404, and a
// desktop page that is a stub itself; plus a stub whose desktop page the
// list also links. It counts requests per path.
func stubSite(t *testing.T) (*httptest.Server, func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	hits := map[string]int{}
	var ts *httptest.Server
	const marker = `<div class="look_more"><a href="sinanews://x">打开新浪新闻 阅读全文</a></div>`
	stub := func(canonical string, n int) string {
		head := `<link rel="canonical" href="` + canonical + `">`
		page := strings.Replace(strings.Replace(strings.Replace(stubPage, "%s", head, 1), "%s", "2024-07-08 09:30", 1), "%s", marker, 1)
		if n == 5 {
			page = strings.NewReplacer("今年夏粮收购进度快于上年", "秋粮收购即将启动",
				"记者从国家粮食和物资储备局获悉，截至七月五日，主产区各类粮食企业累计收购小麦四千多万吨，收购进度快于上年同期。",
				"东北地区玉米和大豆的收购工作将在十月全面展开，黑龙江、吉林等省份已备足仓容和收购资金。",
				"今年小麦质量总体较好，各地粮库敞开收购，农民售粮顺畅，收购价格总体平稳。",
				"农业农村部的调度显示，今年秋粮播种面积稳中有增，主要作物长势总体正常。").Replace(page)
		}
		if n == 7 {
			page = strings.NewReplacer("截至七月五日", "截至七月十日", "四千多万吨", "五千多万吨",
				"收购价格总体平稳", "收购价格稳中略升").Replace(page)
		}
		// Each stub of a portal differs in its text; the same lines on
		// every page would be read as the site's boilerplate.
		return strings.Replace(page, "</article>", fmt.Sprintf("<p>（第%d篇）</p></article>", n), 1)
	}
	desktop := func(title string, paras ...string) string {
		return `<html><head><meta charset="utf-8"><title>` + title + `</title></head><body><h1>` + title + `</h1>
<p class="date">2024-07-08 09:30</p><div id="article"><p>` + strings.Join(paras, "</p>\n<p>") + `</p></div></body></html>`
	}
	routes := map[string]string{
		"/": `<html><body><ul><li><a href="/m/detail-1.d.html">夏粮</a></li><li><a href="/m/detail-2.d.html">外站</a></li>
<li><a href="/m/detail-3.d.html">缺页</a></li><li><a href="/m/detail-4.d.html">又是摘要</a></li>
<li><a href="/m/detail-5.d.html">秋粮</a></li><li><a href="/c/doc-5.shtml">秋粮（桌面）</a></li>
<li><a href="/m/detail-7.d.html">夏粮（分享）</a></li></ul></body></html>`,
		"/m/detail-1.d.html": stub("/c/doc-1.shtml", 1),
		"/c/doc-1.shtml": desktop("今年夏粮收购进度快于上年",
			"记者从国家粮食和物资储备局获悉，截至七月五日，主产区各类粮食企业累计收购小麦四千多万吨，收购进度快于上年同期。",
			"今年小麦质量总体较好，各地粮库敞开收购，农民售粮顺畅，收购价格总体平稳。",
			"国家粮食和物资储备局有关负责人表示，将继续督促各地落实收购政策，做好仓容准备，确保农民种粮收益。",
			"据介绍，今年以来各地加大粮食产后服务中心建设力度，为农民提供清理、干燥、储存等服务，减少产后损失。"),
		"/m/detail-2.d.html": stub("https://elsewhere.example/c/doc-2.shtml", 2),
		"/m/detail-3.d.html": stub("/c/doc-3.shtml", 3),
		"/m/detail-4.d.html": stub("/m/detail-4b.d.html", 4),
		"/m/detail-5.d.html": stub("/c/doc-5.shtml", 5),
		"/c/doc-5.shtml": desktop("秋粮收购即将启动",
			"东北地区玉米和大豆的收购工作将在十月全面展开，黑龙江、吉林等省份已备足仓容和收购资金。",
			"农业农村部的调度显示，今年秋粮播种面积稳中有增，主要作物长势总体正常，丰收在望。",
			"多家地方储备粮公司表示，将在新粮上市初期开展托市收购，防止出现农民卖粮难的情况。",
			"业内人士认为，今年玉米价格有望保持平稳，种植户的收益预计与上年基本持平。"),
	}
	routes["/m/detail-4b.d.html"] = stub("/m/detail-4.d.html", 6)
	// A share page naming the stored desktop page with a tracking tag.
	routes["/m/detail-7.d.html"] = stub("/c/doc-1.shtml?utm_source=app", 7)
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		page, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	t.Cleanup(ts.Close)
	return ts, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(hits)
	}
}

// TestCrawlStubVariants: a stub whose full variant the crawl may fetch is
// replaced by it (the variant stored with its whole text, the stub
// recorded as its part); a variant out of scope, gone or itself a stub
// leaves the stub recorded as not_article with the reason; a variant the
// list also links is fetched and stored once; a second run fetches
// neither a stored variant nor its stub again.
func TestCrawlStubVariants(t *testing.T) {
	ctx := context.Background()
	ts, hits := stubSite(t)
	store := memory.New()
	crawl := func(runID int64) {
		t.Helper()
		cfg := config.Default()
		cfg.Sites = []config.Site{{Name: "sina", StartURLs: []string{ts.URL + "/"}, AllowedDomains: []string{"127.0.0.1"},
			ArticleURL: `/(m|c)/`, Parallelism: 1, MaxDepth: 2}}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		var logs lockedBuffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		pl, _ := testProcessor(t, ctx, &cfg, store, log)
		cr, err := crawler.New(&cfg, store, pl, crawler.Options{Workers: 1, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cr.Run(ctx, runID); err != nil {
			t.Fatalf("crawl: %v\nlog:\n%s", err, logs.String())
		}
	}
	crawl(1)
	first := hits()
	u := func(p string) string { return ts.URL + p }

	for _, tc := range []struct {
		name, stub, reason string
	}{
		{"variant off the site", "/m/detail-2.d.html", "not fetched"},
		{"variant gone", "/m/detail-3.d.html", "not fetched"},
		{"variant a stub too", "/m/detail-4.d.html", "holds no full article either"},
		{"variant stored, named in another form", "/m/detail-7.d.html", "already decided: stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := store.PageOf(ctx, u(tc.stub))
			if err != nil {
				t.Fatal(err)
			}
			if p.Outcome != storage.OutcomeNotArticle || !strings.Contains(p.Err, tc.reason) {
				t.Errorf("stub recorded %s %q, want not_article with %q", p.Outcome, p.Err, tc.reason)
			}
			if _, err := store.ArticleByURL(ctx, u(tc.stub)); err == nil {
				t.Error("the stub was stored as an article")
			}
		})
	}
	for _, path := range []string{"/c/doc-1.shtml", "/c/doc-5.shtml"} {
		a, err := store.ArticleByURL(ctx, u(path))
		if err != nil {
			t.Fatalf("variant %s not stored: %v", path, err)
		}
		if !strings.Contains(a.Text, "据介绍") && !strings.Contains(a.Text, "业内人士认为") {
			t.Errorf("variant %s stored without its full text: %q", path, a.Text)
		}
	}
	for stub, full := range map[string]string{"/m/detail-1.d.html": "/c/doc-1.shtml", "/m/detail-5.d.html": "/c/doc-5.shtml"} {
		if p, err := store.PageOf(ctx, u(stub)); err != nil || p.Outcome != storage.OutcomePart || p.PartOf != u(full) {
			t.Errorf("stub %s of a stored variant: %+v, %v; want a part of %s", stub, p, err, full)
		}
		if _, err := store.ArticleByURL(ctx, u(stub)); err == nil {
			t.Errorf("the stub %s was stored as an article", stub)
		}
	}
	if n := first["/c/doc-5.shtml"]; n != 1 {
		t.Errorf("a variant the list also links fetched %d times, want 1", n)
	}
	if n := first["/elsewhere"]; n != 0 {
		t.Errorf("off-site variant requested")
	}

	// A stub whose variant is stored, and the variant, are decided; stubs
	// without a variant are not_article pages, met again by a later run.
	crawl(2)
	second := hits()
	for _, path := range []string{"/m/detail-1.d.html", "/c/doc-1.shtml", "/m/detail-5.d.html", "/c/doc-5.shtml"} {
		if second[path] != first[path] {
			t.Errorf("second run fetched %s again (%d requests, %d before)", path, second[path], first[path])
		}
	}
}

// TestProcessArticleChannel: the channel the extractor reads from the page
// is stored with the article (a 网易号 post's /dy/article/ URL).
func TestProcessArticleChannel(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Sites = []config.Site{{Name: "163", StartURLs: []string{"https://www.163.com/"}, AllowedDomains: []string{"www.163.com"}, ArticleURL: `/article/`}}
	store := memory.New()
	pl, _ := testProcessor(t, ctx, &cfg, store, nil)
	body := strings.Replace(strings.Replace(strings.Replace(stubPage, "%s", "", 1), "%s", "2024-07-08 09:30", 1), "%s", "", 1)
	for url, want := range map[string]string{
		"https://www.163.com/dy/article/J8UBOT180529AQIE.html":   "self_media",
		"https://www.163.com/news/article/J8UC1M4K000189FH.html": "newsroom",
	} {
		page := strings.Replace(body, "</article>", "<p>"+url+"</p></article>", 1) // two texts, not one story twice
		out, err := pl.ProcessArticle(ctx, &crawler.Response{URL: url, RequestURL: url, Site: &cfg.Sites[0], RunID: 1, Status: 200,
			Header: http.Header{"Content-Type": []string{"text/html; charset=utf-8"}}, Body: []byte(page), FetchedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if out == storage.OutcomeStored {
			a, err := store.ArticleByURL(ctx, url)
			if err != nil || a.Channel != want {
				t.Errorf("%s: channel %q, %v; want %q", url, a.Channel, err, want)
			}
			continue
		}
		var got string
		err = store.Duplicates(ctx, func(d storage.Duplicate) error {
			if d.URL == url {
				got = d.Channel
			}
			return nil
		})
		if err != nil || got != want {
			t.Errorf("%s (%s): channel %q, %v; want %q", url, out, got, err, want)
		}
	}
}
