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

// TestRequestBody: the archive keeps the body that was sent, and refuses
// (rather than truncates or drops) one it cannot read again or that is
// over maxArchivedRequestBody.
func TestRequestBody(t *testing.T) {
	body := `{"channel_id":"news_news_top","page":1}`
	req, _ := http.NewRequest(http.MethodPost, "http://x.test/api", strings.NewReader(body))
	if got, err := requestBody(req); err != nil || string(got) != body {
		t.Errorf("requestBody = %q, %v", got, err)
	}
	if got, err := requestBody(req); err != nil || string(got) != body {
		t.Errorf("second read = %q, %v: the body must stay sendable", got, err)
	}
	big, _ := http.NewRequest(http.MethodPost, "http://x.test/api", strings.NewReader(strings.Repeat("x", maxArchivedRequestBody+1)))
	if _, err := requestBody(big); err == nil {
		t.Error("a body over the limit was accepted")
	}
	once, _ := http.NewRequest(http.MethodPost, "http://x.test/api", strings.NewReader(body))
	once.GetBody = nil
	if _, err := requestBody(once); err == nil {
		t.Error("a body that cannot be read again was accepted")
	}
	get, _ := http.NewRequest(http.MethodGet, "http://x.test/", nil)
	if got, err := requestBody(get); err != nil || got != nil {
		t.Errorf("GET: %q, %v", got, err)
	}
}
