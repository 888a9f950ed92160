package lshindex

import (
	"math/bits"

	"github.com/newsdedup/newscrawl/dedup"
)

// The sketch filter. Most slots a query meets are background collisions
// of the banding, which the parity-bitmap filter drops; the sketch makes
// that drop cost one cache line (the slot's sketch) instead of a length
// read and the bitmap's two lines, in separate arrays.
//
// It never drops a slot the bitmap filter keeps. The fold F maps a bitmap
// b to F(b)_g = XOR of b_j over the j with j mod foldBits = g. F is linear
// over GF(2), so F(bx) ⊕ F(by) = F(bx ⊕ by), and each 1 bit of F(bx ⊕ by)
// at g needs a 1 bit of bx ⊕ by at some j ≡ g, a different j for each
// g: popcount(F(bx) ⊕ F(by)) ≤ popcount(bx ⊕ by). The sketch's bound
// (|x| + |y| − popcount(F(bx) ⊕ F(by))) / 2 is therefore at least the
// bitmap's bound (floor of half, which does not decrease as its argument
// grows), and when it is below the overlap the thresholds need (the need
// both filters compute the same way), so is the bitmap's. The sketch's
// token count is the entry's length as Add recorded it (lens without the
// removal bit), so the path rule reads the same length from it.
// TestSketchFilter checks the implication on random pairs and the
// candidates against the reference query path.

// appendSketch appends the sketch of an entry of n tokens with bitmap b
// (bitmapWords words).
func appendSketch(dst []uint64, b []uint64, n int) []uint64 {
	var f [sketchWords]uint64 // the fold, bit g of it at f[g/64] bit g%64
	for w := range f {
		for off := 64 * w; off < 64*bitmapWords; off += foldBits {
			f[w] ^= bitsAt(b, off)
		}
	}
	f[sketchWords-1] &= 1<<(foldBits%64) - 1
	dst = append(dst, uint64(uint32(n))|f[0]<<32)
	for w := 1; w < sketchWords; w++ {
		dst = append(dst, f[w-1]>>32|f[w]<<32)
	}
	return dst
}

// bitsAt returns the 64 bits of bitmap b from bit off on (zeros past its
// end).
func bitsAt(b []uint64, off int) uint64 {
	w, r := off/64, uint(off%64)
	var v uint64
	if w < len(b) {
		v = b[w] >> r
	}
	if r != 0 && w+1 < len(b) {
		v |= b[w+1] << (64 - r)
	}
	return v
}

// sketchLen is the token count a sketch holds.
func sketchLen(e []uint64) int { return int(uint32(e[0])) }

// foldXor is the popcount of the XOR of two sketches' folds.
func foldXor(a *[sketchWords]uint64, e []uint64) int {
	e = e[:sketchWords]
	n := bits.OnesCount64((a[0] ^ e[0]) >> 32)
	for w := 1; w < sketchWords; w++ {
		n += bits.OnesCount64(a[w] ^ e[w])
	}
	return n
}

// sketchFilter is the sketch filter of one query: its sketch, and the
// least overlap the thresholds ask of an entry of each length (need),
// cached: a query meets thousands of slots of a few hundred lengths.
type sketchFilter struct {
	cfg  Config
	q    dedup.Query
	cont bool
	lx   int
	qs   [sketchWords]uint64
	vals [512]int32 // need+1 by length; 0: not computed
}

func newSketchFilter(cfg Config, q dedup.Query, cont bool, lx int, qb []uint64) *sketchFilter {
	f := &sketchFilter{cfg: cfg, q: q, cont: cont, lx: lx}
	appendSketch(f.qs[:0], qb, lx)
	return f
}

// keeps reports whether the entry with sketch e can reach the need of
// the query: false only when the bitmap filter drops it too.
func (f *sketchFilter) keeps(e []uint64) bool {
	ly := sketchLen(e)
	return (f.lx+ly-foldXor(&f.qs, e))/2 >= f.get(ly)
}

// need is the least overlap an entry of ly tokens must share with the
// query: the bitmap filter's (bitmapOK) and the sketch's threshold.
func (cfg Config) need(q dedup.Query, cont bool, lx, ly int) int {
	n := needJaccard(q.Jaccard, lx, ly)
	if cont && min(lx, ly) >= cfg.MinContainment {
		n = min(n, leastOverlap(q.Containment, min(lx, ly)))
	}
	return n
}

func (c *sketchFilter) get(ly int) int {
	if ly >= len(c.vals) {
		return c.cfg.need(c.q, c.cont, c.lx, ly)
	}
	if v := c.vals[ly]; v > 0 {
		return int(v - 1)
	}
	n := c.cfg.need(c.q, c.cont, c.lx, ly)
	c.vals[ly] = int32(n + 1)
	return n
}
