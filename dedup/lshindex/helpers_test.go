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
