package extract_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
)

func TestNewRejectsBadSelectors(t *testing.T) {
	for _, o := range []extract.Options{{Remove: []string{"div["}}, {BodySelector: "::"}, {TitleSelector: "a[b"}, {TimeSelector: ">>"}} {
		if _, err := extract.New(o); err == nil {
			t.Errorf("New(%+v) accepted a bad selector", o)
		}
	}
}

func TestSelectorsOverride(t *testing.T) {
	page := []byte(`<html><head><title>站点</title></head><body>
<div class="ad">广告：买一送一，详情请致电。广告：买一送一，详情请致电。广告：买一送一，详情请致电。</div>
<h2 class="t">真正的标题</h2><span class="when">发布于 2011-03-04 05:06</span>
<div class="c"><p>第一段正文内容。</p><p>第二段正文内容。</p></div>
<div class="other"><p>很长的无关内容，很长的无关内容，很长的无关内容，很长的无关内容，很长的无关内容，很长的无关内容。</p></div>
</body></html>`)
	ex, err := extract.New(extract.Options{Remove: []string{".ad"}, BodySelector: "div.c", TitleSelector: "h2.t", TimeSelector: ".when"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ex.Extract("", page)
	if err != nil {
		t.Fatal(err)
	}
	if a.Title != "真正的标题" || a.Text != "第一段正文内容。\n第二段正文内容。" || a.Method != extract.MethodSelector || a.PublishedAt.Format("2006-01-02 15:04") != "2011-03-04 05:06" {
		t.Fatalf("got %+v", a)
	}
}

func TestStripMetaLines(t *testing.T) {
	page := []byte(`<html><head><title>标题</title></head><body><div id="a">
<p>（来源：新华社）</p><p>正文第一段，有足够长的内容来构成一篇文章，讲述了一件事情的经过。</p><p>正文第二段，继续讲述事情的结果与影响，并引用了有关人士的说法。</p><p>[责任编辑：张三]</p>
</div></body></html>`)
	for _, strip := range []bool{false, true} {
		ex, _ := extract.New(extract.Options{StripMetaLines: strip})
		a, err := ex.Extract("", page)
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(a.Text, "来源") || strings.Contains(a.Text, "责任编辑")
		if has == strip || a.Source != "新华社" || a.Editor != "张三" {
			t.Errorf("strip=%v: text %q source %q editor %q", strip, a.Text, a.Source, a.Editor)
		}
	}
}

func TestTooLarge(t *testing.T) {
	ex, _ := extract.New(extract.Options{})
	_, err := ex.Extract("", make([]byte, extract.MaxInputBytes+1))
	if err == nil || errors.Is(err, extract.ErrNoArticle) {
		t.Fatalf("err = %v", err)
	}
}

// TestConcurrentExtract runs one Extractor from several goroutines (run
// with -race).
func TestConcurrentExtract(t *testing.T) {
	files, _ := filepath.Glob("testdata/pages/*.html")
	var pages [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u8, _, _ := decode.ToUTF8(raw, "", "")
		pages = append(pages, u8)
	}
	ex, _ := extract.New(extract.Options{Remove: []string{".share"}})
	want := make([]string, len(pages))
	for i, p := range pages {
		if a, err := ex.Extract("http://x/", p); err == nil {
			want[i] = a.Text
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, p := range pages {
				got := ""
				if a, err := ex.Extract("http://x/", p); err == nil {
					got = a.Text
				}
				if got != want[i] {
					t.Errorf("page %d: concurrent result differs", i)
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob("testdata/pages/*.html")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("<p>相关阅读</p><ul><li><a>x</a></li></ul>"))
	f.Add([]byte("<table><tr><td>" + strings.Repeat("<div><p>文字，", 200)))
	f.Add([]byte("<h1>标题</h1><div>2012年13月45日 99:99</div><p>来源：</p>"))
	f.Add([]byte("<title>\u202e标题\x1b[31m</title><p>" + strings.Repeat("\u202e\x1b\u2066。", 300) + "</p><p>正文，\r\x00正文。</p>"))
	ex, err := extract.New(extract.Options{})
	if err != nil {
		f.Fatal(err)
	}
	exArticle, err := extract.New(extract.Options{ExpectArticle: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		body, _, err := decode.ToUTF8(raw, "", "")
		if err != nil {
			t.Fatal(err)
		}
		e := ex
		if len(raw)%2 == 1 {
			e = exArticle
		}
		// Pages showing relative dates are resolved against a fetch time.
		a, err := e.ExtractFetched("http://example.com/a.html", body, time.Date(2024, 5, 10, 16, 30, 0, 0, time.UTC))
		if err != nil {
			if !errors.Is(err, extract.ErrNoArticle) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if a.Text == "" || !utf8.ValidString(a.Text) || !utf8.ValidString(a.Title) {
			t.Fatalf("bad article %+v", a)
		}
		for _, l := range strings.Split(a.Text, "\n") {
			if strings.TrimSpace(l) == "" {
				t.Fatalf("empty line in %q", a.Text)
			}
		}
		if i := strings.IndexFunc(a.Title+a.Text, func(r rune) bool {
			return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || unicode.Is(unicode.Bidi_Control, r)
		}); i >= 0 {
			t.Fatalf("control character left in %q / %q", a.Title, a.Text)
		}
	})
}

// An unclosed <a> before the article makes the HTML5 parser put the whole
// body inside the link (as browsers do); the article is still prose, not
// navigation. A card-style list page, where each link wraps a short
// title and summary, stays a list.
func TestUnclosedLinkBeforeBody(t *testing.T) {
	story := `<p>本报讯 记者昨日从市轨道交通集团获悉，地铁三号线一期工程已完成全部设备调试和试运行，将于下月开通试运营。</p>
<p>三号线一期全长二十四公里，共设车站十九座，其中换乘站六座，线路串联老城区、高铁站和南部新区。</p>
<p>试运行期间，列车共开行一万两千余列次，运行图兑现率和列车正点率均超过百分之九十九，各项指标达到开通条件。</p>
<p>轨道交通集团负责人表示，开通初期列车最小行车间隔为六分钟，早晚高峰将视客流情况加开临时列车。</p>`
	page := []byte(`<html><head><title>地铁三号线下月开通_某某新闻</title></head><body>
<div class="nav"><a href="/">首页</a> <a href="/news/">新闻</div>
<div id="content">` + story + `</div>
<div class="footer">版权所有</div></body></html>`)
	ex, _ := extract.New(extract.Options{})
	a, err := ex.Extract("http://example.com/a/1.html", page)
	if err != nil {
		t.Fatalf("unclosed link: %v", err)
	}
	if !strings.Contains(a.Text, "三号线一期全长二十四公里") || !strings.Contains(a.Text, "早晚高峰") {
		t.Errorf("text %q", a.Text)
	}

	var cards strings.Builder
	cards.WriteString(`<html><head><title>滚动新闻_某某新闻</title></head><body><div class="list">`)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&cards, `<a href="/a/%d.html"><div><h3>第%d条新闻标题，某地举行活动</h3><p>摘要：某地昨日举行活动，吸引众多市民参加。</p></div></a>`, i, i)
	}
	cards.WriteString(`</div></body></html>`)
	if _, err := ex.Extract("http://example.com/list.html", []byte(cards.String())); !errors.Is(err, extract.ErrNoArticle) {
		t.Errorf("card list page: want ErrNoArticle, got %v", err)
	}
}

// Plug-in fallbacks (<noembed>, <noframes>) are raw text to the HTML
// parser: an ad server's escaped markup, whose URL is full of commas,
// scored like prose and beat a short article on the page.
func TestPluginFallbacksAreNotText(t *testing.T) {
	ad := `&lt;A HREF="http://ads.example.com/click?Segments=` + strings.Repeat("2371,4176,5882,", 40) + `"&gt;&lt;IMG SRC="/ad.gif"&gt;&lt;/A&gt;`
	story := `<p>NEW YORK -- The city hands out 1.5 million free condoms a month in ordinary wrappers, and health officials figure people would use them more if the packaging were distinctive.</p>
<p>"Brands work, and people use branded items more than they use non-branded items," the health commissioner said on Friday.</p>`
	for _, tag := range []string{"noembed", "noframes"} {
		page := []byte(`<html><head><title>City condom</title></head><body>
<table><tr><td><object data="ad.swf"><param name="movie" value="ad.swf"><embed src="ad.swf"></object>
<` + tag + `>` + ad + `</` + tag + `></td></tr></table>
<div>` + story + `</div></body></html>`)
		ex, _ := extract.New(extract.Options{})
		a, err := ex.Extract("http://example.com/a/1.html", page)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if strings.Contains(a.Text, "HREF") || strings.Contains(a.Text, "2371") || !strings.Contains(a.Text, "Brands work") {
			t.Errorf("%s: text %q", tag, a.Text)
		}
	}
}

// A <div> whose paragraphs are separated by <br><br> scores like the same
// text in <p>s (Readability's replaceBrs): as one run of text it lost to
// a sidebar of comma-heavy classified ads.
func TestBrSeparatedParagraphs(t *testing.T) {
	// Eight paragraphs of over 100 characters with one comma each: 3
	// points apiece as paragraphs (24), 12 as one run of text.
	paras := []string{
		"LG Electronics has announced plans to sell a DVD player that will play both warring high-definition formats, the company said.",
		"The first dual-format player will play discs in the HD DVD format as well as the rival Blu-ray format, which Sony Corp. backs.",
		"The unit will be unveiled at next week's Consumer Electronics Show in Las Vegas, where details on pricing will become available.",
		"The two formats have been battling for market share since being introduced last year, and both are expected to get a boost.",
		"Studios and electronics makers have said the resulting format war would delay widespread adoption of the sharper discs, analysts say.",
		"The company based in South Korea said it expects its dual-format player to end the confusion of competing disc formats, it said.",
		"Consumers who bought one of the two kinds of players last year could find their machines outdated sooner than they had expected, too.",
		"Retailers said shoppers have largely stayed away from both formats while waiting to see which one the big film studios favour, so far.",
	}
	var ads strings.Builder
	for _, car := range []string{"SATURN SL2 2000", "MITSUBISHI ECLIPSE 99", "JEEP CHEROKEE 97", "NISSAN QUEST 1999"} {
		fmt.Fprintf(&ads, `<span class="small">%s P/W, P/L, 69k miles, CD, Auto. $4500 or best offer.<br>&#8226; <a href="/ad">View full ad</a><hr></span>`, car)
	}
	page := []byte(`<html><head><title>LG to sell dual-format player</title></head><body><table><tr>
<td><h2>LG to sell dual-format player</h2><div id="story">` + strings.Join(paras, "<br><br>\n") + `</div></td>
<td class="side">` + ads.String() + `</td></tr></table></body></html>`)
	ex, _ := extract.New(extract.Options{})
	a, err := ex.Extract("http://example.com/a/1.html", page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Text, "dual-format player to end the confusion") || strings.Contains(a.Text, "best offer") {
		t.Errorf("text %q", a.Text)
	}
}

// TestExpectArticle: a short brief whose words are keyword links, followed
// in the same container by promo link blocks, is a list page by link
// density unless its URL has an article's shape or the site's article_url
// marks it as an article: then the story is kept and the promo blocks
// dropped, and only a page without article text (or a list of teasers on
// an article-shaped URL) is refused.
func TestExpectArticle(t *testing.T) {
	brief, err := os.ReadFile("testdata/pages/brief-promo.html")
	if err != nil {
		t.Fatal(err)
	}
	noText := []byte(`<html><head><title>网易财经</title></head><body><div id="endText">
<p><a href="/a1.html">沪指收复5100点 券商股集体走强</a></p><p><a href="/a2.html">两市成交额突破两万亿元创新高</a></p>
<p><a href="/a3.html">创业板指数再创历史新高</a></p><p><a href="/a4.html">证监会：加强对场外配资的监管</a></p></div></body></html>`)
	teasers := []byte(`<html><head><title>财经频道_网易</title></head><body><h1>财经频道</h1><div id="endText">
<p><a href="/a1.html">沪指收复5100点 券商股集体走强</a></p><p>两市今日高开高走，券商、保险板块领涨，成交额较昨日明显放大。</p>
<p><a href="/a2.html">两市成交额突破两万亿元创新高</a></p><p>沪深两市成交额合计突破两万亿元，创出历史新高，北向资金净流入。</p>
<p><a href="/a3.html">创业板指数再创历史新高</a></p><p><a href="/a4.html">证监会：加强对场外配资的监管</a></p>
<p><a href="/a5.html">新股申购资金冻结规模超过六万亿</a></p><p><a href="/a6.html">多家券商上调两融保证金比例</a></p></div></body></html>`)
	const articleURL = "http://money.163.example/15/0612/09/AB12CD.html"
	for _, tc := range []struct {
		name    string
		url     string
		page    []byte
		expect  bool
		wantErr bool
		has     []string
		hasNot  []string
	}{
		{name: "brief refused as a list on a URL without an article's shape", url: "http://money.163.example/money/brief/", page: brief, wantErr: true},
		{name: "brief kept on an article-shaped URL", url: articleURL, page: brief,
			has:    []string{"下周将继续开展逆回购操作", "市场利率有望保持平稳"},
			hasNot: []string{"重点推荐", "沪指收复5100点", "证券要闻", "多家券商上调"}},
		{name: "brief kept when expected", url: "http://money.163.example/money/brief/", page: brief, expect: true,
			has:    []string{"下周将继续开展逆回购操作", "市场利率有望保持平稳"},
			hasNot: []string{"重点推荐", "沪指收复5100点", "证券要闻", "多家券商上调"}},
		{name: "links only refused even when expected", url: articleURL, page: noText, expect: true, wantErr: true},
		{name: "teasers on an article-shaped URL refused", url: articleURL, page: teasers, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := extract.New(extract.Options{ExpectArticle: tc.expect})
			if err != nil {
				t.Fatal(err)
			}
			a, err := ex.Extract(tc.url, tc.page)
			if tc.wantErr {
				if !errors.Is(err, extract.ErrNoArticle) {
					t.Fatalf("err = %v, article %+v; want ErrNoArticle", err, a)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.has {
				if !strings.Contains(a.Text, s) {
					t.Errorf("text lacks %q: %q", s, a.Text)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(a.Text, s) {
					t.Errorf("text has %q: %q", s, a.Text)
				}
			}
		})
	}
}

func TestNewRejectsBadTuning(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    extract.Tuning
		ok   bool
	}{
		{"zero takes the defaults", extract.Tuning{}, true},
		{"in range", extract.Tuning{LinkBlockDensity: 0.4, SiblingScoreShare: 1, CloseRunnerUp: 0.7}, true},
		{"negative", extract.Tuning{LinkBlockDensity: -0.1}, false},
		{"above one", extract.Tuning{SiblingScoreShare: 1.5}, false},
		{"NaN", extract.Tuning{CloseRunnerUp: math.NaN()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := extract.New(extract.Options{Tuning: tc.t})
			if (err == nil) != tc.ok {
				t.Errorf("New(%+v) error %v, want ok=%v", tc.t, err, tc.ok)
			}
		})
	}
}
