package pipeline

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
)

// Memory budget of a crawl (docs/THRESHOLDS.md). The pages in flight are held
// whole while they are extracted; a page's live memory peaks at about 3x
// its size: the body, the parse tree's text and the extracted text
// (rendered lines share the tree's text, and the fingerprint takes the
// words as they are segmented, without a word list). With the garbage
// collector's default pacing (GOGC=100) the heap grows to twice the live
// memory between collections: a crawl of 8 pages of 9.5 MB peaked at 5.8-6x
// the page size when all 8 were extracted at once (now at most extractPages
// are, see Processor). A soft memory limit (the Go runtime's GOMEMLIMIT) makes
// the collector run before that: the limit is what the process holds after
// start-up (segmenter, dedup index) plus pageMemoryFactor times
// fetch.max_body per page in flight, plus budgetSlack.
const (
	// pageMemoryFactor is the memory allowed per in-flight page, as a
	// multiple of fetch.max_body: the 3x a UTF-8 page holds at its peak.
	// Pages rarely all peak together, so the collector has room; a crawl
	// of pages that need more (a GBK page's decoded copy is 1.5x its
	// bytes) collects more often and slows down, it does not fail.
	// Measured with BenchmarkHugePages (docs/THRESHOLDS.md): the 8-page
	// heap peak fell from 4.8x the page size with a factor of 4 to 4.0x.
	pageMemoryFactor = 3
	// budgetSlack covers goroutine stacks and runtime structures.
	budgetSlack = 64 << 20
)

// SetMemoryBudget sets the soft memory limit of the process for a crawl of
// cfg with inFlight pages at a time (crawler workers), unless the operator
// set GOMEMLIMIT. The runtime bounds the CPU the collector may use when the
// live memory exceeds the limit (a crawl slows down, it does not fail). It
// returns the limit set (0: none) and a function restoring the previous
// one.
func SetMemoryBudget(cfg *config.Config, inFlight int) (limit int64, restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" || inFlight <= 0 {
		return 0, func() {}
	}
	maxBody := cfg.Fetch.MaxBody
	if maxBody <= 0 {
		maxBody = config.DefaultMaxBody
	}
	runtime.GC()
	live := liveHeap()
	pages := float64(inFlight) * float64(maxBody) * pageMemoryFactor
	l := float64(live) + pages + budgetSlack
	if l >= math.MaxInt64/2 {
		return 0, func() {}
	}
	limit = int64(l)
	prev := debug.SetMemoryLimit(limit)
	return limit, func() { debug.SetMemoryLimit(prev) }
}

// liveHeap is the heap memory live after the last collection.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	return s[0].Value.Uint64()
}

// inFlightPages is how many pages a crawl of cfg holds at most: the
// crawler's workers (the sum of the selected sites' parallelism, at most
// crawler.MaxWorkers, unless set).
func inFlightPages(cfg *config.Config, sites []string, workers int) int {
	if workers > 0 {
		return min(workers, crawler.MaxWorkers)
	}
	want := map[string]bool{}
	for _, s := range sites {
		want[s] = true
	}
	n := 0
	for _, s := range cfg.Sites {
		if len(want) == 0 || want[s.Name] {
			n += max(s.Parallelism, 1)
		}
	}
	return min(n, crawler.MaxWorkers)
}
