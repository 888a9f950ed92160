package crawler

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestArchiveExchanges: Options.Archive gets every exchange of a run
// (robots.txt, the list page, the articles, redirect hops) with the body
// as read; an archive error stops the run with that error.
func TestArchiveExchanges(t *testing.T) {
	links := artLinks(3)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nAllow: /\n"),
		"/":           listPage(append(links, "/old")...),
		"/old": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/art/moved", http.StatusMovedPermanently)
		},
		"/art/*": article("a"),
	})
	t.Run("every exchange", func(t *testing.T) {
		var mu sync.Mutex
		var got []Exchange
		opts := Options{Archive: func(e Exchange) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, e)
			return nil
		}}
		crawlOnce(t, testConfig(t, ts.URL), opts)
		var paths []string
		for _, e := range got {
			paths = append(paths, strings.TrimPrefix(e.URL, ts.URL))
			if e.Method != http.MethodGet || e.RequestHeader.Get("User-Agent") == "" || e.Started.IsZero() {
				t.Errorf("%s: method %q, user agent %q, started %v", e.URL, e.Method, e.RequestHeader.Get("User-Agent"), e.Started)
			}
		}
		slices.Sort(paths)
		want := []string{"/", "/art/0", "/art/1", "/art/2", "/art/moved", "/old", "/robots.txt"}
		if !slices.Equal(paths, want) {
			t.Errorf("archived %q, want %q", paths, want)
		}
		for _, e := range got {
			if strings.HasSuffix(e.URL, "/old") && e.Status != http.StatusMovedPermanently {
				t.Errorf("redirect hop archived with status %d", e.Status)
			}
			if strings.HasSuffix(e.URL, "/robots.txt") && string(e.Body) != "User-agent: *\nAllow: /\n" {
				t.Errorf("robots.txt body %q", e.Body)
			}
		}
	})
	t.Run("archive failure stops the run", func(t *testing.T) {
		full := errors.New("no space left on device")
		st := memory.New()
		proc := &recProc{store: st}
		_, err := runCrawl(t, context.Background(), testConfig(t, ts.URL), st, proc,
			Options{Archive: func(Exchange) error { return full }})
		if !errors.Is(err, full) {
			t.Fatalf("Run = %v, want the archive's error", err)
		}
		if proc.count() != 0 {
			t.Errorf("%d articles processed after the archive failed", proc.count())
		}
	})
}
