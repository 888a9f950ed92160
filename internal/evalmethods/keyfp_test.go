package evalmethods

import (
	"testing"
)

func k(b byte) [16]byte { return [16]byte{b} }

func TestCountPairs(t *testing.T) {
	docs := []Doc{{ID: "a1", Label: "a"}, {ID: "a2", Label: "a"}, {ID: "a3", Label: "a"}, {ID: "b1", Label: "b"}, {ID: "c1", Label: "c"}}
	tests := []struct {
		name        string
		keys, exact [][16]byte
		want        PairCount
	}{
		{"all distinct", [][16]byte{k(1), k(2), k(3), k(4), k(5)}, [][16]byte{k(1), k(2), k(3), k(4), k(5)}, PairCount{}},
		{"one story, beyond exact", [][16]byte{k(1), k(1), k(1), k(4), k(5)}, [][16]byte{k(1), k(1), k(3), k(4), k(5)},
			PairCount{True: 3, BeyondExact: 2}},
		{"false pair", [][16]byte{k(1), k(2), k(3), k(9), k(9)}, [][16]byte{k(1), k(2), k(3), k(4), k(5)},
			PairCount{False: 1, FalseByLabels: map[string]int{"b ~ c": 1}}},
		{"zero keys are no fingerprint", [][16]byte{{}, {}, {}, {}, {}}, [][16]byte{k(1), k(2), k(3), k(4), k(5)}, PairCount{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := countPairs(docs, tt.keys, tt.exact)
			if got.True != tt.want.True || got.False != tt.want.False || got.BeyondExact != tt.want.BeyondExact ||
				len(got.FalseByLabels) != len(tt.want.FalseByLabels) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for l, n := range tt.want.FalseByLabels {
				if got.FalseByLabels[l] != n {
					t.Errorf("false pairs %s = %d, want %d", l, got.FalseByLabels[l], n)
				}
			}
		})
	}
	if n := truePairs(docs); n != 3 {
		t.Errorf("truePairs = %d, want 3", n)
	}
}

func TestRecallByOp(t *testing.T) {
	docs := []Doc{
		{Label: "g1", Kind: "orig"}, {Label: "g1", Kind: "add", Pct: 5}, {Label: "g1", Kind: "delete", Pct: 5},
		{Label: "g2", Kind: "orig"}, {Label: "g2", Kind: "add", Pct: 5}, {Label: "g3", Kind: "distinct"},
	}
	keys := [][16]byte{k(1), k(1), k(2), {}, {}, k(1)}
	got := recallByOp(docs, keys)
	want := map[string]float64{"add 5%": 0.5, "delete 5%": 0}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for op, r := range want {
		if got[op] != r {
			t.Errorf("%s: %v, want %v", op, got[op], r)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		name string
		only []string
		want bool
	}{
		{"no filter", nil, true},
		{"part of the name", []string{"spotsigs", "combined"}, true},
		{"no part matches", []string{"minhash"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matches("combined (default)", tt.only); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
