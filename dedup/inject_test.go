package dedup_test

import (
	"context"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
)

// countingIndex is an Index that records how the engine uses it.
type countingIndex struct {
	*dedup.MemoryIndex
	adds, queries int
}

func (c *countingIndex) Add(ctx context.Context, e dedup.Entry) error {
	c.adds++
	return c.MemoryIndex.Add(ctx, e)
}

func (c *countingIndex) Candidates(ctx context.Context, fp *dedup.Fingerprint, q dedup.Query) ([]*dedup.Entry, error) {
	c.queries++
	return c.MemoryIndex.Candidates(ctx, fp, q)
}

// TestInjectedIndex: Options.Index is the index the engine adds to and
// decides against (the seam a shared index uses), and the engine still
// finds the copy through it.
func TestInjectedIndex(t *testing.T) {
	mem, err := dedup.NewMemoryIndex(dedup.DefaultHamming, dedup.DefaultJaccard)
	if err != nil {
		t.Fatal(err)
	}
	idx := &countingIndex{MemoryIndex: mem}
	eng, err := dedup.New(fields{}, dedup.Options{Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	text := "The city council approved the budget on Monday. The mayor is expected to sign it, and there is a vote on the transport plan next week."
	fp := eng.Fingerprint("", text)
	if v := decide(t, eng, fp); v.Duplicate {
		t.Fatalf("first article: %+v, want new", v)
	}
	check(t, eng.Add(t.Context(), 1, 1, fp))
	if v := decide(t, eng, eng.Fingerprint("", text)); !v.Duplicate || v.DupOf != 1 {
		t.Fatalf("copy: %+v, want a duplicate of 1", v)
	}
	if idx.adds != 1 || idx.queries != 2 || eng.Len() != 1 || mem.Len() != 1 {
		t.Fatalf("injected index: %d adds, %d queries, engine len %d, index len %d; want 1, 2, 1, 1", idx.adds, idx.queries, eng.Len(), mem.Len())
	}
}

// fullIndex is an index that refused n entries for want of room.
type fullIndex struct {
	*dedup.MemoryIndex
	n int
}

func (f fullIndex) Overflow() int { return f.n }

// TestEngineOverflow: the engine reports the entries its index refused
// (an index without an Overflow method never refuses one), so that a full
// index is said, not silently compared with less.
func TestEngineOverflow(t *testing.T) {
	mem, err := dedup.NewMemoryIndex(dedup.DefaultHamming, dedup.DefaultJaccard)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		idx  dedup.Index
		want int
	}{
		{"memory index", mem, 0},
		{"prefix index, not full", nil, 0},
		{"full index", fullIndex{mem, 7}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := dedup.New(fields{}, dedup.Options{Index: tc.idx})
			if err != nil {
				t.Fatal(err)
			}
			if got := eng.Overflow(); got != tc.want {
				t.Fatalf("Overflow() = %d, want %d", got, tc.want)
			}
		})
	}
}
