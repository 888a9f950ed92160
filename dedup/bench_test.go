package dedup

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/internal/benchtext"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
)

// oneKB cuts real news texts (bench/dev/robust.jsonl) into ~1 KB pieces:
// 340 characters, about 1,000 bytes of UTF-8.
func oneKB(tb testing.TB) []Doc {
	f, err := os.Open(devdatatest.Path(tb, "bench", "dev", "robust.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var docs []Doc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		r := []rune(d.Text)
		for k := 0; k+300 < len(r); k += 340 {
			piece := string(r[k:min(k+340, len(r))])
			if len(piece) >= 800 {
				docs = append(docs, Doc{Text: piece})
			}
		}
	}
	if len(docs) < 5000 {
		tb.Fatalf("only %d pieces", len(docs))
	}
	return docs
}

// BenchmarkBatch1KB is offline dedup (segmentation, fingerprints, index
// lookups, verification, Single-Pass) over ~10,000 real ~1 KB texts on all
// cores; it reports documents per second. Goal: ≥ 5,000 docs/s on 2 cores.
func BenchmarkBatch1KB(b *testing.B) { benchBatch1KB(b, Options{}) }

// BenchmarkBatch1KBPartial is BenchmarkBatch1KB with the winnowing
// fingerprints of the partial-reprint rule, for its cost.
func BenchmarkBatch1KBPartial(b *testing.B) { benchBatch1KB(b, Options{PartialReprint: true}) }

func benchBatch1KB(b *testing.B, opts Options) {
	docs := oneKB(b)
	bytes := 0
	for _, d := range docs {
		bytes += len(d.Text)
		if !utf8.ValidString(d.Text) {
			b.Fatal("invalid UTF-8 piece")
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		e := testEngine(b, opts)
		kept := 0
		err := e.Batch(context.Background(), docs, func(_ int, v Verdict) error {
			if !v.Duplicate {
				kept++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		// The overlapping windows of one text are near-duplicates of each
		// other across the set's variants; a collapse or no merging at all
		// means the engine is broken.
		if kept == 0 || kept == len(docs) {
			b.Fatalf("kept %d of %d", kept, len(docs))
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(len(docs)*b.N)/el, "docs/s")
	b.ReportMetric(float64(bytes)/float64(len(docs)), "bytes/doc")
}

// BenchmarkFingerprintLong fingerprints a 4 MB text and a news article
// from the word stream (the default) and from the word list, to compare
// their time and memory (B/op).
func BenchmarkFingerprintLong(b *testing.B) {
	recs := benchtext.Robust(b)
	var sb strings.Builder
	for i := 0; sb.Len() < 4<<20; i++ {
		sb.WriteString(recs[i%len(recs)].Text)
		sb.WriteByte('\n')
	}
	e := testEngine(b, Options{})
	for _, text := range []struct{ name, text string }{{"4MB", sb.String()}, {"article", recs[0].Text}} {
		for _, tc := range []struct {
			name string
			f    func(title, text string) *Fingerprint
		}{{"stream", e.Fingerprint}, {"words", e.fingerprintWords}} {
			b.Run(text.name+"/"+tc.name, func(b *testing.B) {
				b.SetBytes(int64(len(text.text)))
				b.ReportAllocs()
				for b.Loop() {
					tc.f("", text.text)
				}
			})
		}
	}
}

// BenchmarkFingerprintArticles fingerprints the real news articles of the
// robustness set (3.3 KB each) with the import's options (the partial-reprint
// rule's winnowing prints included), one article per op: from the
// segmenter's tokens (the default) and from its words (WordSeq, the path
// of a segmenter without tokens).
func BenchmarkFingerprintArticles(b *testing.B) {
	recs := benchtext.Robust(b)
	for _, tc := range []struct {
		name   string
		tokens bool
	}{{"tokens", true}, {"words", false}} {
		b.Run(tc.name, func(b *testing.B) {
			e := testEngine(b, Options{PartialReprint: true})
			if !tc.tokens {
				e.toks, e.ante = nil, nil
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := recs[i%len(recs)]
				if fp := e.Fingerprint("", r.Text); fp.Words == 0 {
					b.Fatalf("%s: no words", r.ID)
				}
				i++
			}
		})
	}
}
