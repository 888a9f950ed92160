package lshindex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/newsdedup/newscrawl/dedup"
)

// writeAt writes snap into a new file after pad bytes and opens it.
func writeAt(t *testing.T, snap []byte, pad int) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(path, append(make([]byte, pad), snap...), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestMapSnapshot: a mapped snapshot answers as the written index, its
// growable arrays have room to grow in place, entries added after the
// mapping give the same state as the same adds to the written index, and
// the file is not changed by them (the mapping is private).
func TestMapSnapshot(t *testing.T) {
	for _, pk := range []packing{defaultPacking(), {min: 64, keyBits: 32}} {
		t.Run(map[bool]string{false: "plain_runs", true: "packed_runs"}[pk.min < packedMin], func(t *testing.T) {
			testMapSnapshot(t, pk)
		})
	}
}

func testMapSnapshot(t *testing.T, pk packing) {
	x, sigs := filledWith(t, 3000, pk)
	snap := snapshotOf(t, x)
	pad := os.Getpagesize() * 3
	for _, verify := range []bool{false, true} {
		t.Run(map[bool]string{false: "structural", true: "verified"}[verify], func(t *testing.T) {
			f := writeAt(t, snap, pad)
			y, _ := New(testConfig())
			y.bands.packing = pk
			if err := y.MapSnapshot(f, int64(pad), int64(len(snap)), verify); err != nil {
				t.Fatal(err)
			}
			if got, want := answers(t, y, sigs), answers(t, x, sigs); !reflect.DeepEqual(got, want) {
				t.Fatal("candidates differ from the written index's")
			}
			if cap(y.bits) <= len(y.bits) || cap(y.sigs) <= len(y.sigs) {
				t.Errorf("growable arrays mapped without room: bits %d/%d, sigs %d/%d", len(y.bits), cap(y.bits), len(y.sigs), cap(y.sigs))
			}
			rng := rand.New(rand.NewPCG(3, 4))
			x2, _ := New(testConfig())
			x2.bands.packing = pk
			if err := x2.ReadSnapshot(bytes.NewReader(snap)); err != nil {
				t.Fatal(err)
			}
			for i := range 700 {
				e := dedup.Entry{ID: uint64(200000 + i), Cluster: 5, Signature: randSig(rng, 40+i%90)}
				x2.Add(t.Context(), e)
				y.Add(t.Context(), e)
			}
			x2.Remove(t.Context(), 2)
			y.Remove(t.Context(), 2)
			if !bytes.Equal(snapshotOf(t, x2), snapshotOf(t, y)) {
				t.Error("the same adds to the mapped and the read index give different states")
			}
			on, err := os.ReadFile(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(on[pad:], snap) {
				t.Error("the snapshot file changed under the mapping")
			}
		})
	}
}

// TestMapSnapshotRejects: the structural check refuses what it can see in
// constant time (options, truncation, lengths); the damage it cannot see
// (a flipped byte inside an array) is refused by the verified mapping,
// and queries on the unverified one neither panic nor go out of range.
func TestMapSnapshotRejects(t *testing.T) {
	x, sigs := filled(t, 800)
	snap := snapshotOf(t, x)
	other := testConfig()
	other.Containment = 0.7
	for _, tc := range []struct {
		name   string
		data   []byte
		cfg    Config
		verify bool
	}{
		{"other_options", snap, other, false},
		{"bad_magic", append([]byte("XXXXXXXX"), snap[8:]...), testConfig(), false},
		{"truncated_half", snap[:len(snap)/2], testConfig(), false},
		{"truncated_checksum", snap[:len(snap)-2], testConfig(), false},
		{"bytes_after", append(slices.Clone(snap), 0, 0, 0, 0), testConfig(), false},
		{"flipped_byte_verified", flip(snap, len(snap)/2), testConfig(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := writeAt(t, tc.data, 0)
			y, _ := New(tc.cfg)
			if err := y.MapSnapshot(f, 0, int64(len(tc.data)), tc.verify); err == nil {
				t.Fatal("accepted")
			} else {
				t.Log(err)
			}
			if y.Len() != 0 {
				t.Error("a refused snapshot left entries")
			}
		})
	}
	t.Run("every_truncation", func(t *testing.T) {
		for n := 1; n < len(snap); n += 1 + len(snap)/50 + n%7 {
			f := writeAt(t, snap[:n], 0)
			y, _ := New(testConfig())
			if err := y.MapSnapshot(f, 0, int64(n), false); err == nil {
				t.Fatalf("a snapshot cut at %d of %d bytes was accepted", n, len(snap))
			}
		}
	})
	packed, psigs := filledWith(t, 800, packing{min: 64, keyBits: 32})
	psnap := snapshotOf(t, packed)
	t.Run("damaged_arrays_unverified", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 7))
		for i := range 80 {
			snap, sigs := snap, sigs
			if i%2 == 1 { // band runs packed
				snap, sigs = psnap, psigs
			}
			bad := slices.Clone(snap)
			for range 20 {
				bad[len(snapshotMagic)+rng.IntN(len(bad)-len(snapshotMagic)-4)] ^= byte(1 + rng.IntN(255))
			}
			f := writeAt(t, bad, 0)
			y, _ := New(testConfig())
			if y.MapSnapshot(f, 0, int64(len(bad)), false) != nil {
				continue
			}
			answers(t, y, sigs) // must not panic
			y.Add(t.Context(), dedup.Entry{ID: 1 << 50, Signature: sigs[0]})
		}
	})
}

// TestMapSnapshotDamagedDirectory: a packed run whose directory holds an
// entry past the run's end in its middle passes the load's structural
// check (only `check` verifies the order); the next merge of that run
// reads its pairs and ends instead of waiting for a bucket that never
// comes.
func TestMapSnapshotDamagedDirectory(t *testing.T) {
	x, _ := filledWith(t, 3000, packing{min: 64, keyBits: 32})
	r := &x.bands.levels[0][0]
	if r.dir == nil {
		t.Fatal("level 0, band 0 is not packed")
	}
	snap := snapshotOf(t, x)
	at := bytes.Index(snap, unsafe.Slice((*byte)(unsafe.Pointer(&r.dir[0])), 4*len(r.dir)))
	if at < 0 {
		t.Fatal("the run's directory is not in the snapshot")
	}
	binary.LittleEndian.PutUint32(snap[at+4*(len(r.dir)/2):], uint32(r.len()+5))
	y, err := New(testConfig())
	check(t, err)
	if err := y.MapSnapshot(writeAt(t, snap, 0), 0, int64(len(snap)), false); err != nil {
		t.Skipf("the structural check refuses the damage: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		rng := rand.New(rand.NewPCG(9, 9))
		for i := range 600 { // flushes the tail: merges the damaged run
			if err := y.Add(t.Context(), dedup.Entry{ID: uint64(900000 + i), Signature: randSig(rng, 40)}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		check(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("adding to an index with a damaged run's directory does not return")
	}
}
