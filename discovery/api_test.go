package discovery

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func urlsOf(links []Link) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.URL
	}
	return out
}

// TestAPIPortals parses the portal fixtures (formats cited in
// testdata/SOURCES.md) with the site descriptions a user writes.
func TestAPIPortals(t *testing.T) {
	cst := time.FixedZone("CST", 8*3600)
	for _, tc := range []struct {
		name, file, base string
		api              API
		want             []string
		wantTimes        []time.Time
		wantTitle        string // title of the first link
		skipped, dups    int
	}{
		{
			name: "sina roll jsonp", file: "sina_roll.jsonp",
			base: "https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page=1",
			api:  API{Items: "result.data", URL: "url", Time: "ctime"},
			want: []string{
				"https://news.sina.com.cn/c/2024-05-20/doc-inavxyz1234567.shtml",
				"https://finance.sina.com.cn/jjxw/2024-05-20/doc-inavxyz1234568.shtml",
				"https://news.sina.com.cn/w/2024-05-20/doc-inavxyz1234569.shtml",
			},
			wantTimes: []time.Time{time.Unix(1716170400, 0), time.Unix(1716169800, 0), time.Unix(1716168600, 0)},
			wantTitle: "中央气象台：南方将迎强降雨",
			skipped:   1, // the advert with an empty url
		},
		{
			name: "netease cm_ jsonp with trailing commas and BOM", file: "netease_cm_yaowen.jsonp",
			base: "https://news.163.com/special/cm_yaowen20200213/?callback=data_callback",
			api:  API{URL: "docurl", Time: "time"},
			want: []string{
				"https://www.163.com/news/article/J2ABCDEF000189FH.html",
				"https://www.163.com/dy/article/J2ABCDEG0534A4SC.html",
			},
			wantTimes: []time.Time{time.Date(2024, 5, 20, 10, 0, 0, 0, cst), time.Date(2024, 5, 20, 9, 41, 27, 0, cst)},
			wantTitle: "多地出台新政支持消费",
			skipped:   1, // the special page without docurl
		},
		{
			name: "qq getPCList by template", file: "qq_getpclist.json",
			base: "https://r.inews.qq.com/web_feed/getPCList",
			api:  API{Items: "data", URLTemplate: "https://news.qq.com/rain/a/{id}", Time: "publish_time"},
			want: []string{
				"https://news.qq.com/rain/a/20240520A01ABC00",
				"https://news.qq.com/rain/a/20240520A02DEF00",
			},
			wantTimes: []time.Time{time.Date(2024, 5, 20, 10, 0, 0, 0, cst), time.Date(2024, 5, 20, 9, 30, 12, 0, cst)},
			wantTitle: "科技公司发布新一代芯片",
			skipped:   1, // the 525 aggregate card without id
		},
		{
			name: "qq getPCList by nested url field", file: "qq_getpclist.json",
			base: "https://r.inews.qq.com/web_feed/getPCList",
			api:  API{Items: "data", URL: "link_info.url"},
			want: []string{
				"https://news.qq.com/rain/a/20240520A01ABC00",
				"https://news.qq.com/rain/a/20240520A02DEF00",
			},
			wantTitle: "科技公司发布新一代芯片",
			skipped:   1,
		},
		{
			name: "sohu blockdata relative urls", file: "sohu_blockdata.json",
			base: "https://odin.sohu.com/odin/api/blockdata",
			api:  API{Items: "data.TPLFeedMul_2_9_feedData.list", URL: "url", Time: "postTime"},
			want: []string{
				"https://odin.sohu.com/a/785123456_121135924?scm=10001.123_13-10001.0.0.0&spm=smpc.channel_114.block3_77_O0F7zf_1_fd.1.1716170400000abcdefg_1524",
				"https://www.sohu.com/a/785123457_100001",
			},
			wantTimes: []time.Time{time.UnixMilli(1716170400000), time.UnixMilli(1716169800000)},
			wantTitle: "外交部回应热点问题",
			skipped:   1, dups: 1,
		},
		{
			name: "sohu blockdata template from numeric fields", file: "sohu_blockdata.json",
			base: "https://odin.sohu.com/odin/api/blockdata",
			api:  API{Items: "data.TPLFeedMul_2_9_feedData.list", URLTemplate: "https://www.sohu.com/a/{id}_{authorId}"},
			want: []string{
				"https://www.sohu.com/a/785123456_121135924",
				"https://www.sohu.com/a/785123457_100001",
			},
			wantTitle: "外交部回应热点问题",
			skipped:   1, dups: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.api.ParseResult(readTestdata(t, tc.file), mustURL(t, tc.base), DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if got := urlsOf(r.Links); !slices.Equal(got, tc.want) {
				t.Errorf("urls\n got %q\nwant %q", got, tc.want)
			}
			for i, w := range tc.wantTimes {
				if i < len(r.Links) && !r.Links[i].Time.Equal(w) {
					t.Errorf("link %d time %v, want %v", i, r.Links[i].Time, w)
				}
			}
			if tc.wantTimes == nil && len(r.Links) > 0 && !r.Links[0].Time.IsZero() {
				t.Errorf("time %v without a time field", r.Links[0].Time)
			}
			if len(r.Links) > 0 && r.Links[0].Title != tc.wantTitle {
				t.Errorf("title %q, want %q", r.Links[0].Title, tc.wantTitle)
			}
			if r.Skipped != tc.skipped || r.Duplicates != tc.dups {
				t.Errorf("skipped %d duplicates %d, want %d %d (first skip: %s)", r.Skipped, r.Duplicates, tc.skipped, tc.dups, r.FirstSkip)
			}
			if r.Items != len(tc.want)+tc.skipped+tc.dups {
				t.Errorf("items %d, want %d", r.Items, len(tc.want)+tc.skipped+tc.dups)
			}
		})
	}
}

// TestAPIBadInput: each bad answer is an error of its kind, never a panic
// and never an empty success.
func TestAPIBadInput(t *testing.T) {
	base := mustURL(t, "https://feed.mix.sina.com.cn/api/roll/get")
	sina := API{Items: "result.data", URL: "url"}
	small := Limits{MaxURLs: 10, MaxBytes: 1 << 20, MaxDepth: 16}
	for _, tc := range []struct {
		name    string
		api     API
		body    string
		lim     Limits
		want    error
		inError string // the message must name this
	}{
		{"html error page", sina, string(readTestdata(t, "captcha.html")), small, ErrNotJSON, "安全验证"},
		{"empty answer", sina, "", small, ErrNotJSON, ""},
		{"plain text", sina, "Service Unavailable", small, ErrNotJSON, "Service Unavailable"},
		{"callback around html", sina, "cb(<html>)", small, ErrNotJSON, "cb(<html>)"},
		{"truncated json", sina, `{"result":{"data":[{"url":"https://a.example/1"`, small, ErrNotJSON, ""},
		{"truncated jsonp", sina, `cb({"result":{"data":[{"url":"x"}`, small, ErrNotJSON, ""},
		{"nesting bomb of arrays", sina, strings.Repeat("[", 100000) + strings.Repeat("]", 100000), small, ErrTooDeep, "16"},
		{"nesting bomb unclosed", sina, "cb(" + strings.Repeat(`{"a":`, 50000), small, ErrTooDeep, ""},
		{"too large", sina, `{"result":{"data":[]}}` + strings.Repeat(" ", 2<<20), small, ErrTooLarge, ""},
		{"items path missing", sina, `{"result":{"status":{"code":1},"msg":"fail"}}`, small, ErrPath, `"result.data"`},
		{"items path through a string", API{Items: "result.data.list", URL: "url"}, `{"result":{"data":"none"}}`, small, ErrPath, `"result.data"`},
		{"items not an array", sina, `{"result":{"data":{"url":"x"}}}`, small, ErrPath, "not an array"},
		{"root object with empty items path", API{URL: "url"}, `{"data":[]}`, small, ErrPath, "keys data"},
		{"index out of range", API{Items: "data.5", URL: "url"}, `{"data":[[]]}`, small, ErrPath, `"5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			links, err := tc.api.Parse([]byte(tc.body), base, tc.lim)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if links != nil {
				t.Errorf("links %v with an error", links)
			}
			if !strings.Contains(err.Error(), tc.inError) {
				t.Errorf("error %q does not name %q", err, tc.inError)
			}
		})
	}
}

func TestAPISkipsAndLimits(t *testing.T) {
	base := mustURL(t, "https://www.example.com/list/")
	for _, tc := range []struct {
		name      string
		api       API
		body      string
		lim       Limits
		want      []string
		skipped   int
		truncated bool
	}{
		{"items without the url field are counted", API{URL: "u"},
			`[{"u":"a.html"},{"x":1},7,null,{"u":["a"]},{"u":"javascript:void(0)"},{"u":"mailto:x@y"},{"u":"  "}]`,
			Limits{}, []string{"https://www.example.com/list/a.html"}, 7, false},
		{"more than MaxURLs keeps the first", API{URL: "u"},
			`[{"u":"/1"},{"u":"/2"},{"u":"/3"}]`,
			Limits{MaxURLs: 2}, []string{"https://www.example.com/1", "https://www.example.com/2"}, 0, true},
		{"numeric index path", API{Items: "data.0.list", URL: "u"},
			`{"data":[{"list":[{"u":"//cdn.example.org/x"}]}]}`,
			Limits{}, []string{"https://cdn.example.org/x"}, 0, false},
		{"template escapes only what a URL cannot hold", API{URLTemplate: "/a/{id}?from={src.name}"},
			`[{"id":"a b/c<>新","src":{"name":"pc"}},{"id":""},{"src":{}}]`,
			Limits{}, []string{"https://www.example.com/a/a%20b/c%3C%3E%E6%96%B0?from=pc"}, 2, false},
		{"template of a whole relative path (sohu)", API{Items: "data.TPLFeedMul_2_9_feedData.list", URLTemplate: "https://www.sohu.com{url}"},
			`{"code":0,"data":{"TPLFeedMul_2_9_feedData":{"list":[{"id":785123456,"url":"/a/785123456_121135924?scm=10001.123_13-10001.0.0.0&spm=smpc.channel_114.block3_77_O0F7zf_1_fd.1.1716170400000abcdefg_1524"}]}}}`,
			Limits{}, []string{"https://www.sohu.com/a/785123456_121135924?scm=10001.123_13-10001.0.0.0&spm=smpc.channel_114.block3_77_O0F7zf_1_fd.1.1716170400000abcdefg_1524"}, 0, false},
		{"empty array", API{Items: "data", URL: "u"}, `{"data":[]}`, Limits{}, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.api.ParseResult([]byte(tc.body), base, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			if got := urlsOf(r.Links); !slices.Equal(got, tc.want) {
				t.Errorf("urls %q, want %q", got, tc.want)
			}
			if r.Skipped != tc.skipped || r.Truncated != tc.truncated {
				t.Errorf("skipped %d truncated %v, want %d %v", r.Skipped, r.Truncated, tc.skipped, tc.truncated)
			}
			if r.Skipped > 0 && r.FirstSkip == "" {
				t.Error("skips without a reason")
			}
		})
	}
}

func TestAPIValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  API
		want string // "" = valid
	}{
		{"url", API{Items: "result.data", URL: "url"}, ""},
		{"template", API{URLTemplate: "https://news.qq.com/rain/a/{id}"}, ""},
		{"neither", API{Items: "data"}, "one of url and url_template"},
		{"both", API{URL: "u", URLTemplate: "/{id}"}, "exclusive"},
		{"unclosed brace", API{URLTemplate: "/{id"}, "unclosed"},
		{"stray brace", API{URLTemplate: "/id}"}, "without {"},
		{"empty field", API{URLTemplate: "/{}"}, "empty field"},
		{"empty segment", API{Items: "result..data", URL: "u"}, "empty segment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.api.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if _, perr := tc.api.Parse([]byte(`[]`), nil, Limits{}); perr == nil {
				t.Error("Parse accepted an invalid description")
			}
		})
	}
}

func TestResolve(t *testing.T) {
	base := mustURL(t, "https://news.qq.com/sitemap/index.xml")
	for _, tc := range []struct{ in, want string }{
		{"/rain/a/1", "https://news.qq.com/rain/a/1"},
		{"//www.sohu.com/a/1", "https://www.sohu.com/a/1"},
		{" https://a.example/x ", "https://a.example/x"},
		{"HTTP://A.example/x", "http://A.example/x"},
		{"//::", ""},
		{"https://:80/x", ""},
		{"ftp://a.example/x", ""},
		{"javascript:void(0)", ""},
		{"", ""},
		{"https://a.example/%zz", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := resolve(tc.in, base)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("resolve(%q) = %q %v, want %q", tc.in, got, ok, tc.want)
			}
		})
	}
}

// Parse returns the article links of one API answer; see ParseResult.
func (a API) Parse(body []byte, base *url.URL, lim Limits) ([]Link, error) {
	r, err := a.ParseResult(body, base, lim)
	return r.Links, err
}
