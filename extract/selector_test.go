package extract_test

import (
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/extract"
)

// TestSelectorMisses: a configured selector that matches nothing on a page
// is named in Article.SelectorMisses (the generic rule was used), one that
// matches is not.
func TestSelectorMisses(t *testing.T) {
	page := []byte(`<html><head><title>页面标题</title></head><body>
<h2 class="t">正文标题</h2><span class="when">2024-05-20 10:00</span>
<div class="c"><p>这是一段足够长的正文，用来测试提取器在选择器没有命中时是否会说明情况，记者在现场进行了采访。</p>
<p>第二段正文也很长，内容是关于某地的新闻报道，记者采访了多位当事人，了解事情的经过和原因。</p></div></body></html>`)
	for _, tc := range []struct {
		name string
		opts extract.Options
		want []string
	}{
		{"none configured", extract.Options{}, nil},
		{"all match", extract.Options{BodySelector: "div.c", TitleSelector: "h2.t", TimeSelector: ".when"}, nil},
		{"body misses", extract.Options{BodySelector: "div.gone"}, []string{"body"}},
		{"all miss", extract.Options{BodySelector: "#x", TitleSelector: "h1.x", TimeSelector: ".x"}, []string{"title", "time", "body"}},
		{"time matches no date", extract.Options{TimeSelector: "h2.t"}, []string{"time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := extract.New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			art, err := ex.Extract("https://example.com/a/1.html", page)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(art.SelectorMisses, tc.want) {
				t.Errorf("SelectorMisses = %q, want %q", art.SelectorMisses, tc.want)
			}
			if art.Text == "" {
				t.Error("no text: the generic rule should still find the body")
			}
		})
	}
}
