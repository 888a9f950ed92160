package segment

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// TestWordSeqEqualsWords: WordSeq yields exactly Words' list, for short
// texts (one piece), long texts (many pieces, lines longer than a piece)
// and texts with synonyms mapped; stopping early stops.
func TestWordSeqEqualsWords(t *testing.T) {
	s := sharedSegmenter(t)
	recs := benchtext.Robust(t)
	var texts []string
	for _, r := range recs[:min(len(recs), 300)] {
		texts = append(texts, r.Text)
	}
	syn, err := New(Options{SynonymFile: "testdata/cilin_tiny.txt"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		seg  *Segmenter
		text string
	}{
		{"empty", s, ""},
		{"punctuation only", s, "，。！？ …"},
		{"one article", s, texts[0]},
		{"long, lines", s, strings.Join(texts, "\n")},
		{"long, one line", s, strings.Join(texts, "")},
		{"long, no sentence end", s, strings.Repeat("中新网报道称", 3*segmentPiece/18)},
		{"synonyms", syn, strings.Join(texts[:20], "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.seg.Words(tc.text)
			got := slices.Collect(tc.seg.WordSeq(tc.text))
			if !slices.Equal(got, want) {
				t.Fatalf("WordSeq gives %d words, Words %d", len(got), len(want))
			}
			if len(want) > 3 {
				n := 0
				for range tc.seg.WordSeq(tc.text) {
					if n++; n == 3 {
						break
					}
				}
				if n != 3 {
					t.Errorf("stopped after %d words, want 3", n)
				}
			}
		})
	}
}

// TestTermCounterEqualsFeatures: counting a stream gives Features' result
// without positions, for TF and TF-IDF, with and without TopM, and the
// terms do not share memory with the text.
func TestTermCounterEqualsFeatures(t *testing.T) {
	s := sharedSegmenter(t)
	recs := benchtext.Robust(t)
	text := recs[0].Text + "\n" + recs[1].Text
	words := s.Words(text)
	df := mapDF{docs: 10, df: map[string]int{words[0]: 3, words[1]: 9}}
	for _, tc := range []struct {
		name string
		w    Weighting
		topM int
	}{
		{"tf", TF, 0},
		{"tfidf", TFIDF, 0},
		{"tfidf top 10", TFIDF, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewTermCounter(s.IsStop)
			for w := range s.WordSeq(text) {
				c.Add(w)
			}
			got := c.Features(tc.w, df, tc.topM)
			want := Features(words, s.IsStop, tc.w, df, FeatureOptions{TopM: tc.topM, NoPositions: true})
			if !slices.EqualFunc(got, want, func(a, b Feature) bool { return a.Term == b.Term && a.Weight == b.Weight }) {
				t.Fatalf("counter %d features, Features %d", len(got), len(want))
			}
		})
	}
	t.Run("terms copied", func(t *testing.T) {
		src := "记者北京记者"
		c := NewTermCounter(nil)
		c.Add(src[0:6])
		c.Add(src[6:12])
		c.Add(src[12:18])
		for _, f := range c.Features(TF, nil, 0) {
			if sameMemory(f.Term, src) {
				t.Errorf("term %q shares the memory of the text it was cut from", f.Term)
			}
		}
	})
	if got := NewTermCounter(nil).Features(TF, nil, 0); got != nil {
		t.Errorf("empty counter: %v, want nil", got)
	}
}

// sameMemory reports whether sub lies inside s's bytes.
func sameMemory(sub, s string) bool {
	if len(sub) == 0 || len(s) == 0 {
		return false
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(sub))), uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= b && p < b+uintptr(len(s))
}
