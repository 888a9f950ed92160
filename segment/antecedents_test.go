package segment

import (
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// TestLearnAntecedents runs the learner on a small synthetic labelled set
// with a whitespace tokenizer, so every count is known.
func TestLearnAntecedents(t *testing.T) {
	pages := []LabelledPage{{
		Name: "p1",
		HTML: `<html><head><title>的 的</title><style>p{} 的</style></head><body>
<div>导航 的 是</div><p>正文 的 的 是 在</p><script>var 的 = 1</script>
<noscript>的</noscript><template>的</template></body></html>`,
		Cleaned: "正文 的 的 是 在 也",
	}, {
		Name:    "p2",
		HTML:    `<p>的 了 和</p><ul><li>了 了</li><li>了</li></ul>`,
		Cleaned: "的 了 和",
	}}
	stop := map[string]bool{"的": true, "是": true, "在": true, "了": true, "和": true, "也": true}
	stats, err := LearnAntecedents(pages, strings.Fields, func(w string) bool { return stop[w] },
		LearnOptions{BasicRatio: 0.6, OptRatio: 0.8, TopN: 4})
	if err != nil {
		t.Fatal(err)
	}
	// t1: 的 3, 了 1, 和 1, 在 1, 是 1, 也 1; t2: 的 4, 了 4, 和 1, 在 1, 是 2, 也 0.
	// Rank by t1, then word (byte order): 的, 也, 了, 和, 在, 是.
	want := []AntecedentStat{
		{Word: "的", T1: 3, T2: 4, Ratio: 0.75, Rank: 1, Basic: true},
		{Word: "也", T1: 1, T2: 0, Ratio: math.Inf(1), Rank: 2}, // not on the page: not selected
		{Word: "了", T1: 1, T2: 4, Ratio: 0.25, Rank: 3},
		{Word: "和", T1: 1, T2: 1, Ratio: 1, Rank: 4, Basic: true, Optimised: true},
		{Word: "在", T1: 1, T2: 1, Ratio: 1, Rank: 5}, // ratio 1 but outside the top 4
		{Word: "是", T1: 1, T2: 2, Ratio: 0.5, Rank: 6},
	}
	if !slices.Equal(stats, want) {
		t.Errorf("got\n%+v\nwant\n%+v", stats, want)
	}

	file := FormatAntecedents([]string{"test"}, stats)
	if want := "# test\n的\t3\t4\t0.7500\tbasic\n和\t1\t1\t1.0000\toptimised\n"; file != want {
		t.Errorf("FormatAntecedents = %q, want %q", file, want)
	}
	parsed := parseAntecedentsFile(file)
	if len(parsed) != 2 || parsed[0].Word != "的" || !parsed[0].Basic || parsed[0].Optimised || !parsed[1].Optimised {
		t.Errorf("parse back: %+v", parsed)
	}

	if _, err := LearnAntecedents(pages, nil, nil, LearnOptions{}); err == nil {
		t.Error("nil tokenizer: no error")
	}
}

// TestLearnAntecedentsSegmented uses the real segmenter and a hard-wrapped
// GBK page.
func TestLearnAntecedentsSegmented(t *testing.T) {
	s := sharedSegmenter(t)
	body := "<html><head><meta charset=\"gb2312\"></head><body><div>首页 新闻 的 专题</div>" +
		"<pre>我们的记者在现场看到了\n灾后的重建工作。</pre></body></html>"
	raw, err := simplifiedchinese.GBK.NewEncoder().String(body)
	if err != nil {
		t.Fatal(err)
	}
	page, err := DecodeHTML([]byte(raw), "")
	if err != nil {
		t.Fatal(err)
	}
	pages := []LabelledPage{{Name: "gbk", HTML: page, Cleaned: "我们的记者在现场看\n\n到了灾后的重建工作。"}}
	stats, err := LearnAntecedents(pages, s.Words, s.IsStop, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for _, st := range stats {
		got[st.Word] = [2]int{st.T1, st.T2}
	}
	for w, want := range map[string][2]int{"的": {2, 3}, "在": {1, 1}, "了": {1, 1}, "我们": {1, 1}} {
		if got[w] != want {
			t.Errorf("%s: t1, t2 = %v, want %v (all: %v)", w, got[w], want, got)
		}
	}
}

func TestVisibleText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`<html><head><title>标题</title></head><body><p>正文</p></body></html>`, "正文"},
		{`<div>甲</div><div>乙</div>`, "甲 乙"},
		{`<p><span>中</span><b>国</b></p>`, "中国"},
		{`<p>a<script>x()</script><style>.a{}</style>b</p>`, "ab"},
		{"<p>研究\n会议</p>", "研究会议"},
		{"<p>hello\nworld</p>", "hello world"},
		{`<p>&lt;新闻&gt; &amp;</p><!-- 注释 -->`, "<新闻> &"},
		{`<unclosed <<p>破损`, "破损"},
	}
	for _, tt := range tests {
		got, err := VisibleText(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(got), " "); got != tt.want {
			t.Errorf("VisibleText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJoinWrappedLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{"研究\n会议", "研究会议"},
		{"研究 \r\n\r\n 会议", "研究会议"},
		{"研究 会议", "研究 会议"}, // no line break: kept
		{"完。\n下一段", "完。下一段"},
		{"中文\nEnglish", "中文\nEnglish"},
		{"a\nb", "a\nb"},
		{"\n中\n", "\n中\n"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := JoinWrappedLines(tt.in); got != tt.want {
			t.Errorf("JoinWrappedLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeHTML(t *testing.T) {
	gbk := func(s string) []byte {
		b, err := simplifiedchinese.GBK.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(b)
	}
	tests := []struct {
		name        string
		in          []byte
		contentType string
		want        string
	}{
		{"utf-8", []byte("<p>新闻</p>"), "", "<p>新闻</p>"},
		{"utf-8 with bom", []byte("\xef\xbb\xbf<p>新闻</p>"), "", "<p>新闻</p>"},
		{"utf-8 mislabelled gb2312", []byte(`<meta charset="gb2312"><p>新闻</p>`), "", `<meta charset="gb2312"><p>新闻</p>`},
		{"gbk declared", gbk(`<meta charset="gbk"><p>新闻</p>`), "", `<meta charset="gbk"><p>新闻</p>`},
		{"gbk undeclared", gbk(`<p>新闻联播</p>`), "", `<p>新闻联播</p>`},
		{"gbk in header", gbk(`<p>新闻</p>`), "text/html; charset=GB2312", `<p>新闻</p>`},
	}
	for _, tt := range tests {
		got, err := DecodeHTML(tt.in, tt.contentType)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestEmbeddedAntecedents checks the shipped list.
func TestEmbeddedAntecedents(t *testing.T) {
	if !strings.Contains(antecedentsFile, "learn-antecedents --data") {
		t.Error("antecedents.txt header does not say how it was made")
	}
	rows := parseAntecedentsFile(antecedentsFile)
	opt := 0
	for _, r := range rows {
		if r.Optimised {
			opt++
		}
	}
	if opt == 0 {
		t.Fatal("antecedents.txt has no optimised rows")
	}
	a := Antecedents()
	if !slices.Equal(a[:4], []string{"的", "是", "在", "了"}) {
		t.Errorf("Antecedents() starts %q", a[:4])
	}
	s := sharedSegmenter(t)
	seen := map[string]bool{}
	for _, w := range a {
		if seen[w] || !s.IsStop(w) {
			t.Errorf("antecedent %q duplicated or not a stopword", w)
		}
		seen[w] = true
	}
	if len(a) < opt {
		t.Errorf("%d antecedents, %d optimised rows", len(a), opt)
	}
}

func TestAntecedentsOf(t *testing.T) {
	stats := parseAntecedentsFile(antecedentsFile)
	count := func(r float64) int {
		n := 0
		for _, st := range stats {
			if st.T2 > 0 && st.Ratio > r && !slices.Contains(baseAntecedents, st.Word) {
				n++
			}
		}
		return len(baseAntecedents) + n
	}
	tests := []struct {
		set  AntecedentSet
		want int
	}{
		{AntecedentsBasic, len(baseAntecedents)},
		{AntecedentsOptimised, count(PaperOptRatio)},
		{AntecedentsLearned, len(Antecedents())},
		{"", len(Antecedents())},
	}
	for _, tt := range tests {
		t.Run(string(tt.set), func(t *testing.T) {
			got, err := AntecedentsOf(tt.set)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Errorf("%d antecedents, want %d", len(got), tt.want)
			}
			for _, w := range baseAntecedents {
				if !slices.Contains(got, w) {
					t.Errorf("%s missing", w)
				}
			}
		})
	}
	basic, _ := AntecedentsOf(AntecedentsBasic)
	learned, _ := AntecedentsOf(AntecedentsLearned)
	opt, _ := AntecedentsOf(AntecedentsOptimised)
	if !(len(basic) < len(opt) && len(opt) < len(learned)) {
		t.Errorf("sizes basic %d, learned %d, optimised %d: want basic < optimised < learned", len(basic), len(learned), len(opt))
	}
	// The basic words pass the paper's basic ratio in the shipped statistics.
	for _, st := range stats {
		if slices.Contains(basic, st.Word) && !(st.T2 > 0 && st.Ratio > PaperBasicRatio) {
			t.Errorf("basic antecedent %s has t1/t2 %.3f", st.Word, st.Ratio)
		}
	}
	if _, err := AntecedentsOf("everything"); err == nil {
		t.Error("unknown set accepted")
	}
}

func TestAntecedentsAbove(t *testing.T) {
	stats := []AntecedentStat{
		{Word: "和", T2: 10, Ratio: 0.95},
		{Word: "我", T2: 10, Ratio: 0.7},
		{Word: "你", T2: 10, Ratio: 0.9}, // not strictly above 0.9
		{Word: "啊", T2: 0, Ratio: math.Inf(1)},
		{Word: "的", T2: 10, Ratio: 0.99}, // already a base antecedent
	}
	tests := []struct {
		name string
		r    float64
		want []string
	}{
		{"paper optimised 0.9", 0.9, []string{"的", "是", "在", "了", "和"}},
		{"paper basic 0.6", 0.6, []string{"的", "是", "在", "了", "和", "我", "你"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := antecedentsAbove(stats, tt.r); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
