package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/newsdedup/newscrawl/config"
)

// TestExtractURLFollowsCrawlerPolicy: `extract URL` fetches as the crawler
// does: configured user agent, robots.txt, redirects and meta refreshes kept
// on the host. Before, it was a plain GET that followed
// any redirect and ignored robots.txt.
func TestExtractURLFollowsCrawlerPolicy(t *testing.T) {
	title, paras := story(t, "s1")
	page := articleHTML(`<meta charset="utf-8">`, title, paras)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	var mu sync.Mutex
	agents := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	serve := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.UserAgent()] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}
	mux.HandleFunc("/a/1.html", serve)
	var privateHits atomic.Int32
	mux.HandleFunc("/private/1.html", func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		serve(w, r)
	})
	mux.HandleFunc("/m/1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><meta http-equiv="refresh" content="0; url=/a/1.html"></head><body></body></html>`)
	})
	mux.HandleFunc("/r/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+"/a/2.html", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, tc := range []struct {
		name, path string
		code       int
		want       string // in stdout (code 0) or stderr
	}{
		{"meta refresh on the host", "/m/1", exitOK, title},
		{"redirect off the host", "/r/away", exitFailure, "redirect_disallowed"},
		{"disallowed by robots.txt", "/private/1.html", exitFailure, "robots.txt disallows it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := run([]string{"extract", srv.URL + tc.path}, &so, &se)
			out := so.String()
			if code != exitOK {
				out = se.String()
			}
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d with %q in:\n%s", code, tc.code, tc.want, out)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 1 || !agents[config.DefaultUserAgent] {
		t.Errorf("user agents %v, want the configured one", agents)
	}
	if privateHits.Load() != 0 {
		t.Error("a page disallowed by robots.txt was fetched")
	}
}
