package storagetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
)

// TitleSearcher is a store with a title index (serve's /search).
type TitleSearcher interface {
	storage.Store
	SearchTitles(ctx context.Context, q string, limit int) ([]storage.TitleHit, bool, error)
}

// searchTitles are the titles of the title-search suite: Chinese, mixed
// case in several scripts, and the characters that mean something to the
// index's query syntax (quotes, *, OR, %, _) or to SQL LIKE; titles of one
// and two characters, one that holds a two-character query five times,
// and one with a control character (what an index may put after a title
// to find the title's last characters).
var searchTitles = []string{
	"国务院常务会议部署稳经济一揽子政策",
	"经济日报：稳住经济大盘",
	"Apple iPhone 16 发布会前瞻",
	"APPLE 公布季度财报",
	"雅典 ΑΘΉΝΑ 奥运遗产",
	`他说"改革"不停步`,
	"a*b OR c 检索语法",
	"前五月增长50%_同比",
	"中",
	"今日无关新闻",
	"新闻",
	"AI",
	"苹果发布 iPad",
	"哈哈哈哈哈哈",
	"笑哈哈",
	"控制\x01字符",
}

// TitleSearch checks SearchTitles against storage.TitleMatches over every
// title, in the order of the search (articles by id, then duplicates by
// commit order), for queries the trigram index answers and for shorter
// ones the store must answer by scanning (two-character Chinese words).
// open must return a new, empty store.
func TitleSearch(t *testing.T, open func(t *testing.T) TitleSearcher) {
	ctx := context.Background()
	s := open(t)
	var arts, dups []string // titles in search order
	urls := map[string]string{}
	for i, title := range searchTitles {
		c := stored(fmt.Sprintf("http://s/a/%d", i))
		c.Article.Title = title
		mustCommit(t, s, c)
		arts = append(arts, title)
		urls[c.Page.URL] = title
	}
	for i, title := range searchTitles[:6] {
		c := duplicate(fmt.Sprintf("http://s/d/%d", i), 1)
		c.Duplicate.Title = "转载：" + title
		mustCommit(t, s, c)
		dups = append(dups, c.Duplicate.Title)
		urls[c.Page.URL] = c.Duplicate.Title
	}
	all := append(slices.Clone(arts), dups...)
	tests := []struct {
		name, q string
		limit   int
		atLeast int // the reference must find this many (the test's own check)
	}{
		{"three Chinese characters", "稳经济", 50, 2},
		{"two-character Chinese word", "经济", 50, 4},
		{"one character", "中", 50, 1},
		{"Latin other case", "IPHONE", 50, 2},
		{"short Latin other case", "aP", 50, 4},
		{"Greek other case", "αθήνα", 50, 2},
		{"quotes", `"改革"`, 50, 2},
		{"query syntax taken literally", "a*b OR", 50, 1},
		{"percent and underscore", "50%_", 50, 1},
		{"percent alone", "%", 50, 1},
		{"no match", "不存在的标题", 50, 0},
		{"prefix of duplicates", "转载：", 50, 6},
		{"limit cuts the duplicates", "经济", 5, 4},
		{"limit cuts the articles", "经济", 1, 4},
		{"empty", "", 50, 0},
		{"two characters ending a title", "政策", 50, 1},
		{"one character ending a title", "策", 50, 1},
		{"title of two characters", "新闻", 50, 2},
		{"title of two Latin letters, other case", "ai", 50, 1},
		{"two Latin letters ending a title, other case", "AD", 50, 1},
		{"one Latin letter, other case", "P", 50, 5},
		{"one character beginning many trigrams", "经", 50, 4},
		{"a title holding the query many times", "哈哈", 1, 2},
		{"control character", "\x01", 50, 1},
		{"control character and the next", "\x01字", 50, 1},
		{"character then control character", "策\x01", 50, 0},
		{"one character after the last", "中\x01", 50, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			if tc.q != "" {
				for _, title := range all {
					if storage.TitleMatches(title, tc.q) {
						want = append(want, title)
					}
				}
			}
			if len(want) < tc.atLeast {
				t.Fatalf("reference finds %d titles for %q, the test expects at least %d", len(want), tc.q, tc.atLeast)
			}
			wantMore := len(want) > tc.limit
			if wantMore {
				want = want[:tc.limit]
			}
			hits, more, err := s.SearchTitles(ctx, tc.q, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				if urls[h.URL] != h.Title {
					t.Errorf("hit %s has title %q, stored %q", h.URL, h.Title, urls[h.URL])
				}
				if (h.ID != 0) == (h.DupOf != 0) {
					t.Errorf("hit %s: id %d, dup_of %d: want exactly one", h.URL, h.ID, h.DupOf)
				}
				got = append(got, h.Title)
			}
			if !slices.Equal(got, want) || more != wantMore {
				t.Errorf("SearchTitles(%q, %d) = %q, more %v; want %q, more %v", tc.q, tc.limit, got, more, want, wantMore)
			}
		})
	}
}

// BenchTitleQueries measures SearchTitles on s, a store holding stored
// articles, for the kinds of query serve's search meets: a common
// three-character word, a rare four-character run of a stored title
// (rare), three characters that match nothing, a common and an absent
// two-character word (shorter than a trigram), two Latin letters in
// another case, and a common and an absent character. It reports
// ms/query, the hits of the last query and the store's size.
func BenchTitleQueries(b *testing.B, s TitleSearcher, rare string, stored int) {
	ctx := context.Background()
	for _, q := range []struct{ name, q string }{
		{"3 chars common", "新华社"},
		{"4 chars rare", rare},
		{"3 chars no match", "龘靐齉"},
		{"2 chars common", "经济"},
		{"2 chars no match", "龘靐"},
		{"2 Latin letters other case", "Ab"},
		{"1 char common", "中"},
		{"1 char no match", "龘"},
	} {
		b.Run(q.name, func(b *testing.B) {
			var hits int
			for b.Loop() {
				h, _, err := s.SearchTitles(ctx, q.q, 500)
				if err != nil {
					b.Fatal(err)
				}
				hits = len(h)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/query")
			b.ReportMetric(float64(hits), "hits")
			b.ReportMetric(float64(stored), "articles")
		})
	}
}
