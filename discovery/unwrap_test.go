package discovery

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestUnwrap(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain object", `{"a":1}`, `{"a":1}`},
		{"plain array with semicolon", " [1,2];\n", `[1,2]`},
		{"jsonp", `data_callback([{"a":1}])`, `[{"a":1}]`},
		{"jsonp with semicolon", `cb({"a":1});`, `{"a":1}`},
		{"jquery callback", `jQuery111306_1716170400000({"a":"b"})`, `{"a":"b"}`},
		{"dotted callback", `window.cb && window.cb({"a":1})`, `window.cb && window.cb({"a":1})`},
		{"sina try catch", `try{feedCardJsonpCallback({"result":{"data":[]}});}catch(e){};`, `{"result":{"data":[]}}`},
		{"try with spaces", "try {\n cb ( {\"a\":1} ) ;\n} catch (e) {}", `{"a":1}`},
		{"comment prefix", `/**/cb({"a":1})`, `{"a":1}`},
		{"comment with text", "/* x */ // y\ncb([1])", `[1]`},
		{"bom", "\xEF\xBB\xBF" + `cb([1])`, `[1]`},
		{"assignment", `var __DATA__ = {"a":[1,]};`, `{"a":[1]}`},
		{"window assignment", `window.__INITIAL_STATE__={"a":1}`, `{"a":1}`},
		{"trailing commas", "[{\"a\":1,},\n{\"b\":[1,2,\n]},\n]", "[{\"a\":1},\n{\"b\":[1,2\n]}\n]"},
		{"commas in strings kept", `{"a":"x,]","b":"y,}",}`, `{"a":"x,]","b":"y,}"}`},
		{"escaped quote in string", `cb({"a":"he said \"),\" ok"})`, `{"a":"he said \"),\" ok"}`},
		{"parens in strings", `cb({"a":")(x"})`, `{"a":")(x"}`},
		{"html unchanged", "<html><body>{x}</body></html>", "<html><body>{x}</body></html>"},
		{"text unchanged", "Service Unavailable", "Service Unavailable"},
		{"call of non-json unchanged", "cb(<b>)", "cb(<b>)"},
		{"unbalanced jsonp", `cb({"a":[1})`, `{"a":[1}`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Unwrap([]byte(tc.in))); got != tc.want {
				t.Errorf("Unwrap(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestUnwrapFixturesAreJSON: every wrapped portal fixture unwraps to valid
// JSON.
func TestUnwrapFixturesAreJSON(t *testing.T) {
	for _, f := range []string{"sina_roll.jsonp", "netease_cm_yaowen.jsonp", "qq_getpclist.json", "sohu_blockdata.json"} {
		t.Run(f, func(t *testing.T) {
			if b := Unwrap(readTestdata(t, f)); !json.Valid(b) {
				t.Errorf("not json after Unwrap: %.200s", b)
			}
		})
	}
}

func TestCheckDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		max  int
		deep bool
	}{
		{"at the limit", "[[[]]]", 3, false},
		{"over the limit", "[[[[]]]]", 3, true},
		{"brackets in strings", `[["[[[[[["]]`, 2, false},
		{"escaped quote", `[["\"[[[[["]]`, 2, false},
		{"objects and arrays", `{"a":{"b":[{"c":1}]}}`, 3, true},
		{"siblings do not add", `[[],[],[],[]]`, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDepth([]byte(tc.in), tc.max)
			if got := errors.Is(err, ErrTooDeep); got != tc.deep {
				t.Errorf("checkDepth(%q, %d) = %v, want deep %v", tc.in, tc.max, err, tc.deep)
			}
		})
	}
}

func TestExpandPage(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		page int
		want string
	}{
		{"https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page={page}", 3, "https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page=3"},
		{`{"channel_id":"news_news_top","page":{page},"p2":{page}}`, 2, `{"channel_id":"news_news_top","page":2,"p2":2}`},
		{"https://news.163.com/special/cm_yaowen20200213/", 5, "https://news.163.com/special/cm_yaowen20200213/"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := ExpandPage(tc.tmpl, tc.page); got != tc.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("验", 200)
	if got := []rune(excerpt([]byte(long))); len(got) != excerptLen+1 {
		t.Errorf("excerpt of 200 runes has %d", len(got))
	}
	if got := excerpt([]byte("a\nb\x00\xff")); got != "a b??" {
		t.Errorf("got %q", got)
	}
}
