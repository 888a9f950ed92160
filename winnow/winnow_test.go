package winnow

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestWinnowPaperExample is the example of Schleimer et al. (2003), Fig. 2:
// the hashes 77 74 42 17 98 50 17 98 8 88 67 39 77 74 42 17 98 winnowed with
// windows of 4 give the fingerprints 17 17 8 39 17 (positions 3 6 8 11 15,
// 0-based).
func TestWinnowPaperExample(t *testing.T) {
	hs := []uint64{77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98}
	want := []Print{{17, 3}, {17, 6}, {8, 8}, {39, 11}, {17, 15}}
	if got := winnowHashes(hs, 4); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestWinnowHashes(t *testing.T) {
	tests := []struct {
		name string
		hs   []uint64
		w    int
		want []Print
	}{
		{"window 1 keeps every hash", []uint64{5, 5, 3}, 1, []Print{{5, 0}, {5, 1}, {3, 2}}},
		{"rightmost of equal minima", []uint64{2, 2, 2, 2}, 4, []Print{{2, 3}}},
		{"rightmost, then moves on", []uint64{2, 2, 2, 2, 9}, 3, []Print{{2, 2}, {2, 3}}},
		{"one window", []uint64{9, 1, 9}, 3, []Print{{1, 1}}},
		{"increasing", []uint64{1, 2, 3, 4}, 2, []Print{{1, 0}, {2, 1}, {3, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := winnowHashes(tt.hs, tt.w); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBlockHashes: the rolling hash equals the direct sum of every block.
func TestBlockHashes(t *testing.T) {
	words := []string{"两岸", "经贸", "文化", "论坛", "开幕", "两岸", "经贸", "文化", "论坛"}
	for k := 1; k <= len(words)+1; k++ {
		t.Run(fmt.Sprint("k=", k), func(t *testing.T) {
			got := BlockHashes(words, k)
			if k > len(words) {
				if got != nil {
					t.Fatalf("%d hashes for a text shorter than k", len(got))
				}
				return
			}
			if len(got) != len(words)-k+1 {
				t.Fatalf("%d hashes, want %d", len(got), len(words)-k+1)
			}
			for i := range got {
				var h uint64
				for _, w := range words[i : i+k] {
					h = h*base + wordHash(w)
				}
				if got[i] != h {
					t.Errorf("block %d: %x, want %x", i, got[i], h)
				}
			}
			if k == 4 && got[0] != got[5] {
				t.Error("equal blocks hash differently")
			}
		})
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		ok   bool
	}{
		{"defaults", Config{}, true},
		{"k = g", Config{K: 4, G: 4}, true},
		{"k only, g defaults", Config{K: 3}, true},
		{"k larger than default g", Config{K: 20}, true},
		{"g < k", Config{K: 5, G: 4}, false},
		{"negative k", Config{K: -1, G: 4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fingerprints([]string{"a", "b"}, tt.c)
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
			_, err = Passages(nil, nil, nil, nil, tt.c)
			if (err == nil) != tt.ok {
				t.Errorf("Passages err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestShortTexts(t *testing.T) {
	c := Config{K: 3, G: 8}
	tests := []struct {
		name  string
		words []string
		n     int
	}{
		{"empty", nil, 0},
		{"shorter than k", []string{"a", "b"}, 0},
		{"exactly k", []string{"a", "b", "c"}, 1},
		{"shorter than g: the minimum block", []string{"a", "b", "c", "d", "e"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := Fingerprints(tt.words, c)
			if err != nil || len(ps) != tt.n {
				t.Errorf("%d prints (%v), want %d", len(ps), err, tt.n)
			}
		})
	}
}

// randomWords returns n words from a vocabulary of v words.
func randomWords(r *rand.Rand, n, v int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", r.IntN(v))
	}
	return out
}

// checkGuarantee inserts passage into two texts and checks that both texts
// record one hash at a position inside the passage (the winnowing
// guarantee for len(passage) >= g), and that Passages reports a shared run
// covering it.
func checkGuarantee(t *testing.T, a, b, passage []string, atA, atB int, c Config) {
	t.Helper()
	A := slices.Concat(a[:atA], passage, a[atA:])
	B := slices.Concat(b[:atB], passage, b[atB:])
	pa, err := Fingerprints(A, c)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := Fingerprints(B, c)
	found := false
	inB := map[uint64]bool{}
	for _, p := range pb {
		if p.Pos >= atB && p.Pos+c.K <= atB+len(passage) {
			inB[p.Hash] = true
		}
	}
	for _, p := range pa {
		if p.Pos >= atA && p.Pos+c.K <= atA+len(passage) && inB[p.Hash] {
			found = true
		}
	}
	if !found {
		t.Fatalf("shared passage of %d words (g=%d, k=%d) at %d/%d: no shared fingerprint inside it", len(passage), c.G, c.K, atA, atB)
	}
	ps, _ := Passages(A, pa, B, pb, c)
	covered := false
	for _, p := range ps {
		if p.StartA <= atA && p.StartA+p.Len >= atA+len(passage) && p.StartA-p.StartB == atA-atB {
			covered = true
		}
		if !slices.Equal(A[p.StartA:p.StartA+p.Len], B[p.StartB:p.StartB+p.Len]) {
			t.Fatalf("passage %+v is not shared", p)
		}
	}
	if !covered {
		t.Fatalf("Passages %v does not cover the passage at %d/%d (len %d)", ps, atA, atB, len(passage))
	}
	// The estimate from fingerprints alone covers the whole passage too.
	rs, err := Runs(pa, len(A), pb, len(B), c)
	if err != nil {
		t.Fatal(err)
	}
	covered = false
	for _, p := range rs {
		if p.StartA <= atA && p.StartA+p.Len >= atA+len(passage) && p.StartA-p.StartB == atA-atB {
			covered = true
		}
		if p.StartA < 0 || p.StartB < 0 || p.StartA+p.Len > len(A) || p.StartB+p.Len > len(B) {
			t.Fatalf("run %+v outside the texts (%d, %d words)", p, len(A), len(B))
		}
	}
	if !covered {
		t.Fatalf("Runs %v do not cover the passage at %d/%d (len %d, k=%d g=%d)", rs, atA, atB, len(passage), c.K, c.G)
	}
}

// TestGuarantee: every shared passage of g words or more is found, for
// random texts, passages, positions and thresholds.
func TestGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	for i := range 2000 {
		k := 1 + r.IntN(8)
		g := k + r.IntN(15)
		c := Config{K: k, G: g}
		// A small vocabulary makes equal hashes in a window (ties) common.
		v := 3 + r.IntN(200)
		a, b := randomWords(r, r.IntN(200), v), randomWords(r, r.IntN(200), v)
		passage := randomWords(r, g+r.IntN(10), v)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkGuarantee(t, a, b, passage, r.IntN(len(a)+1), r.IntN(len(b)+1), c)
		})
	}
}

// FuzzGuarantee: the guarantee for fuzzer-chosen texts (one byte = one word
// of a 16-word vocabulary, so repeats and ties are frequent).
func FuzzGuarantee(f *testing.F) {
	f.Add([]byte("abcabcabc"), []byte("xyz"), []byte("0123456789abcdef"), uint8(3), uint8(5), uint8(1), uint8(2))
	f.Add([]byte{}, []byte{}, []byte("aaaaaaaaaaaa"), uint8(2), uint8(4), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, a, b, passage []byte, k, extra, atA, atB uint8) {
		K := 1 + int(k%8)
		G := K + int(extra%12)
		toWords := func(p []byte) []string {
			out := make([]string, len(p))
			for i, c := range p {
				out[i] = string(rune('a' + c%16))
			}
			return out
		}
		pw := toWords(passage)
		if len(pw) < G || len(a) > 300 || len(b) > 300 || len(pw) > 300 {
			return
		}
		aw, bw := toWords(a), toWords(b)
		checkGuarantee(t, aw, bw, pw, int(atA)%(len(aw)+1), int(atB)%(len(bw)+1), Config{K: K, G: G})
	})
}

func TestPassagesExact(t *testing.T) {
	a := []string{"x1", "x2", "北京", "时间", "昨日", "举行", "发布会", "宣布", "新", "政策", "y1", "y2"}
	b := []string{"z1", "北京", "时间", "昨日", "举行", "发布会", "宣布", "新", "政策", "z2"}
	c := Config{K: 3, G: 5}
	pa, _ := Fingerprints(a, c)
	pb, _ := Fingerprints(b, c)
	ps, err := Passages(a, pa, b, pb, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []Passage{{StartA: 2, StartB: 1, Len: 8}}
	if !slices.Equal(ps, want) {
		t.Errorf("got %v, want %v", ps, want)
	}
	if n := Covered(len(a), ps); n != 8 {
		t.Errorf("Covered = %d, want 8", n)
	}
	// No shared block of k words: nothing.
	ps, _ = Passages(a, pa, []string{"北京", "时间", "z", "昨日"}, nil, c)
	if len(ps) != 0 {
		t.Errorf("passages without shared blocks: %v", ps)
	}
}

func TestRunsIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := randomWords(r, 300, 1000)
	c := Config{K: 4, G: 8}
	pa, _ := Fingerprints(a, c)
	rs, err := Runs(pa, len(a), pa, len(a), c)
	if err != nil {
		t.Fatal(err)
	}
	if n := Covered(len(a), rs); n != len(a) {
		t.Errorf("identical texts: %d of %d words covered (%v)", n, len(a), rs)
	}
	b := randomWords(r, 300, 1000)
	pb, _ := Fingerprints(b, c)
	if rs, _ := Runs(pa, len(a), pb, len(b), c); Covered(len(a), rs) > 20 {
		t.Errorf("unrelated texts share %d words: %v", Covered(len(a), rs), rs)
	}
}

func TestCovered(t *testing.T) {
	tests := []struct {
		name string
		n    int
		ps   []Passage
		want int
	}{
		{"none", 5, nil, 0},
		{"overlapping counted once", 10, []Passage{{0, 0, 4}, {2, 7, 4}}, 6},
		{"clipped at n", 5, []Passage{{3, 0, 10}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Covered(tt.n, tt.ps); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func BenchmarkFingerprints(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	words := randomWords(r, 600, 5000) // about a 1,500-character article
	for b.Loop() {
		Fingerprints(words, Config{})
	}
}

// TestStreamMatchesFingerprints: Stream gives Fingerprints' result on
// texts shorter than k, shorter than g, and long, with repeated words
// (equal block hashes: the rightmost minimum) and several configs.
func TestStreamMatchesFingerprints(t *testing.T) {
	long := strings.Fields(strings.Repeat("a b c d e f g a b c h i j k a a a a l m n ", 20))
	tests := []struct {
		name  string
		words []string
		c     Config
	}{
		{"empty", nil, Config{}},
		{"fewer than k", []string{"a", "b"}, Config{}},
		{"exactly k", []string{"a", "b", "c", "d"}, Config{}},
		{"between k and g", []string{"a", "b", "c", "d", "e", "f"}, Config{}},
		{"exactly g", strings.Fields("a b c d e f g h"), Config{}},
		{"long with repeats", long, Config{}},
		{"k = 1", long, Config{K: 1, G: 3}},
		{"k = g", long, Config{K: 5, G: 5}},
		{"all equal", strings.Fields(strings.Repeat("x ", 50)), Config{}},
		{"a full window of increasing hashes (fuzz)", strings.Fields("1 2 Y 1 7 0 0"), Config{K: 4, G: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := Fingerprints(tt.words, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewStream(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.words {
				s.Add(w)
			}
			got := s.Prints()
			if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
				t.Errorf("stream %v\nwant   %v", got, want)
			}
			if s.Words() != len(tt.words) {
				t.Errorf("Words() = %d, want %d", s.Words(), len(tt.words))
			}
		})
	}
}

func FuzzStreamMatchesFingerprints(f *testing.F) {
	f.Add("a b c d e f g a b c h i j k a a a a l m n", 4, 8)
	f.Add("x x x x x", 2, 3)
	f.Fuzz(func(t *testing.T, text string, k, g int) {
		c := Config{K: (k%8+8)%8 + 1, G: (g%16+16)%16 + 1}
		if c.G < c.K {
			c.G = c.K
		}
		words := strings.Fields(text)
		want, err := Fingerprints(words, c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewStream(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range words {
			s.Add(w)
		}
		if got := s.Prints(); len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
			t.Fatalf("%q %+v: stream %v, want %v", text, c, got, want)
		}
	})
}
