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
)

// TestDedupStreamMatchesDedup: the streaming offline dedup writes exactly
// the lines the in-memory one computes, final clusters included (the
// input has a bridging article, as in TestPipelineMergesClusters, so
// clusters merge after earlier lines were decided).
func TestDedupStreamMatchesDedup(t *testing.T) {
	var s4 fixture.Story
	for _, s := range fixture.Stories() {
		if s.ID == "s4" {
			s4 = s
		}
	}
	p := s4.Paragraphs
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
	seg, err := NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	newEng := func() *dedup.Engine {
		e, err := dedup.New(seg, dedup.Options{})
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
}

func TestDedupStreamInputError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte("{\"id\":1,\"text\":\"甲乙丙\"}\n{\"text\":\"no id\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seg, err := NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dedup.New(seg, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, _, _, err = DedupStream(context.Background(), eng, StreamJSONL(path), &out, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "in.jsonl:2: missing id") {
		t.Fatalf("error %v, want one naming line 2", err)
	}
	if out.Len() != 0 {
		t.Fatalf("output written despite the error: %q", out.String())
	}
	_, _, _, err = DedupStream(context.Background(), eng, StreamJSONL(filepath.Join(t.TempDir(), "absent.jsonl")), &out, "")
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("absent file: %v", err)
	}
}
