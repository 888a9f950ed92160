package extract

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFurnitureLines(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       bool
	}{
		{"link bar", "关于ZOL | 广告@ZOL | 招纳贤才 | 联系我们 | 网站地图", true},
		{"dot bar", "首页 · 新闻 · 体育 · 财经", true},
		{"copyright and ICP", "版权所有，Copyright © 1999-2012 ZOL，京ICP证010123号", true},
		{"short keyword line", "联系我们", true},
		{"browser note with ICP", "建议使用IE4.0以上版本浏览器浏览本站，京ICP备12345号", true},
		{"prose mentioning a licence", "该公司去年取得了经营许可证，此后业务迅速扩张，员工人数翻了一番，营业额也增长了三倍多。", false},
		{"prose", "昨天晚上笔记本突然开机黑屏，电源灯亮着，风扇也在转。", false},
		{"headline with slash", "中美贸易谈判取得进展/双方同意继续磋商", false},
		{"date line", "2012-06-15 10:20", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isFurnitureLine(tc.line); got != tc.want {
				t.Errorf("isFurnitureLine(%q) = %v, want %v", tc.line, got, tc.want)
			}
		})
	}
}

func TestAgreement(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   string
		lo, hi float64
	}{
		{"same", "今天天气很好", "今天 天气\n很好", 1, 1},
		{"disjoint", "今天天气很好", "版权所有违者必究", 0, 0},
		{"empty", "", "今天", 0, 0},
		{"half", "今天天气很好明天下雨", "今天天气很好", 0.6, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := agreement(tc.a, tc.b); got < tc.lo || got > tc.hi {
				t.Errorf("agreement = %.3f, want in [%.2f, %.2f]", got, tc.lo, tc.hi)
			}
		})
	}
}

// repeatedPage is a page of a site whose chosen block is a short notice
// box that every page of the site shows, next to a short article.
func repeatedPage(i int) []byte {
	return []byte(fmt.Sprintf(`<html><head><title>第%[1]d期简讯</title></head><body>
<div class="notice"><p>本站所有稿件均为原创，转载请注明出处，谢谢合作，欢迎投稿</p><p>投稿邮箱请见页面底部，来稿一经采用，稿酬从优，敬请留意</p><p>编辑部地址在北京市朝阳区，工作日九点到十七点，欢迎来访</p></div>
<div class="x"><p>第%[1]d期：今日本市气温回升，公园里游人很多。</p></div>
</body></html>`, i))
}

// TestRepeatedBlockIsBoilerplate: once the same block has been seen on
// minRepeatPages pages of a site, the extractor no longer returns it as the
// article.
func TestRepeatedBlockIsBoilerplate(t *testing.T) {
	ex, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < minRepeatPages; i++ {
		a, err := ex.Extract(fmt.Sprintf("http://s.example.com/%d.html", i), repeatedPage(i))
		if err != nil || !strings.Contains(a.Text, "转载请注明出处") {
			t.Fatalf("page %d (no history yet): %v %+v", i, err, a)
		}
	}
	a, err := ex.Extract("http://s.example.com/last.html", repeatedPage(99))
	if err == nil && strings.Contains(a.Text, "转载请注明出处") {
		t.Fatalf("repeated block returned as the article: %q", a.Text)
	}
	if err != nil && !errors.Is(err, ErrNoArticle) {
		t.Fatal(err)
	}
	// Another site's pages do not share the history.
	if a, err := ex.Extract("http://other.example.com/1.html", repeatedPage(100)); err != nil || !strings.Contains(a.Text, "转载请注明出处") {
		t.Fatalf("first page of another site: %v %+v", err, a)
	}
	// The same URL extracted again does not count as another page.
	ex2, _ := New(Options{})
	for i := 0; i < 2*minRepeatPages; i++ {
		if _, err := ex2.Extract("http://s.example.com/same.html", repeatedPage(i)); err != nil {
			t.Fatalf("re-extracting one URL: %v", err)
		}
	}
}

func TestLeadingPart(t *testing.T) {
	ours := []string{"Council members said the repairs could not wait any longer.", "The mayor promised a fund."}
	for _, tc := range []struct {
		name  string
		other []string
		want  int // lines returned; -1 for nil
	}{
		{"start of a split article", []string{"The city council voted on Tuesday to close the old harbour bridge for repairs, officials said.", ours[0], ours[1], "Comments (12)"}, 1},
		{"nothing before", []string{ours[0], ours[1], "The city council voted on Tuesday to close the bridge."}, -1},
		{"only a dateline before", []string{"2019-01-02", ours[0], ours[1]}, -1},
		{"stops at the headline", []string{"Some earlier story on the page, with commas, and a long enough sentence here.", "Bridge to close", ours[0], ours[1]}, -1},
		{"stops at a menu", []string{"A teaser of another story, long enough, with commas, to count as prose.", "Home", "World", "The city council voted on Tuesday to close the old harbour bridge for repairs, officials said.", ours[0]}, 1},
		{"our text absent", []string{"Something else entirely, at length, with commas, and more words."}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := leadingPart(tc.other, ours, "Bridge to close")
			n := len(got)
			if got == nil {
				n = -1
			}
			if n != tc.want {
				t.Errorf("leadingPart = %q, want %d lines", got, tc.want)
			}
		})
	}
}

func TestTrailingPart(t *testing.T) {
	ours := []string{"The city council voted on Tuesday to close the old harbour bridge for repairs.", "Council members said the repairs could not wait any longer."}
	rest := "Engineers found cracks in two of the bridge's supports last month, the council said, and traffic will be diverted."
	for _, tc := range []struct {
		name  string
		other []string
		want  int // lines returned; -1 for nil
	}{
		{"end of an article cut by a figure", []string{ours[0], ours[1], "Courtesy of the city", rest, "Comments (12)"}, 2},
		{"nothing after", []string{ours[0], ours[1]}, -1},
		{"stops at a related heading", []string{ours[0], ours[1], "You may also like...", rest}, -1},
		{"stops at a link list", []string{ours[0], ours[1], "Listen: http://example.com/p/615", rest}, -1},
		{"stops at a menu", []string{ours[0], ours[1], "Home", "World", rest}, -1},
		{"stops at a line we hold", []string{ours[0], ours[1], ours[0], rest}, -1},
		{"our text absent", []string{rest}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := trailingPart(tc.other, ours)
			n := len(got)
			if got == nil {
				n = -1
			}
			if n != tc.want {
				t.Errorf("trailingPart = %q, want %d lines", got, tc.want)
			}
		})
	}
}

// agreement is the character-bigram F1 of two texts.
func agreement(a, b string) float64 { return compareTexts(a, b).f1 }
