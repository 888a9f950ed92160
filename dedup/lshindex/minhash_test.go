package lshindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/spotsigs"
)

// pairAt returns two signatures of n spots each whose Jaccard is s/(2n−s)
// with s = round(2jn/(1+j)), and that Jaccard. Some spots repeat, so the
// multiset tokens are exercised.
func pairAt(rng *rand.Rand, n int, j float64) (a, b spotsigs.Signature, exact float64) {
	s := int(math.Round(2 * j * float64(n) / (1 + j)))
	for len(a) < s {
		v := rng.Uint64()
		a = append(a, v)
		b = append(b, v)
		if rng.IntN(8) == 0 && len(a) < s {
			a = append(a, v) // a repeat shared by both
			b = append(b, v)
		}
	}
	for len(a) < n {
		a = append(a, rng.Uint64())
		b = append(b, rng.Uint64())
	}
	slices.Sort(a)
	slices.Sort(b)
	return a, b, spotsigs.Jaccard(a, b)
}

func collides(a, b spotsigs.Signature) bool {
	var ka, kb [Bands]uint32
	bandKeys(tokenKeys(a, nil), &ka)
	bandKeys(tokenKeys(b, nil), &kb)
	for i := range ka {
		if ka[i] == kb[i] {
			return true
		}
	}
	return false
}

// TestCollisionCurve measures the probability that a pair shares a band
// against the designed 1 − (1 − J^r)^b, on seeded random pairs of several
// lengths (short ones exercise the densification). Each measured rate
// must lie within 4 standard deviations of the designed one (plus 0.01),
// and pairs at the design point must collide at least 99 % of the time.
func TestCollisionCurve(t *testing.T) {
	const pairs = 1000
	for _, n := range []int{8, 30, 120, 400} {
		for _, j := range []float64{0.1, 0.2, 0.35, 0.5} {
			t.Run(fmt.Sprintf("n=%d/J=%.2f", n, j), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), uint64(j*1000)))
				hit := 0
				var want float64
				for range pairs {
					a, b, ex := pairAt(rng, n, j)
					want += CollisionProbability(ex)
					if collides(a, b) {
						hit++
					}
				}
				want /= pairs
				got := float64(hit) / pairs
				sd := math.Sqrt(want * (1 - want) / pairs)
				t.Logf("n=%d J≈%.2f: collision rate %.4f, designed %.4f", n, j, got, want)
				if math.Abs(got-want) > 4*sd+0.01 {
					t.Errorf("collision rate %.4f, designed %.4f (sd %.4f)", got, want, sd)
				}
				if want >= DesignRecall && got < 0.99 {
					t.Errorf("pairs at J≈%.2f collide %.4f of the time, want ≥ 0.99", j, got)
				}
			})
		}
	}
}

func TestCodesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		codes []uint32
	}{
		{"empty", nil},
		{"one", []uint32{7}},
		{"repeats_and_long_gaps", []uint32{5, 5, 1, 300, 70000, 1 << 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := make([]uint64, 1<<20+1)
			for i := range vals {
				vals[i] = uint64(i) * 3
			}
			got := decodeCodes(appendCodes(nil, slices.Clone(tc.codes)), vals)
			var want []uint64
			for _, c := range tc.codes {
				want = append(want, uint64(c)*3)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// CollisionProbability is the designed probability 1 − (1 − J^Rows)^Bands
// that a pair at Jaccard j shares a band.
func CollisionProbability(j float64) float64 {
	return 1 - math.Pow(1-math.Pow(j, Rows), Bands)
}
