package simhash

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// flip returns fp with d distinct random bits inverted.
func flip(rng *rand.Rand, fp uint64, d int) uint64 {
	for _, i := range rng.Perm(64)[:d] {
		fp ^= 1 << uint(i)
	}
	return fp
}

// model is the brute-force reference: a linear scan over all live entries.
type model struct{ es []entry }

func (m *model) add(id, fp uint64) { m.es = append(m.es, entry{fp: fp, id: id}) }

func (m *model) remove(id uint64) bool {
	n := len(m.es)
	m.es = slices.DeleteFunc(m.es, func(e entry) bool { return e.id == id })
	return len(m.es) != n
}

func (m *model) query(fp uint64, k int) []Match {
	var out []Match
	for _, e := range m.es {
		if d := Distance(e.fp, fp); d <= k {
			out = append(out, Match{ID: e.id, FP: e.fp, Distance: d})
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.FP, b.FP)
	})
	return out
}

func mustIndex(t testing.TB, k int) *Index {
	t.Helper()
	x, err := NewIndex(k)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestNewIndexRejectsBadK(t *testing.T) {
	for _, k := range []int{-1, MaxK + 1, 1 << 40} {
		if _, err := NewIndex(k); err == nil {
			t.Errorf("NewIndex(%d) accepted", k)
		}
	}
	for _, k := range []int{0, DefaultK, MaxK} {
		x, err := NewIndex(k)
		if err != nil || x.K() != k {
			t.Errorf("NewIndex(%d) = %v, %v", k, x, err)
		}
	}
}

// TestIndexMatchesBruteForce checks every query against a linear scan, with
// planted neighbours at distances 0..k+1 of each query, for several k and
// for bulk-built, incrementally built and partly pending indexes.
func TestIndexMatchesBruteForce(t *testing.T) {
	for _, k := range []int{0, 1, 3, 4, 6, 9, 20} {
		for _, pendingMax := range []int{defaultPendingMax, 7, 1 << 30} {
			rng := rand.New(rand.NewPCG(uint64(k), uint64(pendingMax)))
			x := mustIndex(t, k)
			x.pendingMax = pendingMax
			m := &model{}
			var id uint64
			add := func(fp uint64) {
				id++
				x.Add(id, fp)
				m.add(id, fp)
			}
			const n, nq = 20000, 150
			queries := make([]uint64, nq)
			for i := range queries {
				queries[i] = rng.Uint64()
			}
			for i := 0; i < n; i++ {
				add(rng.Uint64())
				if step := n / nq; i%step == 0 && i/step < nq {
					q := queries[i/step]
					for d := 0; d <= k+1 && d <= 64; d++ {
						add(flip(rng, q, d))
					}
					add(q) // an exact duplicate under another id
					// Interleave queries with additions (incremental use).
					if i%(n/10) == 0 {
						compare(t, x, m, q, k)
					}
				}
			}
			for _, q := range queries {
				got := compare(t, x, m, q, k)
				planted := 0
				for _, g := range got {
					if g.Distance <= k {
						planted++
					}
				}
				if planted < k+2 && k+2 <= 64 {
					t.Fatalf("k=%d: query %#x found %d entries, planted %d within k", k, q, planted, k+2)
				}
			}
			if x.Len() != len(m.es) {
				t.Fatalf("Len = %d, want %d", x.Len(), len(m.es))
			}
		}
	}
}

func compare(t *testing.T, x *Index, m *model, q uint64, k int) []Match {
	t.Helper()
	got, want := x.Query(q), m.query(q, k)
	if !slices.Equal(got, want) {
		t.Fatalf("k=%d query %#x: index found %d entries, brute force %d\nindex: %v\nbrute: %v", k, q, len(got), len(want), head(got), head(want))
	}
	for _, g := range got {
		if g.Distance > k {
			t.Fatalf("k=%d: reported distance %d", k, g.Distance)
		}
	}
	return got
}

func head(ms []Match) []Match {
	if len(ms) > 8 {
		return ms[:8]
	}
	return ms
}

func TestIndexRemove(t *testing.T) {
	for _, pendingMax := range []int{defaultPendingMax, 3} {
		rng := rand.New(rand.NewPCG(9, uint64(pendingMax)))
		x := mustIndex(t, DefaultK)
		x.pendingMax = pendingMax
		m := &model{}
		q := rng.Uint64()
		for id := uint64(1); id <= 200; id++ {
			fp := rng.Uint64()
			if id%4 == 0 {
				fp = flip(rng, q, int(id%5))
			}
			x.Add(id, fp)
			m.add(id, fp)
			if id%50 == 0 {
				compare(t, x, m, q, DefaultK) // forces segments to be built
			}
		}
		for _, id := range []uint64{4, 8, 12, 199, 200, 1000} {
			if got, want := x.Remove(id), m.remove(id); got != want {
				t.Fatalf("Remove(%d) = %v, want %v", id, got, want)
			}
			compare(t, x, m, q, DefaultK)
		}
		if x.Remove(4) {
			t.Fatal("second Remove(4) reported a removal")
		}
		// Re-adding a removed id must make it visible again, and only once.
		x.Add(8, q)
		m.add(8, q)
		compare(t, x, m, q, DefaultK)
		for i := 0; i < 20; i++ { // push the re-added entry through merges
			fp := flip(rng, q, 1)
			x.Add(uint64(5000+i), fp)
			m.add(uint64(5000+i), fp)
			compare(t, x, m, q, DefaultK)
		}
		if x.Remove(8) != m.remove(8) {
			t.Fatal("Remove(8) after re-adding disagrees")
		}
		compare(t, x, m, q, DefaultK)
		// A duplicate id holds two entries; Remove drops both.
		fp2 := flip(rng, q, 2)
		x.Add(77777, q)
		x.Add(77777, fp2)
		m.add(77777, q)
		m.add(77777, fp2)
		compare(t, x, m, q, DefaultK)
		x.Remove(77777)
		m.remove(77777)
		compare(t, x, m, q, DefaultK)
		if x.Len() != len(m.es) {
			t.Fatalf("Len = %d, want %d", x.Len(), len(m.es))
		}
	}
}

func TestIndexEmptyAndEarlyStop(t *testing.T) {
	x := mustIndex(t, DefaultK)
	if got := x.Query(42); len(got) != 0 {
		t.Fatalf("empty index returned %v", got)
	}
	x.pendingMax = 2
	for i := uint64(0); i < 10; i++ {
		x.Add(i, 42)
	}
	calls := 0
	x.QueryFunc(42, func(Match) bool { calls++; return calls < 3 })
	if calls != 3 {
		t.Fatalf("QueryFunc went on after fn returned false: %d calls", calls)
	}
	if got := x.Query(42); len(got) != 10 {
		t.Fatalf("found %d of 10 identical fingerprints", len(got))
	}
}

func TestIndexConcurrent(t *testing.T) {
	x := mustIndex(t, DefaultK)
	x.pendingMax = 16
	rng := rand.New(rand.NewPCG(11, 12))
	q := rng.Uint64()
	var wg sync.WaitGroup
	done := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				for _, m := range x.Query(q) {
					if m.Distance > DefaultK {
						t.Errorf("distance %d reported", m.Distance)
						return
					}
				}
			}
		}()
	}
	for i := uint64(0); i < 3000; i++ {
		fp := rng.Uint64()
		if i%3 == 0 {
			fp = flip(rng, q, int(i%4))
		}
		x.Add(i, fp)
		if i%100 == 99 {
			x.Remove(i - 50)
		}
	}
	close(done)
	wg.Wait()
	got := x.Query(q)
	want := 0
	for i := uint64(0); i < 3000; i++ {
		if i%3 == 0 && !(i%100 == 49) {
			want++
		}
	}
	if len(got) != want {
		t.Fatalf("after concurrent use found %d neighbours, want %d", len(got), want)
	}
}

// FuzzIndex drives an index and the brute-force model with the same
// sequence of operations decoded from the input and compares every query.
func FuzzIndex(f *testing.F) {
	f.Add(byte(3), []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"))
	f.Add(byte(6), make([]byte, 300))
	f.Fuzz(func(t *testing.T, kb byte, ops []byte) {
		k := int(kb) % 12
		x := mustIndex(t, k)
		x.pendingMax = 1 + int(kb)%5
		m := &model{}
		var last uint64
		for len(ops) >= 10 {
			op, id, v := ops[0]%4, uint64(ops[1]%16), binary.LittleEndian.Uint64(ops[2:10])
			ops = ops[10:]
			switch op {
			case 0: // random fingerprint
				x.Add(id, v)
				m.add(id, v)
				last = v
			case 1: // near the previous one
				fp := last ^ (v & (v >> 7) & (v >> 13))
				x.Add(id, fp)
				m.add(id, fp)
			case 2:
				if x.Remove(id) != m.remove(id) {
					t.Fatalf("Remove(%d) disagrees", id)
				}
			case 3:
				for _, q := range []uint64{v, last} {
					if got, want := x.Query(q), m.query(q, k); !slices.Equal(got, want) {
						t.Fatalf("query %#x: index %v, brute force %v", q, got, want)
					}
				}
			}
			if x.Len() != len(m.es) {
				t.Fatalf("Len = %d, want %d", x.Len(), len(m.es))
			}
		}
		if got, want := x.Query(last), m.query(last, k); !slices.Equal(got, want) {
			t.Fatalf("final query: index %v, brute force %v", got, want)
		}
	})
}
