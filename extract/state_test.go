package extract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func TestUnhideMain(t *testing.T) {
	long := strings.Repeat("这是一段足够长的正文文字，用来检查隐藏的容器。", 12)
	for _, tc := range []struct {
		name, body string
		want       []string // texts that must be rendered
		wantNot    []string // texts that must not
	}{
		{"wechat js_content", `<nav><a href="/">首页</a></nav><div id="js_content" style="visibility: hidden;"><p>` + long + `</p><p style="display:none">诱饵</p></div>`,
			[]string{long}, []string{"诱饵"}},
		{"display none important", `<div class="content" style="display: none !important"><p>` + long + `</p></div><p>页脚</p>`,
			[]string{long}, nil},
		{"decoy inside visible article", `<article><p>` + long + `</p><p style="display:none">诱饵文字不应出现</p></article>`,
			[]string{long}, []string{"诱饵"}},
		{"hidden copy beside visible article", `<article><p>` + long + `</p></article><div style="display:none"><p>隐藏的副本` + long[:len(long)/2] + `</p></div>`,
			[]string{long}, []string{"隐藏的副本"}},
		{"hidden attribute stays hidden", `<div hidden><p>` + long + `</p></div><p>可见</p>`,
			[]string{"可见"}, []string{long}},
		{"short hidden block", `<div style="visibility:hidden"><p>很短的隐藏文字。</p></div>`,
			nil, []string{"很短的隐藏文字"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader("<html><body>" + tc.body + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			unhideMain(doc)
			prune(doc, 0)
			got := strings.Join(renderLines(doc), "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in %q", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("hidden text %q in %q", w, got)
				}
			}
		})
	}
}

func TestStateBody(t *testing.T) {
	body := `<p>第一段正文，讲述事情的经过。</p><p>第二段正文，记者采访了当事人。</p>`
	for _, tc := range []struct {
		name, script     string
		json             bool
		wantLines        int
		title, at, autho string
	}{
		{"qq window.DATA", `window.DATA = {"title":"标题甲","alt_time":"2024-03-11 18:20:05","content":{"cnt_html":"` + strings.ReplaceAll(body, `"`, `\"`) + `","author":"张三"}};`, false, 2, "标题甲", "2024-03-11 18:20:05", "张三"},
		{"initial state with trailing code", `window.__INITIAL_STATE__={"article":{"headline":"标题乙","pubTime":1709778600,"body":"第一行正文，说明来龙去脉。\n第二行正文，交代后续安排。\n第三行。"}};(function(){var s;}())`, false, 3, "标题乙", "1709778600", ""},
		{"json-ld text with entities", `{"@type":"NewsArticle","headline":"Europa&apos;s plumes","articleBody":"The moon Europa&apos;s plumes are water vapor, &quot;NASA&quot; says.\nMore."}`, true, 2, "Europa's plumes", "", ""},
		{"next data", `{"props":{"pageProps":{"post":{"title":"标题丙","author":[{"name":"李四"}],"html":"` + body + `"}}}}`, true, 2, "标题丙", "", "李四"},
		{"nuxt function call needs javascript", `window.__NUXT__=(function(a,b){return {data:[{content:"` + body + `"}]}}(1,2));`, false, 0, "", "", ""},
		{"invalid json", `window.DATA = {"content": "` + body + `", oops};`, false, 0, "", "", ""},
		{"too deep", `window.DATA = ` + strings.Repeat(`{"a":`, maxStateDepth+1) + `"x"` + strings.Repeat("}", maxStateDepth+1) + `;`, false, 0, "", "", ""},
		{"unterminated", `window.DATA = {"content": "` + body, false, 0, "", "", ""},
		{"no body-like field", `window.DATA = {"nav":[{"title":"首页","url":"/"}],"count":3};`, false, 0, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, units := stateBody([]stateScript{{text: tc.script, json: tc.json}})
			if len(st.lines) != tc.wantLines {
				t.Fatalf("lines %q (%d units), want %d lines", st.lines, units, tc.wantLines)
			}
			for _, l := range st.lines {
				if strings.Contains(l, "&quot;") || strings.Contains(l, "<p") {
					t.Errorf("undecoded line %q", l)
				}
			}
			if st.title != tc.title || st.time != tc.at || st.author != tc.autho {
				t.Errorf("title/time/author = %q/%q/%q, want %q/%q/%q", st.title, st.time, st.author, tc.title, tc.at, tc.autho)
			}
		})
	}
}

func TestStateLimitsReported(t *testing.T) {
	for _, tc := range []struct{ name, script, want string }{
		{"too large", `window.DATA = {"content":"` + strings.Repeat("正文。", maxStateBytes/9+1) + `"}`, "over 4194304 bytes"},
		{"too deep", `window.DATA = {"a":` + strings.Repeat(`[`, maxStateDepth) + strings.Repeat(`]`, maxStateDepth) + `}`, "nested deeper than 48"},
		{"invalid is no limit", `window.DATA = {"content": oops}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := stateBody([]stateScript{{text: tc.script}})
			if len(st.lines) != 0 {
				t.Errorf("read %q", st.lines)
			}
			got := strings.Join(st.skipped, "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("skipped %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRelativeDate(t *testing.T) {
	// 2024-05-10 16:30 UTC is 2024-05-11 00:30 in Beijing.
	fetched := time.Date(2024, 5, 10, 16, 30, 0, 0, time.UTC)
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		name, line string
		loc        *time.Location
		want       string // RFC 3339, "" for none
	}{
		{"just now", "刚刚", cst, "2024-05-11T00:30:00+08:00"},
		{"minutes", "来源：新华社 5分钟前", cst, "2024-05-11T00:25:00+08:00"},
		{"hours", "3小时前", cst, "2024-05-10T21:30:00+08:00"},
		{"days", "2天前", cst, "2024-05-09T00:00:00+08:00"},
		{"yesterday with time", "昨天 10:20", cst, "2024-05-10T10:20:00+08:00"},
		{"yesterday in tokyo", "昨天 10:20", tokyo, "2024-05-10T10:20:00+09:00"},
		{"yesterday afternoon", "昨天 下午3:20", cst, "2024-05-10T15:20:00+08:00"},
		{"day before yesterday", "前天 · 都市快报", cst, "2024-05-09T00:00:00+08:00"},
		{"today with time", "今天 07:05", cst, "2024-05-11T07:05:00+08:00"},
		{"yesterday in a headline", "昨天发生了什么", cst, ""},
		{"bare today", "今天", cst, ""},
		{"too many days", "90天前", cst, ""},
		{"invalid time", "昨天 25:61", cst, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			li := lineInfo{page: []string{"标题", tc.line, "正文"}, titleLine: 0, bodyLine: 2}
			got, ok := relativeDate(li, fetched, tc.loc)
			s := ""
			if ok {
				s = got.Format(time.RFC3339)
			}
			if s != tc.want {
				t.Errorf("relativeDate(%q) = %q, want %q", tc.line, s, tc.want)
			}
		})
	}
	if _, ok := relativeDate(lineInfo{page: []string{"标题", "3小时前"}, titleLine: 0, bodyLine: -1}, time.Time{}, cst); ok {
		t.Error("resolved without a fetch time")
	}
}

func TestSiteZone(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	page := `<html><head><title>东京电车恢复运行</title>%s</head><body><nav><a href="/">首页</a></nav><h1>东京电车恢复运行</h1>%s
<div class="content"><p>受台风影响停运的电车今天早上恢复运行，车站秩序良好，乘客有序进站。</p><p>铁路公司表示，部分线路仍有延误，请乘客留意广播。</p></div></body></html>`
	const dateline = "<p>发布时间：2024-05-10 08:00</p>"
	for _, tc := range []struct {
		name, meta, line string
		loc              *time.Location
		want             string
	}{
		{"default zone", "", dateline, nil, "2024-05-10T08:00:00+08:00"},
		{"site zone for a zoneless time", "", dateline, tokyo, "2024-05-10T08:00:00+09:00"},
		{"the page's own zone kept", `<meta property="article:published_time" content="2024-05-10T08:00:00+08:00">`, dateline, tokyo, "2024-05-10T08:00:00+08:00"},
		{"unix time is an instant", `<script>var publishTime = "1715299200";</script>`, "", tokyo, "2024-05-10T08:00:00+08:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(Options{Location: tc.loc})
			if err != nil {
				t.Fatal(err)
			}
			a, err := e.Extract("https://www.example.jp/news/123", []byte(strings.Replace(strings.Replace(page, "%s", tc.meta, 1), "%s", tc.line, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if got := a.PublishedAt.Format(time.RFC3339); got != tc.want {
				t.Errorf("published %s, want %s", got, tc.want)
			}
		})
	}
}

func TestStubMarkers(t *testing.T) {
	for _, tc := range []struct {
		line       string
		long, want bool // long: after a body of maxBareStubUnits or more
	}{
		{"打开新浪新闻 阅读全文", false, true},
		{"打开新浪新闻 阅读全文", true, true},
		{"展开全文", false, true},
		{"展开全文", true, false},
		{"下载客户端 查看完整内容", true, true},
		{"打开APP，阅读全文", false, true},
		{"阅读全文", false, true},
		{"Read the full story in the app", true, true},
		{"他说，要打开新闻客户端看看全文的时候，发现网络中断了，于是只好等待下一次机会再试。", false, false},
		{"查看更多评论", false, false},
		{"阅读全文(736) | 回复(0) | 引用通告", false, false},
		{">> 阅读全文", false, true},
	} {
		t.Run(fmt.Sprintf("%s/long=%v", tc.line, tc.long), func(t *testing.T) {
			if got := isStubMarker(tc.line, !tc.long); got != tc.want {
				t.Errorf("isStubMarker(%q, short=%v) = %v, want %v", tc.line, !tc.long, got, tc.want)
			}
		})
	}
}
