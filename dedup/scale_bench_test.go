package dedup_test

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
	"github.com/newsdedup/newscrawl/internal/cputime"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// The scale benchmarks measure one near-duplicate decision (Engine.Decide:
// candidates and verification; the page's own fingerprinting excluded)
// against an index of N articles. They need the fingerprints of a gen.py
// corpus (../shared/bench/scale), computed once with
// `newscrawl-lab eval scale --fingerprints OUT` and named by the environment
// variable NEWSCRAWL_SCALE_FP; without it they are skipped. Sizes beyond the
// real corpus use synthetic signatures fitted on it (internal/scalecorpus);
// NEWSCRAWL_SCALE_MAX (default 1000000) bounds the largest size.

const scaleQueries = 2000

var (
	scaleOnce sync.Once
	scaleFPs  []*dedup.Fingerprint
	scaleErr  error
)

func scaleFingerprints(b *testing.B) []*dedup.Fingerprint {
	path := os.Getenv("NEWSCRAWL_SCALE_FP")
	if path == "" {
		b.Skip("NEWSCRAWL_SCALE_FP is not set: no scale fingerprints (see scale_bench_test.go)")
	}
	scaleOnce.Do(func() {
		f, err := os.Open(path)
		if err != nil {
			scaleErr = err
			return
		}
		defer f.Close()
		scaleErr = scalecorpus.Read(f, func(fp *dedup.Fingerprint) bool {
			scaleFPs = append(scaleFPs, fp)
			return true
		})
	})
	if scaleErr != nil {
		b.Fatal(scaleErr)
	}
	if len(scaleFPs) < 10000+scaleQueries {
		b.Fatalf("%d fingerprints in %s, need at least %d", len(scaleFPs), path, 10000+scaleQueries)
	}
	return scaleFPs
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkDecideScale reports, per size and index, the median and p99
// CPU time of one decision (µs; the calling thread's CPU clock, so that a
// loaded machine does not inflate it) and the median wall time,
// candidates verified per decision, heap bytes per indexed article and the
// CPU time to index them (synthetic signatures are generated in the same
// loop, so their build time includes generation).
func BenchmarkDecideScale(b *testing.B) {
	maxN := 1000000
	if s := os.Getenv("NEWSCRAWL_SCALE_MAX"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("NEWSCRAWL_SCALE_MAX: %v", err)
		}
		maxN = n
	}
	type size struct {
		n         int
		synthetic bool
		index     string
	}
	var sizes []size
	for _, n := range []int{10000, 40000, 100000} {
		sizes = append(sizes, size{n, false, "prefix"}, size{n, false, "lsh"}, size{n, false, "exhaustive"})
	}
	for _, n := range []int{10000, 100000, 1000000, 3000000, 10000000} {
		sizes = append(sizes, size{n, true, "prefix"}, size{n, true, "lsh"})
	}
	for _, sz := range sizes {
		kind := "real"
		if sz.synthetic {
			kind = "synthetic"
		}
		b.Run(fmt.Sprintf("%s-%s-%d", kind, sz.index, sz.n), func(b *testing.B) {
			if sz.n > maxN {
				b.Skipf("size %d above NEWSCRAWL_SCALE_MAX=%d", sz.n, maxN)
			}
			fps := scaleFingerprints(b)
			if !sz.synthetic && sz.n+scaleQueries > len(fps) {
				b.Skipf("%d real fingerprints, need %d", len(fps), sz.n+scaleQueries)
			}
			benchDecide(b, fps, sz.n, sz.synthetic, sz.index)
		})
	}
}

func benchDecide(b *testing.B, fps []*dedup.Fingerprint, n int, synthetic bool, index string) {
	opts := dedup.Options{}
	if index == "exhaustive" {
		opts.NewIndex = dedup.NewExhaustiveIndex
	}
	var prefix *dedup.PrefixIndex
	var lsh *lshindex.Index
	var err error
	switch index {
	case "prefix":
		if prefix, err = dedup.NewPrefixIndex(dedup.DefaultJaccard, dedup.DefaultContainment); err != nil {
			b.Fatal(err)
		}
		opts.Index = prefix
	case "lsh":
		lsh, err = lshindex.New(lshindex.Config{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment, MinContainment: dedup.MinContainmentSpots})
		if err != nil {
			b.Fatal(err)
		}
		opts.Index = lsh
	}
	eng := testEngineB(b, opts)
	held := fps[len(fps)-scaleQueries:]
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	var model *scalecorpus.Model
	if synthetic {
		var err error
		if model, err = scalecorpus.Fit(fps[:len(fps)-scaleQueries]); err != nil {
			b.Fatal(err)
		}
		b.Logf("model: %s", model)
	}
	h0 := heapInUse()
	runtime.LockOSThread()
	t0 := cputime.Thread()
	var sample []*dedup.Fingerprint // indexed entries that near-duplicate queries copy
	for i := range n {
		fp := fps[i%len(fps)]
		if synthetic {
			fp = model.Synth(rng, i)
		}
		check(b, eng.Add(b.Context(), uint64(i+1), 0, fp))
		if i%(n/200) == 0 {
			sample = append(sample, fp)
		}
	}
	// The first decision builds the postings of a bulk load: count it in
	// the build, before the heap is measured.
	decide(b, eng, fps[len(fps)-1])
	build := cputime.Thread() - t0
	runtime.UnlockOSThread()
	h1 := heapInUse()
	perArticle := float64(h1-min(h0, h1)) / float64(n)
	// Queries: fresh articles, and one in ten a reprint of an indexed one
	// with 20 % of its spots changed.
	queries := make([]*dedup.Fingerprint, scaleQueries)
	for i := range queries {
		switch {
		case i%10 == 9 && synthetic:
			queries[i] = model.NearDuplicate(rng, sample[rng.IntN(len(sample))], 0.2)
		case i%10 == 9:
			queries[i] = nearDupReal(rng, sample[rng.IntN(len(sample))], held[i])
		case synthetic:
			queries[i] = model.Synth(rng, n+i)
		default:
			queries[i] = held[i]
		}
	}
	// Latency is measured as the decision's thread CPU time (the machine
	// these figures come from is shared) and as wall time.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lat := make([]time.Duration, 0, scaleQueries)
	wall := make([]time.Duration, 0, scaleQueries)
	cands, dups := 0, 0
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		t, c := time.Now(), cputime.Thread()
		v := decide(b, eng, q)
		cpu, el := cputime.Thread()-c, time.Since(t)
		if len(lat) < cap(lat) {
			lat = append(lat, cpu)
			wall = append(wall, el)
		}
		cands += v.Candidates
		if v.Duplicate {
			dups++
		}
		i++
	}
	slices.Sort(lat)
	if prefix != nil {
		var st spotsigs.ProbeStats
		for _, q := range queries {
			s := prefix.Probe(q)
			st.Postings += s.Postings
			st.Met += s.Met
		}
		b.ReportMetric(float64(st.Postings)/float64(len(queries)), "postings/decision")
		b.ReportMetric(float64(st.Met)/float64(len(queries)), "met/decision")
	}
	if lsh != nil {
		var st lshindex.Probe
		hits := make([]int, 0, len(queries)) // band hits of each query
		// A checksum of every query's proposed candidates (ids, sorted):
		// equal between two builds when they propose the same candidates.
		sum, proposed := fnv.New64a(), 0
		for _, q := range queries {
			ids := slices.Sorted(maps.Keys(lsh.CandidatePaths(q, dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment})))
			proposed += len(ids)
			for _, id := range ids {
				fmt.Fprintf(sum, "%d,", id)
			}
			fmt.Fprint(sum, ";")
		}
		b.Logf("proposed candidates: %d, checksum %016x", proposed, sum.Sum64())
		for _, q := range queries {
			s := lsh.ProbeStats(q)
			hits = append(hits, s.LSH)
			st.LSH += s.LSH
			st.Head += s.Head
			st.Met += s.Met
			st.Bitmap += s.Bitmap
			st.Sketch += s.Sketch
			st.HeadLong += s.HeadLong
			st.Checked += s.Checked
		}
		nq := float64(len(queries))
		b.ReportMetric(float64(st.LSH)/nq, "lsh-hits/decision")
		slices.Sort(hits)
		b.ReportMetric(float64(hits[len(hits)*99/100]), "lsh-hits-p99")
		b.ReportMetric(float64(st.Head)/nq, "head-postings/decision")
		b.ReportMetric(float64(st.Met)/nq, "met/decision")
		b.ReportMetric(float64(st.HeadLong)/nq, "head-long-postings/decision")
		b.ReportMetric(float64(st.Checked)/nq, "checked/decision")
		b.ReportMetric(float64(st.Sketch)/nq, "sketch-dropped/decision")
		b.ReportMetric(float64(st.Bitmap)/nq, "bitmap-dropped/decision")
		xs := lsh.Stats()
		b.Logf("lsh index: %+v", xs)
	}
	slices.Sort(wall)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "cpu-µs-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "cpu-µs-p99")
	b.ReportMetric(float64(wall[len(wall)/2].Nanoseconds())/1e3, "wall-µs-p50")
	b.ReportMetric(float64(cands)/float64(i), "cands/decision")
	b.ReportMetric(float64(dups)/float64(i), "dup-share")
	b.ReportMetric(perArticle, "heapB/article")
	b.ReportMetric(build.Seconds(), "build-cpu-s")
}

// nearDupReal makes a reprint of a real indexed article: 20 % of its spots
// replaced by spots of an unrelated real article.
func nearDupReal(rng *rand.Rand, fp, other *dedup.Fingerprint) *dedup.Fingerprint {
	out := *fp
	out.Signature = slices.Clone(fp.Signature)
	for i := range out.Signature {
		if rng.Float64() < 0.2 && len(other.Signature) > 0 {
			out.Signature[i] = other.Signature[rng.IntN(len(other.Signature))]
		}
	}
	slices.Sort(out.Signature)
	out.Hash[0] ^= 1
	return &out
}

// segStub is a segmenter for engines that only receive fingerprints.
type segStub struct{}

func (segStub) Words(string) []string { return nil }
func (segStub) IsStop(string) bool    { return false }

func testEngineB(b *testing.B, opts dedup.Options) *dedup.Engine {
	e, err := dedup.New(segStub{}, opts)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkLSHAnchor is the MinHash-LSH anchor: for banding with r rows
// per band and the fewest bands b that make a pair at Jaccard τ = 0.35 a
// candidate with probability ≥ 0.995, it reports the probability that an
// unrelated pair collides, 1−(1−J^r)^b averaged over the Jaccard of
// 200,000 random pairs of scale fingerprints, as candidates per decision
// at 1 M indexed articles, and the band keys' memory (b × 8 bytes per
// article). One op is the whole computation.
func BenchmarkLSHAnchor(b *testing.B) {
	fps := scaleFingerprints(b)
	rng := rand.New(rand.NewPCG(1, 1))
	js := make([]float64, 200000)
	for i := range js {
		x, y := fps[rng.IntN(len(fps))], fps[rng.IntN(len(fps))]
		js[i] = spotsigs.Jaccard(x.Signature, y.Signature)
	}
	for _, r := range []int{1, 2, 3, 4, 5, 6} {
		b.Run(fmt.Sprintf("r=%d", r), func(b *testing.B) {
			pr := math.Pow(dedup.DefaultJaccard, float64(r))
			bands := int(math.Ceil(math.Log(0.005) / math.Log(1-pr)))
			var p float64
			for b.Loop() {
				p = 0
				for _, j := range js {
					p += 1 - math.Pow(1-math.Pow(j, float64(r)), float64(bands))
				}
				p /= float64(len(js))
			}
			b.ReportMetric(float64(bands), "bands")
			b.ReportMetric(p*1e6, "cands/decision@1M")
			b.ReportMetric(float64(bands*8), "keyB/article")
		})
	}
}
