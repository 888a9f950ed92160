package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/fixture/fixturetest"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/winnow"
)

// TestPartialReprintsResume: with dedup.partial_reprints on, a crawl that
// stops halfway and resumes from its SQLite store decides every page
// exactly as one uninterrupted crawl: the winnowing fingerprints come
// back from the store, so the story that arrives after its follow-up (in
// the second half) is still kept as a partial reprint, with the same
// partial_of and passages, and its reprint is still a duplicate.
func TestPartialReprintsResume(t *testing.T) {
	title, story, followup := fixturetest.FollowUp()
	note := "\n编者按：本文转载自江城日报，仅供参考，版权归原作者所有。"
	var s2 fixture.Story
	for _, s := range fixture.Stories() {
		if s.ID == "s4" {
			s2 = s
		}
	}
	fu := fixture.FollowUpTitle
	pages := []struct{ url, title, text string }{
		{"http://x/followup", fu, followup},
		{"http://x/followup-reprint", fu, followup + "\n（来源：新华网）"},
		{"http://x/other", s2.Title, strings.Join(s2.Paragraphs, "\n")},
		// the second half
		{"http://x/story", title, story},
		{"http://x/story-reprint", title, story + note},
		{"http://x/story-cut", title, story[strings.Index(story, "\n")+1:]},
	}
	cfg := config.Default()
	cfg.Dedup.PartialReprints = true
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// crawl processes pages[from:to] into the store at path with an
	// engine rebuilt from it, as a (resumed) crawl does.
	crawl := func(path string, from, to int) {
		t.Helper()
		store, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		eng, _, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		pl, err := NewProcessor(&cfg, store, eng, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages[from:to] {
			art := &extract.Article{Title: p.title, Text: p.text}
			page := storage.Page{URL: p.url, Site: "s", RunID: 1, Status: 200}
			if _, err := pl.decideAndCommit(ctx, page, art, eng.Fingerprint(p.title, p.text), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// record is everything a crawl decided, by URL.
	record := func(path string) map[string]string {
		t.Helper()
		store, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		out := map[string]string{}
		if err := store.Articles(ctx, func(a storage.Article) error {
			out[a.URL] = fmt.Sprintf("stored id %d cluster %d partial_of %d own %.4f passages %v prints %d/%d",
				a.ID, a.Cluster, a.PartialOf, a.OwnShare, a.Passages, len(a.Fingerprint.Prints), a.Fingerprint.ContentWords)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := store.Duplicates(ctx, func(d storage.Duplicate) error {
			out[d.URL] = fmt.Sprintf("duplicate of %d cluster %d %s J %.4f prints %d/%d",
				d.DupOf, d.Cluster, d.Reason, d.Jaccard, len(d.Prints), d.ContentWords)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	dir := t.TempDir()
	one, resumed := filepath.Join(dir, "one.db"), filepath.Join(dir, "resumed.db")
	crawl(one, 0, len(pages))
	crawl(resumed, 0, 3)
	crawl(resumed, 3, len(pages))
	want, got := record(one), record(resumed)
	if !reflect.DeepEqual(got, want) {
		for _, p := range pages {
			if got[p.url] != want[p.url] {
				t.Errorf("%s:\n resumed       %s\n uninterrupted %s", p.url, got[p.url], want[p.url])
			}
		}
	}
	// The uninterrupted crawl itself decided as the rule says.
	for url, prefix := range map[string]string{
		"http://x/story":            "stored id 3 cluster 3 partial_of 1 ",
		"http://x/story-reprint":    "duplicate of 3 ",
		"http://x/story-cut":        "duplicate of 3 ",
		"http://x/followup-reprint": "duplicate of 1 ",
	} {
		if !strings.HasPrefix(want[url], prefix) {
			t.Errorf("%s: %s, want %s…", url, want[url], prefix)
		}
	}
	if strings.Contains(want["http://x/story"], "passages []") {
		t.Errorf("partial reprint without its passages: %s", want["http://x/story"])
	}
}

// TestRecordPartial: a partial reprint records the stored article it
// shares passages with; when the page it matched was a duplicate (a
// cluster member, MemberID), partial_of names that cluster's article.
func TestRecordPartial(t *testing.T) {
	ps := []winnow.Passage{{StartA: 1, StartB: 2, Len: 9}}
	tests := []struct {
		name string
		v    dedup.Verdict
		want int64
	}{
		{"an article", dedup.Verdict{Reason: "partial", PartialOf: 7, PartialOfCluster: 3, OwnShare: 0.3, Passages: ps}, 7},
		{"a cluster member", dedup.Verdict{Reason: "partial", PartialOf: MemberID("http://x/dup"), PartialOfCluster: 3, OwnShare: 0.3, Passages: ps}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a storage.Article
			recordPartial(&a, tt.v)
			if a.PartialOf != tt.want || a.OwnShare != 0.3 || !reflect.DeepEqual(a.Passages, []storage.Passage{{Start: 1, OtherStart: 2, Len: 9}}) {
				t.Errorf("got partial_of %d own %g passages %v, want %d", a.PartialOf, a.OwnShare, a.Passages, tt.want)
			}
		})
	}
}
