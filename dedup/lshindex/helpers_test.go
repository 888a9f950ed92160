package lshindex

import (
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
)

// The in-process index never fails: a test stops at the first error.

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func candidates(tb testing.TB, x *Index, fp *dedup.Fingerprint, q dedup.Query) []*dedup.Entry {
	tb.Helper()
	cs, err := x.Candidates(tb.Context(), fp, q)
	check(tb, err)
	return cs
}

func clusterOf(tb testing.TB, x *Index, cluster uint64) uint64 {
	tb.Helper()
	c, err := x.ClusterOf(tb.Context(), cluster)
	check(tb, err)
	return c
}

// get returns the newest HeadListCap postings of key (the lists a query
// reads; headCandidates walks a token's classes at once instead).
func (h *headLists) get(key uint64) []uint32 {
	return newest(h.list(key))
}

// each calls fn for every pair of r in order, as key<<32 | slot; a packed
// run's key bits not known are zero.
func (r *run) each(fn func(p uint64)) {
	for c := (cursor{r: r}); c.ok(); c.next() {
		fn(c.pair())
	}
}
