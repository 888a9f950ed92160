package sqlite_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// Benchmark corpus shape: ~1 KB of real Chinese article text with 300
// distinct terms each (the lead's sizing for a typical stored article).
const (
	benchTextBytes = 1024
	benchTerms     = 300
	benchMinDocs   = 50
)

type benchDoc struct {
	title, text string
	terms       []string
	sig         []uint64
}

// loadBenchDocs reads real article texts from the benchmark's ground truth,
// cut to benchTextBytes, with their first benchTerms distinct character
// bigrams as terms (a stand-in for segmenter output of the same count).
func loadBenchDocs(b *testing.B) []benchDoc {
	path := devdatatest.Path(b, "bench", "dev", "truth.jsonl")
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var docs []benchDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		text := rec.Text
		if len(text) > benchTextBytes {
			cut := benchTextBytes
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut]
		}
		runes := []rune(rec.Text)
		seen := map[string]bool{}
		var terms []string
		for i := 0; i+1 < len(runes) && len(terms) < benchTerms; i++ {
			t := string(runes[i : i+2])
			if !seen[t] {
				seen[t] = true
				terms = append(terms, t)
			}
		}
		if len(terms) < benchTerms || len(text) < benchTextBytes-4 {
			continue
		}
		sig := make([]uint64, 0, len(terms)/3)
		for i := 0; i < len(terms); i += 3 {
			h := fnv.New64a()
			h.Write([]byte(terms[i]))
			sig = append(sig, h.Sum64())
		}
		sort.Slice(sig, func(i, j int) bool { return sig[i] < sig[j] })
		docs = append(docs, benchDoc{title: rec.Title, text: text, terms: terms, sig: sig})
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	if len(docs) < benchMinDocs {
		b.Fatalf("%s: only %d articles of %d bytes with %d terms", path, len(docs), benchTextBytes, benchTerms)
	}
	return docs
}

// processCPU returns the CPU time (user+system) the process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchCommit(i int, d benchDoc) *storage.Commit {
	url := fmt.Sprintf("http://bench/%d", i)
	now := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	return &storage.Commit{
		Page: storage.Page{URL: url, Site: "bench", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: now},
		Article: &storage.Article{
			URL: url, Site: "bench", RunID: 1, Title: d.title, Text: d.text, PublishedAt: now, FetchedAt: now,
			ContentHash: fmt.Sprintf("%064x", i),
			Fingerprint: storage.Fingerprint{Simhash: uint64(i) * 0x9e3779b97f4a7c15, Signature: d.sig, Length: len(d.terms)},
		},
		Terms: d.terms,
	}
}

// BenchmarkCommit measures stored-article commits (page + article + 300
// document-frequency updates + docs counter, one transaction each) on an
// SQLite file, and checks afterwards that every one of them was counted.
func BenchmarkCommit(b *testing.B) {
	docs := loadBenchDocs(b)
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Commit(ctx, benchCommit(i, docs[i%len(docs)])); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	// On a shared machine wall time varies with the others' load; the
	// process's CPU time (user+system, all threads) varies much less.
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")

	dfs := map[string]int{}
	n, err := s.DocFreqs(ctx, func(term string, df int) error { dfs[term] = df; return nil })
	if err != nil {
		b.Fatal(err)
	}
	want := map[string]int{}
	for i := 0; i < b.N; i++ {
		for _, t := range docs[i%len(docs)].terms {
			want[t]++
		}
	}
	if n != b.N || len(dfs) != len(want) {
		b.Fatalf("after %d commits: docs %d, %d terms; want %d terms", b.N, n, len(dfs), len(want))
	}
	for t, df := range want {
		if dfs[t] != df {
			b.Fatalf("df(%q) = %d, want %d", t, dfs[t], df)
		}
	}
	last := b.N - 1
	a, err := s.ArticleByURL(ctx, fmt.Sprintf("http://bench/%d", last))
	if err != nil || a.Text != docs[last%len(docs)].text || len(a.Fingerprint.Signature) != len(docs[last%len(docs)].sig) {
		b.Fatalf("last article read back wrong: %v", err)
	}
}
