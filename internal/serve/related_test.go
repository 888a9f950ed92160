package serve_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/serve"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestArticleRelated: asked for (?related=1), the page of a stored
// follow-up links the stored story whose passages it re-uses, with both
// shares and the passages, and the page of an unrelated story says there
// is none; unasked, the page only links the search.
func TestArticleRelated(t *testing.T) {
	seg, err := segment.New(segment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dedup.New(seg, dedup.Options{PartialReprint: true})
	if err != nil {
		t.Fatal(err)
	}
	stories := map[string]fixture.Story{}
	for _, s := range fixture.Stories() {
		stories[s.ID] = s
	}
	s1, s2, s4 := stories["s1"], stories["s2"], stories["s4"]
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	at := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	add := func(url, title string, paras []string) {
		t.Helper()
		text := strings.Join(paras, "\n")
		fp := eng.Fingerprint(title, text)
		f := storage.Fingerprint{Simhash: fp.Simhash, Signature: []uint64{1}, Length: 1, Prints: fp.PackedPrints(), ContentWords: fp.ContentWords}
		err := s.Commit(ctx, &storage.Commit{Page: storage.Page{URL: url, Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: at},
			Article: &storage.Article{URL: url, Site: "sina", RunID: 1, Title: title, Text: text, FetchedAt: at, ContentHash: url, Fingerprint: f}})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("http://a/story", s1.Title, s1.Paragraphs)
	add("http://a/other", s4.Title, s4.Paragraphs)
	add("http://b/followup", fixture.FollowUpTitle, append(append([]string{}, s1.Paragraphs[:2]...), s2.Paragraphs...))
	h, err := serve.New(s, explain.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name, path string
		want       []string
		absent     []string
	}{
		{"follow-up", "/article/3?related=1", []string{`id="related"`, `<a href="/article/1">` + s1.Title + `</a>`, "of this text", "<mark>"}, []string{s4.Title, `id="related-none"`}},
		{"unrelated story", "/article/2?related=1", []string{`id="related-none"`}, []string{`id="related"`}},
		{"not asked: a link, no scan", "/article/3", []string{`id="find-related"`, `href="/article/3?related=1"`}, []string{`id="related"`, s1.Title}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := srv.Client().Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			if _, err := b.ReadFrom(resp.Body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, b.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(b.String(), w) {
					t.Errorf("unexpected %q", w)
				}
			}
		})
	}
}
