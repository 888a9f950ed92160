package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// pageProc asks, for each article page in asks, for the listed pages
// through FetchPage in order, records the results, and commits the
// article with the pages it got as its parts.
type pageProc struct {
	recProc
	asks map[string][]string // article URL -> page URLs
	mu   sync.Mutex
	res  map[string][]pageResult
}

type pageResult struct {
	url string
	r   *Response
	err error
}

func (p *pageProc) ProcessArticle(ctx context.Context, r *Response) (storage.Outcome, error) {
	var parts []string
	for _, u := range p.asks[r.URL] {
		got, err := r.FetchPage(ctx, u)
		p.mu.Lock()
		p.res[r.URL] = append(p.res[r.URL], pageResult{u, got, err})
		p.mu.Unlock()
		if err == nil {
			parts = append(parts, got.URL)
		}
	}
	if len(parts) == 0 {
		return p.recProc.ProcessArticle(ctx, r)
	}
	c := &storage.Commit{
		Page:    storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Outcome: storage.OutcomeStored, Status: r.Status, FetchedAt: r.FetchedAt},
		Article: &storage.Article{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Title: "t", Text: "x", FetchedAt: r.FetchedAt},
		Parts:   parts,
	}
	if err := p.store.Commit(ctx, c); err != nil && !errors.Is(err, storage.ErrAlreadyDecided) {
		return "", err
	}
	p.recProc.mu.Lock()
	p.recProc.got = append(p.recProc.got, r)
	p.recProc.mu.Unlock()
	return storage.OutcomeStored, nil
}

// TestFetchArticlePages: the pages of an article are fetched under the page
// policy (scope, robots.txt, redirects kept on the site, 2xx HTML), a
// page asked twice, the article's own page or a redirect back into the
// article is a loop (refused before any request), at most MaxArticlePages
// are fetched for one article, and the pages fetched are claimed: the
// frontier, which queued them from the list, neither fetches nor
// processes them again, in this run or the next.
func TestFetchArticlePages(t *testing.T) {
	routes := map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
		"/":           listPage("/art/c5", "/art/a", "/art/b", "/art/a2", "/art/c"),
		"/art/c":      article("c"),
		"/art/a":      article("a"), "/art/a2": article("a page 2"),
		"/art/b":      article("b"),
		"/private/a4": article("a page 4"),
		"/art/a5":     http.NotFound,
		"/art/a6":     redirect(http.StatusFound, "http://elsewhere.example/art/a6"),
		"/art/a7":     redirect(http.StatusFound, "/art/a2"),
		"/img/x.jpg": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write([]byte{0xff, 0xd8, 0xff, 0})
		},
	}
	for i := 1; i <= MaxArticlePages+5; i++ {
		routes[fmt.Sprintf("/art/b%d", i)] = article(fmt.Sprintf("b page %d", i))
	}
	ts := newTestServer(t, routes)
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].Parallelism = 1
		c.Sites[0].ArticleURL = `/art/[a-z0-9]+$`
	})
	u := func(p string) string { return ts.URL + p }
	var bPages []string
	for i := 1; i <= MaxArticlePages+1; i++ {
		bPages = append(bPages, u(fmt.Sprintf("/art/b%d", i)))
	}
	st := memory.New()
	proc := &pageProc{recProc: recProc{store: st}, res: map[string][]pageResult{}, asks: map[string][]string{
		u("/art/a"): {u("/art/a2"), u("/art/a"), u("/art/a2"), "http://elsewhere.example/art/a3", u("/private/a4"),
			u("/art/a5"), u("/art/a6"), u("/art/a7"), u("/img/x.jpg"), "javascript:void(0)"},
		u("/art/b"): bPages,
		u("/art/c"): {u("/art/c5")},
	}}
	sum, err := runCrawl(t, context.Background(), cfg, st, proc, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	kindOf := func(err error) string {
		var fe *FetchError
		if errors.As(err, &fe) {
			return fe.Kind
		}
		return ""
	}
	want := []struct{ kind string }{{""}, {KindPageLoop}, {KindPageLoop}, {KindOutOfScope}, {"robots"}, {"http_404"},
		{KindRedirectDisallowed}, {KindPageLoop}, {KindNotHTML}, {KindBadURL}}
	res := proc.res[u("/art/a")]
	if len(res) != len(want) {
		t.Fatalf("%d results", len(res))
	}
	for i, w := range want {
		t.Run(res[i].url, func(t *testing.T) {
			r := res[i]
			switch {
			case w.kind == "robots":
				if !errors.Is(r.err, ErrRobotsDisallowed) {
					t.Fatalf("error %v, want ErrRobotsDisallowed", r.err)
				}
			case w.kind != "":
				if kindOf(r.err) != w.kind {
					t.Fatalf("error %v, want kind %s", r.err, w.kind)
				}
			case r.err != nil || r.r == nil || r.r.URL != u("/art/a2") || r.r.Status != 200:
				t.Fatalf("got %+v, %v", r.r, r.err)
			}
		})
	}
	bRes := proc.res[u("/art/b")]
	for i, r := range bRes {
		if (i < MaxArticlePages) != (r.err == nil) || (i >= MaxArticlePages && kindOf(r.err) != KindPageLimit) {
			t.Errorf("page %d of b: %v", i+1, r.err)
		}
	}
	if n := ts.hit("/art/b31"); n != 0 {
		t.Errorf("page beyond the limit requested %d times", n)
	}
	if r := proc.res[u("/art/c")]; len(r) != 1 || kindOf(r[0].err) != "http_404" {
		t.Errorf("a page recorded as 404 earlier in the run: %+v", r)
	}
	for path, n := range map[string]int{"/art/a2": 1, "/private/a4": 0, "/art/a7": 1, "/art/c5": 1} {
		if got := ts.hit(path); got != n {
			t.Errorf("%s requested %d times, want %d", path, got, n)
		}
	}
	if _, ok := proc.urls()[u("/art/a2")]; ok {
		t.Error("page 2 of a, claimed, was processed as an article of its own")
	}
	if pg := pageOf(t, st, u("/art/a2")); pg.Outcome != storage.OutcomePart || pg.PartOf != u("/art/a") {
		t.Errorf("page 2 of a recorded as %+v", pg)
	}
	if sum.Total.ArticlePages != MaxArticlePages+1 || sum.Total.ArticlePagesFailed != int64(len(want)-1+1+1) {
		t.Errorf("article pages %d, failed %d", sum.Total.ArticlePages, sum.Total.ArticlePagesFailed)
	}
	// The next run: the list again, nothing else (a2 is a decided part).
	before := len(ts.requests())
	if _, err := runCrawl(t, context.Background(), cfg, st, proc, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for _, r := range ts.requests()[before:] {
		if r != "/" && r != "/robots.txt" {
			t.Errorf("second run requested %s", r)
		}
	}
}

func TestFetchArticlePageWithoutCrawl(t *testing.T) {
	if _, err := (&Response{}).FetchPage(context.Background(), "http://a/1-2.html"); !errors.Is(err, ErrNoPageFetcher) {
		t.Fatalf("err %v, want ErrNoPageFetcher", err)
	}
}
