package dedup

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/spotsigs"
)

func randSig(rng *rand.Rand, n int) spotsigs.Signature {
	s := make(spotsigs.Signature, n)
	for i := range s {
		s[i] = uint64(rng.IntN(50000))
	}
	slices.Sort(s)
	return s
}

func TestPrefixIndexEntries(t *testing.T) {
	x, err := NewPrefixIndex(DefaultJaccard, DefaultContainment)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// More entries than OrderLearnStart, so the order is learned and the
	// postings rebuilt on the way.
	var entries []Entry
	for i := range 3 * OrderLearnStart {
		e := Entry{ID: uint64(1000 + i), Cluster: uint64(1000 + i), Simhash: rng.Uint64(), Signature: randSig(rng, 20+rng.IntN(100)),
			Title: []uint64{rng.Uint64(), 7}}
		e.Hash[0], e.Hash[1] = byte(i), byte(i>>8)
		if i%2 == 0 {
			// The partial-reprint rule's winnowing fingerprints.
			e.Prints, e.ContentWords = []uint64{rng.Uint64(), rng.Uint64()}, 50+i
		}
		entries = append(entries, e)
		check(t, x.Add(t.Context(), e))
		if i%500 == 0 && i < 2*OrderLearnStart {
			// Queries between additions build the postings in steps
			// (rebuilt at each doubling); the last third is a bulk load,
			// built at the first query below.
			if got := candidates(t, x, &Fingerprint{Signature: e.Signature}, Query{}); !slices.ContainsFunc(got, func(c *Entry) bool { return c.ID == e.ID }) {
				t.Fatalf("entry %d not found right after its addition", e.ID)
			}
		}
	}
	check(t, x.Add(t.Context(), entries[5])) // a second Add of an id is ignored
	if x.Len() != len(entries) {
		t.Fatalf("Len %d, want %d", x.Len(), len(entries))
	}
	for _, tc := range []struct {
		name string
		e    Entry
	}{
		{"first", entries[0]},
		{"before the first rebuild", entries[OrderLearnStart-2]},
		{"after it", entries[len(entries)-1]},
		{"with winnowing fingerprints", entries[2]},
		{"without them", entries[3]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := candidates(t, x, &Fingerprint{Signature: tc.e.Signature, Hash: tc.e.Hash}, Query{Jaccard: DefaultJaccard, Containment: DefaultContainment})
			i := slices.IndexFunc(got, func(c *Entry) bool { return c.ID == tc.e.ID })
			if i < 0 {
				t.Fatalf("entry %d not among its own candidates (%d)", tc.e.ID, len(got))
			}
			c := got[i]
			if c.Cluster != tc.e.Cluster || c.Simhash != tc.e.Simhash || c.Hash != tc.e.Hash ||
				!slices.Equal(c.Signature, tc.e.Signature) || !slices.Equal(c.Title, tc.e.Title) ||
				!slices.Equal(c.Prints, tc.e.Prints) || c.ContentWords != tc.e.ContentWords {
				t.Fatalf("entry came back changed:\n got %+v\nwant %+v", *c, tc.e)
			}
		})
	}
	// Merges re-point candidates' clusters; removed entries are not proposed.
	check(t, x.MergeClusters(t.Context(), entries[1].Cluster, []uint64{entries[0].Cluster}))
	got := candidates(t, x, &Fingerprint{Signature: entries[0].Signature}, Query{Jaccard: DefaultJaccard})
	if i := slices.IndexFunc(got, func(c *Entry) bool { return c.ID == entries[0].ID }); i < 0 || got[i].Cluster != entries[1].Cluster {
		t.Fatalf("merged entry: %+v", got)
	}
	if clusterOf(t, x, entries[0].Cluster) != entries[1].Cluster {
		t.Fatal("ClusterOf does not follow the merge")
	}
	check(t, x.Remove(t.Context(), entries[0].ID))
	got = candidates(t, x, &Fingerprint{Signature: entries[0].Signature}, Query{Jaccard: DefaultJaccard})
	if slices.ContainsFunc(got, func(c *Entry) bool { return c.ID == entries[0].ID }) || x.Len() != len(entries)-1 {
		t.Fatal("removed entry still proposed")
	}
}

func TestPrefixIndexEmptySignature(t *testing.T) {
	x, err := NewPrefixIndex(DefaultJaccard, DefaultContainment)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{ID: 1, Cluster: 1, Hash: [16]byte{9}}
	check(t, x.Add(t.Context(), e))
	if got := candidates(t, x, &Fingerprint{Hash: e.Hash, Words: 3}, Query{}); len(got) != 1 || got[0].ID != 1 {
		t.Fatalf("same text without spots: %v", got)
	}
	if got := candidates(t, x, &Fingerprint{Hash: [16]byte{8}, Words: 3}, Query{}); len(got) != 0 {
		t.Fatalf("other text without spots: %v", got)
	}
	check(t, x.Remove(t.Context(), 1))
	if got := candidates(t, x, &Fingerprint{Hash: e.Hash, Words: 3}, Query{}); len(got) != 0 {
		t.Fatalf("removed: %v", got)
	}
}

// TestDefaultIndex: the engine's own index is PrefixIndex unless the
// options need MemoryIndex (the exhaustive reference, Simhash-only
// decisions, and the keyword exact layer, which looks entries up by hash).
func TestDefaultIndex(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		prefix bool
	}{
		{"default", Options{}, true},
		{"partial reprints", Options{PartialReprint: true}, true},
		{"exhaustive", Options{NewIndex: NewExhaustiveIndex}, false},
		{"simhash only", Options{Research: Research{Mode: SimhashOnly}}, false},
		{"keyword exact", Options{Research: Research{KeywordExact: true}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, tc.opts)
			_, isPrefix := e.index.(*PrefixIndex)
			_, isMemory := e.index.(*MemoryIndex)
			if isPrefix != tc.prefix || isMemory == tc.prefix {
				t.Fatalf("index %T", e.index)
			}
		})
	}
}

func TestCandidateRecall(t *testing.T) {
	testEngine(t, Options{}) // loads seg
	s4 := story(t, "s4")
	p := s4.Paragraphs
	docs := []Doc{{s4.Title, join(p)}, {s4.Title, join(p[1:])}, {"b", join(p[:3])}, {story(t, "s1").Title, join(story(t, "s1").Paragraphs)}}
	t.Run("default stage", func(t *testing.T) {
		r, err := CandidateRecall(context.Background(), seg, Options{}, docs)
		if err != nil {
			t.Fatal(err)
		}
		if r.Docs != len(docs) || r.Accepted == 0 || r.Recall() != 1 {
			t.Fatalf("%+v", r)
		}
	})
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"exhaustive", Options{NewIndex: NewExhaustiveIndex}},
		{"simhash only", Options{Research: Research{Mode: SimhashOnly}}},
		{"keyword exact (MemoryIndex)", Options{Research: Research{KeywordExact: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CandidateRecall(context.Background(), seg, tc.opts, docs); err == nil {
				t.Fatal("no error: there is no candidate stage to measure")
			}
		})
	}
}
