package lshindex

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// TestMetTable checks the query's slot table against a map: values ORed
// and summed per slot, distinct slots in first-met order, across growth
// and reuse of a pooled table.
func TestMetTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 100, 5000, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var pool metPool
			for round := range 3 { // rounds reuse pooled tables
				m := pool.get()
				want := map[uint32]uint32{}
				var order []uint32
				for range n {
					s := uint32(rng.IntN(max(n/3, 1)))
					if rng.IntN(50) == 0 {
						s = MaxSlots - 1 - uint32(rng.IntN(3)) // the largest slots
					}
					or, inc := uint32(1)<<rng.IntN(2), uint32(rng.IntN(3))<<2
					if _, ok := want[s]; !ok {
						order = append(order, s)
					}
					want[s] = want[s] | or + inc
					m.add(s, or, inc)
				}
				if !slices.Equal(m.slots, order) {
					t.Fatalf("round %d: %d slots, want %d in first-met order", round, len(m.slots), len(order))
				}
				for s, v := range want {
					if g := m.get(s); g != v {
						t.Fatalf("round %d: slot %d = %d, want %d", round, s, g, v)
					}
				}
				if g := m.get(MaxSlots - 10); g != 0 && want[MaxSlots-10] == 0 {
					t.Fatalf("slot never added has value %d", g)
				}
				pool.put(m)
			}
		})
	}
}

// TestLookupAll compares the staged lookup of every band with a scan of
// all pairs stored (tail and every level), on band keys drawn from a small
// range so that keys repeat, for sizes spanning several levels, with plain
// runs and with packed ones (whose slots, under 2^14, leave every key bit
// known).
func TestLookupAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, TailArticles - 1, TailArticles * 3, TailArticles*LevelFanout*2 + 77, -(TailArticles*LevelFanout*2 + 77)} {
		packed := n < 0
		n = max(n, -n)
		t.Run(fmt.Sprintf("%d_packed_%v", n, packed), func(t *testing.T) {
			bs := newBands()
			if packed {
				bs.packing = packing{min: 64, keyBits: 32}
			}
			ref := map[uint64][]uint32{} // band<<32 | key -> slots
			all := make([][Bands]uint32, n)
			for s := range n {
				for b := range Bands {
					all[s][b] = rng.Uint32() % 3000
					if b%7 == 0 {
						all[s][b] |= 0xFFFF0000 // keys in the packed directory's last buckets
					}
					k := uint64(b)<<32 | uint64(all[s][b])
					ref[k] = append(ref[k], uint32(s))
				}
				bs.add(uint32(s), &all[s], func(uint32) bool { return true })
			}
			if n > TailArticles && len(bs.levels) == 0 || packed && (bs.levels[0][0].dir == nil || bs.levels[0][0].knownBits() != 32) {
				t.Fatal("no level was built, or not packed knowing every key bit")
			}
			for q := range 200 {
				keys := all[rng.IntN(n)]
				if q%4 == 0 {
					for b := range keys {
						keys[b] = rng.Uint32() % 3000
					}
				}
				got := map[uint32]int{}
				bs.lookupAll(&keys, func(s uint32) { got[s]++ })
				want := map[uint32]int{}
				for b, k := range keys {
					for _, s := range ref[uint64(b)<<32|uint64(k)] {
						want[s]++
					}
				}
				if !maps.Equal(got, want) {
					t.Fatalf("query %d: %d slots met, want %d", q, len(got), len(want))
				}
			}
		})
	}
}

// referenceCandidates is the query path before the band runs, the slot
// table and the head pruning: every slot's band keys (slotKeys) compared
// with the query's on the top bits the slot's run knows (known; nil: all
// 32), every head list of the brief classes read in full, all postings
// sorted, then the path rule and the bitmap filter.
func referenceCandidates(x *Index, sig spotsigs.Signature, q dedup.Query, slotKeys [][Bands]uint32, known [][Bands]uint8) []uint32 {
	toks := tokenKeys(sig, nil)
	lx := len(toks)
	var keys [Bands]uint32
	bandKeys(toks, &keys)
	var met []uint64
	for s, ks := range slotKeys {
		for b, k := range keys {
			sh := 0
			if known != nil {
				sh = 32 - int(known[s][b])
			}
			if uint64(ks[b]^k)>>sh == 0 {
				met = append(met, uint64(s)<<2|fromLSH)
			}
		}
	}
	cont := q.Containment > 0 && lx >= x.cfg.MinContainment
	if cont {
		for _, tk := range toks {
			for _, c := range briefClasses(lx, x.cfg.MinContainment) {
				for _, s := range x.head.get(headKey(tk.Key(), c)) {
					met = append(met, uint64(s)<<2|fromHead)
				}
			}
		}
	}
	slices.Sort(met)
	qb := appendBitmap(nil, toks)
	var out []uint32
	for i := 0; i < len(met); {
		s := uint32(met[i] >> 2)
		var flags uint64
		hits := 0
		for ; i < len(met) && uint32(met[i]>>2) == s; i++ {
			flags |= met[i] & 3
			if met[i]&fromHead != 0 {
				hits++
			}
		}
		ly := int(x.lens[s])
		if x.lens[s]&deadBit == 0 && x.cfg.pathOK(lx, ly, flags, hits) && x.cfg.bitmapOK(q, cont, lx, ly, qb, x.bits[int(s)*bitmapWords:]) {
			out = append(out, s)
		}
	}
	return out
}

// TestCandidatesReference: the index proposes exactly the reference's
// candidates for near-duplicates, briefs of stored entries, stories
// containing them and unrelated signatures, over random signatures of
// 3 to 400 spots with removals; with plain runs, with packed runs, and
// and with packed runs that store no key bits below their directory
// (every pair of a key's bucket is a band hit); with packed runs, the
// reference compares the keys' top bits the runs know, and the exact
// keys' candidates must be among them (the others are counted).
func TestCandidatesReference(t *testing.T) {
	for _, tc := range []struct {
		name string
		pk   packing
	}{
		{"plain_runs", defaultPacking()},
		{"packed_runs", packing{min: 64, keyBits: 32}},
		{"packed_runs_directory_bits_only", packing{min: 64, keyBits: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) { testCandidatesReference(t, tc.pk) })
	}
}

func testCandidatesReference(t *testing.T, pk packing) {
	x, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	x.bands.packing = pk
	rng := rand.New(rand.NewPCG(11, 12))
	var sigs []spotsigs.Signature
	for id := uint64(1); id <= 1500; id++ {
		var s spotsigs.Signature
		switch {
		case id > 10 && id%5 == 0: // a part of an earlier entry
			p := sigs[rng.IntN(len(sigs))]
			s = slices.Clone(p[:max(len(p)/(2+rng.IntN(4)), 1)])
		case id > 10 && id%5 == 1: // an earlier entry and more
			s = append(slices.Clone(sigs[rng.IntN(len(sigs))]), randSig(rng, 20+rng.IntN(300))...)
			slices.Sort(s)
		default:
			s = randSig(rng, 3+rng.IntN(400))
		}
		sigs = append(sigs, s)
		check(t, x.Add(t.Context(), dedup.Entry{ID: id, Cluster: id, Signature: s}))
		if id%97 == 0 {
			check(t, x.Remove(t.Context(), id-50))
		}
	}
	slotKeys := make([][Bands]uint32, len(x.ids))
	known := make([][Bands]uint8, len(x.ids))
	for s, id := range x.ids {
		bandKeys(tokenKeys(sigs[id-1], nil), &slotKeys[s])
		for b := range Bands {
			known[s][b] = 32 // the tail's
		}
	}
	packed, kbits := 0, 32
	for i := range x.bands.levels {
		for b := range Bands {
			r := &x.bands.levels[i][b]
			if r.dir != nil {
				packed++
				kbits = min(kbits, int(r.kbits))
			}
			r.each(func(p uint64) { known[uint32(p)][b] = r.knownBits() })
		}
	}
	if (pk.min < packedMin) != (packed > 0) || (packed > 0 && kbits > int(pk.keyBits)) {
		t.Fatalf("%d packed runs storing %d key bits, packing %+v", packed, kbits, pk)
	}
	q := dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment}
	total, head, hits, extra := 0, 0, 0, 0
	for i := 0; i < len(sigs); i += 5 {
		s := sigs[i]
		for _, qs := range []spotsigs.Signature{s, slices.Clone(s[:len(s)/2]), append(slices.Clone(s), randSig(rng, 2*len(s)+10)...), randSig(rng, 30)} {
			slices.Sort(qs)
			fp := &dedup.Fingerprint{Signature: qs, Words: 1}
			got, paths, st := x.candidates(fp, q)
			want := referenceCandidates(x, qs, q, slotKeys, known)
			if !slices.Equal(got, want) {
				t.Fatalf("entry %d, query of %d spots: %d candidates %v, reference %d %v", i, len(qs), len(got), got, len(want), want)
			}
			exact := referenceCandidates(x, qs, q, slotKeys, nil)
			for _, s := range exact {
				if !slices.Contains(got, s) {
					t.Fatalf("entry %d, query of %d spots: slot %d of the exact keys not proposed", i, len(qs), s)
				}
			}
			extra += len(got) - len(exact)
			total += len(got)
			hits += st.LSH
			for _, p := range paths {
				if p == fromHead {
					head++
				}
			}
		}
	}
	t.Logf("%d packed runs storing at least %d key bits: %d candidates (%d not of the exact keys), %d through the head index only, %d band hits",
		packed, kbits, total, extra, head, hits)
	if packed == 0 && extra != 0 {
		t.Fatalf("%d candidates not of the exact keys with plain runs", extra)
	}
	if total == 0 || head == 0 {
		t.Fatal("no candidates, or none through the head index only: the comparison tested little")
	}
}
