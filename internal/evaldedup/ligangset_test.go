package evaldedup

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func liGangTestTexts(n, sents int, tag string) []string {
	var out []string
	for i := range n {
		var b strings.Builder
		for j := range sents {
			fmt.Fprintf(&b, "%s第%d篇第%d句讲述了一件不同的事情。", tag, i, j)
		}
		out = append(out, b.String())
	}
	return out
}

// TestLiGangSetEdits: every base gives an original and 14 variants; added
// and deleted shares are within one sentence of the target; reordering
// keeps the sentences; the set is the same for the same seed; a copy of an
// earlier base and a text under five sentences are not bases.
func TestLiGangSetEdits(t *testing.T) {
	bases := liGangTestTexts(3, 20, "甲")
	bases = append(bases, bases[0], "只有一句。两句。")
	pool := liGangTestTexts(2, 10, "乙")
	docs, n := LiGangSet(bases, pool, LiGangSeed)
	if n != 3 || len(docs) != 3*(1+2*len(LiGangEditPcts)+len(LiGangReorderPcts)) {
		t.Fatalf("%d bases, %d docs", n, len(docs))
	}
	again, _ := LiGangSet(bases, pool, LiGangSeed)
	if !slices.Equal(docs, again) {
		t.Error("not deterministic")
	}
	orig := map[string]string{}
	for _, d := range docs {
		if d.Op == "orig" {
			orig[d.Group] = d.Text
		}
	}
	for _, d := range docs {
		o := orig[d.Group]
		lo, ld := utf8.RuneCountInString(o), utf8.RuneCountInString(d.Text)
		sentLen := lo / 20
		t.Run(d.ID, func(t *testing.T) {
			switch d.Op {
			case "add":
				if diff := ld - lo - lo*d.Pct/100; diff < -1 || diff > 1 {
					t.Errorf("added %d runes to %d, want %d %%", ld-lo, lo, d.Pct)
				}
			case "delete":
				if diff := lo - ld - lo*d.Pct/100; diff < -sentLen || diff > sentLen {
					t.Errorf("deleted %d runes of %d, want %d %%", lo-ld, lo, d.Pct)
				}
			case "reorder":
				a, b := splitSentences(o), splitSentences(d.Text)
				slices.Sort(a)
				slices.Sort(b)
				if !slices.Equal(a, b) || (d.Pct == 100 && d.Text == o) {
					t.Error("reordering changed the sentences or kept the order")
				}
			}
		})
	}
}
