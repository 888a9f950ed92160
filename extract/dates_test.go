package extract

import (
	"strings"
	"testing"
	"time"
)

func TestURLDate(t *testing.T) {
	for _, tc := range []struct{ name, url, want string }{
		{"sina dashed", "http://news.sina.com.cn/c/2012-06-15/102024600000.shtml", "2012-06-15"},
		{"qq compact", "https://news.qq.com/a/20120615/000123.htm", "2012-06-15"},
		{"people year/mmdd", "http://politics.people.com.cn/n/2012/0615/c1001-18000000.html", "2012-06-15"},
		{"netease yy/mmdd", "https://money.163.com/15/0612/09/AB12CD34EF.html", "2015-06-12"},
		{"qianlong y/m/d", "http://auto.qianlong.com/36/2005/07/18/1680@2723871.htm", "2005-07-18"},
		{"no date", "https://www.thepaper.cn/newsDetail_forward_5420361", ""},
		{"invalid month", "http://x.example.com/2012/1340/a.html", ""},
		{"query only", "http://blog.example.com/archives.php?date=200506", ""},
		{"bad url", "http://[::1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := urlDate(tc.url)
			s := ""
			if ok {
				s = got.Format(time.DateOnly)
			}
			if s != tc.want {
				t.Errorf("urlDate(%q) = %q, want %q", tc.url, s, tc.want)
			}
		})
	}
}

func TestNoYearDate(t *testing.T) {
	hint := time.Date(2015, 10, 8, 0, 0, 0, 0, cst)
	for _, tc := range []struct {
		name, line string
		hint       time.Time
		want       string
	}{
		{"dash", "10-08 12:00 来源：示例晚报", hint, "2015-10-08 12:00"},
		{"chinese", "10月08日 12:00", hint, "2015-10-08 12:00"},
		{"slash with seconds", "发布时间：10/08 12:00:30", hint, "2015-10-08 12:00:30"},
		{"across new year", "01-01 00:10", time.Date(2015, 12, 31, 0, 0, 0, 0, cst), "2016-01-01 00:10"},
		{"back across new year", "12-31 23:50", time.Date(2016, 1, 1, 0, 0, 0, 0, cst), "2015-12-31 23:50"},
		{"no hint", "10-08 12:00", time.Time{}, ""},
		{"inside a full date", "2015-10-08 12:00", hint, ""},
		{"bad time", "10-08 25:00", hint, ""},
		{"bad day", "02-30 10:00", hint, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if m := rxNoYearDate.FindStringSubmatch(tc.line); m != nil {
				if d, ok := noYearDate(m, tc.hint); ok {
					got = d.Format("2006-01-02 15:04")
					if d.Second() != 0 {
						got += d.Format(":05")
					}
				}
			}
			if got != tc.want {
				t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

// TestRelatedRegionsGiveNoMetadata: a page whose own header shows neither
// a date nor a byline does not borrow them from its related-reading block,
// its comments or its footer.
func TestRelatedRegionsGiveNoMetadata(t *testing.T) {
	page := []byte(`<html><head><title>市政府召开常务会议_示例网</title></head><body>
<div class="nav"><a href="/">首页</a> <a href="/n/">新闻</a></div>
<div class="main"><h1>市政府召开常务会议</h1>
<div class="text"><p>市政府今天召开常务会议，研究部署今冬明春供暖保障工作，要求各区县确保居民室温达标，做好应急预案。</p>
<p>会议还听取了关于城市道路改造进展情况的汇报，要求在年底前完成主要路段的施工任务。</p></div>
<div class="xgyd"><h3>相关阅读</h3><ul><li><a href="/a/1.html">人民日报整版刊文：做好冬季供暖保障</a> 2019-11-30 08:00</li>
<li><a href="/a/2.html">本报记者 王五 李六 报道供暖准备情况</a> 2019-11-29 09:00</li></ul></div>
<div class="comment-list"><p>网友 2019-12-01 10:00：文：张三说得好</p></div>
</div>
<div class="footer">Copyright © 2019 示例网 2019-01-01 00:00 更新</div>
</body></html>`)
	ex, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := ex.Extract("", page)
	if err != nil {
		t.Fatal(err)
	}
	if !a.PublishedAt.IsZero() || a.Author != "" {
		t.Errorf("date %v, author %q taken from a foreign region", a.PublishedAt, a.Author)
	}
	if strings.Contains(a.Text, "人民日报整版刊文") {
		t.Errorf("related block in text: %q", a.Text)
	}
}

// FuzzDates: the URL, script, meta-time, year-less and page-line date
// parsers never panic and return only valid dates in the plausible range.
func FuzzDates(f *testing.F) {
	f.Add("http://x.example/2012-06-15/a.html", `var publishTime = "2015-10-08 12:00:00";`, "10-08 12:00")
	f.Add("https://money.163.com/15/0612/09/AB.html", `pubDate: escape('2005-03-06 16:17:00')`, "10月08日 12:00:30")
	f.Add("http://[::1", `ptime="`, "99-99 99:99")
	f.Add("http://x.example/item/a", `[{"publishDate":"2012-06-24"},{"publishDate":"2016-06-25"}]`, "．南海网．2012-06-24[引用日期2014-06-01]")
	f.Add("", `var ptime = "2020-02-14 10:47"`, "签署命令，发布《规定》，自2022年2月10日起施行 2022-02-13 07:00:00来源：央广网")
	hint := time.Date(2015, 10, 8, 0, 0, 0, 0, cst)
	f.Fuzz(func(t *testing.T, u, script, line string) {
		if d, ok := urlDate(u); ok && (d.Year() < minYear || d.Year() > maxYear) {
			t.Fatalf("urlDate(%q) = %v", u, d)
		}
		if v := scriptDate(script); v != "" && !strings.Contains(script, v) {
			t.Fatalf("scriptDate(%q) = %q, not in the script", script, v)
		}
		if d, ok := parseTime(line); ok && (d.Year() < minYear || d.Year() > maxYear) {
			t.Fatalf("parseTime(%q) = %v", line, d)
		}
		li := lineInfo{page: []string{"标题", line, line + "。"}, body: []string{line + "。"}, titleLine: 0, bodyLine: 2, yearHint: hint}
		if d, ok := textDate(li); ok && (d.Year() < minYear || d.Year() > maxYear+1) {
			t.Fatalf("textDate(%q) = %v", line, d)
		}
		for _, m := range rxNoYearDate.FindAllStringSubmatch(line, -1) {
			if d, ok := noYearDate(m, hint); ok && (d.Sub(hint) > halfYear+24*time.Hour || hint.Sub(d) > halfYear+24*time.Hour) {
				t.Fatalf("noYearDate(%q) = %v, more than half a year from %v", line, d, hint)
			}
		}
	})
}

// TestDateShapes runs textDate on the date shapes that a page's lines
// alone decide.
func TestDateShapes(t *testing.T) {
	prose := "正文第二段，内容足够长，讲了一件事情的来龙去脉。"
	for _, tc := range []struct {
		name     string
		page     []string
		bodyFrom int
		want     string // "" = no date
	}{
		{"a keyword in the first sentence does not label its date", []string{
			"中央军委主席签署命令 发布某规定", "2022-02-13 07:00:00来源：央广网",
			"央广网北京2月13日消息 据报道，中央军委主席日前签署命令，发布《军队装备试验鉴定规定》，自2022年2月10日起施行。", prose,
		}, 2, "2022-02-13 07:00"},
		{"a keyword next to its date still labels it", []string{
			"某某会议召开", "新华网 发布时间：2012-06-15",
			"会议指出，2012年6月1日以来，各地按照部署开展工作，取得了明显成效。", prose,
		}, 2, "2012-06-15 00:00"},
		{"a reference's access date is no publish date", []string{
			"某某人物", prose, prose + "二",
			"参考资料", "金曲奖五月天拿六项大奖 ．南海网．2012-06-24[引用日期2014-06-01]",
		}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			li := lineInfo{page: tc.page, body: tc.page[tc.bodyFrom : tc.bodyFrom+2], titleLine: 0, bodyLine: tc.bodyFrom}
			got, ok := textDate(li)
			s := ""
			if ok {
				s = got.Format("2006-01-02 15:04")
			}
			if s != tc.want {
				t.Errorf("textDate = %q, want %q", s, tc.want)
			}
		})
	}
}

// TestScriptDateList: a key assigned different times in one script is a
// list of items (a wiki's references), not the page's publish time.
func TestScriptDateList(t *testing.T) {
	for _, tc := range []struct{ name, script, want string }{
		{"one assignment", `var publishTime = "2015-10-08 12:00:00";`, "2015-10-08 12:00:00"},
		{"the same time twice", `pubtime="2015-10-08 12:00"; a.pubtime="2015-10-08 12:00"`, "2015-10-08 12:00"},
		{"a list of references", `{"refs":[{"publishDate":""},{"publishDate":"2012-06-24"},{"publishDate":"2016-06-25"}]}`, ""},
		{"a list, then the page's own key", `[{"publishDate":"2012-06-24"},{"publishDate":"2016-06-25"}]; var ptime = "2020-02-14 10:47"`, "2020-02-14 10:47"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scriptDate(tc.script); got != tc.want {
				t.Errorf("scriptDate = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestModifiedMetaDate: a page without a publish time, a URL date or a
// date labelled near its headline takes its last-modified meta; a
// publish-time meta or a URL date still wins.
func TestModifiedMetaDate(t *testing.T) {
	page := func(metas string) []byte {
		return []byte(`<html><head><title>某某人物_示例百科</title>` + metas + `</head><body>
<div class="nav"><a href="/">首页</a> <a href="/n/">分类</a></div>
<div class="main"><h1>某某人物</h1><a class="edit">编辑</a>
<div class="para">某某人物，1975年出生于新加坡，华语流行乐女歌手、音乐制作人。2012年6月23日，凭借专辑获得第二十三届金曲奖最佳国语女歌手奖，这是她第三次获得这一奖项，颁奖典礼上她含泪致辞，感谢多年来支持她的歌迷和音乐伙伴。</div>
<h2>早年经历</h2><a class="edit">编辑</a>
<div class="para">她自幼喜爱音乐，中学时开始创作歌曲，后来进入唱片公司担任词曲作者，为多位歌手写歌，积累了丰富的经验。</div></div>
<div class="refs"><h3>参考资料</h3><ul><li><a href="/r/1">金曲奖五月天拿六项大奖</a> ．南海网．2012-06-24[引用日期2014-06-01]</li></ul></div>
<script>var refs=[{"publishDate":"2012-06-24"},{"publishDate":"2016-06-25"}];</script>
</body></html>`)
	}
	for _, tc := range []struct{ name, metas, url, want string }{
		{"modified meta", `<meta itemprop="dateUpdate" content="2020-02-14 10:47:36" />`, "https://baike.example.com/item/x", "2020-02-14T10:47:36+08:00"},
		{"publish meta wins", `<meta itemprop="dateUpdate" content="2020-02-14 10:47:36" /><meta name="publishdate" content="2019-05-01 08:00">`, "https://baike.example.com/item/x", "2019-05-01T08:00:00+08:00"},
		{"URL date wins", `<meta property="article:modified_time" content="2020-02-14T10:47:36+00:00" />`, "https://baike.example.com/2019/0501/x.html", "2019-05-01T00:00:00+08:00"},
		{"zone kept", `<meta property="article:modified_time" content="2020-02-14T10:47:36+05:30" />`, "https://baike.example.com/item/x", "2020-02-14T10:47:36+05:30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			a, err := ex.Extract(tc.url, page(tc.metas))
			if err != nil {
				t.Fatal(err)
			}
			if got := a.PublishedAt.Format(time.RFC3339); got != tc.want {
				t.Errorf("PublishedAt %s, want %s", got, tc.want)
			}
			if a.Author != "" {
				t.Errorf("author %q from an edit link", a.Author)
			}
		})
	}
}
