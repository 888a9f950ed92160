package extract

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Pager markup imitates the portals (see pager.go for where each form
// comes from): People's Daily <div class="zdfy clearfix"> with 【N】 links
// (extract/testdata/pages/people-gbk.html), Xinhua's script-built
// <center class="xinhuaPager">, ifeng's zero-based _N.shtml, Sina's _N.shtml.
const (
	pdBase = "http://culture.people.com.cn/n1/2019/0615/"
	pdArt  = pdBase + "c1013-31158394"
)

func pdPager(cur int) string {
	var b strings.Builder
	b.WriteString(`<div class="zdfy clearfix">`)
	for i := 1; i <= 3; i++ {
		href := "/n1/2019/0615/c1013-31158394.html"
		if i > 1 {
			href = "/n1/2019/0615/c1013-31158394-" + string(rune('0'+i)) + ".html"
		}
		b.WriteString(`<a href="` + href + `">【` + string(rune('0'+i)) + `】</a>`)
	}
	if cur < 3 {
		b.WriteString(`<a href="/n1/2019/0615/c1013-31158394-` + string(rune('0'+cur+1)) + `.html">【下一页】</a>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func articleWith(extra string) []byte {
	return []byte(`<html><head><title>t</title></head><body><div class="box_con" id="rwb_zw"><h1>标题</h1>
<p>正文第一段，讲述了一个很长的故事。</p>` + extra + `</div>
<div class="fr"><h2>热点推荐</h2><ul><li><a href="/n1/2019/0615/c1013-31158395.html">故宫博物院推出夜间开放活动</a></li>
<li><a href="/n1/2019/0615/c1013-31158396-2.html">全国非遗展演在京举行</a></li></ul></div></body></html>`)
}

func TestFindPager(t *testing.T) {
	xh := "http://www.news.cn/politics/20240520/0a1b2c3d/c.html"
	xhPager := `<center class="xinhuaPager"><a class="xinhuaLeftBtn">|&lt;&lt;</a><span id="xinhuaPagerBox"><span>1</span>` +
		`<a href="/politics/20240520/0a1b2c3d/c.html?page=2">2</a><a href="/politics/20240520/0a1b2c3d/c.html?page=3">3</a></span>` +
		`<a href="/politics/20240520/0a1b2c3d/c.html?page=2">下一页</a><a class="xinhuaRightBtn">&gt;&gt;|</a></center>`
	ifeng := "http://news.ifeng.com/a/20150101/42837465_"
	tests := []struct {
		name     string
		url      string
		extra    string
		selector string
		want     []string
		current  int
		trunc    bool
	}{
		{"people page 1", pdArt + ".html", pdPager(1), "",
			[]string{pdArt + ".html", pdArt + "-2.html", pdArt + "-3.html"}, 0, false},
		{"people page 2", pdArt + "-2.html", pdPager(2), "",
			[]string{pdArt + ".html", pdArt + "-2.html", pdArt + "-3.html"}, 1, false},
		{"xinhua page 1", xh, xhPager, "", []string{xh, xh + "?page=2", xh + "?page=3"}, 0, false},
		{"xinhua page 3", xh + "?page=3", strings.Replace(xhPager, "<span>1</span>", `<a href="c.html">1</a>`, 1), "",
			[]string{xh, xh + "?page=2", xh + "?page=3"}, 2, false},
		{"ifeng zero-based", ifeng + "0.shtml",
			`<div class="pageNum"><a href="42837465_0.shtml">1</a><a href="42837465_1.shtml">2</a><a href="42837465_2.shtml">3</a><a href="42837465_1.shtml">下一页</a></div>`, "",
			[]string{ifeng + "0.shtml", ifeng + "1.shtml", ifeng + "2.shtml"}, 0, false},
		{"sina _2.shtml", "https://news.sina.com.cn/c/2024-05-20/doc-inaxyzab.shtml",
			`<div class="page"><span>1</span><a href="doc-inaxyzab_2.shtml">2</a><a href="doc-inaxyzab_2.shtml">下一页</a></div>`, "",
			[]string{"https://news.sina.com.cn/c/2024-05-20/doc-inaxyzab.shtml", "https://news.sina.com.cn/c/2024-05-20/doc-inaxyzab_2.shtml"}, 0, false},
		{"windowed pager fills the gap", pdArt + ".html",
			`<div class="zdfy"><a href="c1013-31158394-2.html">2</a><a href="c1013-31158394-3.html">3</a><a href="c1013-31158394-5.html">尾页</a></div>`, "",
			[]string{pdArt + ".html", pdArt + "-2.html", pdArt + "-3.html", pdArt + "-4.html", pdArt + "-5.html"}, 0, false},
		{"site selector", pdArt + ".html",
			`<div class="pgs"><a href="c1013-31158394-2.html">››</a></div>`, "div.pgs",
			[]string{pdArt + ".html", pdArt + "-2.html"}, 0, false},
		{"selector names another block", pdArt + ".html", pdPager(1), "div.nothing", nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := FindPager(tc.url, articleWith(tc.extra), tc.selector)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pg.Pages, tc.want) {
				t.Fatalf("pages\n got %q\nwant %q", pg.Pages, tc.want)
			}
			if tc.want != nil && pg.Current != tc.current {
				t.Errorf("current = %d, want %d", pg.Current, tc.current)
			}
			if pg.Truncated != tc.trunc {
				t.Errorf("truncated = %v", pg.Truncated)
			}
		})
	}
}

// TestFindPagerWhole: Xinhua's page-break markers say the page holds every
// page's text; a pager without them does not.
func TestFindPagerWhole(t *testing.T) {
	xh := "http://www.news.cn/politics/20240520/0a1b2c3d/c.html"
	pager := `<center class="xinhuaPager"><span>1</span><a href="c.html?page=2">2</a><a href="c.html?page=2">下一页</a></center>`
	for _, tc := range []struct {
		name, body string
		whole      bool
	}{
		{"img xinhuabreak", `<p>一</p><p><img id="xinhuabreak" src="x.gif"></p><p>二</p>` + pager, true},
		{"hidden pagebreak", `<p>一</p><b style="display: none;">pagebreak</b><p>二</p>` + pager, true},
		{"visible pagebreak word", `<p>一</p><b>pagebreak</b><p>二</p>` + pager, false},
		{"no marker", `<p>一</p><p>二</p>` + pager, false},
		{"marker without a pager", `<p>一</p><p><img id="xinhuabreak" src="x.gif"></p><p>二</p>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := FindPager(xh, articleWith(tc.body), "")
			if err != nil {
				t.Fatal(err)
			}
			if pg.Whole != tc.whole {
				t.Errorf("whole = %v, want %v (pages %q)", pg.Whole, tc.whole, pg.Pages)
			}
		})
	}
}

func TestFindPagerTruncated(t *testing.T) {
	pg, err := FindPager(pdArt+".html", articleWith(`<div class="zdfy"><a href="c1013-31158394-2.html">下一页</a><a href="c1013-31158394-999.html">尾页</a></div>`), "")
	if err != nil {
		t.Fatal(err)
	}
	if !pg.Truncated || len(pg.Pages) != MaxArticlePages || pg.Pages[MaxArticlePages-1] != pdArt+"-30.html" {
		t.Fatalf("truncated=%v, %d pages, last %q", pg.Truncated, len(pg.Pages), pg.Pages[len(pg.Pages)-1])
	}
}

// TestFindPagerFalsePositives: paging that is not an article's pages.
func TestFindPagerFalsePositives(t *testing.T) {
	tests := []struct {
		name, url, extra string
	}{
		{"comment paging", pdArt + ".html",
			`<div id="comments" class="comment-list"><p>好文</p><div class="pages"><a href="?page=2">2</a><a href="?page=3">3</a><a href="?page=2">下一页</a></div></div>`},
		{"comment paging by class only", pdArt + ".html",
			`<div class="pinglun_box"><div class="page"><a href="c1013-31158394-2.html">2</a></div></div>`},
		{"list page paging", "https://news.sina.com.cn/roll/index.shtml",
			`<div class="pagebox"><a href="/roll/index_2.shtml">下一页</a><a href="/roll/index_3.shtml">3</a></div>`},
		{"list page query paging", "https://news.example.cn/list/?page=1",
			`<div class="pagebox"><a href="/list/?page=2">2</a><a href="/list/?page=3">3</a></div>`},
		{"related articles with numbers", pdArt + ".html",
			`<ol class="rank"><li><a href="c1013-31158395.html">1</a></li><li><a href="c1013-31158396.html">2</a></li><li><a href="c1013-31158397.html">3</a></li></ol>`},
		{"related article's own page 2", pdArt + ".html",
			`<div class="relate"><a href="c1013-31158396-2.html">2</a><a href="c1013-31158396-3.html">下一页</a></div>`},
		{"numbers naming other pages", pdArt + ".html",
			`<div class="zdfy"><a href="c1013-31158394-5.html">2</a><a href="c1013-31158394-9.html">3</a></div>`},
		{"off-site pager", pdArt + ".html",
			`<div class="zdfy"><a href="http://evil.example.com/n1/2019/0615/c1013-31158394-2.html">2</a><a href="http://evil.example.com/n1/2019/0615/c1013-31158394-2.html">下一页</a></div>`},
		{"link to itself only", pdArt + ".html", `<div class="zdfy"><a href="c1013-31158394.html">1</a></div>`},
		{"chapter navigation", "http://cclw.net/other/xinshenhuo/htm/xsh_10.htm",
			`<center><b><a href="../index.htm"><u>返目录</u></a><a href="xsh_11.htm"><u>下一页</u></a></b></center>`},
		{"javascript pager", pdArt + ".html", `<div class="zdfy"><a href="javascript:go(2)">2</a><a href="#">下一页</a></div>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := FindPager(tc.url, articleWith(tc.extra), "")
			if err != nil {
				t.Fatal(err)
			}
			if pg.Multi() {
				t.Fatalf("found pages %q", pg.Pages)
			}
		})
	}
}

func TestFindPagerBadInput(t *testing.T) {
	if _, err := FindPager(pdArt+".html", nil, "div[["); err == nil {
		t.Error("a bad selector gave no error")
	}
	if _, err := FindPager("ftp://x/y", nil, ""); err == nil {
		t.Error("a non-http page URL gave no error")
	}
	if _, err := FindPager(pdArt+".html", make([]byte, MaxInputBytes+1), ""); err == nil {
		t.Error("an oversized page gave no error")
	}
	// Nesting deeper than the parser's stack is its error; within it the
	// pager block is found wherever it sits.
	deep := strings.Repeat("<div>", 5000) + pdPager(1) + strings.Repeat("</div>", 5000)
	if _, err := FindPager(pdArt+".html", []byte(deep), ""); err == nil {
		t.Error("nesting beyond the parser's stack gave no error")
	}
	deep = strings.Repeat("<div>", 400) + pdPager(1) + strings.Repeat("</div>", 400)
	if pg, err := FindPager(pdArt+".html", []byte(deep), ""); err != nil || len(pg.Pages) != 3 {
		t.Fatalf("pager at depth 400: %q, %v", pg.Pages, err)
	}
}

func FuzzFindPager(f *testing.F) {
	f.Add(pdArt+".html", string(articleWith(pdPager(1))), "")
	f.Add(pdArt+"-2.html", string(articleWith(pdPager(2))), "div.zdfy")
	f.Add("http://www.news.cn/a/c.html?page=2", `<center class="xinhuaPager"><a href="c.html?page=1">1</a><a href="c.html?page=3">3</a></center>`, "")
	f.Add("http://news.ifeng.com/a/1_0.shtml", `<div><a href="1_1.shtml">2</a><a href="1_9.shtml">尾页</a></div>`, "")
	f.Fuzz(func(t *testing.T, pageURL, body, selector string) {
		pg, err := FindPager(pageURL, []byte(body), selector)
		if err != nil {
			return
		}
		if len(pg.Pages) == 1 || len(pg.Pages) > MaxArticlePages {
			t.Fatalf("%d pages", len(pg.Pages))
		}
		if pg.Multi() && (pg.Current < -1 || pg.Current >= len(pg.Pages)) {
			t.Fatalf("current %d of %d", pg.Current, len(pg.Pages))
		}
		seen := map[string]bool{}
		for _, p := range pg.Pages {
			u, err := url.Parse(p)
			if err != nil || !u.IsAbs() || u.Host == "" {
				t.Fatalf("page %q is not absolute", p)
			}
			if seen[p] {
				t.Fatalf("page %q twice in %q", p, pg.Pages)
			}
			seen[p] = true
		}
		if pg.Multi() {
			if n := pageOrder(t, pg.Pages); !slices.IsSorted(n) {
				t.Fatalf("pages out of order: %q (%v)", pg.Pages, n)
			}
		}
	})
}

// pageOrder reads the page numbers of a family's URLs back (page 1: the
// unnumbered one), for the order check.
func pageOrder(t *testing.T, pages []string) []int {
	t.Helper()
	var out []int
	for _, p := range pages {
		u, _ := url.Parse(p)
		ids := pageIDs(u)
		if len(ids) == 0 {
			t.Fatalf("page %q reads as no family page", p)
		}
		n := ids[0].n
		if n < 0 {
			n = -1
		}
		out = append(out, n)
	}
	return out
}
