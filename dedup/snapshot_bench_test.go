package dedup_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/cputime"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
)

// BenchmarkSnapshotScale writes the snapshot of a PrefixIndex of N
// synthetic entries (fitted on NEWSCRAWL_SCALE_FP, see scale_bench_test.go)
// to a file and reads it back into a fresh index: snapshot bytes per entry,
// write and read wall time and the read's process CPU time (the file is in
// the page cache after the write). The first decision after a read needs
// no rebuild: it is timed too.
func BenchmarkSnapshotScale(b *testing.B) {
	fps := scaleFingerprints(b)
	model, err := scalecorpus.Fit(fps[:len(fps)-scaleQueries])
	if err != nil {
		b.Fatal(err)
	}
	maxN := 1000000
	if s := os.Getenv("NEWSCRAWL_SCALE_MAX"); s != "" {
		if maxN, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range []int{10000, 100000, 1000000} {
		if n > maxN {
			continue
		}
		b.Run(fmt.Sprintf("synthetic/%d", n), func(b *testing.B) { benchSnapshot(b, model, n) })
	}
}

func benchSnapshot(b *testing.B, model *scalecorpus.Model, n int) {
	x, err := dedup.NewPrefixIndex(dedup.DefaultJaccard, dedup.DefaultContainment)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	for i := range n {
		fp := model.Synth(rng, i)
		check(b, x.Add(b.Context(), dedup.Entry{ID: uint64(i + 1), Cluster: uint64(i + 1), Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash, Title: fp.Title}))
	}
	q := &dedup.Fingerprint{Signature: model.Synth(rng, n).Signature}
	candidates(b, x, q, dedup.Query{}) // builds the postings
	path := filepath.Join(b.TempDir(), "index")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	w := bufio.NewWriter(f)
	if err := x.WriteSnapshot(w); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	write := time.Since(t0)
	fi, _ := f.Stat()
	f.Close()
	x = nil
	b.ResetTimer()
	var wall, cpu, first time.Duration
	for range b.N {
		y, err := dedup.NewPrefixIndex(dedup.DefaultJaccard, dedup.DefaultContainment)
		if err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cputime.Process()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		err = y.ReadSnapshot(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		wall, cpu = wall+time.Since(t1), cpu+cputime.Process()-c1
		t2 := time.Now()
		candidates(b, y, q, dedup.Query{})
		first += time.Since(t2)
	}
	k := float64(b.N)
	b.ReportMetric(float64(fi.Size())/float64(n), "bytes/entry")
	b.ReportMetric(write.Seconds()*1000, "write-ms")
	b.ReportMetric(wall.Seconds()*1000/k, "read-ms")
	b.ReportMetric(cpu.Seconds()*1000/k, "read-cpu-ms")
	b.ReportMetric(first.Seconds()*1000/k, "first-query-ms")
}
