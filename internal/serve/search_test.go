package serve_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/internal/serve"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestSearchThroughIndex serves the sample store from SQLite, whose title
// index answers /search, and checks every page against the same search by
// scanning the memory store: same hits, same order, same page.
func TestSearchThroughIndex(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := sample.Fill(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, ok := any(s).(serve.TitleSearcher); !ok {
		t.Fatal("the SQLite store is not a serve.TitleSearcher: /search would scan")
	}
	h, err := serve.New(s, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	indexed := httptest.NewServer(h)
	t.Cleanup(indexed.Close)
	scanned := newServer(t)
	for _, tc := range []struct{ name, q string }{
		{"indexed query", "国务院"},
		{"two-character word", "地铁"},
		{"one character", "北"},
		{"markup", "<script>"},
		{"no match", "不存在的标题"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/search?q=" + url.QueryEscape(tc.q)
			st1, _, want := get(t, scanned, path)
			st2, _, got := get(t, indexed, path)
			if st1 != 200 || st2 != 200 || got != want {
				t.Errorf("%s: indexed (%d):\n%s\nscanned (%d):\n%s", path, st2, got, st1, want)
			}
		})
	}
}
