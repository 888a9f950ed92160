package lshindex

import (
	"slices"

	"github.com/newsdedup/newscrawl/spotsigs"
)

// Banding. A signature's tokens (spotsigs.Order.Tokens: the k-th repeat of
// a spot is its own token, so multiset Jaccard is the set Jaccard of the
// tokens) are hashed once per band with the band's own seed; the 64-bit
// hash is cut into Rows 21-bit parts, and each part's minimum over the set
// is one MinHash value (Broder 1997), so a band costs one hash per token.
// Two signatures at Jaccard J share a part's minimum with probability J, a
// band's Rows minima with J^Rows, and at least one of Bands bands with
// 1 − (1 − J^Rows)^Bands: 0.995 at J = 0.35. TestCollisionCurve measures
// the real curve of this hashing. (One-permutation hashing with Rows bins
// per band and densification, Shrivastava and Li 2014, was tried first:
// on signatures of 8-30 spots it fell to 0.92 at J = 0.35, as a bin's
// minima are drawn without replacement from few tokens.)
const (
	// Rows is the number of minima a band key combines (r).
	Rows = 3
	// Bands is the number of band keys per signature (b): the fewest with
	// 1 − (1 − 0.35^3)^b ≥ 0.995.
	Bands = 121
	// DesignJaccard and DesignRecall are the point the banding is tuned
	// for: a pair at DesignJaccard is a candidate with probability at
	// least DesignRecall.
	DesignJaccard = 0.35
	DesignRecall  = 0.995
)

// seeds are the bands' hash seeds (fixed: a snapshot's keys depend on them).
var seeds = func() (s [Bands]uint64) {
	x := uint64(0x2545F4914F6CDD1D)
	for i := range s {
		x += 0x9E3779B97F4A7C15
		s[i] = mix64(x)
	}
	return s
}()

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// tokenKeys returns the posting keys of sig's tokens, in the order's
// sequence (order may be nil: key order), reusing buf.
func tokenKeys(sig spotsigs.Signature, toks []spotsigs.Token) []spotsigs.Token {
	return keyOrder.Tokens(sig, toks[:0])
}

// keyOrder orders tokens by spot hash (every frequency is 0): it only
// enumerates tokens and their keys.
var keyOrder = spotsigs.NewOrder(nil)

// bandKeys computes the Bands band keys of a token set into out: per
// band, one 64-bit hash of every token, cut into Rows 21-bit values, each
// minimised over the set.
func bandKeys(toks []spotsigs.Token, out *[Bands]uint32) {
	base := make([]uint64, len(toks))
	for i, t := range toks {
		base[i] = mix64(t.Key())
	}
	const part = 21
	const mask = 1<<part - 1
	for b := range Bands {
		m0, m1, m2 := uint64(mask), uint64(mask), uint64(mask)
		sd := seeds[b]
		for _, g := range base {
			h := mix64(g ^ sd)
			m0 = min(m0, h&mask)
			m1 = min(m1, h>>part&mask)
			m2 = min(m2, h>>(2*part)&mask)
		}
		out[b] = uint32(mix64(sd ^ m0 ^ m1<<part ^ m2<<(2*part)))
	}
}

// sortedCodes encodes a set of dictionary codes as ascending uvarint
// deltas.
func appendCodes(dst []byte, codes []uint32) []byte {
	slices.Sort(codes)
	prev := uint32(0)
	for _, c := range codes {
		d := uint64(c - prev)
		for d >= 0x80 {
			dst = append(dst, byte(d)|0x80)
			d >>= 7
		}
		dst = append(dst, byte(d))
		prev = c
	}
	return dst
}

// decodeCodes reverses appendCodes, mapping each code through vals.
func decodeCodes(b []byte, vals []uint64) []uint64 {
	out := decodeInCodeOrder(b, vals)
	slices.Sort(out)
	return out
}

// decodeInCodeOrder is decodeCodes with the values in the order of their
// codes (ascending), the order in which a dictionary met them first.
func decodeInCodeOrder(b []byte, vals []uint64) []uint64 {
	if len(b) == 0 {
		return nil
	}
	out := make([]uint64, 0, len(b))
	prev := uint32(0)
	for i := 0; i < len(b); {
		var d uint32
		for s := uint(0); i < len(b); s += 7 {
			c := b[i]
			i++
			d |= uint32(c&0x7F) << s
			if c < 0x80 {
				break
			}
		}
		prev += d
		if int(prev) >= len(vals) {
			break // a damaged mapped snapshot (check finds it): never index past the values
		}
		out = append(out, vals[prev])
	}
	return out
}
