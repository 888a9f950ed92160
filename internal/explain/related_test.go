package explain_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestRelated: explain of a stored follow-up names the story whose
// passages it re-uses (found from the stored winnowing fingerprints, far
// below the near-duplicate thresholds), with both sides' shares, and
// not an unrelated story; an article stored without fingerprints has no
// related articles.
func TestRelated(t *testing.T) {
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
	// The follow-up re-uses two of the story's six paragraphs (about a
	// third, as the reprint web's follow-ups do) and adds a story of its own.
	followup := strings.Join(append(append([]string{}, s1.Paragraphs[:2]...), s2.Paragraphs...), "\n")
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	at := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	add := func(url, title, text string, prints bool) {
		t.Helper()
		fp := eng.Fingerprint(title, text)
		f := storage.Fingerprint{Simhash: fp.Simhash, Signature: []uint64{1}, Length: 1}
		if prints {
			f.Prints, f.ContentWords = fp.PackedPrints(), fp.ContentWords
		}
		c := &storage.Commit{Page: storage.Page{URL: url, Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: at},
			Article: &storage.Article{URL: url, Site: "sina", RunID: 1, Title: title, Text: text, FetchedAt: at,
				ContentHash: fmt.Sprint(len(url), url), Fingerprint: f}}
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	add("http://a/story", s1.Title, strings.Join(s1.Paragraphs, "\n"), true)
	add("http://a/other", s4.Title, strings.Join(s4.Paragraphs, "\n"), true)
	add("http://b/followup", fixture.FollowUpTitle, followup, true)
	add("http://c/old", s1.Title+"（旧）", strings.Join(s1.Paragraphs, "\n"), false)
	for _, tc := range []struct {
		name    string
		url     string
		want    []string // substrings of the printed explanation
		related []string // URLs of the related articles, in order
	}{
		{"follow-up names its story", "http://b/followup", []string{"related:  1 stored article(s)", "http://a/story", "« " + s1.Paragraphs[0]}, []string{"http://a/story"}},
		{"story names its follow-up", "http://a/story", []string{"related:  1 stored article(s)", "http://b/followup"}, []string{"http://b/followup"}},
		{"unrelated story", "http://a/other", []string{"related:  no other stored article shares passages with it"}, nil},
		{"stored without fingerprints", "http://c/old", []string{"related:  no other stored article"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := explain.Explain(ctx, s, tc.url, explain.Default())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range e.Related {
				got = append(got, r.URL)
				if r.Share <= 0 || r.OtherShare <= 0 || r.Passages == 0 {
					t.Errorf("related %s without its evidence: %+v", r.URL, r)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.related) {
				t.Errorf("related %v, want %v", got, tc.related)
			}
			var b strings.Builder
			if err := explain.Write(&b, e); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
		})
	}
}
