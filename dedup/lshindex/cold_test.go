package lshindex

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
)

// coldEntries returns n entries with winnowing prints of many lengths
// (enough in all to flush a spilled arena several times), some without
// prints and some with an empty set, and the ids to remove.
func coldEntries(seed uint64, first, n int) ([]dedup.Entry, []uint64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	var es []dedup.Entry
	var removed []uint64
	for i := range n {
		e := dedup.Entry{ID: uint64(first + i), Cluster: uint64(first + i/2), Signature: randSig(rng, 40+rng.IntN(150)),
			Simhash: rng.Uint64(), Title: []uint64{rng.Uint64()}, Time: time.Unix(int64(1000+i), 0)}
		switch i % 7 {
		case 0: // no prints
		case 1:
			e.Prints, e.ContentWords = []uint64{}, 3
		default:
			e.Prints, e.ContentWords = make([]uint64, rng.IntN(400)), 100+i
			for j := range e.Prints {
				e.Prints[j] = rng.Uint64()
			}
		}
		es = append(es, e)
		if i%13 == 5 {
			removed = append(removed, e.ID)
		}
	}
	return es, removed
}

// newCold returns an empty index, spilling to a new directory when spill.
func newCold(t *testing.T, spill bool) *Index {
	t.Helper()
	x, err := New(testConfig())
	check(t, err)
	if spill {
		check(t, x.SpillCold(t.TempDir()))
		t.Cleanup(func() { x.Close() })
		// Small buffers: the tests' entries cross many flushes.
		x.cold.prints.limit, x.cold.sigs.limit, x.cold.titles.limit = 1<<15, 1<<12, 1<<9
	}
	return x
}

func addAll(t *testing.T, x *Index, es []dedup.Entry, removed []uint64) {
	t.Helper()
	for _, e := range es {
		check(t, x.Add(t.Context(), e))
	}
	for _, id := range removed {
		check(t, x.Remove(t.Context(), id))
	}
}

// checkPrints checks that every entry of es is its own signature's
// candidate with the prints and content words it was added with (a
// removed one is no candidate).
func checkPrints(t *testing.T, x *Index, es []dedup.Entry, removed []uint64) {
	t.Helper()
	q := dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment}
	bad := 0
	for _, e := range es {
		var got *dedup.Entry
		for _, c := range candidates(t, x, &dedup.Fingerprint{Signature: e.Signature, Words: 1}, q) {
			if c.ID == e.ID {
				got = c
			}
		}
		switch {
		case slices.Contains(removed, e.ID):
			if got != nil {
				t.Errorf("removed entry %d proposed", e.ID)
			}
		case got == nil:
			t.Errorf("entry %d not proposed for its own signature", e.ID)
		case !slices.Equal(got.Prints, e.Prints) || e.Prints != nil && got.ContentWords != e.ContentWords ||
			e.Prints == nil && (got.Prints != nil || got.ContentWords != 0):
			if bad++; bad < 5 {
				t.Errorf("entry %d: %d prints, %d words; added with %d, %d", e.ID, len(got.Prints), got.ContentWords, len(e.Prints), e.ContentWords)
			}
		}
	}
}

// TestCold: the prints of the entries come back as added, in the heap
// and spilled to a file; both write the same snapshot (the format does
// not depend on where the prints are), which loads (read or mapped) with
// its prints; a spilled index's delta applies to a heap index and
// gives the same state; an index compacted by Expire keeps them.
func TestCold(t *testing.T) {
	es, removed := coldEntries(1, 1, 3000)
	heap, spilled := newCold(t, false), newCold(t, true)
	addAll(t, heap, es, removed)
	addAll(t, spilled, es, removed)
	if c := &spilled.cold; c.prints.flushed < 3*(1<<15)/8 || c.sigs.flushed < 3*(1<<12) {
		t.Fatalf("the test flushed %d prints and %d signature bytes, want several buffers", c.prints.flushed, c.sigs.flushed)
	}
	snap := snapshotOf(t, heap)
	t.Run("candidates", func(t *testing.T) {
		checkPrints(t, heap, es, removed)
		checkPrints(t, spilled, es, removed)
	})
	t.Run("snapshot_same_bytes", func(t *testing.T) {
		if !bytes.Equal(snap, snapshotOf(t, spilled)) {
			t.Error("the spilled index writes another snapshot than the heap one")
		}
	})
	more, moreRemoved := coldEntries(2, 100000, 1500)
	moreRemoved = append(moreRemoved, es[2].ID, es[3].ID)
	t.Run("read_and_mapped_then_delta", func(t *testing.T) {
		pad := os.Getpagesize()
		f := writeAt(t, snap, pad)
		for _, mapped := range []bool{false, true} {
			y := newCold(t, true)
			if mapped {
				check(t, y.MapSnapshot(f, int64(pad), int64(len(snap)), false))
			} else {
				check(t, y.ReadSnapshot(bytes.NewReader(snap)))
			}
			checkPrints(t, y, es, removed)
			addAll(t, y, more, moreRemoved)
			checkPrints(t, y, more, moreRemoved)
			checkPrints(t, y, es[:50], append(removed, es[2].ID, es[3].ID))
			var delta bytes.Buffer
			check(t, y.WriteDelta(&delta))
			z := newCold(t, false)
			check(t, z.ReadSnapshot(bytes.NewReader(snap)))
			check(t, z.ReadDelta(t.Context(), &delta))
			if !bytes.Equal(snapshotOf(t, y), snapshotOf(t, z)) {
				t.Errorf("mapped %t: snapshot + delta differs from the spilled index that wrote the delta", mapped)
			}
			checkPrints(t, z, more, moreRemoved)
		}
	})
	t.Run("compact", func(t *testing.T) {
		x := newCold(t, true)
		addAll(t, x, es, removed)
		old := x.cold.prints.file
		n, err := x.Expire(t.Context(), es[len(es)*2/3].Time)
		check(t, err)
		if n == 0 || x.cold.prints.file == old || x.cold.prints.file == nil {
			t.Fatalf("expired %d entries; cold file replaced: %t", n, x.cold.prints.file != old)
		}
		var gone []uint64
		for _, e := range es[:len(es)*2/3] {
			gone = append(gone, e.ID)
		}
		checkPrints(t, x, es, append(gone, removed...))
		if _, err := old.ReadAt(make([]byte, 8), 0); !errors.Is(err, os.ErrClosed) {
			t.Errorf("the replaced cold file is still open (read: %v)", err)
		}
	})
}

// failingFile fails the reads or the writes of a cold file.
type failingFile struct {
	coldFile
	reads, writes bool
}

// failing wraps the cold files of x in failingFiles.
func failing(x *Index) []*failingFile {
	var fs []*failingFile
	for _, f := range x.cold.files() {
		ff := &failingFile{coldFile: *f}
		*f, fs = ff, append(fs, ff)
	}
	return fs
}

var errInjected = errors.New("injected")

func (f *failingFile) ReadAt(p []byte, off int64) (int, error) {
	if f.reads {
		return 0, errInjected
	}
	return f.coldFile.ReadAt(p, off)
}

func (f *failingFile) WriteAt(p []byte, off int64) (int, error) {
	if f.writes {
		return 0, errInjected
	}
	return f.coldFile.WriteAt(p, off)
}

// TestColdErrors: a cold file that cannot be read fails the query and the
// snapshot (never "no candidates", never a snapshot without the prints);
// one that cannot be written fails the Add and changes nothing; a spill
// is refused once entries were added, and a closed index's queries fail.
func TestColdErrors(t *testing.T) {
	es, _ := coldEntries(3, 1, 1200)
	q := dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment}
	x := newCold(t, true)
	addAll(t, x, es, nil)
	fs := failing(x)
	e := es[2] // flushed to the files
	if x.cold.off[3] >= x.cold.prints.flushed || x.sigOff[3] >= x.cold.sigs.flushed || x.titleOff[3] >= x.cold.titles.flushed {
		t.Fatalf("entry %d not flushed", e.ID)
	}
	t.Run("read", func(t *testing.T) {
		for i, name := range []string{"prints", "signatures", "headlines"} {
			fs[i].reads = true
			if cs, err := x.Candidates(t.Context(), &dedup.Fingerprint{Signature: e.Signature, Words: 1}, q); !errors.Is(err, errInjected) {
				t.Errorf("Candidates with unreadable %s: %d candidates, error %v", name, len(cs), err)
			}
			if err := x.WriteSnapshot(new(bytes.Buffer)); !errors.Is(err, errInjected) {
				t.Errorf("WriteSnapshot with unreadable %s: %v", name, err)
			}
			fs[i].reads = false
		}
		if err := x.WriteSnapshot(new(bytes.Buffer)); err != nil {
			t.Errorf("WriteSnapshot once the files read again: %v", err)
		}
	})
	t.Run("write", func(t *testing.T) {
		for i, name := range []string{"prints", "signatures", "headlines"} {
			fs[i].writes = true
			n, added := x.Len(), 0
			more, _ := coldEntries(uint64(4+i), 50000+10000*i, 2000)
			var err error
			for _, e := range more {
				if err = x.Add(t.Context(), e); err != nil {
					break
				}
				added++
			}
			if !errors.Is(err, errInjected) || x.Len() != n+added {
				t.Fatalf("Add with unwritable %s: error %v, Len %d, want %d", name, err, x.Len(), n+added)
			}
			fs[i].writes = false
			check(t, x.Add(t.Context(), more[added]))
			checkPrints(t, x, more[:added+1], nil)
		}
	})
	t.Run("spill_after_adds", func(t *testing.T) {
		y := newCold(t, false)
		addAll(t, y, es[:3], nil)
		if err := y.SpillCold(t.TempDir()); err == nil {
			t.Error("SpillCold accepted after adds")
		}
		if err := x.SpillCold(t.TempDir()); err == nil {
			t.Error("SpillCold accepted twice")
		}
	})
	t.Run("closed", func(t *testing.T) {
		for i, f := range x.cold.files() {
			*f = fs[i].coldFile
		}
		check(t, x.Close())
		if _, err := x.Candidates(t.Context(), &dedup.Fingerprint{Signature: e.Signature, Words: 1}, q); err == nil {
			t.Error("Candidates on a closed index read its cold file")
		}
	})
}

// BenchmarkColdRead is the cost of reading a candidate's cold data (its
// prints, signature and headline codes) from the heap or spilled (three
// preads), as Candidates does for every candidate it returns.
func BenchmarkColdRead(b *testing.B) {
	es, _ := coldEntries(7, 1, 5000)
	for _, spill := range []bool{false, true} {
		b.Run(map[bool]string{false: "heap", true: "spilled"}[spill], func(b *testing.B) {
			x, err := New(testConfig())
			check(b, err)
			if spill {
				check(b, x.SpillCold(b.TempDir()))
				defer x.Close()
			}
			for _, e := range es {
				check(b, x.Add(b.Context(), e))
			}
			b.ResetTimer()
			for i := range b.N {
				s := uint32(i % len(es))
				_, _, _, err := x.cold.get(s)
				check(b, err)
				_, _, err = x.entryCodes(s)
				check(b, err)
			}
		})
	}
}
