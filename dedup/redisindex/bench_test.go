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
	local *lshindex.Index   // index=local: kept current by the change feed
	redis *redisindex.Index // index=redis: shared, current by construction
	cur   postgres.Cursor
	rtt   time.Duration // time spent in the index's Candidates and Add
}

// decide is one fleet decision: lock, catch up (local index only: the
// change feed), candidates, commit, index, cursor (local only), unlock.
func (d *decider) decide(ctx context.Context, c *storage.Commit, sig []uint64) error {
	release, err := d.store.LockDecisions(ctx)
	if err != nil {
		return err
	}
	defer release()
	var x dedup.Index = d.local
	if d.redis != nil {
		x = d.redis
	} else if d.cur, err = d.store.Changes(ctx, d.cur, func(ch postgres.Change) error {
		if a := ch.Article; a != nil {
			d.local.Add(dedup.Entry{ID: uint64(a.ID), Cluster: uint64(a.ID), Simhash: a.Fingerprint.Simhash, Signature: a.Fingerprint.Signature})
		}
		return nil
	}); err != nil {
		return err
	}
	fp := &dedup.Fingerprint{Signature: sig, Simhash: c.Article.Fingerprint.Simhash, Words: len(sig)}
	t0 := time.Now()
	x.Candidates(fp, indextest.Query)
	t1 := time.Now()
	if err := d.store.Commit(ctx, c); err != nil {
		return err
	}
	t2 := time.Now()
	x.Add(dedup.Entry{ID: uint64(c.Article.ID), Cluster: uint64(c.Article.ID), Simhash: fp.Simhash, Signature: sig})
	d.rtt += t1.Sub(t0) + time.Since(t2)
	if d.redis != nil {
		if err := d.redis.Err(); err != nil {
			return err
		}
		return release()
	}
	if d.cur, err = d.store.Head(ctx); err != nil {
		return err
	}
	return release()
}

// BenchmarkDecisions: the fleet's decision rate with the index each
// process keeps (lshindex, caught up through PostgreSQL's change feed)
// and with the shared Redis index, 1, 4 and 16 deciders (each a store and
// an index of its own, as processes have), stored articles of ~1 KB with
// 100-spot signatures. Reports decisions/s, latency p50/p99 and, for
// the time in the index's Candidates and Add per decision (with Redis 3
// round trips: Candidates, and Add's frequency read and script).
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
					x.Add(dedup.Entry{ID: uint64(id), Cluster: uint64(id), Signature: sig()})
				}
				var cands int
				var tq, ta time.Duration
				b.ResetTimer()
				for i := range b.N {
					s := sig()
					t0 := time.Now()
					cands += len(x.Candidates(&dedup.Fingerprint{Signature: s, Words: 100}, indextest.Query))
					t1 := time.Now()
					id := uint64(n + 1 + i)
					x.Add(dedup.Entry{ID: id, Cluster: id, Signature: s})
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
