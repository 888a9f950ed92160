package lshindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// windowed returns n entries a day apart, some of them near copies of
// earlier ones (so that old and new entries are candidates of the same
// queries), a few with an unknown time, and their signatures.
func windowed(n int) ([]dedup.Entry, []spotsigs.Signature) {
	rng := rand.New(rand.NewPCG(21, 22))
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var es []dedup.Entry
	var sigs []spotsigs.Signature
	for i := range n {
		s := randSig(rng, 20+rng.IntN(150))
		if i%3 == 1 {
			s = slices.Clone(sigs[rng.IntN(i)])
			s[0]++ // a near copy
			slices.Sort(s)
		}
		sigs = append(sigs, s)
		e := dedup.Entry{ID: uint64(i + 1), Cluster: uint64(i + 1), Signature: s, Simhash: rng.Uint64(),
			Time: t0.Add(time.Duration(i) * 24 * time.Hour)}
		if i%101 == 0 {
			e.Time = time.Time{}
		}
		e.Hash[0], e.Hash[1] = byte(i), byte(i>>8)
		es = append(es, e)
	}
	return es, sigs
}

// ids is, for every query of sigs (and an empty text whose hash an old
// entry without spots has), the ids of the candidates a verdict can rest
// on: those that reach the Jaccard or the containment threshold (the
// head index proposes others too, depending on the document frequencies
// of the entries it held when each was added).
func ids(t *testing.T, x *Index, sigs []spotsigs.Signature, since time.Time) [][]uint64 {
	q := dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment, Since: since}
	var out [][]uint64
	for _, s := range append(sigs, nil) {
		fp := &dedup.Fingerprint{Signature: s, Words: 1, Hash: [16]byte{7, 7}}
		var got []uint64
		for _, e := range candidates(t, x, fp, q) {
			if !since.IsZero() && e.Time.Before(since) {
				t.Fatalf("entry %d of %v proposed for a window from %v", e.ID, e.Time, since)
			}
			if len(s) > 0 && spotsigs.Jaccard(s, e.Signature) < dedup.DefaultJaccard &&
				(min(len(s), len(e.Signature)) < dedup.MinContainmentSpots || spotsigs.Containment(s, e.Signature) < dedup.DefaultContainment) {
				continue
			}
			got = append(got, e.ID)
		}
		slices.Sort(got)
		out = append(out, got)
	}
	return out
}

// TestWindow: an index holding entries of every age, queried with a
// window (Query.Since), proposes what an index of only the entries within
// the window proposes; so do its snapshot (read or mapped), the snapshot
// plus a delta, and the index after Expire, which keeps only those
// entries live (and only their slots once the removed outnumber them).
func TestWindow(t *testing.T) {
	es, sigs := windowed(900)
	empty := dedup.Entry{ID: 1 << 40, Hash: [16]byte{7, 7}, Time: es[10].Time} // no spots, old
	all, _ := New(testConfig())
	for _, e := range append(es[:600], empty) {
		check(t, all.Add(t.Context(), e))
	}
	base := snapshotOf(t, all)
	for _, e := range es[600:] {
		check(t, all.Add(t.Context(), e))
	}
	for _, days := range []int{0, 100, 500, 850, 1000} {
		since := es[1].Time.Add(time.Duration(days-1) * 24 * time.Hour)
		if days == 0 {
			since = time.Time{}
		}
		within, _ := New(testConfig())
		for _, e := range append(slices.Clone(es), empty) {
			if since.IsZero() || !e.Time.Before(since) {
				check(t, within.Add(t.Context(), e))
			}
		}
		want := ids(t, within, sigs, time.Time{})
		t.Run(fmt.Sprintf("since_day_%d", days), func(t *testing.T) {
			if got := ids(t, all, sigs, since); !slices.EqualFunc(got, want, slices.Equal) {
				t.Error("the windowed query differs from the index of the window's entries")
			}
			// The snapshot of the first 600 plus a delta of the rest.
			y, _ := New(testConfig())
			check(t, y.ReadSnapshot(bytes.NewReader(base)))
			for _, e := range es[600:] {
				check(t, y.Add(t.Context(), e))
			}
			var delta bytes.Buffer
			check(t, y.WriteDelta(&delta))
			f := writeAt(t, base, 0)
			z, _ := New(testConfig())
			check(t, z.MapSnapshot(f, 0, int64(len(base)), false))
			check(t, z.ReadDelta(t.Context(), &delta))
			if got := ids(t, z, sigs, since); !slices.EqualFunc(got, want, slices.Equal) {
				t.Error("the mapped snapshot plus delta differs from the index of the window's entries")
			}
			n, err := z.Expire(t.Context(), since)
			check(t, err)
			if z.Len() != within.Len() || n != all.Len()-within.Len() {
				t.Errorf("after Expire: %d live (dropped %d), the window holds %d", z.Len(), n, within.Len())
			}
			if compacted := n > 0 && len(z.ids) == z.Len(); compacted != (n > z.Len()) {
				t.Errorf("after Expire dropped %d of %d: %d slots for %d live entries", n, all.Len(), len(z.ids), z.Len())
			}
			if got := ids(t, z, sigs, time.Time{}); !slices.EqualFunc(got, want, slices.Equal) {
				t.Error("the expired index differs from the index of the window's entries")
			}
			r, _ := New(testConfig())
			check(t, r.ReadSnapshot(bytes.NewReader(snapshotOf(t, z))))
			if got := ids(t, r, sigs, since); !slices.EqualFunc(got, want, slices.Equal) {
				t.Error("the expired index's snapshot differs from the index of the window's entries")
			}
		})
	}
}

// TestSnapshotWithoutTimes: a snapshot of a format before the window
// times (version 2) or before the sketches (version 3) is refused, read or
// mapped, never used without them.
func TestSnapshotWithoutTimes(t *testing.T) {
	x, _ := filled(t, 300)
	for _, v := range []uint32{2, 3} {
		t.Run(fmt.Sprintf("version_%d", v), func(t *testing.T) {
			snap := snapshotOf(t, x)
			binary.LittleEndian.PutUint32(snap[len(snapshotMagic):], v)
			y, _ := New(testConfig())
			if err := y.ReadSnapshot(bytes.NewReader(snap)); err == nil || !strings.Contains(err.Error(), "other options") {
				t.Fatalf("a version %d snapshot: %v", v, err)
			}
			f := writeAt(t, snap, 0)
			z, _ := New(testConfig())
			if err := z.MapSnapshot(f, 0, int64(len(snap)), false); err == nil || z.Len() != 0 {
				t.Fatalf("a version %d snapshot mapped: %v, %d entries", v, err, z.Len())
			}
		})
	}
}
