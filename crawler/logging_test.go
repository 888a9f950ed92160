package crawler

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
)

// TestVerboseLog: at Info (-v) every skipped or failed URL is one log line
// with its reason; at Debug (-vv) every fetch is too; OnFetch sees every
// attempt.
func TestVerboseLog(t *testing.T) {
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
		"/":           listPage("/art/1", "/art/gone", "/private/x", "/l1"),
		"/l1":         listPage("/l2"),
		"/l2":         listPage("/l3"),
		"/art/1":      article("a"),
		"/art/gone":   text(404, "gone"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].MaxDepth = 1
		c.Sites[0].StartURLs = append(c.Sites[0].StartURLs, ts.URL+"/private/start")
	})
	for _, tc := range []struct {
		name  string
		level slog.Level
		want  []string // "msg reason-or-kind url-suffix"
		not   []string
	}{
		{"info", slog.LevelInfo, []string{"skipped robots /private/start", "skipped link robots /private/x", "skipped link depth /l2", "failed http_404 /art/gone"}, []string{"fetch"}},
		{"debug", slog.LevelDebug, []string{"fetch  /art/1", "fetch  /l1", "failed http_404 /art/gone"}, nil},
		{"warn", slog.LevelWarn, nil, []string{"skipped", "failed", "fetch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			var mu sync.Mutex
			var fetches []string
			log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: tc.level}))
			crawlOnce(t, cfg, Options{Logger: log, OnFetch: func(site, u string, status int, d time.Duration) {
				mu.Lock()
				fetches = append(fetches, strings.TrimPrefix(u, ts.URL))
				mu.Unlock()
			}})
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if l == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				reason, _ := m["reason"].(string)
				if k, ok := m["kind"].(string); ok {
					reason = k
				}
				u, _ := m["url"].(string)
				got = append(got, m["msg"].(string)+" "+reason+" "+strings.TrimPrefix(u, ts.URL))
			}
			joined := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("missing %q in\n%s", w, joined)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(joined, w) {
					t.Errorf("unexpected %q in\n%s", w, joined)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(strings.Join(fetches, " "), "/art/1") || len(fetches) < 4 {
				t.Errorf("OnFetch saw %v", fetches)
			}
		})
	}
}
