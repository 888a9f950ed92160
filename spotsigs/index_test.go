package spotsigs

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// refIndex is the brute-force reference: a map scanned in full.
type refIndex map[uint64]Signature

func (r refIndex) search(q Signature, how measure, t float64, shared int) []Match {
	var out []Match
	for id, s := range r {
		inter := Overlap(q, s)
		m := Match{ID: id, Jaccard: jaccardOf(inter, len(q), len(s)), Containment: containmentOf(inter, len(q), len(s)), Shared: inter}
		var ok bool
		switch how {
		case byJaccard:
			ok = m.Jaccard >= t
		case byContainment:
			ok = m.Containment >= t
		case byShared:
			ok = m.Shared >= shared
		}
		if ok {
			out = append(out, m)
		}
	}
	sortMatches(out, how)
	return out
}

func mustIndex(t testing.TB, tau float64) *Index {
	t.Helper()
	x, err := NewIndex(tau)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestNewIndexRejectsBadTau(t *testing.T) {
	for _, tau := range []float64{0, -1, 1, 2, math.NaN(), math.Inf(1)} {
		if _, err := NewIndex(tau); err == nil {
			t.Errorf("NewIndex(%v) accepted", tau)
		}
	}
}

// randomSig draws n spots from a vocabulary of size vocab (small vocabularies
// give long posting lists and repeated spots).
func randomSig(rng *rand.Rand, n, vocab int) Signature {
	s := make(Signature, n)
	for i := range s {
		s[i] = uint64(rng.IntN(vocab))
	}
	slices.Sort(s)
	return s
}

// mutate returns a near-duplicate of s: some spots deleted, some added.
func mutate(rng *rand.Rand, s Signature, frac float64, vocab int) Signature {
	out := Signature{}
	for _, v := range s {
		if rng.Float64() >= frac {
			out = append(out, v)
		}
	}
	for i := 0; i < int(frac*float64(len(s))); i++ {
		out = append(out, uint64(rng.IntN(vocab)))
	}
	slices.Sort(out)
	return out
}

func checkAll(t *testing.T, x *Index, ref refIndex, q Signature) {
	t.Helper()
	for _, tau := range []float64{-0.5, 0, 0.05, 0.3, 0.5, 0.8, 0.95, 1, 1.5, math.NaN()} {
		if got, want := x.Query(q, tau), ref.search(q, byJaccard, tau, 0); !equalMatches(got, want) {
			t.Fatalf("Query(tau=%v) on |q|=%d: index %d matches, brute force %d\n%v\n%v", tau, len(q), len(got), len(want), got, want)
		}
		if got, want := x.ContainmentQuery(q, tau), ref.search(q, byContainment, tau, 0); !equalMatches(got, want) {
			t.Fatalf("ContainmentQuery(theta=%v) on |q|=%d: index %d matches, brute force %d", tau, len(q), len(got), len(want))
		}
	}
	for _, m := range []int{-1, 0, 1, 2, 5, 20, len(q), len(q) + 1} {
		if got, want := x.Candidates(q, m), ref.search(q, byShared, 0, m); !equalMatches(got, want) {
			t.Fatalf("Candidates(%d) on |q|=%d: index %d, brute force %d", m, len(q), len(got), len(want))
		}
	}
	if x.Len() != len(ref) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(ref))
	}
}

func equalMatches(a, b []Match) bool {
	return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b))
}

func TestIndexMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tau       float64
		vocab     int
		n         int
		minLen    int
		maxLen    int
		families  int
		mutations []float64
	}{
		{"structured families", 0.6, 5000, 250, 5, 300, 40, []float64{0, 0.05, 0.2, 0.5}},
		{"small vocabulary", 0.4, 30, 300, 1, 60, 20, []float64{0.1, 0.3}},
		{"long signatures", 0.9, 100000, 100, 200, 800, 15, []float64{0.02, 0.1, 0.3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.vocab)))
			x := mustIndex(t, tc.tau)
			ref := refIndex{}
			var bases []Signature
			id := uint64(0)
			add := func(s Signature) {
				id++
				if err := x.Add(id, s); err != nil {
					t.Fatal(err)
				}
				ref[id] = s
			}
			for len(ref) < tc.n {
				if len(bases) < tc.families || rng.IntN(3) == 0 {
					b := randomSig(rng, tc.minLen+rng.IntN(tc.maxLen-tc.minLen+1), tc.vocab)
					bases = append(bases, b)
					add(b)
					continue
				}
				b := bases[rng.IntN(len(bases))]
				add(mutate(rng, b, tc.mutations[rng.IntN(len(tc.mutations))], tc.vocab))
			}
			add(Signature{}) // an empty signature is stored too
			for i := 0; i < 45; i++ {
				var q Signature
				switch i % 3 {
				case 0:
					q = bases[rng.IntN(len(bases))]
				case 1:
					q = mutate(rng, bases[rng.IntN(len(bases))], 0.15, tc.vocab)
				default:
					q = randomSig(rng, tc.minLen+rng.IntN(tc.maxLen-tc.minLen+1), tc.vocab)
				}
				checkAll(t, x, ref, q)
			}
			checkAll(t, x, ref, nil)
			// Remove a third, replace some, and check again.
			for rid := uint64(1); rid <= id; rid += 3 {
				_, want := ref[rid]
				if got := x.Remove(rid); got != want {
					t.Fatalf("Remove(%d) = %v, want %v", rid, got, want)
				}
				delete(ref, rid)
			}
			if x.Remove(1) {
				t.Fatal("second Remove(1) reported a removal")
			}
			for rid := uint64(2); rid <= id; rid += 7 {
				s := mutate(rng, bases[rng.IntN(len(bases))], 0.1, tc.vocab)
				if err := x.Add(rid, s); err != nil {
					t.Fatal(err)
				}
				ref[rid] = s
			}
			for i := 0; i < 30; i++ {
				checkAll(t, x, ref, mutate(rng, bases[rng.IntN(len(bases))], 0.1, tc.vocab))
			}
		})
	}
}

func TestIndexSortsUnsortedInput(t *testing.T) {
	x := mustIndex(t, 0.5)
	if err := x.Add(1, Signature{9, 3, 3, 7}); err != nil {
		t.Fatal(err)
	}
	got := x.Query(Signature{7, 3, 9, 3}, 1)
	if len(got) != 1 || got[0].ID != 1 || got[0].Jaccard != 1 {
		t.Fatalf("got %+v", got)
	}
}

func TestIndexCopiesSignature(t *testing.T) {
	x := mustIndex(t, 0.5)
	s := Signature{1, 2, 3}
	if err := x.Add(1, s); err != nil {
		t.Fatal(err)
	}
	s[0], s[1], s[2] = 10, 11, 12
	if got := x.Query(Signature{1, 2, 3}, 1); len(got) != 1 {
		t.Fatalf("index changed with the caller's slice: %+v", got)
	}
}

func TestIndexConcurrent(t *testing.T) {
	x := mustIndex(t, 0.7)
	rng := rand.New(rand.NewPCG(1, 1))
	base := randomSig(rng, 100, 1<<20)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				for _, m := range x.Query(base, 0.7) {
					if m.Jaccard < 0.7 {
						t.Errorf("match below threshold: %+v", m)
						return
					}
				}
			}
		}()
	}
	for i := uint64(0); i < 600; i++ {
		if err := x.Add(i%200, mutate(rng, base, 0.05, 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if x.Len() != 200 {
		t.Fatalf("Len = %d, want 200", x.Len())
	}
}

// FuzzIndex runs adds, removes and queries decoded from the input against
// the brute-force reference.
func FuzzIndex(f *testing.F) {
	f.Add([]byte("\x00\x01\x05abcde\x00\x02\x05abcdf\x03\x00\x05abcde\x02\x01\x00"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, in []byte) {
		x := mustIndex(t, 0.5)
		ref := refIndex{}
		for len(in) >= 3 {
			op, id, n := in[0]%4, uint64(in[1]%8), int(in[2]%16)
			in = in[3:]
			n = min(n, len(in))
			s := sigFromBytes(in[:n])
			in = in[n:]
			switch op {
			case 0, 1:
				if err := x.Add(id, s); err != nil {
					t.Fatal(err)
				}
				ref[id] = s
			case 2:
				_, want := ref[id]
				if got := x.Remove(id); got != want {
					t.Fatalf("Remove(%d) = %v, want %v", id, got, want)
				}
				delete(ref, id)
			case 3:
				tau := float64(id) / 7
				if got, want := x.Query(s, tau), ref.search(s, byJaccard, tau, 0); !equalMatches(got, want) {
					t.Fatalf("Query(%v, %v): %v vs %v", s, tau, got, want)
				}
				if got, want := x.ContainmentQuery(s, tau), ref.search(s, byContainment, tau, 0); !equalMatches(got, want) {
					t.Fatalf("ContainmentQuery(%v, %v): %v vs %v", s, tau, got, want)
				}
				if got, want := x.Candidates(s, int(id)), ref.search(s, byShared, 0, int(id)); !equalMatches(got, want) {
					t.Fatalf("Candidates(%v, %d): %v vs %v", s, id, got, want)
				}
			}
			if x.Len() != len(ref) {
				t.Fatalf("Len = %d, want %d", x.Len(), len(ref))
			}
		}
	})
}
