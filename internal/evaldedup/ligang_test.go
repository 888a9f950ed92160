package evaldedup

import (
	"testing"

	"github.com/newsdedup/newscrawl/internal/dataset"
)

// Table 2 counts only originals, distinct texts and the variants of the
// chosen edit: a false merge of another edit's variant does not count.
func TestEditSubsetPRF(t *testing.T) {
	docs := []dataset.RobustDoc{
		{Group: "g1", Op: "orig"},
		{Group: "g1", Op: "add", Pct: 5},
		{Group: "g1", Op: "delete", Pct: 5},
		{Group: "g2", Op: "orig"},
		{Group: "g2", Op: "add", Pct: 5},
		{Group: "g2", Op: "add", Pct: 20},
		{Group: "g3", Op: "distinct"},
	}
	// g1+5 % found, g2+5 % missed, g1−5 % and g2+20 % merged with the distinct text.
	clusters := []int{0, 0, 6, 3, 4, 6, 6}
	tests := []struct {
		name     string
		op       string
		pct      int
		tp, pp   int64
		truePair int64
	}{
		{"add 5 %", "add", 5, 1, 1, 2},
		{"delete 5 %", "delete", 5, 0, 1, 1},
		{"add 20 %", "add", 20, 0, 1, 1},
		{"no such edit", "add", 10, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EditSubsetPRF(docs, clusters, tt.op, tt.pct)
			if got.TP != tt.tp || got.PredPairs != tt.pp || got.TruePairs != tt.truePair {
				t.Errorf("got TP %d, predicted %d, true %d; want %d, %d, %d", got.TP, got.PredPairs, got.TruePairs, tt.tp, tt.pp, tt.truePair)
			}
		})
	}
}
