package segment

import (
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// TestWordsPiecesEqualSeparate: the words of a long text (segmented piece
// by piece) are the words of its paragraphs segmented one by one, for real
// news texts joined by line breaks. (Segmenting 3 MB in one
// piece does not give them: float32 path lengths lose the precision that
// decides ties, "计算机专业" became "计算机" "专业" 78,000 words in.)
func TestWordsPiecesEqualSeparate(t *testing.T) {
	recs := benchtext.Robust(t)
	s := sharedSegmenter(t)
	var texts []string
	var want []string
	for _, r := range recs[:min(len(recs), 400)] {
		texts = append(texts, r.Text)
		want = append(want, s.Words(r.Text)...)
	}
	for _, tc := range []struct{ name, sep string }{{"lines", "\n"}, {"blank lines", "\n\n"}} {
		t.Run(tc.name, func(t *testing.T) {
			long := strings.Join(texts, tc.sep)
			if len(long) < 4*segmentPiece {
				t.Fatalf("text of %d bytes is not longer than a few pieces", len(long))
			}
			got := s.Words(long)
			if !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("long text gives %d words, paragraphs %d; first difference at word %d: %q vs %q",
					len(got), len(want), i, got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
			}
		})
	}
}

func TestPieceEnd(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		max, want  int
	}{
		{"short", "abc", 10, 3},
		{"line break", "ab\ncd\nefgh", 8, 6},
		{"sentence end", "ab。cdefgh", 7, 5},
		{"space", "ab cdefgh", 5, 3},
		{"rune boundary", "中文字", 4, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pieceEnd(tc.text, tc.max); got != tc.want {
				t.Errorf("pieceEnd(%q, %d) = %d, want %d", tc.text, tc.max, got, tc.want)
			}
		})
	}
}
