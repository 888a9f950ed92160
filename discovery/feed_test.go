package discovery

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// gbkToUTF8 reads the GBK fixture as UTF-8 text, to build the mislabelled
// variants from the same feed.
func gbkToUTF8(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := simplifiedchinese.GBK.NewDecoder().Bytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseFeed(t *testing.T) {
	cst := time.FixedZone("CST", 8*3600)
	gbk := readTestdata(t, "people_politics_gbk.xml")
	utf := gbkToUTF8(t, gbk)
	noProlog := bytes.Replace(gbk, []byte(` encoding="gb2312"`), nil, 1)
	people := []Link{
		{URL: "http://politics.people.com.cn/n1/2024/0520/c1024-40239012.html", Time: time.Date(2024, 5, 20, 10, 0, 0, 0, cst), Title: "全国人大常委会举行专题讲座"},
		{URL: "http://www.people.com.cn/n1/2024/0520/c1001-40239013.html", Time: time.Date(2024, 5, 20, 9, 30, 0, 0, cst), Title: "国务院常务会议部署相关工作"},
	}
	peopleBase := "http://www.people.com.cn/rss/politics.xml"
	for _, tc := range []struct {
		name, ct, base string
		body           []byte
		want           []Link
		typ, charset   string
		note           string // substring of the charset note; "" = none
		skipped        int
	}{
		{"gbk rss declared only in the prolog", "text/xml", peopleBase, gbk, people, "rss", "gbk", "", 1},
		{"gbk rss declared in both", "text/xml; charset=GBK", peopleBase, gbk, people, "rss", "gbk", "", 1},
		{"gbk rss declared only by content-type", "application/rss+xml; charset=gb2312", peopleBase, noProlog, people, "rss", "gbk", "", 1},
		{"gbk rss declared nowhere", "", peopleBase, noProlog, people, "rss", "gb18030", "no charset declared", 1},
		{"utf-8 bytes declared gb2312", "text/xml", peopleBase, utf, people, "rss", "utf-8", `declared "gb2312" but the bytes are UTF-8`, 1},
		{"gbk bytes declared utf-8 by content-type", "text/xml; charset=utf-8", peopleBase, noProlog, people, "rss", "gb18030", "bytes are GB18030", 1},
		{"gbk bytes declared iso-8859-1", "text/xml; charset=ISO-8859-1", peopleBase, noProlog, people, "rss", "gb18030", "Chinese in GB18030", 1},
		{"gzipped gbk rss", "", peopleBase, gz(t, gbk), people, "rss", "gbk", "", 1},
		{"atom", "application/atom+xml", "https://tech.example.cn/atom.xml", readTestdata(t, "atom.xml"), []Link{
			{URL: "https://tech.example.cn/2024/05/20/quantum.html", Time: time.Date(2024, 5, 20, 9, 0, 0, 0, cst), Title: "量子计算取得新进展"},
			{URL: "https://tech.example.cn/2024/05/19/satellite.html", Time: time.Date(2024, 5, 19, 20, 0, 0, 0, time.UTC), Title: "卫星发射<成功>"},
		}, "atom", "utf-8", "", 1},
		{"json feed 1.1", "application/feed+json", "https://www.example.cn/feed.json", readTestdata(t, "jsonfeed.json"), []Link{
			{URL: "https://www.example.cn/2024/05/20/a.html", Time: time.Date(2024, 5, 20, 10, 0, 0, 0, cst), Title: "城市更新计划公布"},
			{URL: "https://www.example.cn/2024/05/19/b.html", Time: time.Date(2024, 5, 19, 18, 0, 0, 0, cst), Title: "地铁新线开通"},
		}, "json", "utf-8", "", 1},
		{"utf-16 with bom", "", "https://a.example/", utf16LE("<?xml version=\"1.0\" encoding=\"utf-16\"?><rss version=\"2.0\"><channel><item><title>标题</title><link>https://a.example/1</link></item></channel></rss>"),
			[]Link{{URL: "https://a.example/1", Title: "标题"}}, "rss", "utf-16le", "", 0},
		{"rss 0.91", "", "https://a.example/", []byte(`<rss version="0.91"><channel><title>t</title><item><title>x</title><link>https://a.example/x</link></item></channel></rss>`),
			[]Link{{URL: "https://a.example/x", Title: "x"}}, "rss", "utf-8", "", 0},
		{"rss guid permalink without link", "", "https://a.example/", []byte(`<rss version="2.0"><channel><title>t</title><item><title>g</title><guid isPermaLink="true">https://a.example/g.html</guid></item><item><title>n</title><guid isPermaLink="false">id-17</guid></item></channel></rss>`),
			[]Link{{URL: "https://a.example/g.html", Title: "g"}}, "rss", "utf-8", "", 1},
		{"rss 1.0 rdf", "", "https://a.example/", []byte(`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>t</title></channel><item><title>y</title><link>https://a.example/y</link></item></rdf:RDF>`),
			[]Link{{URL: "https://a.example/y", Title: "y"}}, "rss", "utf-8", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseFeedResult(tc.body, tc.ct, mustURL(t, tc.base), DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(r.Links, tc.want, func(a, b Link) bool { return a.URL == b.URL && a.Title == b.Title && a.Time.Equal(b.Time) }) {
				t.Errorf("links\n got %v\nwant %v", r.Links, tc.want)
			}
			if r.Type != tc.typ || r.Charset != tc.charset || r.Skipped != tc.skipped {
				t.Errorf("type %q charset %q skipped %d, want %q %q %d", r.Type, r.Charset, r.Skipped, tc.typ, tc.charset, tc.skipped)
			}
			if (tc.note == "") != (r.Note == "") || !strings.Contains(r.Note, tc.note) {
				t.Errorf("note %q, want %q", r.Note, tc.note)
			}
		})
	}
}

func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		if r > 0xFFFF {
			panic("test text outside the BMP")
		}
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func TestParseFeedBadInput(t *testing.T) {
	base := mustURL(t, "https://www.example.cn/feed.xml")
	garbage := bytes.Repeat([]byte("\xff\x80\xfe\x20"), 200)
	item := `<item><title>t</title><link>https://www.example.cn/%d</link></item>`
	var many strings.Builder
	many.WriteString(`<rss version="2.0"><channel><title>t</title>`)
	for i := range 5 {
		many.WriteString(strings.Replace(item, "%d", string(rune('a'+i)), 1))
	}
	many.WriteString(`</channel></rss>`)
	for _, tc := range []struct {
		name, ct string
		body     []byte
		lim      Limits
		want     error
	}{
		{"html page", "text/html", readTestdata(t, "captcha.html"), Limits{}, ErrNotFeed},
		{"sitemap", "text/xml", readTestdata(t, "qq_sitemap_index.xml"), Limits{}, ErrNotFeed},
		{"api json", "application/json", readTestdata(t, "qq_getpclist.json"), Limits{}, ErrNotFeed},
		{"plain text", "text/plain", []byte("Service Unavailable"), Limits{}, ErrNotFeed},
		{"empty", "", nil, Limits{}, ErrNotFeed},
		{"bytes in no charset", "text/xml; charset=gbk", append([]byte(`<?xml version="1.0" encoding="gbk"?><rss version="2.0"><channel><title>`), garbage...), Limits{}, ErrCharset},
		{"undeclared bytes in no charset", "", append([]byte(`<rss version="2.0"><channel><title>`), garbage...), Limits{}, ErrCharset},
		{"too large", "", []byte(many.String()), Limits{MaxBytes: 100}, ErrTooLarge},
		{"gzip bomb", "", gz(t, make([]byte, 4<<20)), Limits{MaxBytes: 1 << 20}, ErrTooLarge},
		{"element nesting bomb", "", []byte(`<rss version="2.0"><channel>` + strings.Repeat("<x>", 100000)), Limits{}, ErrTooDeep},
		{"json nesting bomb", "", []byte(`{"version":"https://jsonfeed.org/version/1.1","items":` + strings.Repeat("[", 100000)), Limits{}, ErrTooDeep},
		{"broken xml", "", []byte(`<rss version="2.0"><channel><item><title>t</title><link>https://a.example/1</link></item><item><title>`), Limits{}, ErrNotFeed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			links, err := ParseFeed(tc.body, tc.ct, base, tc.lim)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if links != nil {
				t.Errorf("links %v with an error", links)
			}
		})
	}
	t.Run("more than MaxURLs keeps the first", func(t *testing.T) {
		r, err := ParseFeedResult([]byte(many.String()), "", base, Limits{MaxURLs: 3})
		if err != nil || !r.Truncated || len(r.Links) != 3 || r.Links[2].URL != "https://www.example.cn/c" {
			t.Fatalf("err %v truncated %v links %v", err, r.Truncated, r.Links)
		}
	})
	t.Run("one damaged byte in a utf-8 feed is replaced, not a charset switch", func(t *testing.T) {
		body := gbkToUTF8(t, readTestdata(t, "people_politics_gbk.xml"))
		body = bytes.Replace(body, []byte(`encoding="gb2312"`), []byte(`encoding="utf-8"`), 1)
		i := bytes.Index(body, []byte("专题讲座"))
		body = append(body[:i+1:i+1], body[i+2:]...) // cut a byte out of 专
		r, err := ParseFeedResult(body, "", base, Limits{})
		if err != nil || r.Charset != "utf-8" || !strings.Contains(r.Note, "invalid UTF-8 sequences replaced") || len(r.Links) != 2 {
			t.Fatalf("err %v charset %q note %q links %d", err, r.Charset, r.Note, len(r.Links))
		}
	})
}
