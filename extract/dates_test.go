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

// FuzzDates: the URL, script and year-less date parsers never panic and
// return only valid dates in the plausible range.
func FuzzDates(f *testing.F) {
	f.Add("http://x.example/2012-06-15/a.html", `var publishTime = "2015-10-08 12:00:00";`, "10-08 12:00")
	f.Add("https://money.163.com/15/0612/09/AB.html", `pubDate: escape('2005-03-06 16:17:00')`, "10月08日 12:00:30")
	f.Add("http://[::1", `ptime="`, "99-99 99:99")
	hint := time.Date(2015, 10, 8, 0, 0, 0, 0, cst)
	f.Fuzz(func(t *testing.T, u, script, line string) {
		if d, ok := urlDate(u); ok && (d.Year() < minYear || d.Year() > maxYear) {
			t.Fatalf("urlDate(%q) = %v", u, d)
		}
		if v := scriptDate(script); v != "" && !strings.Contains(script, v) {
			t.Fatalf("scriptDate(%q) = %q, not in the script", script, v)
		}
		for _, m := range rxNoYearDate.FindAllStringSubmatch(line, -1) {
			if d, ok := noYearDate(m, hint); ok && (d.Sub(hint) > halfYear+24*time.Hour || hint.Sub(d) > halfYear+24*time.Hour) {
				t.Fatalf("noYearDate(%q) = %v, more than half a year from %v", line, d, hint)
			}
		}
	})
}
