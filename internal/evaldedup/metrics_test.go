package evaldedup

import (
	"math"
	"testing"
)

func TestPairwise(t *testing.T) {
	for _, tc := range []struct {
		name        string
		pred        []int
		truth       []string
		p, r, f1    float64
		tp, pp, tru int64
	}{
		{"perfect", []int{1, 1, 2}, []string{"a", "a", "b"}, 1, 1, 1, 1, 1, 1},
		{"singletons", []int{1, 2, 3}, []string{"a", "a", "b"}, 1, 0, 0, 0, 0, 1},
		{"all-in-one", []int{1, 1, 1, 1}, []string{"a", "a", "b", "b"}, 2.0 / 6, 1, 0.5, 2, 6, 2},
		{"no-true-pairs", []int{1, 2}, []string{"a", "b"}, 1, 1, 1, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Pairwise(tc.pred, tc.truth)
			if math.Abs(got.Precision-tc.p) > 1e-9 || math.Abs(got.Recall-tc.r) > 1e-9 || math.Abs(got.F1-tc.f1) > 1e-9 ||
				got.TP != tc.tp || got.PredPairs != tc.pp || got.TruePairs != tc.tru {
				t.Errorf("got %+v", got)
			}
		})
	}
}
