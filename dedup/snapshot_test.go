package dedup

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// snapshotIndex builds an index of n entries exercising every part of a
// snapshot: near-copies, empty signatures, winnowing fingerprints, merged
// clusters, a removed entry, and (n > OrderLearnStart) a learned order.
func snapshotIndex(t testing.TB, n int) (*PrefixIndex, []Entry) {
	t.Helper()
	x, err := NewPrefixIndex(DefaultJaccard, DefaultContainment)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var entries []Entry
	for i := range n {
		e := Entry{ID: uint64(1 + i), Cluster: uint64(1 + i), Simhash: rng.Uint64(), Signature: randSig(rng, 10+rng.IntN(120)),
			Title: []uint64{rng.Uint64(), 7}}
		e.Hash[0], e.Hash[1], e.Hash[2] = byte(i), byte(i>>8), 1
		switch {
		case i%7 == 3 && i > 0:
			// A near-copy of an earlier entry, in its cluster.
			src := entries[rng.IntN(len(entries))]
			if len(src.Signature) > 0 {
				e.Signature = slices.Clone(src.Signature)
				e.Signature[0] = rng.Uint64()
				slices.Sort(e.Signature)
				e.Cluster = src.Cluster
			}
		case i%11 == 5:
			e.Signature = nil
		case i%2 == 0:
			e.Prints, e.ContentWords = []uint64{rng.Uint64(), rng.Uint64()}, 50+i
		}
		entries = append(entries, e)
		check(t, x.Add(t.Context(), e))
		if i == n/3 {
			candidates(t, x, &Fingerprint{Signature: e.Signature}, Query{})
		}
	}
	if n > 20 {
		check(t, x.MergeClusters(t.Context(), entries[1].Cluster, []uint64{entries[0].Cluster, entries[2].Cluster}))
		check(t, x.MergeClusters(t.Context(), entries[10].Cluster, []uint64{entries[1].Cluster}))
		check(t, x.Remove(t.Context(), entries[4].ID))
	}
	return x, entries
}

func writeSnap(t testing.TB, x *PrefixIndex) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := x.WriteSnapshot(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func freshIndex(t testing.TB) *PrefixIndex {
	t.Helper()
	x, err := NewPrefixIndex(DefaultJaccard, DefaultContainment)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// candidateView is what a decision sees of an index's answer to a query.
func candidateView(t testing.TB, x *PrefixIndex, fp *Fingerprint) []Entry {
	var out []Entry
	for _, c := range candidates(t, x, fp, Query{Jaccard: DefaultJaccard, Containment: DefaultContainment}) {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Entry) int { return int(a.ID) - int(b.ID) })
	return out
}

// sameAnswers fails when the two indexes answer any query differently.
func sameAnswers(t *testing.T, a, b *PrefixIndex, queries []Entry) {
	t.Helper()
	if a.Len() != b.Len() || a.Overflow() != b.Overflow() {
		t.Fatalf("Len %d/%d, Overflow %d/%d", a.Len(), b.Len(), a.Overflow(), b.Overflow())
	}
	for _, q := range queries {
		fp := &Fingerprint{Signature: q.Signature, Hash: q.Hash, Title: q.Title}
		ga, gb := candidateView(t, a, fp), candidateView(t, b, fp)
		if _, live := a.byID[q.ID]; live && !slices.ContainsFunc(ga, func(c Entry) bool { return c.ID == q.ID }) {
			t.Fatalf("entry %d is not its own candidate", q.ID)
		}
		if len(ga) != len(gb) {
			t.Fatalf("query %d: %d candidates before the snapshot, %d after", q.ID, len(ga), len(gb))
		}
		for i := range ga {
			x, y := ga[i], gb[i]
			if x.ID != y.ID || x.Cluster != y.Cluster || x.Simhash != y.Simhash || x.Hash != y.Hash ||
				!slices.Equal(x.Signature, y.Signature) || !slices.Equal(x.Title, y.Title) ||
				!slices.Equal(x.Prints, y.Prints) || x.ContentWords != y.ContentWords {
				t.Fatalf("query %d: candidate %d differs:\n before %+v\n after  %+v", q.ID, i, x, y)
			}
		}
		if clusterOf(t, a, q.Cluster) != clusterOf(t, b, q.Cluster) {
			t.Fatalf("ClusterOf(%d) = %d before, %d after", q.Cluster, clusterOf(t, a, q.Cluster), clusterOf(t, b, q.Cluster))
		}
	}
}

func TestPrefixIndexSnapshotRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"empty", 0},
		{"small, hash order", 300},
		{"learned order", 3 * OrderLearnStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, entries := snapshotIndex(t, tc.n)
			snap := writeSnap(t, x)
			y := freshIndex(t)
			if err := y.ReadSnapshot(bytes.NewReader(snap)); err != nil {
				t.Fatal(err)
			}
			sameAnswers(t, x, y, entries)
			// Both go on alike: additions (whose postings append to the
			// loaded lists), merges, removals.
			rng := rand.New(rand.NewPCG(5, 6))
			more := slices.Clone(entries)
			for i := range 200 {
				e := Entry{ID: uint64(100000 + i), Cluster: uint64(100000 + i), Signature: randSig(rng, 30+rng.IntN(50))}
				if len(entries) > 0 && i%3 == 0 {
					if src := entries[rng.IntN(len(entries))]; len(src.Signature) > 0 {
						e.Signature, e.Cluster = slices.Clone(src.Signature), src.Cluster
					}
				}
				check(t, x.Add(t.Context(), e))
				check(t, y.Add(t.Context(), e))
				more = append(more, e)
			}
			if len(entries) > 30 {
				for _, z := range []*PrefixIndex{x, y} {
					check(t, z.MergeClusters(t.Context(), entries[20].Cluster, []uint64{entries[10].Cluster}))
					check(t, z.Remove(t.Context(), entries[25].ID))
				}
			}
			sameAnswers(t, x, y, more)
			// A snapshot of the loaded index loads again.
			z := freshIndex(t)
			if err := z.ReadSnapshot(bytes.NewReader(writeSnap(t, y))); err != nil {
				t.Fatal(err)
			}
			sameAnswers(t, y, z, more)
		})
	}
}

func TestReadSnapshotRejects(t *testing.T) {
	x, _ := snapshotIndex(t, 400)
	snap := writeSnap(t, x)
	flipped := slices.Clone(snap)
	flipped[len(flipped)/2] ^= 0x10
	other, err := NewPrefixIndex(0.5, DefaultContainment)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := snapshotIndex(t, 30)
	for _, tc := range []struct {
		name string
		into *PrefixIndex
		data []byte
	}{
		{"empty input", freshIndex(t), nil},
		{"garbage", freshIndex(t), bytes.Repeat([]byte("news"), 100)},
		{"truncated header", freshIndex(t), snap[:20]},
		{"truncated middle", freshIndex(t), snap[:len(snap)/2]},
		{"missing checksum", freshIndex(t), snap[:len(snap)-1]},
		{"flipped byte", freshIndex(t), flipped},
		{"bytes after the snapshot", freshIndex(t), append(slices.Clone(snap), 0)},
		{"other options", other, snap},
		{"non-empty index", full, snap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.into.Len()
			err := tc.into.ReadSnapshot(bytes.NewReader(tc.data))
			if err == nil {
				t.Fatal("ReadSnapshot accepted it")
			}
			if tc.name != "non-empty index" && !errors.Is(err, ErrSnapshot) {
				t.Errorf("error %v does not wrap ErrSnapshot", err)
			}
			if tc.into.Len() != before {
				t.Errorf("a failed read changed the index: Len %d -> %d", before, tc.into.Len())
			}
		})
	}
}

// FuzzReadSnapshot: ReadSnapshot never panics and rejects what is not a
// snapshot; what it accepts can be queried.
func FuzzReadSnapshot(f *testing.F) {
	x, entries := snapshotIndex(f, 40)
	snap := writeSnap(f, x)
	f.Add(snap)
	f.Add(snap[:len(snap)-3])
	f.Add([]byte(snapshotMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		try := func(data []byte) {
			y := freshIndex(t)
			// Unsized first (arrays grow as bytes arrive), then sized.
			if err := y.ReadSnapshot(struct{ io.Reader }{bytes.NewReader(data)}); err == nil {
				y = freshIndex(t)
			} else if y.Len() != 0 {
				t.Fatalf("failed unsized read left %d entries", y.Len())
			}
			if err := y.ReadSnapshot(bytes.NewReader(data)); err != nil {
				if y.Len() != 0 {
					t.Fatalf("failed read left %d entries", y.Len())
				}
				return
			}
			if !bytes.HasPrefix(data, []byte(snapshotMagic)) {
				t.Fatalf("accepted %d bytes without the magic", len(data))
			}
			for _, e := range entries[:5] {
				candidates(t, y, &Fingerprint{Signature: e.Signature, Hash: e.Hash}, Query{})
			}
			check(t, y.Add(t.Context(), Entry{ID: 1 << 40, Signature: entries[0].Signature}))
			z := freshIndex(t)
			if err := z.ReadSnapshot(bytes.NewReader(writeSnap(t, y))); err != nil || z.Len() != y.Len() {
				t.Fatalf("an accepted snapshot does not round-trip: %v (Len %d, %d)", err, z.Len(), y.Len())
			}
		}
		try(data)
		// With a valid checksum, so that the structural checks are fuzzed.
		if len(data) >= 4 {
			fixed := slices.Clone(data)
			binary.LittleEndian.PutUint32(fixed[len(fixed)-4:], crc32.Checksum(fixed[:len(fixed)-4], castagnoli))
			try(fixed)
		}
	})
}
