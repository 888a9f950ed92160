package segment

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// knownSentence and knownWords check that a benchmark really segmented.
const knownSentence = "国家发改委表示，A股上市公司的新能源项目将在2013年投产。"

var knownWords = []string{"国家", "发改委", "表示", "a股", "上市", "公司", "的", "新能源", "项目", "将", "在", "2013", "年", "投产"}

// BenchmarkLoad measures New: seconds per load, the live heap one loaded
// Segmenter holds (MB) and the process's peak RSS (MB, VmHWM; includes the
// test binary and the garbage of the b.N loads).
func BenchmarkLoad(b *testing.B) {
	heap, err := loadHeapMB()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		if got := s.Words(knownSentence); !slices.Equal(got, knownWords) {
			b.Fatalf("Words(%q) = %q, want %q", knownSentence, got, knownWords)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/load")
	b.ReportMetric(heap, "heapMB")
	b.ReportMetric(peakRSSMB(), "peakRSSMB")
}

// loadHeapMB returns the growth of the live heap caused by one New.
func loadHeapMB() (float64, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := New(Options{})
	if err != nil {
		return 0, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / 1e6, nil
}

// peakRSSMB reads VmHWM from /proc/self/status (0 where unavailable).
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1e3
		}
	}
	return 0
}

// BenchmarkWords segments the real news texts of bench/dev/robust.jsonl
// (about 1,100 characters, 3.3 KB each) and reports documents and MB per
// second on one goroutine.
func BenchmarkWords(b *testing.B) {
	recs := benchtext.Robust(b)
	s := sharedSegmenter(b)
	if got := s.Words(knownSentence); !slices.Equal(got, knownWords) {
		b.Fatalf("Words(%q) = %q, want %q", knownSentence, got, knownWords)
	}
	var bytes int
	tokens := 0
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for i := 0; i < b.N; i++ {
		r := recs[i%len(recs)]
		w := s.Words(r.Text)
		if len(w) == 0 {
			b.Fatalf("%s: no words", r.ID)
		}
		tokens += len(w)
		bytes += len(r.Text)
	}
	sec, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
	b.ReportMetric(float64(b.N)/sec, "docs/s")
	b.ReportMetric(float64(b.N)/cpu, "docs/cpu-s")
	b.ReportMetric(float64(bytes)/1e6/sec, "MB/s")
	b.ReportMetric(float64(tokens)/float64(b.N), "words/doc")
}

// BenchmarkWordsParallel is BenchmarkWords on all GOMAXPROCS goroutines
// sharing one Segmenter.
func BenchmarkWordsParallel(b *testing.B) {
	recs := benchtext.Robust(b)
	s := sharedSegmenter(b)
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r := recs[i%len(recs)]
			if len(s.Words(r.Text)) == 0 {
				b.Errorf("%s: no words", r.ID)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
	b.ReportMetric(float64(b.N)/(cpuSeconds()-cpu0), "docs/cpu-s")
}

// BenchmarkWordStreams segments the articles of the robustness set one per
// op through WordSeq and through Tokens (with the dictionary ids and stop
// flags), counting the words.
func BenchmarkWordStreams(b *testing.B) {
	recs := benchtext.Robust(b)
	s := sharedSegmenter(b)
	b.Run("WordSeq", func(b *testing.B) {
		b.ReportAllocs()
		i, n := 0, 0
		for b.Loop() {
			for range s.WordSeq(recs[i%len(recs)].Text) {
				n++
			}
			i++
		}
		b.ReportMetric(float64(n)/float64(b.N), "words/op")
	})
	b.Run("Tokens", func(b *testing.B) {
		b.ReportAllocs()
		i, n := 0, 0
		for b.Loop() {
			for t := range s.Tokens(recs[i%len(recs)].Text) {
				if !t.Stop {
					n++
				}
			}
			i++
		}
		b.ReportMetric(float64(n)/float64(b.N), "content/op")
	})
}
