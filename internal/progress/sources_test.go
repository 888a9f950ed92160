package progress

import (
	"bytes"
	"testing"

	"github.com/newsdedup/newscrawl/crawler"
)

func TestSources(t *testing.T) {
	sum := crawler.Summary{Sites: []crawler.SiteSummary{{SiteStats: crawler.SiteStats{Name: "sina", Sources: []crawler.SourceStats{
		{Kind: crawler.SourceAPI, URL: "https://feed.mix.sina.com.cn/api/roll/get?page={page}", Requests: 3, Found: 150, Matched: 148, Pushed: 20,
			Skipped: map[string]int{crawler.SkipDecided: 128, crawler.SkipOffDomain: 2}},
		{Kind: crawler.SourceScript, Found: 4, Errors: 0},
		{Kind: crawler.SourceFeed, URL: "https://x/rss.xml", Requests: 1, Errors: 1, ErrorKinds: map[string]int{"not_feed": 1}, LastError: "not a feed"},
	}}}}}
	var b bytes.Buffer
	Sources(&b, sum)
	want := "  sina api https://feed.mix.sina.com.cn/api/roll/get?page={page}: 3 requests, 0 not modified, found 150, matched 148, pushed 20, skipped decided 128, off_domain 2\n" +
		"  sina script (inline scripts of list pages): 0 requests, 0 not modified, found 4, matched 0, pushed 0\n" +
		"  sina feed https://x/rss.xml: 1 requests, 0 not modified, found 0, matched 0, pushed 0, errors not_feed 1 (last: not a feed)\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
