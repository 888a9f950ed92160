package discovery

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestScriptLinks(t *testing.T) {
	for _, tc := range []struct {
		name, base, page string
		lim              Limits
		want             []string
	}{
		{"sohu mobile home state", "https://m.sohu.com/", string(readTestdata(t, "sohu_m_home.html")), Limits{}, []string{
			"https://example.invalid/pixel.html",
			"https://www.sohu.com/a/785123456_121135924?scm=1001.0.0.0&spm=smwp.home.fd-news.1.1716170400000abcdefg",
			"https://m.sohu.com/a/785123457_100001",
			"https://www.sohu.com/a/785123458_100002",
			"https://p3.itc.cn/q_70/images03/20240520/focus.jpeg",
			"https://www.sohu.com/a/785123459_100003",
			"https://schema.org",
			"https://m.sohu.com/",
			"https://www.sohu.com/a/785123460_100004",
		}},
		{"next.js state with escapes", "https://news.qq.com/", `<script id="__NEXT_DATA__" type="application/json">{"props":{"list":[{"link":"https:\/\/news.qq.com\/rain\/a\/20240520A01ABC00"},{"link":"https:\u002F\u002Fnews.qq.com\u002Frain\u002Fa\u002F20240520A02DEF00"}]}}</script>`, Limits{}, []string{
			"https://news.qq.com/rain/a/20240520A01ABC00",
			"https://news.qq.com/rain/a/20240520A02DEF00",
		}},
		{"sentence punctuation and brackets", "https://a.example/", `<script>var s = "see https://a.example/x.html."; f(https://a.example/y(1)); g([http://a.example/z]);</script>`, Limits{}, []string{
			"https://a.example/x.html", "https://a.example/y(1)", "http://a.example/z",
		}},
		{"not urls", "https://a.example/", `<script>// comment only
var re = /a\/\/b/; var p = "a//b"; var q = '//nohost/x'; var r = "https://"; var s = "http://-/"</script>`, Limits{}, nil},
		{"external script text ignored", "https://a.example/", `<script src="x.js">var u = "https://a.example/ignored";</script>`, Limits{}, nil},
		{"capped at MaxURLs", "https://a.example/", `<script>["https://a.example/1","https://a.example/2","https://a.example/3"]</script>`, Limits{MaxURLs: 2}, []string{
			"https://a.example/1", "https://a.example/2",
		}},
		{"only the first MaxBytes read", "https://a.example/", `<script>"https://a.example/1"</script>` + strings.Repeat(" ", 100) + `<script>"https://a.example/2"</script>`, Limits{MaxBytes: 80}, []string{
			"https://a.example/1",
		}},
		{"no scripts", "https://a.example/", `<html><body><a href="https://a.example/1">x</a></body></html>`, Limits{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ScriptLinks([]byte(tc.page), mustURL(t, tc.base), tc.lim)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestRobotsSitemaps(t *testing.T) {
	qq := string(readTestdata(t, "qq_robots.txt"))
	want := []string{"https://news.qq.com/sitemap/index.xml", "https://news.qq.com/sitemap/index_news.xml"}
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"qq robots", qq, want},
		{"utf-8 bom", "\xEF\xBB\xBF" + "Sitemap: https://a.example/s.xml\n", []string{"https://a.example/s.xml"}},
		{"partial bom EF BB", "\xEF\xBB" + "Sitemap: https://a.example/s.xml\n", []string{"https://a.example/s.xml"}},
		{"partial bom EF", "\xEF" + "sitemap: https://a.example/s.xml", []string{"https://a.example/s.xml"}},
		{"cr line ends and case", "User-agent: *\rSITEMAP :https://a.example/1.xml\r\nSiteMap:\thttps://a.example/2.xml  \r", []string{"https://a.example/1.xml", "https://a.example/2.xml"}},
		{"duplicates and empty values", "Sitemap: https://a.example/1.xml\nSitemap:\nSitemap: https://a.example/1.xml\n", []string{"https://a.example/1.xml"}},
		{"other keys and commented lines", "# Sitemap: https://a.example/no.xml\nSitemaps: https://a.example/no2.xml\nDisallow: /sitemap:x\n", nil},
		{"html answered instead", "<html><body>Not Found</body></html>", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RobotsSitemaps([]byte(tc.in)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		var b strings.Builder
		for i := range maxRobotsSitemaps + 10 {
			b.WriteString("Sitemap: https://a.example/" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "/" + strconv.Itoa(i) + ".xml\n")
		}
		if got := RobotsSitemaps([]byte(b.String())); len(got) != maxRobotsSitemaps {
			t.Errorf("%d sitemaps", len(got))
		}
	})
}
