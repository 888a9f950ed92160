package lshindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

func testConfig() Config {
	return Config{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment, MinContainment: dedup.MinContainmentSpots}
}

func randSig(rng *rand.Rand, n int) spotsigs.Signature {
	s := make(spotsigs.Signature, n)
	for i := range s {
		s[i] = rng.Uint64() % 50000 // a closed vocabulary: head lists fill up
	}
	slices.Sort(s)
	return s
}

// filled returns an index of n entries with removals, merges, winnowing
// prints and an entry without spots, and the signatures added.
func filled(t *testing.T, n int) (*Index, []spotsigs.Signature) {
	return filledWith(t, n, defaultPacking())
}

// filledWith is filled with band runs packed as pk says.
func filledWith(t *testing.T, n int, pk packing) (*Index, []spotsigs.Signature) {
	x, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	x.bands.packing = pk
	rng := rand.New(rand.NewPCG(11, 12))
	var sigs []spotsigs.Signature
	for i := range n {
		s := randSig(rng, 10+rng.IntN(200))
		sigs = append(sigs, s)
		e := dedup.Entry{ID: uint64(i + 1), Cluster: uint64(i/3 + 1), Signature: s, Simhash: rng.Uint64(), Title: []uint64{rng.Uint64(), 7}}
		e.Hash[0], e.Hash[1] = byte(i), byte(i>>8)
		if i%50 == 0 {
			e.Prints, e.ContentWords = []uint64{1, 2, 3}, 30
		}
		check(t, x.Add(t.Context(), e))
	}
	check(t, x.Add(t.Context(), dedup.Entry{ID: 1 << 40, Hash: [16]byte{9, 9}}))
	for i := 0; i < n; i += 17 {
		check(t, x.Remove(t.Context(), uint64(i+1)))
	}
	check(t, x.MergeClusters(t.Context(), 1, []uint64{5, 9}))
	check(t, x.MergeClusters(t.Context(), 2, []uint64{1}))
	return x, sigs
}

func snapshotOf(t *testing.T, x *Index) []byte {
	var buf bytes.Buffer
	if err := x.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type cand struct {
	id, cluster uint64
	sig         string
}

func answers(t testing.TB, x *Index, sigs []spotsigs.Signature) [][]cand {
	var out [][]cand
	q := dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment}
	for i := 0; i < len(sigs); i += 41 {
		var cs []cand
		for _, e := range candidates(t, x, &dedup.Fingerprint{Signature: sigs[i], Words: 1}, q) {
			cs = append(cs, cand{e.ID, e.Cluster, string(rune(len(e.Signature)))})
		}
		out = append(out, cs)
	}
	out = append(out, nil)
	for _, e := range candidates(t, x, &dedup.Fingerprint{Hash: [16]byte{9, 9}, Words: 1}, q) {
		out[len(out)-1] = append(out[len(out)-1], cand{e.ID, e.Cluster, ""})
	}
	return out
}

// TestSnapshotRoundTrip: a read snapshot answers, writes and goes on as
// the written index, with plain band runs and with packed ones.
func TestSnapshotRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		pk   packing
	}{
		{"plain_runs", defaultPacking()},
		{"packed_runs", packing{min: 64, keyBits: 32}},
		{"packed_runs_knowing_16_key_bits", packing{min: 64, keyBits: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) { testSnapshotRoundTrip(t, tc.pk) })
	}
}

func testSnapshotRoundTrip(t *testing.T, pk packing) {
	x, sigs := filledWith(t, 6000, pk)
	if packed := x.bands.levels[len(x.bands.levels)-1][0].dir != nil; packed != (pk.min < packedMin) {
		t.Fatalf("largest run packed %v, packing %+v", packed, pk)
	}
	snap := snapshotOf(t, x)
	y, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	y.bands.packing = pk
	if err := y.ReadSnapshot(bytes.NewReader(snap)); err != nil {
		t.Fatal(err)
	}
	if x.Len() != y.Len() || x.Stats() != y.Stats() {
		t.Errorf("after the round trip Len %d/%d, stats %+v / %+v", x.Len(), y.Len(), x.Stats(), y.Stats())
	}
	if a, b := answers(t, x, sigs), answers(t, y, sigs); !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("candidates differ after the round trip")
	}
	for _, c := range []uint64{1, 5, 9, 2, 3} {
		if clusterOf(t, x, c) != clusterOf(t, y, c) {
			t.Errorf("ClusterOf(%d) = %d, was %d", c, clusterOf(t, y, c), clusterOf(t, x, c))
		}
	}
	if !bytes.Equal(snap, snapshotOf(t, y)) {
		t.Error("the read index writes a different snapshot")
	}
	// The read index keeps working: adds go on from the same state.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		s := randSig(rng, 60)
		e := dedup.Entry{ID: uint64(100000 + i), Cluster: 5, Signature: s}
		check(t, x.Add(t.Context(), e))
		check(t, y.Add(t.Context(), e))
	}
	if !bytes.Equal(snapshotOf(t, x), snapshotOf(t, y)) {
		t.Error("the same adds after the round trip give different states")
	}
}

func TestSnapshotRejects(t *testing.T) {
	x, _ := filled(t, 700)
	snap := snapshotOf(t, x)
	other := testConfig()
	other.Containment = 0.7
	full, _ := filled(t, 3)
	bad, _ := filled(t, 50)
	bad.sketch[3*sketchWords+2] ^= 1 // a sketch that is not its bitmap's (a buggy writer)
	for _, tc := range []struct {
		name string
		data []byte
		cfg  Config
		into *Index
	}{
		{"empty_input", nil, testConfig(), nil},
		{"bad_magic", append([]byte("XXXXXXXX"), snap[8:]...), testConfig(), nil},
		{"other_options", snap, other, nil},
		{"flipped_byte", flip(snap, len(snap)/2), testConfig(), nil},
		{"flipped_checksum", flip(snap, len(snap)-1), testConfig(), nil},
		{"index_not_empty", snap, testConfig(), full},
		{"sketch_not_its_bitmap", snapshotOf(t, bad), testConfig(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := tc.into
			if y == nil {
				var err error
				if y, err = New(tc.cfg); err != nil {
					t.Fatal(err)
				}
			}
			if err := y.ReadSnapshot(bytes.NewReader(tc.data)); err == nil {
				t.Error("accepted")
			} else {
				t.Log(err)
			}
		})
	}
	t.Run("every_truncation", func(t *testing.T) {
		for n := 0; n < len(snap); n += 1 + len(snap)/60 + n%7 {
			y, _ := New(testConfig())
			if err := y.ReadSnapshot(bytes.NewReader(snap[:n])); err == nil {
				t.Fatalf("a snapshot cut at %d of %d bytes was accepted", n, len(snap))
			}
		}
	})
}

func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0x40
	return c
}

// TestPackedRun checks packed runs against a reference over the plain
// pairs: a lookup returns exactly the slots whose key agrees with the
// query's on the 16 directory bits and the kbits stored bits (all exact
// matches, and the keys that differ only in the bits not stored), for
// random keys, keys sharing the stored bits and keys of other buckets;
// the run iterates its pairs back (round trip, bits not stored cleared),
// passes check, and merges with removals into a run no more exact than
// its inputs.
func TestPackedRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lo, span uint32 // slots lo .. lo+span-1
		known    uint8  // key bits known: a directory of 14 bits and the bits the slot range leaves
		wide     bool
	}{
		{"slots_of_12_bits", 0, 1 << 12, 32, false},
		{"slots_of_20_bits", 0, 1 << 20, 26, false},
		{"slots_of_24_bits", 0, 1 << 24, 22, false},
		{"slots_of_31_bits", 0, MaxSlots, 30, true},
		{"slots_of_12_bits_past_2^24", 1 << 24, 1 << 12, 32, false},
		{"slots_of_20_bits_past_2^30", 1 << 30, 1 << 20, 26, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			maxSlot := tc.lo + tc.span - 1
			rng := rand.New(rand.NewPCG(5, uint64(maxSlot)))
			pairs := make([]uint64, 3000)
			for i := range pairs {
				// Few distinct top bits and a small key range, so that
				// buckets hold many keys sharing the stored bits.
				k := rng.Uint32()%64<<24 | rng.Uint32()%(1<<12)
				pairs[i] = uint64(k)<<32 | uint64(tc.lo+rng.Uint32()%tc.span)
			}
			pairs[0] = uint64(0xFFFFFFFF)<<32 | uint64(maxSlot) // the last bucket, the largest slot
			pairs[1] = uint64(pairs[1]>>32)<<32 | uint64(tc.lo) // the least slot
			slices.Sort(pairs)
			packed := newRun(slices.Clone(pairs), packing{min: 1, keyBits: 32})
			if packed.dir == nil || packed.knownBits() != tc.known || packed.wide != tc.wide {
				t.Fatalf("run packed %v knowing %d key bits, wide %v; want %d, wide %v",
					packed.dir != nil, packed.knownBits(), packed.wide, tc.known, tc.wide)
			}
			checkPacked(t, &packed, pairs, int(maxSlot)+1)
			// Merge with a plain run, dropping odd slots: the result is
			// packed like the inputs (whatever its length) and holds the
			// even-slot pairs of both.
			more := make([]uint64, 500)
			for i := range more {
				more[i] = uint64(rng.Uint32()%64<<24|rng.Uint32()%(1<<12))<<32 | uint64(tc.lo+rng.Uint32()%tc.span)
			}
			slices.Sort(more)
			small := newRun(slices.Clone(more), defaultPacking())
			even := func(s uint32) bool { return s%2 == 0 }
			m := mergeRuns(&packed, &small, even, defaultPacking())
			var want []uint64
			for _, p := range append(slices.Clone(pairs), more...) {
				if even(uint32(p)) {
					want = append(want, p)
				}
			}
			slices.Sort(want)
			if m.dir == nil || m.knownBits() > packed.knownBits() {
				t.Fatalf("merged run packed %v knowing %d key bits, inputs %d", m.dir != nil, m.knownBits(), packed.knownBits())
			}
			checkPacked(t, &m, want, int(maxSlot)+1)
		})
	}
	t.Run("merge_keeps_fewer_bits", func(t *testing.T) {
		// A run of a wide slot range (14 directory bits and 8 key bits)
		// merged with one of a single slot (all 32) knows 22: the bits the
		// first one lost are not invented.
		a := newRun([]uint64{0x12345678<<32 | 0, 0x12345678<<32 | 1<<24 - 1}, packing{min: 1, keyBits: 32})
		b := newRun([]uint64{0x12345679<<32 | 3}, packing{min: 1, keyBits: 32})
		m := mergeRuns(&a, &b, func(uint32) bool { return true }, defaultPacking())
		if a.knownBits() != 22 || b.knownBits() != 32 || m.knownBits() != 22 {
			t.Fatalf("key bits known %d, %d, merged %d; want 22, 32, 22", a.knownBits(), b.knownBits(), m.knownBits())
		}
		checkPacked(t, &m, []uint64{0x12345400<<32 | 0, 0x12345400<<32 | 3, 0x12345400<<32 | 1<<24 - 1}, 1<<24)
	})
}

// checkPacked compares r with the sorted pairs it was built from: its
// pairs in order with the key bits not stored cleared, the lookups of
// every stored key and of keys next to them, and check.
func checkPacked(t *testing.T, r *run, pairs []uint64, n int) {
	t.Helper()
	mask := keyMask(r.knownBits())
	var got, want []uint64
	r.each(func(p uint64) { got = append(got, p) })
	for _, p := range pairs {
		want = append(want, p&mask)
	}
	key := func(p uint64) uint64 { return p >> 32 }
	if !slices.Equal(got, want) && !slices.Equal(sortPairs(got), sortPairs(want)) ||
		!slices.IsSortedFunc(got, func(a, b uint64) int { return cmpU64(key(a), key(b)) }) {
		t.Fatalf("run's pairs differ from the input's (%d, %d)", len(got), len(want))
	}
	if err := r.check(n); err != nil {
		t.Fatalf("check: %v", err)
	}
	exact := 0
	for i, p := range pairs {
		for _, k := range []uint32{uint32(p >> 32), uint32(p>>32) ^ 1, uint32(p>>32) ^ 0x100, uint32(p>>32) + 1<<16} {
			var a, b []uint32
			r.lookup(k, func(s uint32) { a = append(a, s) })
			for _, q := range pairs {
				if (q>>32)<<32&mask == uint64(k)<<32&mask {
					b = append(b, uint32(q))
				}
			}
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatalf("pair %d, key %08x: slots %v, want %v", i, k, a, b)
			}
			if k == uint32(p>>32) && !slices.Contains(a, uint32(p)) {
				t.Fatalf("key %08x: slot %d not returned", k, uint32(p))
			}
			exact += len(b)
		}
		if i > 400 {
			break
		}
	}
	if exact == 0 {
		t.Fatal("no lookup returned anything: the comparison tested little")
	}
}

func sortPairs(ps []uint64) []uint64 {
	c := slices.Clone(ps)
	slices.Sort(c)
	return c
}

func FuzzReadSnapshot(f *testing.F) {
	x, err := New(testConfig())
	if err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		check(f, x.Add(f.Context(), dedup.Entry{ID: uint64(i + 1), Cluster: 1, Signature: randSig(rng, 12)}))
	}
	var buf bytes.Buffer
	if err := x.WriteSnapshot(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		y, err := New(testConfig())
		if err != nil {
			t.Fatal(err)
		}
		if y.ReadSnapshot(bytes.NewReader(data)) == nil {
			// Whatever was accepted must answer queries without panicking.
			candidates(t, y, &dedup.Fingerprint{Signature: randSig(rng, 20), Words: 1}, dedup.Query{Jaccard: 0.35, Containment: 0.8})
		}
	})
}

// TestPlainRunDirectory checks the bucket directory of plain runs against
// a linear scan, for sizes around the directory's thresholds.
func TestPlainRunDirectory(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{0, 1, 7, 8, 9, 100, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ps := make([]uint64, n)
			for i := range ps {
				ps[i] = uint64(rng.Uint32())<<32 | uint64(i)
				if i%10 == 1 {
					ps[i] = ps[i-1]&^(1<<32-1) | uint64(i) // a repeated key
				}
			}
			slices.Sort(ps)
			r := plainRun(ps)
			for range 500 {
				k := rng.Uint32()
				if n > 0 && rng.IntN(2) == 0 {
					k = uint32(ps[rng.IntN(n)] >> 32)
				}
				var got, want []uint32
				r.lookup(k, func(s uint32) { got = append(got, s) })
				for _, p := range ps {
					if uint32(p>>32) == k {
						want = append(want, uint32(p))
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("key %x: %v, want %v", k, got, want)
				}
			}
		})
	}
}

// TestSnapshotSizedRead checks the two ways a snapshot is read: at once
// into a buffer of its exact length when the reader's size is known (a
// file behind an io.LimitedReader, a bytes.Reader), as it arrives
// otherwise. Both give the same index, and a length the rest of the
// input cannot hold is refused before anything is allocated for it.
func TestSnapshotSizedRead(t *testing.T) {
	x, sigs := filled(t, 500)
	snap := snapshotOf(t, x)
	want := answers(t, x, sigs)
	for _, tc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"limited_reader", func() io.Reader {
			return &io.LimitedReader{R: struct{ io.Reader }{bytes.NewReader(snap)}, N: int64(len(snap))}
		}},
		{"bytes_reader", func() io.Reader { return bytes.NewReader(snap) }},
		{"unsized", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(snap)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, _ := New(testConfig())
			if err := y.ReadSnapshot(tc.r()); err != nil {
				t.Fatal(err)
			}
			if got := answers(t, y, sigs); !reflect.DeepEqual(got, want) {
				t.Fatal("candidates differ from the written index's")
			}
		})
	}
	t.Run("length_past_the_input", func(t *testing.T) {
		// The first array length (ids) follows the magic, the header and
		// four counts; claim 2^36 ids in a snapshot of a few hundred KB.
		off := len(snapshotMagic) + binary.Size(header{}) + 4*8
		bad := slices.Clone(snap)
		binary.LittleEndian.PutUint64(bad[off:], 1<<36)
		y, _ := New(testConfig())
		err := y.ReadSnapshot(bytes.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("got %v, want a truncated-snapshot error", err)
		}
	})
}

// lookup calls fn for every slot stored under key.
func (r *run) lookup(key uint32, fn func(slot uint32)) {
	lo, hi := r.bucket(key)
	r.scan(key, lo, hi, fn)
}
