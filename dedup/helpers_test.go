package dedup

import (
	"context"
	"testing"
)

// The index and the engine return errors; the in-process indexes never
// fail, so a test stops at the first error.

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func decide(tb testing.TB, e *Engine, fp *Fingerprint) Verdict {
	tb.Helper()
	v, err := e.Decide(tb.Context(), fp)
	check(tb, err)
	return v
}

type clusterOfer interface {
	ClusterOf(ctx context.Context, cluster uint64) (uint64, error)
}

func clusterOf(tb testing.TB, x clusterOfer, cluster uint64) uint64 {
	tb.Helper()
	c, err := x.ClusterOf(tb.Context(), cluster)
	check(tb, err)
	return c
}

func candidates(tb testing.TB, x Index, fp *Fingerprint, q Query) []*Entry {
	tb.Helper()
	cs, err := x.Candidates(tb.Context(), fp, q)
	check(tb, err)
	return cs
}
