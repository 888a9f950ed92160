package simhash

import (
	"math"
	"testing"
)

// pbdrInput is the fixed input of the known-answer tests: a 10-token
// document with three features.
var pbdrInput = []PosFeature{
	{Term: "北京", Weight: 3, Positions: []int{0, 5, 9}},
	{Term: "新闻", Weight: 2, Positions: []int{2, 7}},
	{Term: "记者", Weight: 1, Positions: []int{4}},
}

func TestPBDRKnownAnswers(t *testing.T) {
	p := NewPBDR(PBDRSeed)
	tests := []struct {
		name string
		mu   float64
		want uint64
	}{
		// μ = 0: the binarised position profile alone; the six occupied
		// slices 0, 12, 19, 32, 44, 57 map to dimensions 2, 12, 25, 39, 61, 62.
		{"position profile only (mu 0)", 0, 0x6000008002001004},
		{"classic simhash (mu 1)", 1, 0x88a0a65ce0257960},
		{"paper's mu 1.5", 1.5, 0x9aadef5df035fd61},
		{"non-finite mu means DefaultMu", math.NaN(), 0x9aadef5df035fd61},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Sum(pbdrInput, 10, nil, tt.mu); got != tt.want {
				t.Errorf("Sum(mu=%v) = %#016x, want %#016x", tt.mu, got, tt.want)
			}
		})
	}
}

// With μ = 1 the position part has weight 0: the fingerprint is Sum's.
func TestPBDRMuOneIsSum(t *testing.T) {
	p := NewPBDR(PBDRSeed)
	sf := make([]Feature, len(pbdrInput))
	for i, f := range pbdrInput {
		sf[i] = Feature{Term: f.Term, Weight: f.Weight}
	}
	for _, h := range []struct {
		name string
		f    HashFunc
	}{{"fnv1a", FNV1a}, {"sdbm", SDBM}, {"xxhash", XXHash}} {
		t.Run(h.name, func(t *testing.T) {
			if got, want := p.Sum(pbdrInput, 10, h.f, 1), Sum(sf, h.f); got != want {
				t.Errorf("PBDR μ=1 %#016x, Sum %#016x", got, want)
			}
		})
	}
}

func TestPBDRDim(t *testing.T) {
	p := NewPBDR(PBDRSeed)
	t.Run("slices map to a permutation of the dimensions", func(t *testing.T) {
		seen := map[int]bool{}
		for pos := range 64 {
			d, ok := p.Dim(pos, 64)
			if !ok || d < 0 || d > 63 || seen[d] {
				t.Fatalf("Dim(%d, 64) = %d, %v (seen before: %v)", pos, d, ok, seen[d])
			}
			seen[d] = true
		}
	})
	t.Run("not the identity (positions are mapped at random)", func(t *testing.T) {
		same := 0
		for pos := range 64 {
			if d, _ := p.Dim(pos, 64); d == pos {
				same++
			}
		}
		if same > 8 {
			t.Errorf("%d of 64 slices map to their own dimension", same)
		}
	})
	t.Run("same seed, same mapping; other seed, other mapping", func(t *testing.T) {
		if *NewPBDR(PBDRSeed) != *p {
			t.Error("same seed gave another mapping")
		}
		if *NewPBDR(PBDRSeed + 1) == *p {
			t.Error("another seed gave the same mapping")
		}
	})
	for _, tt := range []struct {
		name        string
		pos, docLen int
	}{{"negative position", -1, 10}, {"position past the end", 10, 10}, {"empty document", 0, 0}, {"negative length", 0, -5}} {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := p.Dim(tt.pos, tt.docLen); ok {
				t.Errorf("Dim(%d, %d) accepted", tt.pos, tt.docLen)
			}
		})
	}
}

func TestPBDRBadInput(t *testing.T) {
	p := NewPBDR(PBDRSeed)
	tests := []struct {
		name  string
		feats []PosFeature
		len   int
	}{
		{"non-finite weights are ignored", append([]PosFeature{{Term: "x", Weight: math.Inf(1), Positions: []int{1}}, {Term: "y", Weight: math.NaN(), Positions: []int{3}}}, pbdrInput...), 10},
		{"out-of-range positions are ignored", []PosFeature{
			{Term: "北京", Weight: 3, Positions: []int{-4, 0, 5, 9, 10, 1 << 40}},
			{Term: "新闻", Weight: 2, Positions: []int{2, 7}},
			{Term: "记者", Weight: 1, Positions: []int{4}},
		}, 10},
	}
	want := p.Sum(pbdrInput, 10, nil, 1.5)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Sum(tt.feats, tt.len, nil, 1.5); got != want {
				t.Errorf("got %#016x, want %#016x", got, want)
			}
		})
	}
	t.Run("no features", func(t *testing.T) {
		if got := p.Sum(nil, 10, nil, 1.5); got != 0 {
			t.Errorf("got %#016x, want 0", got)
		}
	})
}

// Moving a feature to another part of the document changes the PBDR
// fingerprint (the position part), while classic Sum does not see it.
func TestPBDRSeesPositions(t *testing.T) {
	p := NewPBDR(PBDRSeed)
	moved := []PosFeature{
		{Term: "北京", Weight: 3, Positions: []int{1, 3, 8}},
		{Term: "新闻", Weight: 2, Positions: []int{0, 6}},
		{Term: "记者", Weight: 1, Positions: []int{9}},
	}
	if p.Sum(moved, 10, nil, 0) == p.Sum(pbdrInput, 10, nil, 0) {
		t.Error("moving every feature left the position profile unchanged")
	}
	if p.Sum(moved, 10, nil, 1) != p.Sum(pbdrInput, 10, nil, 1) {
		t.Error("μ=1 depends on positions")
	}
}
