package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// TestExportRelated: with Filter.Related a stored follow-up and the story
// it re-uses name each other (with both shares), an unrelated story names
// none ([]), a duplicate verdict has null; without it every record has
// null.
func TestExportRelated(t *testing.T) {
	seg, err := segment.New(segment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dedup.New(seg, dedup.Options{PartialReprint: true})
	if err != nil {
		t.Fatal(err)
	}
	st := map[string]fixture.Story{}
	for _, s := range fixture.Stories() {
		st[s.ID] = s
	}
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	add := func(url string, paras []string) {
		t.Helper()
		text := strings.Join(paras, "\n")
		fp := eng.Fingerprint("", text)
		err := s.Commit(ctx, &storage.Commit{Page: storage.Page{URL: url, Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: t0},
			Article: &storage.Article{URL: url, Site: "sina", RunID: 1, Title: "标题", Text: text, FetchedAt: t0, ContentHash: url,
				Fingerprint: storage.Fingerprint{Simhash: 1, Signature: []uint64{1}, Length: 1, Prints: fp.PackedPrints(), ContentWords: fp.ContentWords}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("http://a/story", st["s1"].Paragraphs)
	add("http://a/other", st["s4"].Paragraphs)
	add("http://b/followup", append(append([]string{}, st["s1"].Paragraphs[:2]...), st["s2"].Paragraphs...))
	err = s.Commit(ctx, &storage.Commit{Page: storage.Page{URL: "http://d/1", Site: "qq", RunID: 1, Outcome: storage.OutcomeDuplicate, Status: 200, FetchedAt: t0},
		Duplicate: &storage.Duplicate{URL: "http://d/1", Site: "qq", RunID: 1, DupOf: 1, Reason: "jaccard", FetchedAt: t0, Simhash: 1, Signature: []uint64{1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		related bool
		want    map[string]string // url → the related URLs (or null)
	}{
		{"with --related", true, map[string]string{"http://a/story": "[http://b/followup]", "http://b/followup": "[http://a/story]",
			"http://a/other": "[]", "http://d/1": "null"}},
		{"without", false, map[string]string{"http://a/story": "null", "http://b/followup": "null", "http://a/other": "null", "http://d/1": "null"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if _, err := export.JSONL(ctx, s, export.Filter{Related: tc.related}, &b); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				var r struct {
					URL     string                `json:"url"`
					Related *[]export.RelatedLink `json:"related"`
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				got := "null"
				if r.Related != nil {
					var us []string
					for _, l := range *r.Related {
						us = append(us, l.URL)
						if l.Share <= 0 || l.OtherShare <= 0 {
							t.Errorf("%s: link without its shares: %+v", r.URL, l)
						}
					}
					got = fmt.Sprint(us)
					if len(us) == 0 {
						got = "[]"
					}
				}
				if got != tc.want[r.URL] {
					t.Errorf("%s: related %s, want %s", r.URL, got, tc.want[r.URL])
				}
			}
		})
	}
}
