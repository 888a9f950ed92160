package pipeline

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
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
			seg, err := NewSegmenter(cfg.Segment)
			if err != nil {
				t.Fatal(err)
			}
			store := memory.New()
			eng, _, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			pl, err := NewProcessor(&cfg, store, eng, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
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
