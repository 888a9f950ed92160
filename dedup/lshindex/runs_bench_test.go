package lshindex

import (
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// BenchmarkBandRuns indexes the band keys of n articles (random keys, as
// band keys are hashes; NEWSCRAWL_BANDS_N, default 1,000,000) and reports
// the heap the runs hold per article and, for the flush that merged the
// most pairs, the bytes it allocated and the heap before and after it:
// the transient of a level merge (its old and new runs at once, and the
// garbage left until the collector runs).
func BenchmarkBandRuns(b *testing.B) {
	n := 1000000
	if s := os.Getenv("NEWSCRAWL_BANDS_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("NEWSCRAWL_BANDS_N: %v", err)
		}
		n = v
	}
	for b.Loop() {
		rng := rand.New(rand.NewPCG(1, 2))
		keep := func(uint32) bool { return true }
		h0 := liveHeap()
		bs := newBands()
		var keys [Bands]uint32
		var ms runtime.MemStats
		var worstAlloc, before, after uint64
		for s := range n {
			for i := range keys {
				keys[i] = rng.Uint32()
			}
			if bs.tailSlots+1 < TailArticles || len(bs.levels) < 2 || s+1 < levelCap(len(bs.levels)-2) {
				bs.add(uint32(s), &keys, keep)
				continue
			}
			// A flush that may merge into the deepest level: measure it.
			runtime.ReadMemStats(&ms)
			a0, l0 := ms.TotalAlloc, liveHeap()
			bs.add(uint32(s), &keys, keep)
			runtime.ReadMemStats(&ms)
			if d := ms.TotalAlloc - a0; d > worstAlloc {
				worstAlloc, before, after = d, l0, liveHeap()
			}
		}
		live := liveHeap() - min(h0, liveHeap())
		b.ReportMetric(float64(live)/float64(n), "runB/article")
		b.ReportMetric(float64(worstAlloc)/1e6, "merge-alloc-MB")
		b.ReportMetric(float64(before)/1e6, "heap-before-MB")
		b.ReportMetric(float64(after)/1e6, "heap-after-MB")
		var sizes []int
		for i := range bs.levels {
			sz := 0
			for j := range Bands {
				r := &bs.levels[i][j]
				sz += 8*cap(r.plain) + 4*(cap(r.pdir)+cap(r.dir)+cap(r.words)+cap(r.slots)) + 2*cap(r.low)
			}
			sizes = append(sizes, sz)
		}
		b.Logf("%d articles: %d levels, articles a level %v, bytes a level %v, %d keys", n, len(bs.levels), bs.levelN, sizes, bs.keys())
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMergeRuns merges a packed run of 2^20 pairs with one of 2^18
// (a level-3 merge at a million articles, one band): ns a pair.
func BenchmarkMergeRuns(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	gen := func(n, base int) run {
		ps := make([]uint64, n)
		for i := range ps {
			ps[i] = uint64(rng.Uint32())<<32 | uint64(base+i)
		}
		slices.Sort(ps)
		return newRun(ps, defaultPacking())
	}
	big, small := gen(1<<20, 0), gen(1<<18, 1<<20)
	keep := func(uint32) bool { return true }
	for b.Loop() {
		mergeRuns(&big, &small, keep, defaultPacking())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<20+1<<18), "ns/pair")
}
