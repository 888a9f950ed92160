package config

import (
	"errors"
	"strings"
	"testing"
)

// issueShape is the apis entry as the discovery issue writes it: the key
// url twice (the endpoint, then the item field).
const issueShape = `
sites:
  - name: sina
    start_urls: ["https://news.sina.com.cn/china/"]
    sitemaps: ["https://news.sina.com.cn/sitemap/index.xml"]
    feeds: ["https://news.sina.com.cn/rss/politics.xml"]
    allowed_domains: ["sina.com.cn"]
    article_url: '/doc-i\w+\.shtml$'
    apis:
      - url: "https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page={page}"
        pages: 3
        items: result.data
        url: url
        time: ctime
  - name: qq
    allowed_domains: ["qq.com"]
    article_url: '/rain/a/\w+$'
    apis:
      - url: "https://r.inews.qq.com/web_feed/getPCList"
        pages: 2
        method: POST
        body: '{"base_req":{"from":"pc"},"forward":"2","channel_id":"news_news_top","page":{page}}'
        items: data
        url_template: "https://news.qq.com/rain/a/{id}"
  - name: netease
    allowed_domains: ["163.com"]
    article_url: '/article/\w+\.html$'
    apis:
      - url: docurl
        url: "https://news.163.com/special/cm_yaowen20200213/?callback=data_callback"
        time: time
`

func TestParseSources(t *testing.T) {
	c, err := Parse(strings.NewReader(issueShape))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  API
		want API
		ct   string
	}{
		{"sina get with item url", c.Sites[0].APIs[0], API{URL: "https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page={page}",
			Pages: 3, Method: "GET", Items: "result.data", ItemURL: "url", Time: "ctime"}, ""},
		{"qq post with template", c.Sites[1].APIs[0], API{URL: "https://r.inews.qq.com/web_feed/getPCList", Pages: 2, Method: "POST",
			Body: `{"base_req":{"from":"pc"},"forward":"2","channel_id":"news_news_top","page":{page}}`, Items: "data",
			URLTemplate: "https://news.qq.com/rain/a/{id}"}, DefaultContentType},
		{"netease item url first", c.Sites[2].APIs[0], API{URL: "https://news.163.com/special/cm_yaowen20200213/?callback=data_callback",
			Pages: 1, Method: "GET", ItemURL: "docurl", Time: "time"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got  %+v\nwant %+v", tc.got, tc.want)
			}
			if ct := tc.got.RequestContentType(); ct != tc.ct {
				t.Errorf("content type %q, want %q", ct, tc.ct)
			}
		})
	}
	if s := c.Sites[0]; len(s.Sitemaps) != 1 || len(s.Feeds) != 1 {
		t.Errorf("sitemaps %v feeds %v", s.Sitemaps, s.Feeds)
	}
}

func TestValidateSources(t *testing.T) {
	site := func(body string) string {
		return "sites:\n  - name: s\n    allowed_domains: [\"a.com\"]\n    article_url: 'x'\n" + body
	}
	tests := []struct {
		name string
		file string
		want []string // each a substring of one problem
	}{
		{"no source at all", site(""), []string{"sites[0].start_urls: at least one URL is required (or sitemaps, feeds or apis)"}},
		{"a feed is enough", site("    feeds: [\"https://a.com/rss.xml\"]\n"), nil},
		{"bad sitemap and feed URLs", site("    sitemaps: [\"ftp://a.com/s.xml\"]\n    feeds: [\"/rss.xml\"]\n"),
			[]string{"sites[0].sitemaps[0] (line 5): must be an absolute http(s) URL", "sites[0].feeds[0] (line 6): must be an absolute http(s) URL"}},
		{"pages over the limit", site("    apis:\n      - url: \"https://a.com/l?p={page}\"\n        url: u\n        pages: 51\n"),
			[]string{"sites[0].apis[0].pages (line 8): must be in [1, 50], got 51"}},
		{"pages 0", site("    apis:\n      - url: \"https://a.com/l?p={page}\"\n        url: u\n        pages: 0\n"),
			[]string{"sites[0].apis[0].pages (line 8): must be in [1, 50], got 0"}},
		{"pages without {page}", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        pages: 2\n"),
			[]string{"sites[0].apis[0].pages (line 8): 2 pages need {page} in url or body"}},
		{"{page} in the body is enough", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        pages: 2\n        method: post\n        body: '{\"p\":{page}}'\n"), nil},
		{"method", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        method: PUT\n"),
			[]string{"sites[0].apis[0].method (line 8): must be GET or POST, got \"PUT\""}},
		{"body with GET", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        body: x\n"),
			[]string{"sites[0].apis[0].body (line 8): a body needs method: POST"}},
		{"content type without body", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        content_type: text/plain\n"),
			[]string{"sites[0].apis[0].content_type (line 8): is the type of a body"}},
		{"both item url and template", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        url_template: \"https://a.com/a/{id}\"\n"),
			[]string{"sites[0].apis[0].url_template (line 8): give either"}},
		{"neither item url nor template", site("    apis:\n      - url: \"https://a.com/l\"\n"),
			[]string{"sites[0].apis[0] (line 6): the item's article URL needs url"}},
		{"no endpoint", site("    apis:\n      - url: u\n"),
			[]string{"sites[0].apis[0].url: the endpoint is required"}},
		{"endpoint not http", site("    apis:\n      - url: \"ftp://a.com/l\"\n        url: u\n"),
			[]string{"sites[0].apis[0].url (line 6): the endpoint must be an absolute http(s) URL"}},
		{"item field path", site("    apis:\n      - url: \"https://a.com/l\"\n        url: \"a..b\"\n        items: \".data\"\n"),
			[]string{"sites[0].apis[0].url (line 7): must be a dotted field path", "sites[0].apis[0].items (line 8): must be a dotted field path"}},
		{"template without field", site("    apis:\n      - url: \"https://a.com/l\"\n        url_template: \"https://a.com/a/\"\n"),
			[]string{"sites[0].apis[0].url_template (line 7): must name at least one item field"}},
		{"template with a path field after the host", site("    apis:\n      - url: \"https://a.com/l\"\n        url_template: \"http://127.0.0.1:8080{url}\"\n"), nil},
		{"template with the host as a field", site("    apis:\n      - url: \"https://a.com/l\"\n        url_template: \"https://{host}/a/{id}\"\n"), nil},
		{"relative template", site("    apis:\n      - url: \"https://a.com/l\"\n        url_template: \"/a/{id}\"\n"), nil},
		{"template not http", site("    apis:\n      - url: \"https://a.com/l\"\n        url_template: \"mailto:{id}\"\n"),
			[]string{"sites[0].apis[0].url_template (line 7): must give an http(s) URL"}},
		{"url three times", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        url: v\n"),
			[]string{"sites[0].apis[0].url (line 8): url given 3 times"}},
		{"unknown key", site("    apis:\n      - url: \"https://a.com/l\"\n        url: u\n        item: data\n"),
			[]string{"sites[0].apis[0].item (line 8): unknown key (did you mean items?)"}},
		{"unknown site key", site("    feed: [\"https://a.com/rss\"]\n"),
			[]string{"sites[0].feed (line 5): unknown key (did you mean feeds?)", "sites[0].start_urls: at least one URL is required"}},
		{"apis not a list", site("    apis: \"https://a.com/l\"\n"),
			[]string{"sites[0].apis (line 5): must be a list", "sites[0].start_urls: at least one URL is required"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.file))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a ValidationError, got %v", err)
			}
			for _, w := range tc.want {
				found := false
				for _, p := range ve.Problems {
					found = found || strings.Contains(p.String(), w)
				}
				if !found {
					t.Errorf("no problem %q in\n%v", w, err)
				}
			}
			if len(ve.Problems) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%v", len(ve.Problems), len(tc.want), err)
			}
		})
	}
}
