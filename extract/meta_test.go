package extract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func TestParseTime(t *testing.T) {
	at := func(y, mo, d, h, mi, s int) time.Time { return time.Date(y, time.Month(mo), d, h, mi, s, 0, cst) }
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2012年06月15日 10:20", at(2012, 6, 15, 10, 20, 0), true},
		{"2012年6月5日10:20", at(2012, 6, 5, 10, 20, 0), true},
		{"2012-06-15 10:20:33", at(2012, 6, 15, 10, 20, 33), true},
		{"2012/06/15", at(2012, 6, 15, 0, 0, 0), true},
		{"2024年1月20日 週六 下午3:05", at(2024, 1, 20, 15, 5, 0), true},
		{"2024年1月20日 下午12:00", at(2024, 1, 20, 12, 0, 0), true},
		{"2024年1月20日 星期六 上午9:30", at(2024, 1, 20, 9, 30, 0), true},
		{"2024-01-20 晚上8:30", at(2024, 1, 20, 20, 30, 0), true},
		{"2012.06.15", at(2012, 6, 15, 0, 0, 0), true},
		{"发布时间：2009-11-09 13:57", at(2009, 11, 9, 13, 57, 0), true},
		{"2019-09-07T06:52:51+08:00", time.Date(2019, 9, 7, 6, 52, 51, 0, time.FixedZone("", 8*3600)), true},
		{"2019-11-19T05:50:00Z", time.Date(2019, 11, 19, 5, 50, 0, 0, time.UTC), true},
		{"2012-02-31", time.Time{}, false},
		{"1850-01-01", time.Time{}, false},
		{"12/01/2004 - 01/01/2005", time.Time{}, false},
		{"no date", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := parseTime(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTimeElement(t *testing.T) {
	for _, tc := range []struct{ name, head, body, want string }{
		{"itemprop datePublished", "", `<time itemprop="datePublished" datetime="2024-01-20T04:00:00.000Z">2024年1月20日 週六 下午12:00</time>`, "2024-01-20T04:00:00Z"},
		{"html5 pubdate", "", `<time pubdate datetime="2023-11-02T09:15:00+08:00">11月2日</time>`, "2023-11-02T09:15:00+08:00"},
		{"unmarked time is not the publish time", "", `<time datetime="2020-01-01T00:00:00Z">related</time>`, ""},
		{"marked times of a list of items", "", `<time itemprop="datePublished" datetime="2024-01-20T04:00:00Z">a</time><time itemprop="datePublished" datetime="2024-01-18T04:00:00Z">b</time>`, ""},
		{"a publish-time meta wins", `<meta property="article:published_time" content="2024-01-19T10:00:00+08:00">`, `<time itemprop="datePublished" datetime="2024-01-20T04:00:00Z">x</time>`, "2024-01-19T10:00:00+08:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><head>" + tc.head + "</head><body>" + tc.body + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if at, ok := parseTime(collectMeta(doc).published); ok {
				got = at.Format(time.RFC3339)
			}
			if got != tc.want {
				t.Errorf("published %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStripSiteSuffix(t *testing.T) {
	tests := map[string]string{
		"城市公共自行车试运营_网易新闻中心":                                      "城市公共自行车试运营",
		"基金经理：应注重公司增长的质量_新闻中心_新浪网":                               "基金经理：应注重公司增长的质量",
		"美中国留学生办影展-搜狐音乐":                                         "美中国留学生办影展",
		"俄罗斯总统会见戴秉国_10%公司_澎湃新闻-The Paper":                        "俄罗斯总统会见戴秉国_10%公司",
		"City council approves bike lanes | Springfield Gazette": "City council approves bike lanes",
		"开拓者主帅内特-麦克米兰表态":                                         "开拓者主帅内特-麦克米兰表态",
		"没有后缀的标题":                                                "没有后缀的标题",
	}
	for in, want := range tests {
		if got := stripSiteSuffix(in); got != want {
			t.Errorf("stripSiteSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChooseTitle(t *testing.T) {
	tests := []struct {
		m    pageMeta
		want string
	}{
		{pageMeta{titleTag: "快讯：吴伯雄演讲全文_凤凰网资讯_凤凰网", headings: []string{"凤凰网", "快讯：吴伯雄演讲全文"}}, "快讯：吴伯雄演讲全文"},
		{pageMeta{titleTag: "'+document.title+'", headings: []string{"阿帅直言火箭客场遭不公待遇"}}, "阿帅直言火箭客场遭不公待遇"},
		{pageMeta{titleTag: "标题甲_新浪网", ogTitle: "标题甲"}, "标题甲"},
		{pageMeta{titleTag: "标题乙-搜狐新闻"}, "标题乙"},
	}
	for _, tt := range tests {
		if got := chooseTitle(tt.m); got != tt.want {
			t.Errorf("chooseTitle(%+v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestBylines(t *testing.T) {
	tests := map[string]string{
		"光明日报记者 王建宏 张文攀":                                   "王建宏 张文攀",
		"新京报记者 彭冲 山东冠县报道":                                  "彭冲",
		"本报记者罗科苏盈发自北京":                                     "罗科苏盈",
		"作者：宋怡 杨志华":                                        "宋怡 杨志华",
		"02日14:25 作者： 赵婕 出自[人民文学出版社]":                      "赵婕",
		"By Jane Doe, Staff Writer":                        "Jane Doe",
		"条件差但省了房租，公寓太挤没法安家记者探访":                            "",
		"今天天气很好。":                                          "",
		"本报实习生 刘国栋 周炜 本报记者 王燕平 方云凤 柏建斌":                    "刘国栋 周炜 王燕平 方云凤 柏建斌",
		"富士Z300套装仅售1389元作者:陈伟飞技术和时尚的无缝结合":                  "",
		"作者：size=\"20\"":                                   "",
		"作者: 赵 培：北京物资学院，北京":                                "赵培",
		"作者：张三 李四 著":                                       "张三 李四",
		"由海姑娘张贴 @ 2005-06-10 05:42:56 (290)":               "海姑娘",
		"〓 网易娱乐 明星话题 发布时间 2005/03/15 22:36:13 by duscha 〓": "duscha",
		"他说 by the way 这很好":                                "",
	}
	for in, want := range tests {
		got := authorFromLine(in)
		if in == "条件差但省了房租，公寓太挤没法安家记者探访" {
			// A reporter word inside prose is not a leading byline.
			if isLeadingByline(in) {
				t.Errorf("isLeadingByline(%q) = true", in)
			}
			continue
		}
		if got != want {
			t.Errorf("authorFromLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelatedHeading(t *testing.T) {
	for s, want := range map[string]bool{"相关阅读": true, "【相关新闻】": true, "相关阅读：": true, ">> 延伸阅读": true, "Related": true, "You may also like...": true, "相关阅读…": true, "相关阅读：温家宝亲笔给灾区小学生回信": false, "正文": false} {
		if got := isRelatedHeading(s); got != want {
			t.Errorf("isRelatedHeading(%q) = %v", s, got)
		}
	}
}

func TestTextDatePrefersDateNearHeadline(t *testing.T) {
	li := lineInfo{
		page: []string{
			"网站建立于:2004年10月6日",
			"文章标题",
			"2012-06-15 10:20 来源：新华网",
			"正文第一段，提到了2010年5月1日发生的事情。",
			"正文第二段。",
			"相关新闻 2013-01-01",
		},
		body:      []string{"正文第一段，提到了2010年5月1日发生的事情。", "正文第二段。"},
		titleLine: 1,
		bodyLine:  3,
	}
	got, ok := textDate(li)
	if !ok || !got.Equal(time.Date(2012, 6, 15, 10, 20, 0, 0, cst)) {
		t.Fatalf("textDate = %v, %v", got, ok)
	}
	// A month date is the last resort ("——《北京之春》1998年3月号").
	li = lineInfo{page: []string{"文章", "——《北京之春》1998年3月号"}, body: []string{"——《北京之春》1998年3月号"}, titleLine: -1, bodyLine: 1}
	got, ok = textDate(li)
	if !ok || got.Year() != 1998 || got.Month() != 3 {
		t.Fatalf("month date = %v, %v", got, ok)
	}
}

func TestUSDate(t *testing.T) {
	li := lineInfo{page: []string{"posted", "9/17/2004 5:54:13 PM"}, titleLine: -1, bodyLine: -1}
	got, ok := textDate(li)
	if !ok || !got.Equal(time.Date(2004, 9, 17, 17, 54, 13, 0, cst)) {
		t.Fatalf("got %v %v", got, ok)
	}
}

// TestAuthorIsNotASource: an organisation or self-media account in the
// author field is the source; a lone name under the headline is the
// author.
func TestAuthorIsNotASource(t *testing.T) {
	for _, tc := range []struct {
		name, header, wantAuthor, wantSource string
	}{
		{"self-media account", "作者：科技观察财经", "", "科技观察财经"},
		{"person", "作者：张三", "张三", ""},
		{"name under headline", "李四", "李四", ""},
		{"column label under headline", "导读", "", ""},
		{"navigation link under headline", "返目录", "", ""},
		{"edit link under headline", "编辑", "", ""},
		{"role word under headline", "作者", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := []string{"标题是这样的一句话", tc.header, "正文第一段，内容足够长，讲了一件事情的来龙去脉。"}
			li := lineInfo{page: page, body: page[2:], titleLine: 0, bodyLine: 2}
			a := &Article{}
			findMeta(li, a, "")
			if a.Author != tc.wantAuthor || a.Source != tc.wantSource {
				t.Errorf("author %q source %q, want %q %q", a.Author, a.Source, tc.wantAuthor, tc.wantSource)
			}
		})
	}
}

// TestBylineShapes runs findMeta on the byline shapes of pages whose
// header the headline search does not find, or whose end carries the
// byline of a repost.
func TestBylineShapes(t *testing.T) {
	prose := "正文第一段，内容足够长，讲了一件事情的来龙去脉。"
	for _, tc := range []struct {
		name       string
		page       []string
		titleLine  int
		bodyFrom   int
		wantAuthor string
	}{
		{"reporters on two lines before a repost's poster", []string{"某某的博客", "拆房屡出命案", "本报实习生 刘国栋 周炜", "本报记者 王燕平 方云凤", prose, prose + "二", "- 作者： 流泉 访问统计： 2005年08月30日"}, 0, 1, "刘国栋 周炜 王燕平 方云凤"},
		{"names under a headline that starts the body", []string{"网站首页", "社会资本与下岗职工的再就业", "赵延东、风笑天", prose}, -1, 1, "赵延东 风笑天"},
		{"a subtitle under the headline is no name", []string{"网站首页", "社会资本与下岗职工的再就业", "导读", prose}, -1, 1, ""},
		{"a sentence before a short line is no headline", []string{"网站首页", "他说，事情是这样的", "张三", prose}, -1, 1, ""},
		{"tail byline above the editor line", []string{"标题是这样的一句话", prose, "推动云南工业高质量发展。（记者 胡晓蓉）\u00a0", "责任编辑：孙重远"}, 0, 1, "胡晓蓉"},
		{"nickname in prose above the source line", []string{"标题是这样的一句话", prose, "双方首发：索顿，埃文斯，加西亚(肥仔)", "（来源：中国新闻网）"}, 0, 1, ""},
		{"issuer label and value in two cells", []string{"吉林省人民政府关于某事的通告", "发文机关：", "吉林省人民政府", "成文日期：", prose}, 0, 4, "吉林省人民政府"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			li := lineInfo{page: tc.page, body: tc.page[tc.bodyFrom:], titleLine: tc.titleLine, bodyLine: tc.bodyFrom}
			a := &Article{}
			findMeta(li, a, "")
			if a.Author != tc.wantAuthor {
				t.Errorf("author %q, want %q", a.Author, tc.wantAuthor)
			}
		})
	}
}

// TestFooterEditor: the 责任编辑 and 来源 lines just after the article's
// text block (outside it) are the article's own.
func TestFooterEditor(t *testing.T) {
	// A body longer than the header's reach, so that only the footer
	// holds the lines after it.
	var body []string
	for i := range headerLines + 2 {
		body = append(body, fmt.Sprintf("正文第%d段，内容足够长，讲了一件事情的来龙去脉和结果。", i+1))
	}
	for _, tc := range []struct {
		name                   string
		after                  []string
		wantEditor, wantSource string
	}{
		{"editor after the text block", []string{"责任编辑： 焦鹏", "相关新闻"}, "焦鹏", ""},
		{"source and editor after the text block", []string{"来源：半月谈", "[责任编辑：孔德明]"}, "孔德明", "半月谈"},
		{"an editor past the footer is not the article's", []string{"分享到", "微博", "微信", "责任编辑：某某"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := append(append([]string{"标题是这样的一句话"}, body...), tc.after...)
			li := lineInfo{page: page, body: body, titleLine: 0, bodyLine: 1}
			a := &Article{}
			findMeta(li, a, "")
			if a.Editor != tc.wantEditor || a.Source != tc.wantSource {
				t.Errorf("editor %q source %q, want %q %q", a.Editor, a.Source, tc.wantEditor, tc.wantSource)
			}
		})
	}
}

// TestOwnerAuthor: a personal site's page that names no author in its
// header or footer takes the owner its author links or its site name and
// copyright line name.
func TestOwnerAuthor(t *testing.T) {
	post := `<div class="post"><h2>很高兴入住博客堂</h2><p>各位朋友好，今天开始在这里写博客，以后会在这里分享软件开发方面的心得体会，也欢迎大家多多交流，提出宝贵的意见和建议。</p>
<p>目前我在上海担任软件架构师，业余时间写作和翻译技术书籍，希望以后和各位多多交流，共同进步。</p><p class="postfoot">发表于 2004年12月27日 12:40</p></div>`
	for _, tc := range []struct{ name, page, want string }{
		{"blog owner's author page linked most", `<div class="side"><a href="/?author=102" title="[太小心]的博客">太小心</a>
<a href="/?pc=1&author=102">未归类</a> <a href="/?pc=2&author=102">历史</a> <a href="/?m=200508&author=102">August 2005</a></div>` + post +
			`<div class="comments"><a href="/?author=1470">century</a> 回复：说得好</div>`, "太小心"},
		{"commenters linked once each", post + `<div class="comments"><a href="/?author=1470">century</a> 回复：说得好 <a href="/?author=1471">张三</a> 回复：同意</div>`, ""},
		{"a category of the author's pages is no name", `<a href="/?pc=125&author=102">补文化</a> <a href="/?pc=126&author=102">历史</a> <a href="/?m=200508&author=102">八月</a>` + post, ""},
		{"rel=author", `<a rel="author" href="/people/wang">王五</a>` + post, "王五"},
		{"an admin account is no name", `<a href="/author/admin/">admin</a><a href="/author/admin/">admin</a><a href="/author/admin/">admin</a>` + post, ""},
		{"site name and copyright name one person", `<h1><a href="/lijianzhong/">李建忠</a></h1><p>C#/.NET 培训/咨询</p>` + post + `<div class="footer">Copyright © 李建忠</div>`, "李建忠"},
		{"copyright of an organisation", `<h1><a href="/">示例网</a></h1>` + post + `<div class="footer">Copyright © 示例网</div>`, ""},
		{"copyright name not the site's", `<h1><a href="/">技术博客堂</a></h1>` + post + `<div class="footer">Copyright © 李建忠</div>`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			a, err := ex.Extract("http://blog.example.com/archive/41810.aspx", []byte("<html><head><title>很高兴入住博客堂</title></head><body>"+tc.page+"</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			if a.Author != tc.want {
				t.Errorf("author %q, want %q", a.Author, tc.want)
			}
		})
	}
}

// TestWeChatAccount: the account a WeChat header marks (#js_name, the
// older #post-user) is the source and leaves the byline it was read into;
// a page without the mark keeps its byline whole.
func TestWeChatAccount(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("testdata", "pages", "hidden-wechat.html"))
	if err != nil {
		t.Fatal(err)
	}
	const current = `<a href="javascript:void(0);" id="js_name">南方周末</a>`
	if !bytes.Contains(page, []byte(current)) {
		t.Fatal("testdata/pages/hidden-wechat.html no longer holds the account mark")
	}
	for _, tc := range []struct {
		name, account, author, source string
	}{
		{"current markup", current, "周小雨", "南方周末"},
		{"older markup", `<a class="rich_media_meta rich_media_meta_link" id="post-user" href="javascript:void(0);">南方周末</a>`, "周小雨", "南方周末"},
		{"no account mark", `<a href="javascript:void(0);">南方周末</a>`, "周小雨 南方周末", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			art, err := ex.Extract("https://mp.weixin.qq.com/s/abc", bytes.Replace(page, []byte(current), []byte(tc.account), 1))
			if err != nil {
				t.Fatal(err)
			}
			if art.Author != tc.author || art.Source != tc.source {
				t.Errorf("author %q source %q, want %q and %q", art.Author, art.Source, tc.author, tc.source)
			}
		})
	}
}
