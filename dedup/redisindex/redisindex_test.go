package redisindex_test

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/indextest"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
	"github.com/newsdedup/newscrawl/dedup/redisindex"
	"github.com/newsdedup/newscrawl/spotsigs"
)

const envURL = "NEWSCRAWL_TEST_REDIS"

var cfg = lshindex.Config{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment, MinContainment: dedup.MinContainmentSpots}

// client returns a client of the test server and a fresh prefix whose
// keys are deleted at the end of the test; without a server the test
// skips, or fails when CI is set.
func client(t testing.TB) (*redis.Client, string) {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		msg := envURL + " is not set: no Redis server to test against (start one with `eval \"$(.ci/services.sh)\"`)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	var rnd [6]byte
	_, _ = crand.Read(rnd[:])
	prefix := "nctest:idx:" + hex.EncodeToString(rnd[:]) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		for len(keys) > 0 {
			n := min(len(keys), 1000)
			if err := rdb.Del(ctx, keys[:n]...).Err(); err != nil {
				t.Errorf("deleting the test keys: %v", err)
				break
			}
			keys = keys[n:]
		}
		rdb.Close()
	})
	return rdb, prefix
}

// newClient returns another client of the test server (another process's).
func newClient(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(os.Getenv(envURL))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

func newIndex(t testing.TB, rdb *redis.Client, prefix string) *redisindex.Index {
	t.Helper()
	x, err := redisindex.New(context.Background(), rdb, prefix, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func candidates(tb testing.TB, x dedup.Index, fp *dedup.Fingerprint, q dedup.Query) []*dedup.Entry {
	tb.Helper()
	cs, err := x.Candidates(tb.Context(), fp, q)
	check(tb, err)
	return cs
}

func count(tb testing.TB, x *redisindex.Index) int {
	tb.Helper()
	n, err := x.Count(tb.Context())
	check(tb, err)
	return n
}

func TestConformance(t *testing.T) {
	indextest.Run(t, func(t *testing.T) dedup.Index {
		rdb, prefix := client(t)
		return newIndex(t, rdb, prefix)
	})
}

func sig(rng *rand.Rand, n int) spotsigs.Signature {
	s := make(spotsigs.Signature, n)
	for i := range s {
		s[i] = rng.Uint64() % 5000 // a small vocabulary: repeats, shared spots
	}
	slices.Sort(s)
	return s
}

// TestSameAsLSHIndex adds the same entries to an lshindex.Index and a
// redisindex.Index and checks that both propose the same candidates for
// near-duplicates, briefs and long stories: the shared index stores the
// LSH stage's keys and applies its filters.
func TestSameAsLSHIndex(t *testing.T) {
	rdb, prefix := client(t)
	x := newIndex(t, rdb, prefix)
	l, err := lshindex.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var sigs []spotsigs.Signature
	for id := uint64(1); id <= 400; id++ {
		var s spotsigs.Signature
		switch {
		case id > 10 && id%5 == 0: // a part of an earlier entry
			p := sigs[rng.IntN(len(sigs))]
			s = slices.Clone(p[:max(len(p)/(2+rng.IntN(4)), 1)])
		case id > 10 && id%5 == 1: // an earlier entry and more
			s = append(slices.Clone(sigs[rng.IntN(len(sigs))]), sig(rng, 20+rng.IntN(200))...)
			slices.Sort(s)
		default:
			s = sig(rng, 5+rng.IntN(300))
		}
		sigs = append(sigs, s)
		e := dedup.Entry{ID: id, Cluster: id, Signature: s, Simhash: id, Title: []uint64{id}}
		check(t, l.Add(t.Context(), e))
		check(t, x.Add(t.Context(), e))
	}
	if x.Len() != l.Len() {
		t.Fatalf("Len %d, lshindex %d", x.Len(), l.Len())
	}
	q := indextest.Query
	total := 0
	for i, s := range sigs {
		for _, qs := range []spotsigs.Signature{s, s[:len(s)/2], append(slices.Clone(s), sig(rng, len(s)/3)...)} {
			slices.Sort(qs)
			fp := &dedup.Fingerprint{Signature: qs, Words: 1}
			want := ids(candidates(t, l, fp, q))
			got := ids(candidates(t, x, fp, q))
			total += len(got)
			if !slices.Equal(got, want) {
				t.Errorf("query %d of %d spots: candidates %v, lshindex %v", i, len(qs), got, want)
			}
		}
	}
	t.Logf("%d candidates over %d queries", total, 3*len(sigs))
	if total == 0 {
		t.Fatal("no candidates at all: the comparison tested nothing")
	}
}

func ids(es []*dedup.Entry) []uint64 {
	out := []uint64{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

// TestTwoProcesses: two Index values on one prefix (two processes) see
// each other's entries, removals and merges.
func TestTwoProcesses(t *testing.T) {
	rdb, prefix := client(t)
	other := newClient(t)
	a, b := newIndex(t, rdb, prefix), newIndex(t, other, prefix)
	rng := rand.New(rand.NewPCG(8, 8))
	s1, s2 := sig(rng, 80), sig(rng, 80)
	check(t, a.Add(t.Context(), dedup.Entry{ID: 1, Cluster: 1, Signature: s1, Prints: []uint64{5, 6}, ContentWords: 40}))
	check(t, b.Add(t.Context(), dedup.Entry{ID: 2, Cluster: 2, Signature: s2}))
	check(t, b.Add(t.Context(), dedup.Entry{ID: 1, Cluster: 1, Signature: s2})) // already added by a: ignored
	for name, x := range map[string]*redisindex.Index{"a": a, "b": b} {
		t.Run("sees_both_"+name, func(t *testing.T) {
			if n := count(t, x); n != 2 || x.Len() != 2 {
				t.Errorf("Count = %d, Len = %d, want 2", n, x.Len())
			}
			c := candidates(t, x, &dedup.Fingerprint{Signature: s1, Words: 1}, indextest.Query)
			if got := ids(c); !slices.Equal(got, []uint64{1}) {
				t.Fatalf("candidates of entry 1's signature: %v", got)
			}
			if !slices.Equal(c[0].Prints, []uint64{5, 6}) || c[0].ContentWords != 40 {
				t.Errorf("entry 1 read back as %+v", c[0])
			}
			if got := ids(candidates(t, x, &dedup.Fingerprint{Signature: s2, Words: 1}, indextest.Query)); !slices.Equal(got, []uint64{2}) {
				t.Errorf("candidates of entry 2's signature: %v", got)
			}
		})
	}
	check(t, a.MergeClusters(t.Context(), 1, []uint64{2}))
	if got, err := b.ClusterOf(t.Context(), 2); err != nil || got != 1 {
		t.Errorf("b: ClusterOf(2) = %d, %v after a merged 2 into 1", got, err)
	}
	if c := candidates(t, b, &dedup.Fingerprint{Signature: s2, Words: 1}, indextest.Query); len(c) != 1 || c[0].Cluster != 1 {
		t.Errorf("b: entry 2 returned as %+v, want cluster 1", c)
	}
	check(t, b.Remove(t.Context(), 1))
	if got := ids(candidates(t, a, &dedup.Fingerprint{Signature: s1, Words: 1}, indextest.Query)); len(got) != 0 || count(t, a) != 1 {
		t.Errorf("a: candidates %v, Len %d after b removed entry 1", got, a.Len())
	}
}

// TestErrorsSurface: a Redis failure is an error of the call that met it,
// never taken as "no candidates" silently, and it fails the decision of an
// engine over the index.
func TestErrorsSurface(t *testing.T) {
	rdb, prefix := client(t)
	c := newClient(t)
	x, err := redisindex.New(t.Context(), c, prefix, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	s := sig(rng, 50)
	check(t, x.Add(t.Context(), dedup.Entry{ID: 1, Cluster: 1, Signature: s}))
	fp := &dedup.Fingerprint{Signature: s, Words: 1}
	t.Run("cancelled_context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if got, err := x.Candidates(ctx, fp, indextest.Query); !errors.Is(err, context.Canceled) {
			t.Errorf("candidates %v, error %v with a cancelled context", got, err)
		}
		if _, err := x.Candidates(t.Context(), fp, indextest.Query); err != nil {
			t.Errorf("a cancelled call left the index failing: %v", err)
		}
	})
	c.Close()
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"candidates", func(ctx context.Context) error {
			got, err := x.Candidates(ctx, fp, indextest.Query)
			if got != nil {
				t.Errorf("candidates %v from a closed client", got)
			}
			return err
		}},
		{"add", func(ctx context.Context) error { return x.Add(ctx, dedup.Entry{ID: 2, Cluster: 2, Signature: s}) }},
		{"remove", func(ctx context.Context) error { return x.Remove(ctx, 1) }},
		{"merge_clusters", func(ctx context.Context) error { return x.MergeClusters(ctx, 1, []uint64{2}) }},
		{"cluster_of", func(ctx context.Context) error { _, err := x.ClusterOf(ctx, 2); return err }},
		{"count", func(ctx context.Context) error { _, err := x.Count(ctx); return err }},
		{"engine_decide", func(ctx context.Context) error {
			eng, err := dedup.New(fields{}, dedup.Options{Index: x})
			if err != nil {
				t.Fatal(err)
			}
			v, err := eng.Decide(ctx, eng.Fingerprint("bridge", "the bridge opened on monday and the city said there was less traffic"))
			if err == nil {
				t.Errorf("verdict %+v from a closed client", v)
			}
			return err
		}},
	} {
		t.Run("closed_client_"+tc.name, func(t *testing.T) {
			if err := tc.call(t.Context()); !errors.Is(err, redis.ErrClosed) {
				t.Errorf("error %v, want the closed client's", err)
			}
		})
	}
	// A malformed record under the prefix is an error, not a skipped entry.
	y := newIndex(t, rdb, prefix+"bad:")
	check(t, y.Add(t.Context(), dedup.Entry{ID: 1, Cluster: 1, Signature: s}))
	if err := rdb.HSet(t.Context(), prefix+"bad:e:1", "d", "garbage").Err(); err != nil {
		t.Fatal(err)
	}
	z, err := redisindex.New(t.Context(), rdb, prefix+"bad:", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := z.Candidates(t.Context(), fp, indextest.Query); got != nil || err == nil {
		t.Errorf("malformed record: candidates %v, error %v", got, err)
	}
}

// fields is a segmenter of space-separated English words.
type fields struct{}

func (fields) Words(text string) []string { return strings.Fields(text) }
func (fields) IsStop(w string) bool       { return w == "the" || w == "and" || w == "on" }
