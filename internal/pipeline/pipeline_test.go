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
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestPipelineMergesClusters: an article that matches two stored articles
// of different clusters is recorded as a duplicate, both clusters become
// one in the store, and an engine rebuilt from the store (the next run)
// sees the merged cluster.
func TestPipelineMergesClusters(t *testing.T) {
	ctx := context.Background()
	var st fixture.Story
	for _, s := range fixture.Stories() {
		if s.ID == "s4" {
			st = s
		}
	}
	if len(st.Paragraphs) < 5 {
		t.Fatalf("fixture story s4 has %d paragraphs, want 5", len(st.Paragraphs))
	}
	p := st.Paragraphs
	// As in dedup.TestClusterMerge: a and b share nothing, the bridge
	// reaches Jaccard 0.38 and 0.39 with them.
	texts := []string{strings.Join(p[:3], "\n"), strings.Join(p[3:5], "\n"), strings.Join(p[1:4], "\n")}
	cfg := config.Default()
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
	commit := func(url, text string) storage.Outcome {
		t.Helper()
		art := &extract.Article{Title: st.Title, Text: text}
		page := storage.Page{URL: url, Site: "s", RunID: 1, Status: 200, FetchedAt: time.Now()}
		out, err := pl.decideAndCommit(ctx, page, art, eng.Fingerprint(art.Title, art.Text), nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for i, want := range []storage.Outcome{storage.OutcomeStored, storage.OutcomeStored, storage.OutcomeDuplicate} {
		if got := commit([]string{"http://x/a", "http://x/b", "http://x/bridge"}[i], texts[i]); got != want {
			t.Fatalf("text %d: %s, want %s", i, got, want)
		}
	}
	a, err := store.ArticleByURL(ctx, "http://x/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.ArticleByURL(ctx, "http://x/b")
	if err != nil {
		t.Fatal(err)
	}
	if a.Cluster != a.ID || b.Cluster != a.ID {
		t.Fatalf("after the bridge: a in cluster %d, b (id %d) in cluster %d; want both in %d", a.Cluster, b.ID, b.Cluster, a.ID)
	}
	// The next run: a fresh engine from the store puts b's copy in a's cluster.
	eng2, _, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := eng2.Decide(ctx, eng2.Fingerprint(st.Title, texts[1])); err != nil || !v.Duplicate || v.Cluster != uint64(a.ID) {
		t.Fatalf("copy of b after restart: %+v (error %v), want a duplicate in cluster %d", v, err, a.ID)
	}
	if err := store.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestKeepRawNeedsRawStore: fetch.keep_raw with a store that cannot keep
// raw responses is refused, not silently ignored.
func TestKeepRawNeedsRawStore(t *testing.T) {
	cfg := config.Default()
	cfg.Fetch.KeepRaw = true
	type plainStore struct{ storage.Store } // hides memory.Store's Raw
	for _, tc := range []struct {
		name    string
		store   storage.Store
		wantErr bool
	}{
		{"raw store", memory.New(), false},
		{"plain store", plainStore{memory.New()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewProcessor(&cfg, tc.store, nil, slog.New(slog.DiscardHandler))
			if (err != nil) != tc.wantErr || (err != nil && !strings.Contains(err.Error(), "fetch.keep_raw")) {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

// briefPage is a 2015 NetEase-style brief: a short story whose words are
// keyword links, followed in the same container by promo link blocks.
const briefPage = `<html><head><meta charset="utf-8"><title>央行：下周将开展逆回购操作_网易财经</title></head><body>
<div class="nav"><a href="/">网易首页</a> <a href="/money/">财经</a></div>
<div class="post_content_main"><h1>央行：下周将开展逆回购操作</h1>
<div class="post_time_source">2015-06-12 09:30:00 来源: 网易财经</div>
<div class="post_text" id="endText">
<p>网易财经6月12日讯 <a href="/k/1.html">央行</a>今日表示，下周将继续开展<a href="/k/2.html">逆回购</a>操作，以保持<a href="/k/3.html">银行体系流动性</a>合理充裕，<a href="/k/4.html">市场利率</a>有望保持平稳。</p>
<p><strong>重点推荐</strong></p>
<p><a href="/a1.html">沪指收复5100点 券商股集体走强</a></p><p><a href="/a2.html">两市成交额突破两万亿元创新高</a></p>
<p><a href="/a3.html">创业板指数再创历史新高</a></p><p><strong>证券要闻</strong></p>
<p><a href="/b1.html">证监会：加强对场外配资的监管</a></p><p><a href="/b2.html">新股申购资金冻结规模超过六万亿</a></p>
</div></div></body></html>`

// TestProcessArticleKeepsShortBrief: a page the site's article_url marks
// as an article is stored even when its container is mostly links; the
// promo blocks are not stored with it.
func TestProcessArticleKeepsShortBrief(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Sites = []config.Site{{Name: "netease", StartURLs: []string{"http://money.163.example/"}, AllowedDomains: []string{"money.163.example"}, ArticleURL: `/\d\d/\d{4}/`}}
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
	url := "http://money.163.example/15/0612/09/AB12CD.html"
	out, err := pl.ProcessArticle(ctx, &crawler.Response{URL: url, RequestURL: url, Site: &cfg.Sites[0], RunID: 1, Status: 200,
		Header: http.Header{"Content-Type": []string{"text/html; charset=utf-8"}}, Body: []byte(briefPage), FetchedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if out != storage.OutcomeStored {
		t.Fatalf("outcome %s, want %s", out, storage.OutcomeStored)
	}
	a, err := store.ArticleByURL(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Text, "下周将继续开展逆回购操作") || strings.Contains(a.Text, "沪指收复5100点") {
		t.Errorf("stored text %q", a.Text)
	}
}

// TestProcessArticleListedTime: the time a list surface gave for a URL
// (Response.Listed) becomes the article's published_at when the page
// gives none, and never replaces the page's own.
func TestProcessArticleListedTime(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Sites = []config.Site{{Name: "netease", StartURLs: []string{"http://money.163.example/"}, AllowedDomains: []string{"money.163.example"}, ArticleURL: `/\d\d/\d{4}/`}}
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	listed := time.Date(2024, 5, 20, 2, 0, 0, 0, time.UTC)
	undated := strings.Replace(briefPage, `<div class="post_time_source">2015-06-12 09:30:00 来源: 网易财经</div>`, "", 1)
	tests := []struct {
		name   string
		page   string
		listed time.Time
		want   time.Time
	}{
		{"page without a time takes the listed one", undated, listed, listed},
		{"the page's own time wins", briefPage, listed, time.Date(2015, 6, 12, 1, 30, 0, 0, time.UTC)},
		{"neither", undated, time.Time{}, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := memory.New()
			eng, _, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			pl, err := NewProcessor(&cfg, store, eng, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			url := "http://money.163.example/article/AB12CD.html" // no date in the URL
			if _, err := pl.ProcessArticle(ctx, &crawler.Response{URL: url, RequestURL: url, Site: &cfg.Sites[0], RunID: 1, Status: 200,
				Header: http.Header{"Content-Type": []string{"text/html; charset=utf-8"}}, Body: []byte(tc.page), FetchedAt: time.Now(), Listed: tc.listed}); err != nil {
				t.Fatal(err)
			}
			a, err := store.ArticleByURL(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if !a.PublishedAt.Equal(tc.want) {
				t.Errorf("published_at %v, want %v", a.PublishedAt, tc.want)
			}
		})
	}
}
