package crawler

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage/memory"
)

func TestFetchPage(t *testing.T) {
	other := newTestServer(t, map[string]http.HandlerFunc{"/*": article("elsewhere")})
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	var mu sync.Mutex
	agents := map[string]bool{}
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
		"/r/ok":       redirect(302, "/art/1"),
		"/r/away":     redirect(302, otherURL+"/art/9"),
		"/r/private":  redirect(302, "/private/art/2"),
		"/m/ok":       refreshPage("0; url=/art/3"),
		"/m/away":     refreshPage("0; url=" + otherURL + "/art/9"),
		"/private/*":  article("secret"),
		"/art/*": func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			agents[r.UserAgent()] = true
			mu.Unlock()
			article("a")(w, r)
		},
	})
	cfg := testConfig(t, ts.URL)
	cfg.Sites = nil // no site: the URL's host is the scope
	for _, tc := range []struct {
		name, uri string
		final     string // path of the page returned
		kind      string // FetchError kind
		robots    bool   // ErrRobotsDisallowed
	}{
		{"plain", "/art/0", "/art/0", "", false},
		{"redirect on the host", "/r/ok", "/art/1", "", false},
		{"redirect off the host", "/r/away", "", KindRedirectDisallowed, false},
		{"redirect into disallowed space", "/r/private", "", KindRedirectDisallowed, false},
		{"meta refresh on the host", "/m/ok", "/art/3", "", false},
		{"meta refresh off the host", "/m/away", "", KindRedirectDisallowed, false},
		{"disallowed", "/private/art/2", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := FetchPage(context.Background(), cfg, memory.New(), ts.URL+tc.uri)
			var fe *FetchError
			switch {
			case tc.robots:
				if !errors.Is(err, ErrRobotsDisallowed) {
					t.Fatalf("err %v, want robots.txt disallows it", err)
				}
			case tc.kind != "":
				if !errors.As(err, &fe) || fe.Kind != tc.kind {
					t.Fatalf("err %v, want kind %s", err, tc.kind)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if resp.URL != ts.URL+tc.final || resp.RequestURL != ts.URL+tc.uri || len(resp.Body) == 0 {
					t.Errorf("response URL %s (requested %s), %d bytes; want %s", resp.URL, resp.RequestURL, len(resp.Body), ts.URL+tc.final)
				}
			}
		})
	}
	if len(other.requests()) != 0 || ts.hit("/private/art/2") != 0 {
		t.Errorf("out-of-policy pages fetched: other host %v, private %d", other.requests(), ts.hit("/private/art/2"))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 1 || !agents[cfg.UserAgent] {
		t.Errorf("user agents sent %v, want the configured %q", agents, cfg.UserAgent)
	}
}

// TestFetchPageUsesSite: a URL covered by a configured site is fetched
// under that site (its scope and charset reach the caller).
func TestFetchPageUsesSite(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/r/1":        redirect(302, "/art/1"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) { c.Sites[0].Charset = "gbk" })
	resp, err := FetchPage(context.Background(), cfg, memory.New(), ts.URL+"/r/1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.URL != ts.URL+"/art/1" || resp.Site.Name != "t" || resp.Site.Charset != "gbk" {
		t.Errorf("URL %s site %s charset %q", resp.URL, resp.Site.Name, resp.Site.Charset)
	}
}
