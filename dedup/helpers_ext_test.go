package dedup_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
)

// The in-process indexes never fail: a test stops at the first error.

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func decide(tb testing.TB, e *dedup.Engine, fp *dedup.Fingerprint) dedup.Verdict {
	tb.Helper()
	v, err := e.Decide(tb.Context(), fp)
	check(tb, err)
	return v
}

func candidates(tb testing.TB, x dedup.Index, fp *dedup.Fingerprint, q dedup.Query) []*dedup.Entry {
	tb.Helper()
	cs, err := x.Candidates(tb.Context(), fp, q)
	check(tb, err)
	return cs
}
