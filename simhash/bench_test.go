package simhash

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// tfFeatures turns words into term-frequency features in order of first
// occurrence, with the integer counts for the naive reference.
func tfFeatures(words []string) ([]Feature, []string, []int) {
	pfs := posFeatures(words)
	fs := make([]Feature, len(pfs))
	terms := make([]string, len(pfs))
	counts := make([]int, len(pfs))
	for i, f := range pfs {
		fs[i] = Feature{Term: f.Term, Weight: f.Weight}
		terms[i], counts[i] = f.Term, int(f.Weight)
	}
	return fs, terms, counts
}

// BenchmarkSum fingerprints the real articles of the robustness set (one op
// is one article) and checks every fingerprint against the naive reference.
func BenchmarkSum(b *testing.B) {
	docs := benchtext.Robust(b)
	feats := make([][]Feature, len(docs))
	want := make([]uint64, len(docs))
	nf := 0
	for i, d := range docs {
		fs, terms, counts := tfFeatures(benchtext.PseudoWords(d.Text))
		feats[i] = fs
		want[i] = naiveSum(terms, counts, FNV1a)
		nf += len(fs)
	}
	b.ReportMetric(float64(nf)/float64(len(docs)), "features/doc")
	i := 0
	for b.Loop() {
		j := i % len(docs)
		if got := Sum(feats[j], FNV1a); got != want[j] {
			b.Fatalf("doc %s: Sum = %#x, naive = %#x", docs[j].ID, got, want[j])
		}
		i++
	}
}

// BenchmarkSumPositional is BenchmarkSum with positions (P-Simhash); it checks
// that mu = 1 reproduces Sum and that the default result is deterministic.
func BenchmarkSumPositional(b *testing.B) {
	docs := benchtext.Robust(b)
	feats := make([][]PosFeature, len(docs))
	lens := make([]int, len(docs))
	want := make([]uint64, len(docs))
	for i, d := range docs {
		words := benchtext.PseudoWords(d.Text)
		feats[i], lens[i] = posFeatures(words), len(words)
		fs, _, _ := tfFeatures(words)
		if SumPositional(feats[i], lens[i], FNV1a, 1) != Sum(fs, FNV1a) {
			b.Fatalf("doc %s: mu=1 differs from Sum", d.ID)
		}
		want[i] = SumPositional(feats[i], lens[i], FNV1a, DefaultMu)
	}
	i := 0
	for b.Loop() {
		j := i % len(docs)
		if got := SumPositional(feats[j], lens[j], FNV1a, DefaultMu); got != want[j] {
			b.Fatalf("doc %s: not deterministic", docs[j].ID)
		}
		i++
	}
}

func BenchmarkLookup1M(b *testing.B) { benchLookup(b, 1_000_000) }

func BenchmarkLookup10M(b *testing.B) {
	if testing.Short() {
		b.Skip("10 M fingerprints take about a gigabyte while building; skipped in -short mode")
	}
	benchLookup(b, 10_000_000)
}

// benchLookup indexes n random fingerprints plus, for each of 1000 query
// fingerprints, planted neighbours at distances 0..k+1. It fails unless
// every planted neighbour within k is found and the one at k+1 is not. It
// reports the heap growth per fingerprint, the build time and the median and
// 99th-percentile latency of single lookups.
func benchLookup(b *testing.B, n int) {
	const k, nq = DefaultK, 1000
	rng := rand.New(rand.NewPCG(42, uint64(n)))
	queries := make([]uint64, nq)
	for i := range queries {
		queries[i] = rng.Uint64()
	}
	plantedID := func(qi, d int) uint64 { return uint64(n + qi*(k+2) + d) }

	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	x, err := NewIndex(k)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		x.Add(uint64(i), rng.Uint64())
	}
	for qi, q := range queries {
		for d := 0; d <= k+1; d++ {
			x.Add(plantedID(qi, d), flip(rng, q, d))
		}
	}
	x.Query(0) // the first query builds the tables
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	total := n + nq*(k+2)
	if x.Len() != total {
		b.Fatalf("Len = %d, want %d", x.Len(), total)
	}

	check := func(qi int, ms []Match) {
		ids := make([]uint64, 0, len(ms))
		for _, m := range ms {
			if m.Distance > k || Distance(m.FP, queries[qi]) != m.Distance {
				b.Fatalf("query %d: bad match %+v", qi, m)
			}
			ids = append(ids, m.ID)
		}
		for d := 0; d <= k+1; d++ {
			if found := slices.Contains(ids, plantedID(qi, d)); found != (d <= k) {
				b.Fatalf("query %d: planted neighbour at distance %d found=%v", qi, d, found)
			}
		}
	}
	for qi, q := range queries {
		check(qi, x.Query(q))
	}

	i := 0
	for b.Loop() {
		qi := i % nq
		if ms := x.Query(queries[qi]); len(ms) < k+1 {
			b.Fatalf("query %d: %d matches, want at least %d", qi, len(ms), k+1)
		}
		i++
	}
	lat := make([]time.Duration, 5000)
	for j := range lat {
		t0 := time.Now()
		x.Query(queries[j%nq])
		lat[j] = time.Since(t0)
	}
	slices.Sort(lat)
	t0 := time.Now()
	if !x.Remove(plantedID(0, 0)) {
		b.Fatal("Remove of a planted entry found nothing")
	}
	removeDur := time.Since(t0)
	for _, m := range x.Query(queries[0]) {
		if m.ID == plantedID(0, 0) {
			b.Fatal("removed entry still found")
		}
	}
	b.ReportMetric(float64(removeDur.Microseconds())/1000, "remove-ms")
	// Metrics are reported after b.Loop, which discards earlier ones.
	b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(total), "bytes/fp")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	runtime.KeepAlive(x)
}
