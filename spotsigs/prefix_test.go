package spotsigs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTokensMultisetJaccard(t *testing.T) {
	// The token sets' Jaccard equals the multiset Jaccard.
	rng := rand.New(rand.NewPCG(1, 2))
	o := LearnOrder([]Signature{{1, 1, 2, 3}, {1, 2, 2, 5}, {1, 7}}, 2)
	for range 200 {
		a, b := randomSig(rng, 1+rng.IntN(20), 8), randomSig(rng, 1+rng.IntN(20), 8)
		ka, kb := map[uint64]bool{}, map[uint64]bool{}
		for _, tk := range o.Tokens(a, nil) {
			ka[tk.Key()] = true
		}
		for _, tk := range o.Tokens(b, nil) {
			kb[tk.Key()] = true
		}
		inter := 0
		for k := range ka {
			if kb[k] {
				inter++
			}
		}
		if len(ka) != len(a) || len(kb) != len(b) {
			t.Fatalf("token keys collide: %d of %d, %d of %d", len(ka), len(a), len(kb), len(b))
		}
		if inter != Overlap(a, b) {
			t.Fatalf("token overlap %d, multiset overlap %d (%v %v)", inter, Overlap(a, b), a, b)
		}
	}
}

func TestOrderRarestFirst(t *testing.T) {
	o := NewOrder(map[uint64]uint32{10: 5, 20: 1, 30: 0})
	got := o.Tokens(Signature{10, 10, 20, 30, 40}, nil)
	want := []Token{{0, 1, 30}, {0, 1, 40}, {1, 1, 20}, {5, 2, 10}, {5, 1, 10}}
	if !slices.Equal(got, want) {
		t.Fatalf("tokens %v, want %v", got, want)
	}
}

func TestNewPrefixIndexRejectsBadConfig(t *testing.T) {
	o := NewOrder(nil)
	for _, tc := range []struct {
		name string
		cfg  PrefixConfig
	}{
		{"zero jaccard", PrefixConfig{}},
		{"jaccard above 1", PrefixConfig{Jaccard: 1.5}},
		{"negative containment", PrefixConfig{Jaccard: 0.3, Containment: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewPrefixIndex(o, tc.cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if _, err := NewPrefixIndex(nil, PrefixConfig{Jaccard: 0.3}); err == nil {
		t.Fatal("nil order accepted")
	}
}

// TestPrefixIndexCandidateGuarantee checks the prefix filter against brute
// force: every indexed signature with Jaccard ≥ τ is a candidate, and so is
// every indexed signature of at least MinContainment spots contained (≥ θ)
// in a query at least as long. Containment of a shorter query in a longer
// indexed signature is not guaranteed; the test reports how often it is found.
func TestPrefixIndexCandidateGuarantee(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tau, th   float64
		vocab     int
		n         int
		minLen    int
		maxLen    int
		mutations []float64
		learned   bool
	}{
		{"news-like tau 0.35", 0.35, 0.8, 3000, 400, 3, 200, []float64{0, 0.1, 0.3, 0.5}, true},
		{"small vocabulary", 0.35, 0.8, 40, 300, 1, 60, []float64{0.1, 0.3}, true},
		{"hash order", 0.5, 0.8, 3000, 300, 1, 120, []float64{0, 0.2, 0.4}, false},
		{"no containment", 0.35, 0, 3000, 300, 1, 120, []float64{0, 0.2, 0.4}, true},
		// Positions past 255 are saturated in postings.
		{"long signatures", 0.35, 0.8, 20000, 150, 250, 700, []float64{0, 0.2, 0.4}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.vocab)))
			var sigs []Signature
			var bases []Signature
			for len(sigs) < tc.n {
				if len(bases) < 30 || rng.IntN(3) == 0 {
					b := randomSig(rng, tc.minLen+rng.IntN(tc.maxLen-tc.minLen+1), tc.vocab)
					bases = append(bases, b)
					sigs = append(sigs, b)
					continue
				}
				b := bases[rng.IntN(len(bases))]
				switch rng.IntN(3) {
				case 0: // a brief: a piece of b
					k := rng.IntN(len(b)) + 1
					start := rng.IntN(len(b) - k + 1)
					p := slices.Clone(b[start : start+k])
					sigs = append(sigs, mutate(rng, p, 0.1, tc.vocab))
				default:
					sigs = append(sigs, mutate(rng, b, tc.mutations[rng.IntN(len(tc.mutations))], tc.vocab))
				}
			}
			order := NewOrder(nil)
			if tc.learned {
				order = LearnOrder(sigs[:tc.n/2], 2)
			}
			const minC = 8
			x, err := NewPrefixIndex(order, PrefixConfig{Jaccard: tc.tau, Containment: tc.th, MinContainment: minC})
			if err != nil {
				t.Fatal(err)
			}
			shortIn, shortFound := 0, 0
			pairs := 0
			for qi, q := range sigs {
				got, _ := x.Candidates(q, nil)
				set := map[uint32]bool{}
				for _, s := range got {
					if set[s] {
						t.Fatalf("slot %d reported twice", s)
					}
					set[s] = true
				}
				for yi := range qi {
					y := sigs[yi]
					inter := Overlap(q, y)
					j := jaccardOf(inter, len(q), len(y))
					c := containmentOf(inter, len(q), len(y))
					found := set[uint32(yi)]
					switch {
					case j >= tc.tau:
						pairs++
						if !found {
							t.Fatalf("query %d (|q|=%d) misses %d (|y|=%d) at Jaccard %.3f", qi, len(q), yi, len(y), j)
						}
					case tc.th > 0 && c >= tc.th && min(len(q), len(y)) >= minC && len(y) <= len(q):
						pairs++
						if !found {
							t.Fatalf("query %d (|q|=%d) misses contained %d (|y|=%d) at containment %.3f", qi, len(q), yi, len(y), c)
						}
					case tc.th > 0 && c >= tc.th && min(len(q), len(y)) >= minC:
						shortIn++
						if found {
							shortFound++
						}
					}
				}
				if _, err := x.Add(q); err != nil {
					t.Fatal(err)
				}
			}
			if pairs == 0 {
				t.Fatal("no qualifying pairs: the test checks nothing")
			}
			t.Logf("%d guaranteed pairs found; short query in longer signature: %d of %d", pairs, shortFound, shortIn)
		})
	}
}

func TestPrefixIndexRemove(t *testing.T) {
	x, err := NewPrefixIndex(NewOrder(nil), PrefixConfig{Jaccard: 0.35})
	if err != nil {
		t.Fatal(err)
	}
	s := Signature{1, 2, 3, 4, 5, 6}
	a, _ := x.Add(s)
	b, _ := x.Add(s)
	x.Remove(a)
	x.Remove(a)
	got, _ := x.Candidates(s, nil)
	if !slices.Equal(got, []uint32{b}) || x.Len() != 1 {
		t.Fatalf("after Remove: candidates %v, len %d; want [%d], 1", got, x.Len(), b)
	}
}

func TestNeedJaccardMatchesJaccard(t *testing.T) {
	for _, tau := range []float64{0.2, 0.35, 1.0 / 3, 0.5, 0.9, 1} {
		for lx := 1; lx < 60; lx++ {
			for ly := 1; ly < 60; ly++ {
				a := needJaccard(tau, lx, ly)
				for inter := 0; inter <= min(lx, ly); inter++ {
					if (jaccardOf(inter, lx, ly) >= tau) != (inter >= a) {
						t.Fatalf("tau %v lx %d ly %d: need %d, but overlap %d gives %v", tau, lx, ly, a, inter, jaccardOf(inter, lx, ly))
					}
				}
			}
		}
	}
}
