package extract

import (
	"strings"
	"testing"
)

const relatedBody = `<p>第一段正文，讲述了事情的起因和经过，内容足够长，可以构成一篇完整的新闻报道的开头部分。</p>
<p>第二段正文，记者采访了有关部门负责人，对方表示将认真研究群众提出的意见和建议。</p>`

// TestRelatedBlocksRemoved checks related-reading blocks in several
// shapes, with and without telling class names, inside the body.
func TestRelatedBlocksRemoved(t *testing.T) {
	blocks := map[string]string{
		"classless div":  `<div><h3>相关阅读</h3><ul><li><a href="/1">其他新闻标题一则</a> <span>导语：另一篇新闻的第一句话。</span></li><li><a href="/2">其他新闻标题二则</a> <span>另一篇新闻的第二句话。</span></li></ul></div>`,
		"strong heading": `<p><strong>【相关新闻】</strong></p><p><a href="/1">其他新闻标题一则</a></p><p><a href="/2">其他新闻标题二则</a></p>`,
		"class only":     `<div class="related-news"><ul><li><a href="/1">其他新闻标题一则</a></li><li><a href="/2">其他新闻标题二则</a></li></ul></div>`,
		"recommend":      `<div><div>推荐阅读：</div><a href="/1">其他新闻标题一则</a><br><a href="/2">其他新闻标题二则</a></div>`,
	}
	ex, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range blocks {
		page := `<html><head><title>标题_网站</title></head><body><div class="nav"><a href="/">首页</a></div><h1>标题</h1><div id="content">` +
			relatedBody + block + `<p>（责任编辑：张三）</p></div><div class="footer">版权所有</div></body></html>`
		a, err := ex.Extract("", []byte(page))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, bad := range []string{"其他新闻", "另一篇", "相关", "推荐"} {
			if strings.Contains(a.Text, bad) {
				t.Errorf("%s: text keeps %q:\n%s", name, bad, a.Text)
			}
		}
		if !strings.Contains(a.Text, "第二段正文") || !strings.HasSuffix(a.Text, "（责任编辑：张三）") {
			t.Errorf("%s: body lost:\n%s", name, a.Text)
		}
	}
}

func TestLineFilters(t *testing.T) {
	e := &Extractor{}
	in := []string{
		"标题",
		"光明日报记者 王建宏 张文攀",
		"正文第一段，内容。",
		"第1页/共1页 << 上一页 | 下一页 >>",
		"展开全文",
		"正文第二段，内容。我要评论",
		"反侵权公告：",
		"未经许可不得转载。",
		"Advert",
		"广告",
		"Share this on WhatsApp",
		"Share this:",
	}
	got := e.cleanLines(in, &Article{Title: "标题"})
	want := []string{"正文第一段，内容。", "正文第二段，内容。"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
}
