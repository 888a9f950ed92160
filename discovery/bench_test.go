package discovery

import (
	"fmt"
	"strings"
	"testing"
)

// sinaPage is a realistic 50-item Sina roll API answer (num=50), JSONP
// wrapped, with the fields the real one carries.
func sinaPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`try{feedCardJsonpCallback({"result":{"status":{"code":0,"msg":"succ"},"timestamp":"Mon May 20 10:05:12 +0800 2024","top":[],"pdps":[],"data":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"pageid":"153","lid":"2509","docid":"comos:inav%07d","wapurl":"https:\/\/news.sina.cn\/gn\/2024-05-20\/detail-inav%07d.d.html",`+
			`"url":"https:\/\/news.sina.com.cn\/c\/2024-05-20\/doc-inav%07d.shtml","title":"\u65b0\u95fb\u6807\u9898 %d",`+
			`"intro":"\u65b0\u95fb\u6458\u8981\uff0c\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d\u5341\u3002","ctime":"%d","intime":"%d","mtime":"%d",`+
			`"media_name":"\u65b0\u534e\u793e","keywords":"\u5929\u6c14,\u964d\u96e8","img":{"u":"https:\/\/n.sinaimg.cn\/news\/crawl\/116\/w550h366\/20240520\/a%d.jpg","w":550,"h":366}}`,
			i, i, i, i, 1716170400-i*60, 1716170400-i*60, 1716170400-i*60, i)
	}
	b.WriteString(`]}});}catch(e){};`)
	return []byte(b.String())
}

func BenchmarkAPIParseSina50(b *testing.B) {
	body := sinaPage(50)
	base := mustURL(b, "https://feed.mix.sina.com.cn/api/roll/get?pageid=153&lid=2509&num=50&page=1")
	api := API{Items: "result.data", URL: "url", Time: "ctime"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := api.ParseResult(body, base, DefaultLimits())
		if err != nil || len(r.Links) != 50 || r.Skipped != 0 || r.Links[49].Time.Unix() != 1716170400-49*60 {
			b.Fatalf("err %v links %d skipped %d", err, len(r.Links), r.Skipped)
		}
	}
}

func BenchmarkParseSitemap50k(b *testing.B) {
	body := bigSitemap(DefaultMaxURLs)
	base := mustURL(b, "https://news.qq.com/sitemap/sitemap_1.xml")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		sm, err := ParseSitemap(body, base, DefaultLimits())
		if err != nil || len(sm.URLs) != DefaultMaxURLs || sm.Truncated || sm.URLs[DefaultMaxURLs-1].Title != fmt.Sprintf("新闻标题 %d", DefaultMaxURLs-1) {
			b.Fatalf("err %v urls %d truncated %v", err, len(sm.URLs), sm.Truncated)
		}
	}
}

func BenchmarkParseSitemap50kGzip(b *testing.B) {
	body := gz(b, bigSitemap(DefaultMaxURLs))
	base := mustURL(b, "https://news.qq.com/sitemap/sitemap_1.xml.gz")
	b.ReportAllocs()
	for b.Loop() {
		sm, err := ParseSitemap(body, base, DefaultLimits())
		if err != nil || len(sm.URLs) != DefaultMaxURLs {
			b.Fatalf("err %v urls %d", err, len(sm.URLs))
		}
	}
}
