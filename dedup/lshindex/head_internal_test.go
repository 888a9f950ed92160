package lshindex

import (
	"slices"
	"testing"
)

// The head lists keep the newest HeadListCap postings of a key, and every
// posting the cap takes out of reach is counted (HeadDropped).
func TestHeadListCap(t *testing.T) {
	for _, n := range []int{1, HeadListCap, HeadListCap + 1, 2 * HeadListCap, 5*HeadListCap + 3} {
		h := newHeadLists()
		for i := range n {
			h.add(7, uint32(i))
		}
		h.add(8, 1000)
		got := h.get(7)
		var want []uint32
		for i := max(n-HeadListCap, 0); i < n; i++ {
			want = append(want, uint32(i))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: get = %v, want the newest %v", n, got, want)
		}
		if b := h.beyond(); b != max(n-HeadListCap, 0) {
			t.Fatalf("n=%d: beyond = %d, want %d", n, b, max(n-HeadListCap, 0))
		}
		if g := h.get(8); !slices.Equal(g, []uint32{1000}) {
			t.Fatalf("other key: %v", g)
		}
	}
}
