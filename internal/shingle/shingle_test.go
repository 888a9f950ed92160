package shingle

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestShingles(t *testing.T) {
	tests := []struct {
		name  string
		words string
		w     int
		want  [][]string
	}{
		{"three words w=2", "a b c", 2, [][]string{{"a", "b"}, {"b", "c"}}},
		{"repeated shingles form a set", "a b a b", 2, [][]string{{"a", "b"}, {"b", "a"}}},
		{"shorter than w is one shingle", "a b", 5, [][]string{{"a", "b"}}},
		{"w=1 is the word set", "x y x", 1, [][]string{{"x"}, {"y"}}},
		{"empty text", "", 3, nil},
		{"w=0 is empty", "a b", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []uint64
			for _, sh := range tt.want {
				want = append(want, Shingles(sh, len(sh))...)
			}
			slices.Sort(want)
			got := Shingles(strings.Fields(tt.words), tt.w)
			if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
				t.Errorf("got %x, want %x", got, want)
			}
		})
	}
	if slices.Equal(Shingles([]string{"ab", "c"}, 2), Shingles([]string{"a", "bc"}, 2)) {
		t.Error("word boundaries do not change the shingle hash")
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b []uint64
		want float64
	}{
		{nil, nil, 0},
		{[]uint64{1}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{[]uint64{1, 2, 3}, []uint64{2, 3, 4}, 0.5},
		{[]uint64{1, 2}, []uint64{3, 4}, 0},
		{[]uint64{1, 2, 3, 4}, []uint64{4}, 0.25},
	}
	for _, tt := range tests {
		if got := Jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Jaccard(tt.b, tt.a); got != tt.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestMulAddMod61(t *testing.T) {
	p := new(big.Int).SetUint64(mersenne61)
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []uint64{0, 1, 2, mersenne61 - 1, mersenne61 - 2, 1 << 60}
	for i := 0; i < 20000; i++ {
		var a, x, b uint64
		if i < len(edge)*len(edge) {
			a, x, b = edge[i%len(edge)], edge[i/len(edge)], edge[(i*7)%len(edge)]
		} else {
			a, x, b = rng.Uint64N(mersenne61), rng.Uint64N(mersenne61), rng.Uint64N(mersenne61)
		}
		want := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(x))
		want.Add(want, new(big.Int).SetUint64(b)).Mod(want, p)
		if got := mulAddMod61(a, x, b); got != want.Uint64() {
			t.Fatalf("mulAddMod61(%d, %d, %d) = %d, want %d", a, x, b, got, want.Uint64())
		}
	}
	for _, v := range []uint64{0, mersenne61, mersenne61 + 1, math.MaxUint64} {
		want := new(big.Int).Mod(new(big.Int).SetUint64(v), p).Uint64()
		if got := mod61(v); got != want {
			t.Errorf("mod61(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestNewMinHasherAndLSHValidate(t *testing.T) {
	for _, n := range []int{0, -1, MaxHashes + 1} {
		if _, err := NewMinHasher(n, 1); err == nil {
			t.Errorf("NewMinHasher(%d) accepted", n)
		}
	}
	for _, kl := range [][2]int{{0, 1}, {1, 0}, {-1, 5}, {MaxHashes, 2}, {1 << 40, 1 << 40}} {
		if _, err := NewLSH(kl[0], kl[1]); err == nil {
			t.Errorf("NewLSH(%d, %d) accepted", kl[0], kl[1])
		}
	}
}

// pairWithJaccard returns two sets of distinct random values whose Jaccard
// coefficient is exactly inter/(inter+2*diff).
func pairWithJaccard(rng *rand.Rand, inter, diff int) ([]uint64, []uint64) {
	a := make([]uint64, 0, inter+diff)
	b := make([]uint64, 0, inter+diff)
	for i := 0; i < inter; i++ {
		v := rng.Uint64()
		a, b = append(a, v), append(b, v)
	}
	for i := 0; i < diff; i++ {
		a, b = append(a, rng.Uint64()), append(b, rng.Uint64())
	}
	slices.Sort(a)
	slices.Sort(b)
	return a, b
}

// TestMinHashEstimatesJaccard checks the estimator against exact Jaccard:
// with n = 192 functions its standard deviation is sqrt(J(1-J)/192) ≤ 0.036.
func TestMinHashEstimatesJaccard(t *testing.T) {
	const n, pairs = DefaultRows * DefaultBands, 60
	mh, err := NewMinHasher(n, 7)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ inter, diff int }{{0, 200}, {50, 200}, {200, 150}, {400, 50}, {500, 5}, {300, 0}} {
		sumErr := 0.0
		exact := 0.0
		for p := 0; p < pairs; p++ {
			a, b := pairWithJaccard(rng, tc.inter, tc.diff)
			exact = Jaccard(a, b)
			if want := float64(tc.inter) / float64(tc.inter+2*tc.diff); exact != want {
				t.Fatalf("exact Jaccard %v, constructed %v", exact, want)
			}
			est := EstimateJaccard(mh.Signature(a), mh.Signature(b))
			sd := math.Sqrt(exact * (1 - exact) / n)
			if math.Abs(est-exact) > 5*sd+1e-9 {
				t.Fatalf("J=%.3f: estimate %.3f is more than 5 sd (%.3f) away", exact, est, sd)
			}
			sumErr += est - exact
		}
		// The estimator is unbiased: the mean error over the pairs is small.
		if sd := math.Sqrt(exact * (1 - exact) / n / pairs); math.Abs(sumErr/pairs) > 4*sd+1e-9 {
			t.Errorf("J=%.3f: mean error %.4f exceeds 4 sd (%.4f)", exact, sumErr/pairs, sd)
		}
	}
}

func TestEstimateJaccardEdgeCases(t *testing.T) {
	mh, _ := NewMinHasher(8, 1)
	empty := mh.Signature(nil)
	for _, v := range empty {
		if v != Empty {
			t.Fatalf("empty set signature %v", empty)
		}
	}
	if got := EstimateJaccard(empty, empty); got != 0 {
		t.Errorf("empty vs empty = %v", got)
	}
	s := mh.Signature([]uint64{1, 2, 3})
	if got := EstimateJaccard(s, s); got != 1 {
		t.Errorf("identical = %v", got)
	}
	if got := EstimateJaccard(s, s[:4]); got != 0 {
		t.Errorf("different lengths = %v", got)
	}
}

// TestLSHCandidateRates compares candidate rates with 1 − (1 − J^k)^l.
func TestLSHCandidateRates(t *testing.T) {
	x, err := NewLSH(DefaultRows, DefaultBands)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	type probe struct {
		set []uint64
		id  uint64
		j   float64
	}
	var probes []probe
	id := uint64(0)
	for _, tc := range []struct{ inter, diff int }{{900, 50}, {600, 200}, {200, 400}, {100, 900}} {
		for i := 0; i < 100; i++ {
			a, b := pairWithJaccard(rng, tc.inter, tc.diff)
			id++
			if err := x.Add(id, a); err != nil {
				t.Fatal(err)
			}
			probes = append(probes, probe{b, id, Jaccard(a, b)})
		}
	}
	hits := map[float64][2]int{}
	for _, p := range probes {
		c := x.Query(p.set)
		if !slices.IsSorted(c) {
			t.Fatal("candidates not sorted")
		}
		h := hits[p.j]
		h[1]++
		if slices.Contains(c, p.id) {
			h[0]++
		}
		hits[p.j] = h
	}
	for j, h := range hits {
		want := 1 - math.Pow(1-math.Pow(j, DefaultRows), DefaultBands)
		got := float64(h[0]) / float64(h[1])
		sd := math.Sqrt(want*(1-want)/float64(h[1])) + 0.01
		if math.Abs(got-want) > 5*sd {
			t.Errorf("J=%.3f: candidate rate %.3f, theory %.3f", j, got, want)
		}
	}
	if err := x.Add(999, nil); err == nil {
		t.Error("Add of an empty set accepted")
	}
	if c := x.Query(nil); len(c) != 0 {
		t.Errorf("empty query returned %v", c)
	}
}

func FuzzShingles(f *testing.F) {
	f.Add("记者 在 北京 报道 了 新闻", 3)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, w int) {
		words := strings.Fields(text)
		s := Shingles(words, w)
		if !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != len(s) {
			t.Fatal("shingles are not a sorted set")
		}
		if w >= 1 && len(words) > 0 && (len(s) == 0 || len(s) > max(1, len(words)-w+1)) {
			t.Fatalf("%d shingles from %d words, w=%d", len(s), len(words), w)
		}
		if j := Jaccard(s, s); len(s) > 0 && j != 1 {
			t.Fatalf("Jaccard with itself %v", j)
		}
	})
}
