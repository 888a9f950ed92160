package lshindex

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
)

// TestDelta: a snapshot plus the delta of the adds, removals and merges
// made after its load gives the state of the index that made them (the
// same snapshot bytes and answers); a torn, corrupt or other-options
// delta is refused and changes nothing.
func TestDelta(t *testing.T) {
	x, sigs := filled(t, 2500)
	base := snapshotOf(t, x)
	y, _ := New(testConfig())
	if err := y.ReadSnapshot(bytes.NewReader(base)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 900 {
		e := dedup.Entry{ID: uint64(500000 + i), Cluster: uint64(7 + i%5), Signature: randSig(rng, 20+i%150), Simhash: rng.Uint64(), Title: []uint64{3, uint64(i)}}
		if i%100 == 0 {
			e.Prints, e.ContentWords = []uint64{4, 5}, 12
		}
		if i%60 == 0 {
			e.Signature = sigs[i] // a near copy of a stored entry
		}
		y.Add(t.Context(), e)
		if i%97 == 0 {
			y.Remove(t.Context(), uint64(i+2))
			y.MergeClusters(t.Context(), uint64(7+i%5), []uint64{uint64(i/3 + 1)})
		}
	}
	y.Remove(t.Context(), 500003)
	y.Add(t.Context(), dedup.Entry{ID: 500003, Cluster: 1, Signature: sigs[3]}) // removed and added again
	var delta bytes.Buffer
	if err := y.WriteDelta(&delta); err != nil {
		t.Fatal(err)
	}
	want := snapshotOf(t, y)
	apply := func(d []byte, cfg Config) (*Index, error) {
		z, _ := New(cfg)
		if err := z.ReadSnapshot(bytes.NewReader(base)); err != nil {
			t.Fatal(err)
		}
		return z, z.ReadDelta(t.Context(), bytes.NewReader(d))
	}
	t.Run("applied", func(t *testing.T) {
		z, err := apply(delta.Bytes(), testConfig())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(snapshotOf(t, z), want) {
			t.Error("snapshot + delta differs from the index that wrote the delta")
		}
		if len(delta.Bytes()) > len(base)/2 {
			t.Errorf("delta of 900 adds is %d bytes, the whole snapshot %d", delta.Len(), len(base))
		}
		t.Logf("delta %d bytes (%d adds), snapshot %d bytes (%d entries)", delta.Len(), 901, len(base), x.Len())
	})
	d := delta.Bytes()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"flipped", flip(d, len(d)/2)},
		{"flipped_checksum", flip(d, len(d)-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z, err := apply(tc.data, testConfig())
			if err == nil {
				t.Fatal("accepted")
			}
			if !bytes.Equal(snapshotOf(t, z), base) {
				t.Error("a refused delta changed the index")
			}
		})
	}
	t.Run("every_truncation", func(t *testing.T) {
		for n := 0; n < len(d); n += 1 + len(d)/40 + n%5 {
			if _, err := apply(d[:n], testConfig()); err == nil {
				t.Fatalf("a delta cut at %d of %d bytes was accepted", n, len(d))
			}
		}
	})
	t.Run("other_options", func(t *testing.T) {
		// The snapshot cannot be read with other options either, so
		// the delta is offered to an index of the same entries built with them.
		other := testConfig()
		other.Containment = 0.7
		z, _ := New(other)
		if err := z.ReadDelta(t.Context(), bytes.NewReader(d)); err == nil || z.Len() != 0 {
			t.Fatalf("a delta of other options: %v, %d entries", err, z.Len())
		}
	})
}
