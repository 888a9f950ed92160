package lshindex

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/cputime"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// headBenchQueries is the number of distinct queries a head benchmark
// cycles through.
const headBenchQueries = 2000

// BenchmarkHeadCandidates measures the head index's part of a query
// (headCandidates: the lists of every query token in the brief classes)
// against an index of N synthetic entries (the model of
// internal/scalecorpus fitted on the fingerprints in NEWSCRAWL_SCALE_FP),
// per query: CPU (the calling thread's clock), postings read; and, once,
// the CPU of a full collection with the index live (gc-ms: what the
// collector pays for the index's pointers). "run" holds every list in the
// run's table; "mapped" maps a snapshot of N entries and adds N/10 more,
// so that the lists are the snapshot's, the run's, and the run's copies
// of the snapshot's. Sizes: NEWSCRAWL_HEAD_SIZES (comma-separated,
// default 100000).
func BenchmarkHeadCandidates(b *testing.B) {
	model := scaleModel(b)
	for _, n := range benchSizes(b, "NEWSCRAWL_HEAD_SIZES", "100000") {
		for _, mapped := range []bool{false, true} {
			name := fmt.Sprintf("run-%d", n)
			if mapped {
				name = fmt.Sprintf("mapped-%d", n)
			}
			b.Run(name, func(b *testing.B) { benchHead(b, model, n, mapped) })
		}
	}
}

func benchHead(b *testing.B, model *scalecorpus.Model, n int, mapped bool) {
	x, err := New(testConfig())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	for i := range n {
		x.Add(b.Context(), synthEntry(model, rng, i))
	}
	if mapped {
		x = remapped(b, x)
		for i := range n / 10 {
			x.Add(b.Context(), synthEntry(model, rng, n+i))
		}
	}
	queries := make([][]spotsigs.Token, headBenchQueries)
	for i := range queries {
		queries[i] = tokenKeys(model.Synth(rng, 2*n+i).Signature, nil)
	}
	runtime.GC()
	g0 := cputime.Process()
	runtime.GC()
	gc := cputime.Process() - g0
	var st Probe
	runtime.LockOSThread() // the thread's CPU clock
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0 := cputime.Thread()
	for i := range b.N {
		toks := queries[i%len(queries)]
		if len(toks) < x.cfg.MinContainment {
			continue
		}
		met := x.metPool.get()
		x.headCandidates(met, toks, len(toks), &st)
		x.metPool.put(met)
	}
	cpu := cputime.Thread() - c0
	b.StopTimer()
	k := float64(b.N)
	b.ReportMetric(float64(cpu.Microseconds())/k, "cpu-µs/op")
	b.ReportMetric(float64(st.Head)/k, "postings/op")
	b.ReportMetric(float64(gc)/float64(time.Millisecond), "gc-ms")
	runtime.KeepAlive(x)
}

// remapped writes x's snapshot to a file and returns an index mapping it.
func remapped(b *testing.B, x *Index) *Index {
	path := filepath.Join(b.TempDir(), "index")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(out)
	if err := x.WriteSnapshot(w); err == nil {
		err = w.Flush()
	}
	if err != nil {
		b.Fatal(err)
	}
	fi, err := out.Stat()
	if err != nil {
		b.Fatal(err)
	}
	out.Close()
	y, err := New(testConfig())
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := y.MapSnapshot(f, 0, fi.Size(), false); err != nil {
		b.Fatal(err)
	}
	return y
}
