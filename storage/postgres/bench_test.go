package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// Synthetic article shape for the commit benchmark: ~1 KB of text and 300
// distinct terms drawn from a vocabulary, so that document frequencies are
// shared between articles as in a real corpus.
const (
	benchTextRunes = 340 // 3 bytes each in UTF-8
	benchTerms     = 300
	benchVocab     = 20000
)

// BenchmarkCommit measures stored-article commits per second with 1, 4 and
// 16 committers split over two stores (two pools, as two processes). Every
// commit takes the docs counter row, so committers serialise on it for the
// end of their transaction.
func BenchmarkCommit(b *testing.B) {
	for _, committers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("committers=%d", committers), func(b *testing.B) {
			u, _ := freshSchema(b)
			ctx := context.Background()
			stores := []*postgres.Store{openStore(b, u), openStore(b, u)}
			rng := rand.New(rand.NewPCG(1, 2))
			text := strings.Repeat("新闻", benchTextRunes/2)
			vocab := make([]string, benchVocab)
			for i := range vocab {
				vocab[i] = fmt.Sprintf("词%d", i)
			}
			commits := make([]*storage.Commit, b.N)
			for i := range commits {
				terms := make([]string, benchTerms)
				for k := range terms {
					terms[k] = vocab[rng.IntN(benchVocab)]
				}
				c := storedCommit(fmt.Sprintf("http://bench/%d", i), terms...)
				c.Article.Text = text
				c.Article.Fingerprint.Signature = make([]uint64, 120)
				commits[i] = c
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for w := range committers {
				s := stores[w%2]
				wg.Go(func() {
					for {
						i := next.Add(1) - 1
						if i >= int64(b.N) {
							return
						}
						if err := s.Commit(ctx, commits[i]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
		})
	}
}
