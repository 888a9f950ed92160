package crawler

import (
	"context"
	"net/http"
	"testing"

	"github.com/newsdedup/newscrawl/storage/memory"
)

// narrowStore exposes only the methods of the crawler's Store interface,
// so a crawl through it shows the crawler needs nothing else of a store.
type narrowStore struct{ Store }

// TestNarrowStore crawls with a store that has only the frontier, Commit
// and Decided: the crawl completes and the articles are committed.
func TestNarrowStore(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, "not found"),
		"/":           listPage("/art/1", "/art/2"),
		"/art/*":      article("a"),
	})
	mem := memory.New()
	st := narrowStore{mem}
	proc := &recProc{store: mem}
	sum, err := runCrawl(t, context.Background(), testConfig(t, ts.URL), st, proc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Completed || proc.count() != 2 {
		t.Fatalf("completed %v, %d articles processed; want a completed crawl of 2", sum.Completed, proc.count())
	}
	for _, u := range []string{ts.URL + "/art/1", ts.URL + "/art/2"} {
		if o, ok, err := mem.Decided(context.Background(), u); err != nil || !ok {
			t.Errorf("%s: decided %v %v (%v), want stored", u, o, ok, err)
		}
	}
}
