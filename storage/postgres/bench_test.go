package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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

// BenchmarkDecisions measures the fleet's decision rate through the shared
// decision protocols, each decider a store of its own as a process has,
// each decision a stored article's commit:
//
//   - protocol=lock (the first version): take the session decision lock,
//     read the change feed since the cursor, commit, read the head, unlock;
//     the lock is held for all of it.
//   - protocol=optimistic (the pipeline's sharedDecisions): read the change
//     feed since the cursor without the lock, then CommitDecision: the URL
//     check, the transaction-scoped decision lock, the tail since the
//     cursor (one round trip), the re-check (here: keep the verdict) and
//     the writes.
//
// The engine's own Decide (in memory, microseconds) is left out. Reports
// decisions/s, the p50/p99 latency of one decision (lock wait included)
// and, for the optimistic protocol, the share of decisions whose commit
// found a non-empty tail (a re-check) and the mean tail length.
func BenchmarkDecisions(b *testing.B) {
	for _, protocol := range []string{"lock", "optimistic"} {
		for _, deciders := range []int{1, 2, 3, 4, 16} {
			b.Run(fmt.Sprintf("protocol=%s/deciders=%d", protocol, deciders), func(b *testing.B) {
				benchDecisions(b, deciders, protocol == "optimistic")
			})
		}
	}
}

func benchDecisions(b *testing.B, deciders int, optimistic bool) {
	u, _ := freshSchema(b)
	ctx := context.Background()
	stores := make([]*postgres.Store, deciders)
	for i := range stores {
		stores[i] = openStore(b, u)
	}
	text := strings.Repeat("新闻", benchTextRunes/2)
	var next, rechecks, tailEntries atomic.Int64
	lat := make([][]time.Duration, deciders)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w, s := range stores {
		wg.Go(func() {
			var cur postgres.Cursor
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				c := storedCommit(fmt.Sprintf("http://dec/%d", i), "共同", fmt.Sprintf("t%d", i))
				c.Article.Text = text
				t0 := time.Now()
				var err error
				if optimistic {
					cur, err = s.Changes(ctx, cur, func(postgres.Change) error { return nil })
					if err == nil {
						_, err = s.CommitDecision(ctx, &cur, c, func(tail []postgres.Change) (*storage.Commit, error) {
							rechecks.Add(1)
							tailEntries.Add(int64(len(tail)))
							return c, nil
						})
					}
				} else {
					cur, err = lockedDecision(ctx, s, cur, c)
				}
				if err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "decisions/s")
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
		if optimistic {
			b.ReportMetric(float64(rechecks.Load())/float64(len(all)), "recheck-share")
			b.ReportMetric(float64(tailEntries.Load())/float64(len(all)), "tail-entries")
		}
	}
}

// lockedDecision is one decision of the first protocol: the session
// decision lock held for the feed, the commit and the head.
func lockedDecision(ctx context.Context, s *postgres.Store, cur postgres.Cursor, c *storage.Commit) (postgres.Cursor, error) {
	release, err := s.LockDecisions(ctx)
	if err != nil {
		return cur, err
	}
	cur, err = s.Changes(ctx, cur, func(postgres.Change) error { return nil })
	if err == nil {
		err = s.Commit(ctx, c)
	}
	if err == nil {
		cur, err = s.Head(ctx)
	}
	if rerr := release(); err == nil {
		err = rerr
	}
	return cur, err
}
