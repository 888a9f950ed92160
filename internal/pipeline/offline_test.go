package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/fixture/fixturetest"
)

// TestDedupStreamMatchesDedup: the streaming offline dedup writes exactly
// the lines the in-memory one computes, final clusters included (the
// input has a bridging article, as in TestPipelineMergesClusters, so
// clusters merge after earlier lines were decided), and with the
// partial-reprint rule on, partial_of, own_share and the passages (carried
// through the verdict spool).
func TestDedupStreamMatchesDedup(t *testing.T) {
	stories := map[string]fixture.Story{}
	for _, s := range fixture.Stories() {
		stories[s.ID] = s
	}
	p := stories["s4"].Paragraphs
	var docs []OfflineDoc
	add := func(title, text string) {
		id, _ := json.Marshal(fmt.Sprintf("d%d", len(docs)))
		docs = append(docs, OfflineDoc{ID: id, Title: title, Text: text})
	}
	for _, s := range fixture.Stories() {
		add(s.Title, strings.Join(s.Paragraphs, "\n"))
	}
	add("a", strings.Join(p[:3], "\n"))
	add("b", strings.Join(p[3:5], "\n"))
	add("bridge", strings.Join(p[1:4], "\n"))
	add("", "")
	merging := docs
	// A follow-up, the story it re-used (a partial reprint when the rule
	// is on) and a copy of the story.
	title, story, followup := fixturetest.FollowUp()
	docs = nil
	add(fixture.FollowUpTitle, followup)
	add(title, story)
	add(title, story[strings.Index(story, "\n")+1:])
	partial := docs
	seg, err := NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts dedup.Options
		docs []OfflineDoc
		want []string // substrings of the streamed output
	}{
		{"merging clusters", dedup.Options{}, merging, []string{`"reason":"jaccard"`}},
		{"merging clusters, partial-reprint rule on", dedup.Options{PartialReprint: true}, merging, []string{`"passages":[[`}},
		{"partial reprints", dedup.Options{PartialReprint: true}, partial, []string{`"reason":"partial"`, `"partial_of":"d0"`, `"own_share":`, `"stored_own_share":`, `"passages":[[`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := tc.docs
			newEng := func() *dedup.Engine {
				e, err := dedup.New(seg, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
			want, _, _, err := Dedup(context.Background(), newEng(), docs)
			if err != nil {
				t.Fatal(err)
			}
			var wantBuf bytes.Buffer
			for _, r := range want {
				b, _ := json.Marshal(r)
				wantBuf.Write(append(b, '\n'))
			}
			path := filepath.Join(t.TempDir(), "in.jsonl")
			var in bytes.Buffer
			for _, d := range docs {
				b, _ := json.Marshal(d)
				in.Write(append(b, '\n'))
			}
			if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			n, kept, dups, err := DedupStream(context.Background(), newEng(), StreamJSONL(path), &got, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if n != len(docs) || kept+dups != n || dups == 0 {
				t.Fatalf("n %d kept %d dups %d", n, kept, dups)
			}
			if got.String() != wantBuf.String() {
				t.Fatalf("streamed lines differ:\n got %s\nwant %s", got.String(), wantBuf.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(got.String(), w) {
					t.Errorf("output lacks %s:\n%s", w, got.String())
				}
			}
		})
	}
}

// TestDedupStreamInputError: the streaming reader is internal/dedupinput's
// strict one; an input error stops the run before any line is written.
func TestDedupStreamInputError(t *testing.T) {
	seg, err := NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	first := "{\"id\":1,\"text\":\"甲乙丙\"}\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"missing id", first + "{\"text\":\"no id\"}\n", `in.jsonl:2: missing "id"`},
		{"missing text", first + "{\"id\":2,\"title\":\"t\"}\n", `in.jsonl:2: missing "text"`},
		{"unknown key", first + "{\"id\":2,\"text\":\"a\",\"body\":\"b\"}\n", `in.jsonl:2: unknown key "body"`},
		{"repeated id", first + "\n{\"id\": 1,\"text\":\"a\"}\n", `in.jsonl:3: id 1 repeats line 1`},
		{"bad json", first + "{\"id\":2,\"text\":}\n", `in.jsonl:2: invalid character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in.jsonl")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			eng, err := dedup.New(seg, dedup.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, _, _, err = DedupStream(context.Background(), eng, StreamJSONL(path), &out, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if out.Len() != 0 {
				t.Fatalf("output written despite the error: %q", out.String())
			}
		})
	}
	t.Run("bom and blank lines accepted", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(path, []byte("\xef\xbb\xbf"+first+"\n\r\n{\"id\":2,\"text\":\"丁\"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		eng, err := dedup.New(seg, dedup.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if n, _, _, err := DedupStream(context.Background(), eng, StreamJSONL(path), &out, t.TempDir()); err != nil || n != 2 {
			t.Fatalf("n %d, err %v", n, err)
		}
	})
	t.Run("absent file", func(t *testing.T) {
		eng, err := dedup.New(seg, dedup.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, _, _, err = DedupStream(context.Background(), eng, StreamJSONL(filepath.Join(t.TempDir(), "absent.jsonl")), &out, "")
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("absent file: %v", err)
		}
	})
}

// TestOfflinePartialReprint: offline dedup keeps a story that arrives after
// the longer follow-up that re-used most of it (reason "partial",
// partial_of, the shared passages) and drops a plain copy of the story
// with its passages as evidence.
func TestOfflinePartialReprint(t *testing.T) {
	stories := map[string]fixture.Story{}
	for _, s := range fixture.Stories() {
		stories[s.ID] = s
	}
	title, story, followup := fixturetest.FollowUp()
	docs := []OfflineDoc{
		{ID: json.RawMessage(`"followup"`), Title: fixture.FollowUpTitle, Text: followup},
		{ID: json.RawMessage(`"story"`), Title: title, Text: story},
		{ID: json.RawMessage(`"copy"`), Title: title, Text: story[strings.Index(story, "\n")+1:]},
	}
	seg, err := NewSegmenter(config.Default().Segment)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dedup.New(seg, dedup.Options{PartialReprint: true})
	if err != nil {
		t.Fatal(err)
	}
	res, kept, dups, err := Dedup(context.Background(), eng, docs)
	if err != nil {
		t.Fatal(err)
	}
	if kept != 2 || dups != 1 {
		t.Fatalf("kept %d, duplicates %d; want 2, 1 (%+v)", kept, dups, res)
	}
	tests := []struct {
		name      string
		r         OfflineResult
		kept      bool
		reason    string
		partialOf string
	}{
		{"story after its follow-up kept as partial reprint", res[1], true, "partial", `"followup"`},
		{"copy dropped", res[2], false, "jaccard", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.r.Kept != tt.kept || tt.r.Reason != tt.reason || string(tt.r.PartialOf) != tt.partialOf {
				t.Errorf("got kept %v reason %q partial_of %s", tt.r.Kept, tt.r.Reason, tt.r.PartialOf)
			}
			if len(tt.r.Passages) == 0 {
				t.Error("no shared passages recorded")
			}
			if tt.reason == "partial" && (tt.r.OwnShare == nil || tt.r.StoredOwnShare == nil ||
				min(*tt.r.OwnShare, *tt.r.StoredOwnShare) < dedup.MinMutualOwnShare || max(*tt.r.OwnShare, *tt.r.StoredOwnShare) < dedup.MinOwnShare) {
				t.Errorf("own share %v, stored own share %v", tt.r.OwnShare, tt.r.StoredOwnShare)
			}
		})
	}
}
