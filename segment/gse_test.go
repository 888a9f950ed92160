package segment

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/go-ego/gse"

	"github.com/newsdedup/newscrawl/internal/benchtext"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
)

// TestMatchesGse checks that cut reproduces gse's shortest-path segmentation
// (Segmenter.Segment over gse's own "zh_s" dictionary) span for span, on the
// sentences in testdata/sentences.txt and on every real news text of
// bench/dev/robust.jsonl when the shared data is present.
func TestMatchesGse(t *testing.T) {
	if testing.Short() {
		t.Skip("loads gse's full dictionary (about 2 s, 150 MB)")
	}
	var ref gse.Segmenter
	ref.SkipLog = true
	ref.NotLoadHMM = true
	if err := ref.LoadDictEmbed("zh_s"); err != nil {
		t.Fatal(err)
	}
	s := sharedSegmenter(t)
	if got, want := s.DictionaryWords(), ref.Dictionary().NumTokens(); got != want {
		t.Fatalf("dictionary has %d words, gse zh_s %d", got, want)
	}

	texts := readLines(t, filepath.Join("testdata", "sentences.txt"))
	if _, ok := devdatatest.Lookup(t); ok {
		for _, r := range benchtext.Robust(t) {
			texts = append(texts, r.Text)
		}
	} else {
		t.Log("shared data absent: testdata sentences only")
	}
	var b cutBuffers
	tokens, docs := 0, 0
	for _, text := range texts {
		norm, got := s.segmentText(text, &b)
		if norm == "" {
			continue
		}
		want := ref.Segment([]byte(norm))
		docs++
		tokens += len(want)
		if len(got) != 2*len(want) {
			t.Errorf("%.40q: %d tokens, gse %d\n got %v\nwant %v", norm, len(got)/2, len(want), spanStrings(norm, got), gse.ToSlice(want))
			continue
		}
		for i, w := range want {
			if int(got[2*i]) != w.Start() || int(got[2*i+1]) != w.End() {
				t.Errorf("%.40q: token %d is [%d,%d), gse [%d,%d)", norm, i, got[2*i], got[2*i+1], w.Start(), w.End())
				break
			}
		}
	}
	t.Logf("%d texts, %d tokens identical to gse", docs, tokens)
}

func spanStrings(s string, spans []int32) []string {
	out := make([]string, 0, len(spans)/2)
	for i := 0; i < len(spans); i += 2 {
		out = append(out, fmt.Sprintf("%s", s[spans[i]:spans[i+1]]))
	}
	return out
}
