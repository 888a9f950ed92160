// Package indextest is the conformance suite every dedup.Index
// implementation runs (Add, Remove, Candidates, MergeClusters, ClusterOf,
// Len, concurrent use, and an engine over the index failing with it): the
// candidate semantics the engine relies on, whatever the method behind
// them (exhaustive, prefix filtering, LSH, Redis). Failing wraps an index
// to inject errors in other packages' tests.
package indextest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// Query is the query every check uses: the engine's default thresholds.
var Query = dedup.Query{Hamming: dedup.DefaultHamming, Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment, NoSimhash: true}

// sig returns n random spots.
func sig(rng *rand.Rand, n int) spotsigs.Signature {
	s := make(spotsigs.Signature, n)
	for i := range s {
		s[i] = rng.Uint64()
	}
	slices.Sort(s)
	return s
}

// variant keeps keep of s's spots (a random subset) and adds extra new ones.
func variant(rng *rand.Rand, s spotsigs.Signature, keep, extra int) spotsigs.Signature {
	out := slices.Clone(s)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	out = append(out[:keep], sig(rng, extra)...)
	slices.Sort(out)
	return out
}

func entry(id, cluster uint64, s spotsigs.Signature) dedup.Entry {
	var h [16]byte
	h[0], h[1], h[2] = byte(id), byte(id>>8), byte(id>>16)
	h[15] = 1
	return dedup.Entry{ID: id, Cluster: cluster, Signature: s, Hash: h, Simhash: id * 0x9E3779B97F4A7C15}
}

func ids(es []*dedup.Entry) []uint64 {
	out := make([]uint64, 0, len(es))
	for _, e := range es {
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

func find(es []*dedup.Entry, id uint64) *dedup.Entry {
	for _, e := range es {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// Run runs the suite; newIndex returns an empty index for the default
// thresholds (dedup.DefaultJaccard, dedup.DefaultContainment).
func Run(t *testing.T, newIndex func(t *testing.T) dedup.Index) {
	t.Run("add_len_and_repeated_id", func(t *testing.T) { addLen(t, newIndex(t)) })
	t.Run("identical_and_near_duplicate_found_unrelated_not", func(t *testing.T) { nearDuplicates(t, newIndex(t)) })
	t.Run("containment_both_directions", func(t *testing.T) { containment(t, newIndex(t), newIndex(t)) })
	t.Run("remove", func(t *testing.T) { remove(t, newIndex(t)) })
	t.Run("merge_clusters", func(t *testing.T) { mergeClusters(t, newIndex(t)) })
	t.Run("empty_signature_by_hash", func(t *testing.T) { emptySignature(t, newIndex(t)) })
	t.Run("many_entries_near_duplicates_found", func(t *testing.T) { manyEntries(t, newIndex(t)) })
	t.Run("concurrent_add_and_candidates", func(t *testing.T) { concurrent(t, newIndex(t)) })
	t.Run("errors_fail_the_engine", func(t *testing.T) { engineErrors(t, newIndex(t)) })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func candidates(t *testing.T, x dedup.Index, fp *dedup.Fingerprint, q dedup.Query) []*dedup.Entry {
	t.Helper()
	cs, err := x.Candidates(t.Context(), fp, q)
	must(t, err)
	return cs
}

func clusterOf(t *testing.T, x dedup.Index, cluster uint64) uint64 {
	t.Helper()
	c, err := x.ClusterOf(t.Context(), cluster)
	must(t, err)
	return c
}

// addAndFind adds entry id with a random signature and checks that it is
// its own candidate right away; with merge it also merges id-1's cluster
// into id's and reads it back.
func addAndFind(ctx context.Context, x dedup.Index, rng *rand.Rand, id uint64, merge bool) error {
	s := sig(rng, 50)
	if err := x.Add(ctx, entry(id, id, s)); err != nil {
		return err
	}
	cs, err := x.Candidates(ctx, &dedup.Fingerprint{Signature: s, Words: 1}, Query)
	if err != nil {
		return err
	}
	if find(cs, id) == nil {
		return fmt.Errorf("entry %d not found right after Add", id)
	}
	if !merge {
		return nil
	}
	if err := x.MergeClusters(ctx, id, []uint64{id - 1}); err != nil {
		return err
	}
	_, err = x.ClusterOf(ctx, id-1)
	return err
}

func addLen(t *testing.T, x dedup.Index) {
	rng := rand.New(rand.NewPCG(1, 1))
	for id := uint64(1); id <= 3; id++ {
		must(t, x.Add(t.Context(), entry(id, id, sig(rng, 40))))
	}
	must(t, x.Add(t.Context(), entry(2, 2, sig(rng, 40))))
	if x.Len() != 3 {
		t.Errorf("Len = %d after 3 entries and a repeated id, want 3", x.Len())
	}
}

func nearDuplicates(t *testing.T, x dedup.Index) {
	rng := rand.New(rand.NewPCG(2, 2))
	a, b := sig(rng, 120), sig(rng, 120)
	must(t, x.Add(t.Context(), entry(1, 1, a)))
	must(t, x.Add(t.Context(), entry(2, 2, b)))
	for _, tc := range []struct {
		name string
		q    spotsigs.Signature
		want []uint64
	}{
		{"identical", a, []uint64{1}},
		{"jaccard_0.6", variant(rng, a, 90, 30), []uint64{1}},
		{"unrelated", sig(rng, 120), []uint64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(candidates(t, x, &dedup.Fingerprint{Signature: tc.q, Words: 1}, Query))
			if !slices.Equal(got, tc.want) {
				t.Errorf("candidates %v, want %v", got, tc.want)
			}
		})
	}
	c := find(candidates(t, x, &dedup.Fingerprint{Signature: a, Words: 1}, Query), 1)
	if c == nil || !slices.Equal(c.Signature, a) || c.Cluster != 1 {
		t.Errorf("entry 1 returned as %+v, want its signature and cluster", c)
	}
}

func containment(t *testing.T, x, y dedup.Index) {
	rng := rand.New(rand.NewPCG(3, 3))
	long := sig(rng, 150)
	brief := variant(rng, long, 12, 0) // 12 spots, all inside long
	must(t, x.Add(t.Context(), entry(1, 1, brief)))
	got := ids(candidates(t, x, &dedup.Fingerprint{Signature: variant(rng, long, 150, 10), Words: 1}, Query))
	if !slices.Contains(got, 1) {
		t.Errorf("a long query did not find the indexed brief it contains: %v", got)
	}
	must(t, y.Add(t.Context(), entry(2, 2, long)))
	got = ids(candidates(t, y, &dedup.Fingerprint{Signature: brief, Words: 1}, Query))
	if !slices.Contains(got, 2) {
		t.Errorf("a brief did not find the indexed story containing it: %v", got)
	}
}

func remove(t *testing.T, x dedup.Index) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := sig(rng, 60)
	must(t, x.Add(t.Context(), entry(1, 1, a)))
	must(t, x.Add(t.Context(), entry(2, 1, a)))
	must(t, x.Remove(t.Context(), 1))
	must(t, x.Remove(t.Context(), 99)) // unknown: no effect
	if x.Len() != 1 {
		t.Errorf("Len = %d after removing 1 of 2, want 1", x.Len())
	}
	if got := ids(candidates(t, x, &dedup.Fingerprint{Signature: a, Words: 1}, Query)); !slices.Equal(got, []uint64{2}) {
		t.Errorf("candidates %v after Remove(1), want [2]", got)
	}
}

func mergeClusters(t *testing.T, x dedup.Index) {
	rng := rand.New(rand.NewPCG(5, 5))
	a := sig(rng, 60)
	must(t, x.Add(t.Context(), entry(30, 30, a)))
	must(t, x.MergeClusters(t.Context(), 20, []uint64{30}))
	must(t, x.MergeClusters(t.Context(), 10, []uint64{20, 10}))
	for _, c := range []uint64{10, 20, 30} {
		if got := clusterOf(t, x, c); got != 10 {
			t.Errorf("ClusterOf(%d) = %d, want 10", c, got)
		}
	}
	if got := clusterOf(t, x, 40); got != 40 {
		t.Errorf("ClusterOf(40) = %d for a cluster never merged", got)
	}
	if c := find(candidates(t, x, &dedup.Fingerprint{Signature: a, Words: 1}, Query), 30); c == nil || c.Cluster != 10 {
		t.Errorf("entry 30 returned as %+v, want cluster 10 after the merges", c)
	}
}

func emptySignature(t *testing.T, x dedup.Index) {
	e := entry(7, 7, nil)
	must(t, x.Add(t.Context(), e))
	got := ids(candidates(t, x, &dedup.Fingerprint{Hash: e.Hash, Words: 1}, Query))
	if !slices.Equal(got, []uint64{7}) {
		t.Errorf("candidates %v for the text hash of an entry without spots, want [7]", got)
	}
}

// manyEntries indexes 6,000 entries (enough to cross the rebuilds and
// merges of the implementations) and checks that near-duplicates of
// sampled entries (Jaccard ≈ 0.6) find them, and removed ones do not.
func manyEntries(t *testing.T, x dedup.Index) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n = 6000
	sigs := make([]spotsigs.Signature, n)
	for i := range sigs {
		sigs[i] = sig(rng, 30+rng.IntN(150))
		must(t, x.Add(t.Context(), entry(uint64(i+1), uint64(i+1), sigs[i])))
	}
	for i := 0; i < n; i += 7 {
		must(t, x.Remove(t.Context(), uint64(i+1)))
	}
	missed := 0
	for i := 0; i < n; i += 13 {
		k := len(sigs[i]) * 3 / 4
		q := variant(rng, sigs[i], k, len(sigs[i])-k)
		found := find(candidates(t, x, &dedup.Fingerprint{Signature: q, Words: 1}, Query), uint64(i+1)) != nil
		if removed := i%7 == 0; found == removed {
			missed++
			t.Logf("entry %d (removed %v): found %v", i+1, removed, found)
		}
	}
	if missed > 0 {
		t.Errorf("%d of %d near-duplicate queries wrong", missed, n/13+1)
	}
	if want := n - (n+6)/7; x.Len() != want {
		t.Errorf("Len = %d, want %d", x.Len(), want)
	}
}

// concurrent adds and queries from several goroutines (run with -race).
func concurrent(t *testing.T, x dedup.Index) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 300 {
				if err := addAndFind(t.Context(), x, rng, uint64(g*1000+i+1), i%50 == 0); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if x.Len() != 1200 {
		t.Errorf("Len = %d after 1,200 concurrent adds", x.Len())
	}
}

// ErrInjected is the error of a Failing index.
var ErrInjected = errors.New("indextest: injected index failure")

// Failing is an index whose calls fail with ErrInjected once Fail is set
// (Len keeps answering): a shared index whose server went away.
type Failing struct {
	dedup.Index
	Fail bool
}

// Add implements dedup.Index.
func (f *Failing) Add(ctx context.Context, e dedup.Entry) error {
	if f.Fail {
		return ErrInjected
	}
	return f.Index.Add(ctx, e)
}

// Remove implements dedup.Index.
func (f *Failing) Remove(ctx context.Context, id uint64) error {
	if f.Fail {
		return ErrInjected
	}
	return f.Index.Remove(ctx, id)
}

// Candidates implements dedup.Index.
func (f *Failing) Candidates(ctx context.Context, fp *dedup.Fingerprint, q dedup.Query) ([]*dedup.Entry, error) {
	if f.Fail {
		return nil, ErrInjected
	}
	return f.Index.Candidates(ctx, fp, q)
}

// MergeClusters implements dedup.Index.
func (f *Failing) MergeClusters(ctx context.Context, into uint64, from []uint64) error {
	if f.Fail {
		return ErrInjected
	}
	return f.Index.MergeClusters(ctx, into, from)
}

// ClusterOf implements dedup.Index.
func (f *Failing) ClusterOf(ctx context.Context, cluster uint64) (uint64, error) {
	if f.Fail {
		return 0, ErrInjected
	}
	return f.Index.ClusterOf(ctx, cluster)
}

// engineErrors checks that the engine over x reports x's errors: an index
// that cannot answer makes Decide fail (never a "new" verdict on no
// candidates), and the calls that record a verdict fail too.
func engineErrors(t *testing.T, x dedup.Index) {
	f := &Failing{Index: x}
	eng, err := dedup.New(wordSegmenter{}, dedup.Options{Index: f})
	must(t, err)
	ctx := t.Context()
	text := "the river bridge opened on monday after four years of work and the city said traffic would be lighter"
	fp := eng.Fingerprint("bridge", text)
	must(t, eng.Add(ctx, 1, 1, fp))
	if v, err := eng.Decide(ctx, fp); err != nil || !v.Duplicate {
		t.Fatalf("before the failure: verdict %+v, error %v; want a duplicate", v, err)
	}
	f.Fail = true
	other := eng.Fingerprint("other", "a different story about the harbour where ships wait for the tide to turn")
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"decide_duplicate", func() error { _, err := eng.Decide(ctx, fp); return err }},
		{"decide_new", func() error { _, err := eng.Decide(ctx, other); return err }},
		{"add", func() error { return eng.Add(ctx, 2, 2, other) }},
		{"add_member", func() error { return eng.AddMember(ctx, 3, 1, other) }},
		{"restore", func() error { return eng.Restore(ctx, dedup.Entry{ID: 4, Signature: fp.Signature}) }},
		{"merge_clusters", func() error { return eng.MergeClusters(ctx, 1, []uint64{2}) }},
		{"cluster_of", func() error { _, err := eng.ClusterOf(ctx, 1); return err }},
		{"batch", func() error {
			return eng.Batch(ctx, []dedup.Doc{{Title: "t", Text: text}}, func(int, dedup.Verdict) error { return nil })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrInjected) {
				t.Errorf("error %v, want the index's error", err)
			}
		})
	}
}

// wordSegmenter splits on spaces and treats a few English words as
// stopwords: enough for the engine's SpotSigs with EnglishAntecedents.
type wordSegmenter struct{}

func (wordSegmenter) Words(text string) []string { return strings.Fields(text) }

func (wordSegmenter) IsStop(w string) bool {
	switch w {
	case "the", "a", "an", "of", "and", "to", "is", "was", "on", "for", "be", "would", "after", "where", "about":
		return true
	}
	return false
}
