package lshindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refHead is the head index as a map of slices: the model the table and
// arena are checked against. A list keeps its postings until it holds
// 2·HeadListCap, then its newest HeadListCap; the run's copy of a
// snapshot's list overrides it.
type refHead struct {
	base    map[uint64][]uint32
	lists   map[uint64][]uint32
	dropped int
}

func (r *refHead) list(key uint64) []uint32 {
	if l, ok := r.lists[key]; ok {
		return l
	}
	return r.base[key]
}

func (r *refHead) add(key uint64, slot uint32) {
	l := slices.Clone(r.list(key))
	if len(l) >= 2*HeadListCap {
		r.dropped += len(l) - HeadListCap
		l = l[len(l)-HeadListCap:]
	}
	r.lists[key] = append(l, slot)
}

func (r *refHead) keys() []uint64 {
	var ks []uint64
	for k := range r.base {
		ks = append(ks, k)
	}
	for k := range r.lists {
		if _, in := r.base[k]; !in {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// withBase returns head lists holding base as a snapshot's lists (the
// flat arrays a mapped snapshot holds) and the model of them.
func withBase(base map[uint64][]uint32) (headLists, *refHead) {
	h := newHeadLists()
	r := &refHead{base: base, lists: map[uint64][]uint32{}}
	for _, k := range r.keys() {
		h.baseKeys = append(h.baseKeys, k)
		h.baseOff = append(h.baseOff, uint64(len(h.basePost)))
		h.basePost = append(h.basePost, base[k]...)
	}
	if len(h.baseKeys) > 0 {
		h.baseOff = append(h.baseOff, uint64(len(h.basePost)))
	}
	return h, r
}

func seq(from, n int) []uint32 {
	l := make([]uint32, n)
	for i := range l {
		l[i] = uint32(from + i)
	}
	return l
}

// checkHead compares every view of h with the model.
func checkHead(t *testing.T, h *headLists, r *refHead) {
	t.Helper()
	keys := r.keys()
	var tokens []uint64
	for _, k := range keys {
		if !slices.Equal(h.list(k), r.list(k)) {
			t.Fatalf("list %#x = %v, want %v", k, h.list(k), r.list(k))
		}
		if want := newest(r.list(k)); !slices.Equal(h.get(k), want) {
			t.Fatalf("get %#x = %v, want %v", k, h.get(k), want)
		}
		if t0 := k >> classBits; len(tokens) == 0 || tokens[len(tokens)-1] != t0 {
			tokens = append(tokens, t0)
		}
	}
	var gotKeys []uint64
	beyond, postings := r.dropped, 0
	h.each(func(k uint64, l []uint32) {
		gotKeys = append(gotKeys, k)
		if !slices.Equal(l, r.list(k)) {
			t.Fatalf("each: list %#x = %v, want %v", k, l, r.list(k))
		}
		beyond += max(len(r.list(k))-HeadListCap, 0)
		postings += len(r.list(k))
	})
	if !slices.Equal(gotKeys, keys) {
		t.Fatalf("each: keys %x, want %x", gotKeys, keys)
	}
	if h.dropped != r.dropped || h.beyond() != beyond || h.postings() != postings {
		t.Fatalf("dropped %d, beyond %d, postings %d; want %d, %d, %d", h.dropped, h.beyond(), h.postings(), r.dropped, beyond, postings)
	}
	// token: every class of every token, and a class mask that leaves some
	// out.
	for _, tok := range tokens {
		for _, want := range []uint32{^uint32(0), 0x5555_5555} {
			var out [1 << classBits][]uint32
			got := h.token(tok, want, &out)
			for c := range uint32(1 << classBits) {
				l := r.list(headKey(tok, c))
				has := len(l) > 0 && want&(1<<c) != 0
				if has != (got&(1<<c) != 0) {
					t.Fatalf("token %#x class %d: found %v, want %v", tok, c, !has, has)
				}
				if has && !slices.Equal(out[c], newest(l)) {
					t.Fatalf("token %#x class %d: %v, want %v", tok, c, out[c], newest(l))
				}
			}
		}
	}
}

// TestHeadLists checks the head lists (table, arena and snapshot lists)
// against the model: lists across the cap, a token's lists in several
// classes, the snapshot's lists overridden by the run (one past the cap),
// and enough lists to grow the table and reuse freed blocks.
func TestHeadLists(t *testing.T) {
	type op struct {
		key  uint64
		n    int // postings added, numbered on from the last op's
		from int
	}
	long := 2*HeadListCap + 5
	tests := []struct {
		name string
		base map[uint64][]uint32
		ops  []op
	}{
		{name: "one posting", ops: []op{{key: headKey(7, 3), n: 1}}},
		{name: "to the cap", ops: []op{{key: headKey(7, 3), n: HeadListCap}}},
		{name: "past the cap", ops: []op{{key: headKey(7, 3), n: HeadListCap + 1}}},
		{name: "to twice the cap", ops: []op{{key: headKey(7, 3), n: 2 * HeadListCap}}},
		{name: "across twice the cap", ops: []op{{key: headKey(7, 3), n: 5*HeadListCap + 3}, {key: headKey(8, 3), n: 1}}},
		{name: "classes of a token", ops: []op{
			{key: headKey(7, 0), n: 2}, {key: headKey(7, 4), n: 70}, {key: headKey(7, 30), n: 1},
			{key: headKey(7, 31), n: 5}, {key: headKey(7|1<<58, 4), n: 3}, {key: headKey(7, 4), n: 1}}},
		{name: "token zero and the largest", ops: []op{{key: headKey(0, 0), n: 3}, {key: ^uint64(0), n: 40}}},
		{name: "snapshot only",
			base: map[uint64][]uint32{headKey(7, 3): seq(0, 5), headKey(7, 5): seq(100, long), headKey(9, 3): {4}}},
		{name: "snapshot overridden",
			base: map[uint64][]uint32{headKey(7, 3): seq(0, 5), headKey(7, 5): seq(100, 40), headKey(9, 3): {4}},
			ops:  []op{{key: headKey(7, 3), n: 1}, {key: headKey(7, 4), n: 2}, {key: headKey(7, 5), n: 30}}},
		{name: "snapshot list past twice the cap overridden",
			base: map[uint64][]uint32{headKey(7, 5): seq(100, long), headKey(7, 6): seq(0, 2*HeadListCap)},
			ops:  []op{{key: headKey(7, 5), n: 1}, {key: headKey(7, 6), n: 1}}},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var many []op
	for range 3000 { // more lists than the first table holds; blocks grow and are freed
		many = append(many, op{key: headKey(rng.Uint64N(700), uint32(rng.IntN(6))), n: 1 + rng.IntN(3)})
	}
	tests = append(tests, struct {
		name string
		base map[uint64][]uint32
		ops  []op
	}{name: "many lists", base: map[uint64][]uint32{headKey(5, 2): seq(0, 9), headKey(600, 1): seq(0, 50)}, ops: many})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, r := withBase(tc.base)
			basePost := slices.Clone(h.basePost)
			next := 1000
			for _, o := range tc.ops {
				for range o.n {
					h.add(o.key, uint32(next))
					r.add(o.key, uint32(next))
					next++
				}
			}
			checkHead(t, &h, r)
			if !slices.Equal(h.basePost, basePost) {
				t.Fatal("the run wrote into the snapshot's lists")
			}
		})
	}
}

// TestHeadBlocks checks that the arena reuses the blocks lists grow out
// of: lists grown one after another to 2·HeadListCap take no more than
// one chunk per block size.
func TestHeadBlocks(t *testing.T) {
	for _, lists := range []int{1, 100, 3000} {
		t.Run(fmt.Sprint(lists), func(t *testing.T) {
			h, r := withBase(nil)
			for i := range lists {
				for j := range 2 * HeadListCap {
					h.add(headKey(uint64(i), 2), uint32(j))
					r.add(headKey(uint64(i), 2), uint32(j))
				}
			}
			checkHead(t, &h, r)
			// Blocks of 1..32 postings are reused by the next list; the
			// 64-posting blocks stay: lists·64 postings.
			want := headSizes - 1 + (lists*2*HeadListCap+headChunk-1)/headChunk
			if len(h.chunks) > want {
				t.Fatalf("%d chunks, want at most %d", len(h.chunks), want)
			}
		})
	}
}

// TestBaseFrom compares the guided search of the snapshot's keys with a
// binary search, on keys spread over the range and on keys that are not.
func TestBaseFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gen := map[string]func(i int) uint64{
		"spread":    func(int) uint64 { return rng.Uint64() },
		"low":       func(int) uint64 { return rng.Uint64N(1 << 20) },
		"high":      func(int) uint64 { return ^rng.Uint64N(1 << 20) },
		"clustered": func(i int) uint64 { return uint64(i%3)<<62 | rng.Uint64N(1<<10) },
		"sequence":  func(i int) uint64 { return uint64(i) * 3 },
	}
	for name, g := range gen {
		for _, n := range []int{0, 1, 2, 17, 5000} {
			t.Run(fmt.Sprintf("%s-%d", name, n), func(t *testing.T) {
				var h headLists
				for i := range n {
					h.baseKeys = append(h.baseKeys, g(i))
				}
				slices.Sort(h.baseKeys)
				h.baseKeys = slices.Compact(h.baseKeys)
				queries := []uint64{0, 1, ^uint64(0), ^uint64(0) - 1, 1 << 63}
				for _, k := range h.baseKeys {
					queries = append(queries, k, k-1, k+1)
				}
				for range 200 {
					queries = append(queries, rng.Uint64())
				}
				for _, k := range queries {
					want, _ := slices.BinarySearch(h.baseKeys, k)
					if got := h.baseFrom(k); got != want {
						t.Fatalf("baseFrom(%#x) = %d, want %d", k, got, want)
					}
				}
			})
		}
	}
}
