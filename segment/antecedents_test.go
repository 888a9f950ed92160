package segment

import (
	"slices"
	"strings"
	"testing"
)

// TestEmbeddedAntecedents checks the shipped list.
func TestEmbeddedAntecedents(t *testing.T) {
	if !strings.Contains(antecedentsFile, "learn-antecedents --data") {
		t.Error("antecedents.txt header does not say how it was made")
	}
	rows := ParseAntecedents(antecedentsFile)
	opt := 0
	for _, r := range rows {
		if r.Optimised {
			opt++
		}
	}
	if opt == 0 {
		t.Fatal("antecedents.txt has no optimised rows")
	}
	a := Antecedents()
	if !slices.Equal(a[:4], []string{"的", "是", "在", "了"}) {
		t.Errorf("Antecedents() starts %q", a[:4])
	}
	s := sharedSegmenter(t)
	seen := map[string]bool{}
	for _, w := range a {
		if seen[w] || !s.IsStop(w) {
			t.Errorf("antecedent %q duplicated or not a stopword", w)
		}
		seen[w] = true
	}
	if len(a) < opt {
		t.Errorf("%d antecedents, %d optimised rows", len(a), opt)
	}
}
