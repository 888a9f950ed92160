package lshindex

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/cputime"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
)

// BenchmarkMapScale builds an index of N synthetic entries (the model of
// internal/scalecorpus fitted on the fingerprints in NEWSCRAWL_SCALE_FP),
// writes its snapshot to a file and measures, per start-up: mapping it
// (the crawl's structural check) and reading it (the full check, as
// `check` and the old load did), wall and process CPU, and the first
// query after a mapping; then, after 2,000 more entries, the bytes and
// time of their delta against those of the whole snapshot. Sizes:
// NEWSCRAWL_MAP_SIZES (comma-separated, default 10000,100000).
func BenchmarkMapScale(b *testing.B) {
	model := scaleModel(b)
	for _, n := range benchSizes(b, "NEWSCRAWL_MAP_SIZES", "10000,100000") {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchMap(b, model, n) })
	}
}

// scaleModel is the model of internal/scalecorpus fitted on the
// fingerprints in NEWSCRAWL_SCALE_FP; the benchmark is skipped without it.
func scaleModel(b *testing.B) *scalecorpus.Model {
	b.Helper()
	path := os.Getenv("NEWSCRAWL_SCALE_FP")
	if path == "" {
		b.Skip("NEWSCRAWL_SCALE_FP is not set: no scale fingerprints")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	var fps []*dedup.Fingerprint
	err = scalecorpus.Read(f, func(fp *dedup.Fingerprint) bool { fps = append(fps, fp); return true })
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	model, err := scalecorpus.Fit(fps)
	if err != nil {
		b.Fatal(err)
	}
	return model
}

// benchSizes are the index sizes in the comma-separated variable env,
// def when it is not set.
func benchSizes(b *testing.B, env, def string) []int {
	b.Helper()
	sizes := cmp.Or(os.Getenv(env), def)
	var ns []int
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("%s: %v", env, err)
		}
		ns = append(ns, n)
	}
	return ns
}

func synthEntry(model *scalecorpus.Model, rng *rand.Rand, i int) dedup.Entry {
	fp := model.Synth(rng, i)
	return dedup.Entry{ID: uint64(i + 1), Cluster: uint64(i + 1), Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash, Title: fp.Title}
}

func benchMap(b *testing.B, model *scalecorpus.Model, n int) {
	x, err := New(testConfig())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	for i := range n {
		x.Add(b.Context(), synthEntry(model, rng, i))
	}
	path := filepath.Join(b.TempDir(), "index")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	w := bufio.NewWriter(out)
	if err := x.WriteSnapshot(w); err == nil {
		err = w.Flush()
	}
	if err != nil {
		b.Fatal(err)
	}
	write := time.Since(t0)
	fi, _ := out.Stat()
	out.Close()
	x = nil
	q := model.Synth(rng, n)
	var mapWall, mapCPU, readWall, readCPU, first time.Duration
	var y *Index
	b.ResetTimer()
	for range b.N {
		for _, verify := range []bool{false, true} {
			y, _ = New(testConfig())
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			t1, c1 := time.Now(), cputime.Process()
			err = y.MapSnapshot(f, 0, fi.Size(), verify)
			d, c := time.Since(t1), cputime.Process()-c1
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			if verify {
				readWall, readCPU = readWall+d, readCPU+c
				continue
			}
			mapWall, mapCPU = mapWall+d, mapCPU+c
			t2 := time.Now()
			y.Candidates(b.Context(), q, dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment})
			first += time.Since(t2)
		}
	}
	b.StopTimer()
	for i := range 2000 {
		y.Add(b.Context(), synthEntry(model, rng, n+1+i))
	}
	var delta bytes.Buffer
	t3 := time.Now()
	if err := y.WriteDelta(&delta); err != nil {
		b.Fatal(err)
	}
	deltaTime := time.Since(t3)
	k := float64(b.N)
	b.ReportMetric(float64(fi.Size())/1e6, "snapshot-MB")
	b.ReportMetric(write.Seconds()*1000, "write-ms")
	b.ReportMetric(mapWall.Seconds()*1000/k, "map-ms")
	b.ReportMetric(mapCPU.Seconds()*1000/k, "map-cpu-ms")
	b.ReportMetric(first.Seconds()*1000/k, "first-query-ms")
	b.ReportMetric(readWall.Seconds()*1000/k, "verify-ms")
	b.ReportMetric(readCPU.Seconds()*1000/k, "verify-cpu-ms")
	b.ReportMetric(float64(delta.Len())/1e6, "delta-2000-MB")
	b.ReportMetric(deltaTime.Seconds()*1000, "delta-write-ms")
}
