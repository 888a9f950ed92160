package redisindex_test

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

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/indextest"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
	"github.com/newsdedup/newscrawl/dedup/redisindex"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
)

// decider is one crawler process in BenchmarkDecisions: its own store
// (pool) and its own view of the index.
type decider struct {
	store *postgres.Store
	local *lshindex.Index   // index=local: this process's
	redis *redisindex.Index // index=redis: shared
	cur   postgres.Cursor
	rtt   time.Duration // time in the catch-up, Candidates and Add
}

// decide is one fleet decision as internal/pipeline makes it: catch up
// with the change feed (replayed into the index: for Redis, ids already
// there cost one round trip each), candidates, then CommitDecision (the
// decision lock, the tail replayed into the index), then Add.
func (d *decider) decide(ctx context.Context, c *storage.Commit, sig []uint64) error {
	var x dedup.Index = d.local
	if d.redis != nil {
		x = d.redis
	}
	apply := func(ch postgres.Change) error {
		if a := ch.Article; a != nil {
			return x.Add(ctx, dedup.Entry{ID: uint64(a.ID), Cluster: uint64(a.ID), Simhash: a.Fingerprint.Simhash, Signature: a.Fingerprint.Signature})
		}
		return nil
	}
	t0 := time.Now()
	var err error
	if d.cur, err = d.store.Changes(ctx, d.cur, apply); err != nil {
		return err
	}
	fp := &dedup.Fingerprint{Signature: sig, Simhash: c.Article.Fingerprint.Simhash, Words: len(sig)}
	if _, err := x.Candidates(ctx, fp, indextest.Query); err != nil {
		return err
	}
	d.rtt += time.Since(t0)
	if _, err := d.store.CommitDecision(ctx, &d.cur, c, func(tail []postgres.Change) (*storage.Commit, error) {
		for _, ch := range tail {
			if err := apply(ch); err != nil {
				return nil, err
			}
		}
		return c, nil
	}); err != nil {
		return err
	}
	t1 := time.Now()
	err = x.Add(ctx, dedup.Entry{ID: uint64(c.Article.ID), Cluster: uint64(c.Article.ID), Simhash: fp.Simhash, Signature: sig})
	d.rtt += time.Since(t1)
	return err
}

// BenchmarkDecisions: the fleet's decision rate with the index each
// process keeps (lshindex, caught up through PostgreSQL's change feed)
// and with the shared Redis index, 1, 4 and 16 deciders (each a store and
// an index of its own, as processes have), stored articles of ~1 KB with
// 100-spot signatures. Reports decisions/s, latency p50/p99 and the time
// per decision in the catch-up (change feed read and replayed
// into the index), Candidates and Add (with Redis: one round trip per
// replayed entry, one for Candidates, two for Add).
func BenchmarkDecisions(b *testing.B) {
	for _, index := range []string{"local", "redis"} {
		for _, n := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("index=%s/deciders=%d", index, n), func(b *testing.B) { benchDecisions(b, index, n) })
		}
	}
}

func benchDecisions(b *testing.B, index string, n int) {
	u, _ := pgtest.Schema(b, "nc_bench_")
	var prefix string
	if index == "redis" {
		_, prefix = client(b)
	}
	ctx := context.Background()
	ds := make([]*decider, n)
	for i := range ds {
		s, err := postgres.Open(ctx, u)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		ds[i] = &decider{store: s}
		if index == "redis" {
			c := newClient(b)
			ds[i].redis = newIndex(b, c, prefix)
		} else if ds[i].local, err = lshindex.New(cfg); err != nil {
			b.Fatal(err)
		}
	}
	text := strings.Repeat("新闻", 500)
	var next atomic.Int64
	lat := make([][]time.Duration, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w, d := range ds {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				sig := make([]uint64, 100)
				for k := range sig {
					sig[k] = rng.Uint64() % 20000
				}
				slices.Sort(sig)
				u := fmt.Sprintf("http://dec/%d", i)
				c := &storage.Commit{
					Page: storage.Page{URL: u, Site: "qq", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: time.Now()},
					Article: &storage.Article{URL: u, Site: "qq", RunID: 1, Title: "标题", Text: text, FetchedAt: time.Now(),
						ContentHash: "ab", Fingerprint: storage.Fingerprint{Simhash: rng.Uint64(), Signature: sig, Length: len(sig)}},
					Terms: []string{"共同", fmt.Sprintf("t%d", i)},
				}
				t0 := time.Now()
				if err := d.decide(ctx, c, sig); err != nil {
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
	var rtt time.Duration
	for w, l := range lat {
		all = append(all, l...)
		rtt += ds[w].rtt
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "decisions/s")
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(rtt.Microseconds())/1000/float64(len(all)), "index-ms/decision")
	}
}

// BenchmarkIndex: one Candidates and one Add on the shared index holding
// n entries (100-spot signatures over a 20,000-spot vocabulary), so that
// the per-decision Redis cost is seen against the corpus size; the same
// for lshindex in process.
func BenchmarkIndex(b *testing.B) {
	for _, index := range []string{"local", "redis"} {
		for _, n := range []int{1000, 8000} {
			b.Run(fmt.Sprintf("index=%s/entries=%d", index, n), func(b *testing.B) {
				var x dedup.Index
				if index == "redis" {
					rdb, prefix := client(b)
					x = newIndex(b, rdb, prefix)
				} else {
					l, err := lshindex.New(cfg)
					if err != nil {
						b.Fatal(err)
					}
					x = l
				}
				rng := rand.New(rand.NewPCG(3, 3))
				sig := func() []uint64 {
					s := make([]uint64, 100)
					for k := range s {
						s[k] = rng.Uint64() % 20000
					}
					slices.Sort(s)
					return s
				}
				for id := 1; id <= n; id++ {
					if err := x.Add(b.Context(), dedup.Entry{ID: uint64(id), Cluster: uint64(id), Signature: sig()}); err != nil {
						b.Fatal(err)
					}
				}
				var cands int
				var tq, ta time.Duration
				b.ResetTimer()
				for i := range b.N {
					s := sig()
					t0 := time.Now()
					cs, err := x.Candidates(b.Context(), &dedup.Fingerprint{Signature: s, Words: 100}, indextest.Query)
					if err != nil {
						b.Fatal(err)
					}
					cands += len(cs)
					t1 := time.Now()
					id := uint64(n + 1 + i)
					if err := x.Add(b.Context(), dedup.Entry{ID: id, Cluster: id, Signature: s}); err != nil {
						b.Fatal(err)
					}
					ta += time.Since(t1)
					tq += t1.Sub(t0)
				}
				b.ReportMetric(float64(tq.Microseconds())/float64(b.N), "candidates-µs")
				b.ReportMetric(float64(ta.Microseconds())/float64(b.N), "add-µs")
				b.ReportMetric(float64(cands)/float64(b.N), "candidates/op")
			})
		}
	}
}
