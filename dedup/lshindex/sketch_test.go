package lshindex

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// foldReference folds bitmap b bit by bit, as the sketch's definition
// says: bit j of the bitmap toggles fold bit j mod foldBits.
func foldReference(b []uint64) []bool {
	f := make([]bool, foldBits)
	for j := range 64 * bitmapWords {
		if b[j/64]>>(j%64)&1 != 0 {
			f[j%foldBits] = !f[j%foldBits]
		}
	}
	return f
}

// TestSketchFilter: the sketch holds the length and the fold of the
// bitmap as defined, its bound never drops a pair the bitmap filter keeps
// (Jaccard and containment queries, pairs from disjoint to identical, 1 to
// 600 tokens), and it does drop most unrelated pairs (82 % of those of 60-200 tokens here).
func TestSketchFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	t.Run("fold", func(t *testing.T) {
		for i := range 2000 {
			b := make([]uint64, bitmapWords)
			for w := range b {
				b[w] = rng.Uint64()
				if i%2 == 0 {
					b[w] &= rng.Uint64() & rng.Uint64() // sparse
				}
			}
			n := rng.IntN(deadBit)
			e := appendSketch(nil, b, n)
			if len(e) != sketchWords || sketchLen(e) != n {
				t.Fatalf("sketch of %d words, length %d, want %d and %d", len(e), sketchLen(e), sketchWords, n)
			}
			for g, want := range foldReference(b) {
				if got := e[(32+g)/64]>>((32+g)%64)&1 != 0; got != want {
					t.Fatalf("bitmap %d: fold bit %d = %v, want %v", i, g, got, want)
				}
			}
		}
	})
	t.Run("implies bitmap", func(t *testing.T) {
		queries := []dedup.Query{
			{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment},
			{Jaccard: dedup.DefaultJaccard},
			{Jaccard: 0.6, Containment: 0.5},
		}
		cfg := testConfig()
		pairs, bitmapKept := 0, 0
		unrelated, unrelatedDropped := 0, 0 // unrelated pairs of 60 to 200 tokens
		for range 20000 {
			x := randSig(rng, 1+rng.IntN(300))
			var y spotsigs.Signature
			kind := rng.IntN(4)
			switch kind {
			case 0: // unrelated
				y = randSig(rng, 1+rng.IntN(600))
			case 1: // a part of x
				y = slices.Clone(x[:1+rng.IntN(len(x))])
			default: // x with some spots replaced, dropped or added
				for _, s := range x {
					if rng.IntN(100) >= rng.IntN(80) {
						y = append(y, s)
					}
				}
				y = append(y, randSig(rng, rng.IntN(100))...)
				slices.Sort(y)
			}
			if len(y) == 0 {
				continue
			}
			tx, ty := tokenKeys(x, nil), tokenKeys(y, nil)
			bx, by := appendBitmap(nil, tx), appendBitmap(nil, ty)
			sy := appendSketch(nil, by, len(ty))
			lx, ly := len(tx), len(ty)
			if sketchLen(sy) != ly {
				t.Fatalf("sketch length %d, want %d", sketchLen(sy), ly)
			}
			for _, q := range queries {
				cont := q.Containment > 0 && lx >= cfg.MinContainment
				sf := newSketchFilter(cfg, q, cont, lx, bx)
				if f, b := foldXor(&sf.qs, sy), xorCount(bx, by); f > b {
					t.Fatalf("fold XOR popcount %d above the bitmap's %d", f, b)
				}
				keeps := sf.keeps(sy)
				kept := cfg.bitmapOK(q, cont, lx, ly, bx, by)
				if sf.get(ly) != cfg.need(q, cont, lx, ly) {
					t.Fatalf("cached need %d, computed %d", sf.get(ly), cfg.need(q, cont, lx, ly))
				}
				if kept && !keeps {
					t.Fatalf("query %+v, %d and %d tokens: the sketch drops a pair the bitmap filter keeps", q, lx, ly)
				}
				pairs++
				if kept {
					bitmapKept++
				}
				if kind == 0 && min(lx, ly) >= 60 && max(lx, ly) <= 200 {
					unrelated++
					if !keeps {
						unrelatedDropped++
					}
				}
			}
		}
		t.Logf("%d pairs: the bitmap filter keeps %d; the sketch drops %d of %d unrelated pairs of 60-200 tokens", pairs, bitmapKept, unrelatedDropped, unrelated)
		if bitmapKept < pairs/10 || unrelated < 1000 || unrelatedDropped < unrelated*3/4 {
			t.Fatal("the bitmap filter kept too few pairs for the comparison, or the sketch dropped under three quarters of the unrelated ones")
		}
	})
}
