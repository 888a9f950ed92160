package extract_test

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/internal/evalextract"
)

type benchPage struct {
	url, ct, truth string
	body           []byte
}

func loadBenchPages(b testing.TB) []benchPage {
	pages, err := evalextract.LoadBench(devdatatest.Path(b, "bench", "dev"), false)
	if err != nil {
		b.Fatal(err)
	}
	var out []benchPage
	for _, p := range pages {
		body, err := os.ReadFile(p.File)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, benchPage{p.URL, p.ContentType, p.Truth.Text, body})
	}
	return out
}

// BenchmarkExtract decodes and extracts every article page of the
// reprint-web dev split and reports the median ms/page.
func BenchmarkExtract(b *testing.B) {
	pages := loadBenchPages(b)
	ex, err := extract.New(extract.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pages[i%len(pages)]
		start := time.Now()
		u8, _, err := decode.ToUTF8(p.body, p.ct, "")
		if err != nil {
			b.Fatal(err)
		}
		a, err := ex.Extract(p.url, u8)
		durs = append(durs, time.Since(start))
		if err != nil {
			b.Fatalf("%s: %v", p.url, err)
		}
		if f := evalextract.BigramF1(a.Text, p.truth); f < minBenchF1 {
			b.Fatalf("%s: bigram F1 %.3f < %.2f", p.url, f, minBenchF1)
		}
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2])/1e6, "median-ms/page")
}

// minBenchF1 is the lowest per-page F1 the benchmark accepts as a correct
// extraction (it checks that the timed work is real).
const minBenchF1 = 0.8

// BenchmarkSecondOpinion measures what one go-readability second opinion
// costs (a fresh parse of the page, Readability, rendering) on the
// reprint-web dev pages, reported as the median ms per page. Extract asks
// for it only on failing blocks, close calls and missed leads (eval
// extract prints how often).
func BenchmarkSecondOpinion(b *testing.B) {
	pages := loadBenchPages(b)
	ex, err := extract.New(extract.Options{})
	if err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, len(pages))
	for i, p := range pages {
		if bodies[i], _, err = decode.ToUTF8(p.body, p.ct, ""); err != nil {
			b.Fatal(err)
		}
	}
	var durs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(pages)
		start := time.Now()
		lines := ex.SecondOpinion(pages[k].url, bodies[k])
		durs = append(durs, time.Since(start))
		if len(lines) == 0 {
			b.Fatalf("%s: no second opinion", pages[k].url)
		}
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2])/1e6, "median-ms/page")
}
