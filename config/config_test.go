package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const good = `
storage: data/x.db
user_agent: "test/1.0 (+https://example.org)"
dedup: {hamming: 3, jaccard: 0.5, window: 30d}
sites:
  - name: sina
    start_urls: ["https://news.sina.com.cn/"]
    allowed_domains: ["news.sina.com.cn"]
    article_url: '/doc-i\w+\.shtml$'
  - name: local
    start_urls: ["http://127.0.0.1:8080/"]
    allowed_domains: ["127.0.0.1:8080"]
    article_url: '/a/'
    delay: 0s
    parallelism: 4
    remove: [".related", "#share"]
`

func TestParseDefaults(t *testing.T) {
	c, err := Parse(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Dedup.Window.D(); got != 30*24*time.Hour {
		t.Errorf("window = %v", got)
	}
	s := c.Sites[0]
	if s.Delay.D() != DefaultDelay || s.Parallelism != DefaultParallelism || s.MaxDepth != DefaultMaxDepth {
		t.Errorf("site defaults not applied: %+v", s)
	}
	if c.Sites[1].Delay.D() != 0 {
		t.Errorf("explicit delay 0 overridden: %v", c.Sites[1].Delay.D())
	}
	if s.ArticleRe == nil || !s.ArticleRe.MatchString("https://news.sina.com.cn/c/2011-11-24/doc-iabc.shtml") {
		t.Error("article_url not compiled")
	}
	if c.Fetch.MaxBody != DefaultMaxBody {
		t.Errorf("max_body = %d", c.Fetch.MaxBody)
	}
}

func TestValidateReportsEveryProblemWithPath(t *testing.T) {
	bad := `
dedup: {hamming: -1, jaccard: 2}
sites:
  - name: a
    start_urls: ["ftp://x"]
    allowed_domains: ["a.com"]
    article_url: '('
    delay: -1s
    parallelism: 0
  - name: a
    start_urls: ["https://b.com/"]
    allowed_domains: ["c.com"]
    article_url: 'x'
    charset: klingon
    remove: ["div[["]
`
	_, err := Parse(strings.NewReader(bad))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want ValidationError, got %v", err)
	}
	want := []string{
		"dedup.hamming:", "dedup.jaccard:", "sites[0].start_urls[0]:", "sites[0].article_url:",
		"sites[0].delay: must be >= 0", "sites[1].name:", "sites[1].start_urls[0]: host", "sites[1].charset:", "sites[1].remove[0]:",
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("missing %q in:\n%s", w, msg)
		}
	}
}

func TestUnknownKeysAreErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"top":   "storge: x\n",
		"site":  "sites:\n  - name: a\n    start_url: [x]\n",
		"dedup": "dedup: {hamming: 3, jacard: 0.5}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(doc))
			if err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("want unknown-key error, got %v", err)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"1s", time.Second, false}, {"30d", 30 * 24 * time.Hour, false}, {"1.5", 1500 * time.Millisecond, false},
		{"", 0, false}, {"abc", 0, true}, {"xd", 0, true},
	} {
		got, err := ParseDuration(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestHostAllowed(t *testing.T) {
	for _, tc := range []struct {
		host    string
		domains []string
		want    bool
	}{
		{"news.sina.com.cn", []string{"sina.com.cn"}, true},
		{"evilsina.com.cn", []string{"sina.com.cn"}, false},
		{"127.0.0.1:8080", []string{"127.0.0.1:8080"}, true},
		{"127.0.0.1:8081", []string{"127.0.0.1:8080"}, false},
		{"127.0.0.1:8081", []string{"127.0.0.1"}, true},
		{"NEWS.QQ.COM", []string{"news.qq.com"}, true},
	} {
		if got := HostAllowed(tc.host, tc.domains); got != tc.want {
			t.Errorf("HostAllowed(%q, %v) = %v", tc.host, tc.domains, got)
		}
	}
}

func TestUnknownNestedSiteKey(t *testing.T) {
	doc := "sites:\n  - name: a\n    extract: {bodi: x}\n"
	if _, err := Parse(strings.NewReader(doc)); err == nil || !strings.Contains(err.Error(), "bodi") {
		t.Fatalf("want unknown-key error for extract.bodi, got %v", err)
	}
}

func TestDedupFeatureOptions(t *testing.T) {
	base := "sites:\n  - name: a\n    start_urls: [\"https://a.example/\"]\n    allowed_domains: [a.example]\n    article_url: x\n"
	if _, err := Parse(strings.NewReader("dedup: {hash: sdbm, weighting: tfidf, top_m: 20, jtidf: true, positional: true, antecedents: optimised}\n" + base)); err != nil {
		t.Fatal(err)
	}
	_, err := Parse(strings.NewReader("dedup: {hash: md5, weighting: bm25, top_m: -1, antecedents: all}\n" + base))
	for _, w := range []string{"dedup.hash:", "dedup.weighting:", "dedup.top_m:", "dedup.antecedents:"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
}
