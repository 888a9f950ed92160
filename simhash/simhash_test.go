package simhash

import (
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestHashKnownAnswers(t *testing.T) {
	tests := []struct {
		name string
		h    HashFunc
		in   string
		want uint64
	}{
		{"fnv1a empty is the offset basis", FNV1a, "", 0xcbf29ce484222325},
		{"fnv1a a", FNV1a, "a", 0xaf63dc4c8601ec8c},
		{"fnv1a foobar", FNV1a, "foobar", 0x85944171f73967e8},
		{"sdbm empty", SDBM, "", 0},
		{"sdbm a", SDBM, "a", 97},
		// 98 + (97<<6) + (97<<16) - 97 = 98 + 6208 + 6356992 - 97
		{"sdbm ab", SDBM, "ab", 6363201},
		{"xxhash empty", xxHash, "", 0xef46db3751d8e999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h(tt.in); got != tt.want {
				t.Errorf("hash(%q) = %#x, want %#x", tt.in, got, tt.want)
			}
		})
	}
}

func TestFNV1aMatchesStdlib(t *testing.T) {
	for _, s := range []string{"", "新闻", "王治郅赛场遇到82岁粉丝", "a\x00b", "\xff\xfe"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := FNV1a(s), h.Sum64(); got != want {
			t.Errorf("FNV1a(%q) = %#x, hash/fnv says %#x", s, got, want)
		}
	}
}

func TestSDBMRecurrence(t *testing.T) {
	// Independent path: h_{i} = c_i + 65599*h_{i-1} (mod 2^64), since
	// (h<<6) + (h<<16) - h = h*(64 + 65536 - 1).
	for _, s := range []string{"", "x", "中文", "基于Simhash的中文文本语义指纹"} {
		var want uint64
		for _, c := range []byte(s) {
			want = want*65599 + uint64(c)
		}
		if got := SDBM(s); got != want {
			t.Errorf("SDBM(%q) = %d, want %d", s, got, want)
		}
	}
}

// xxHash is the 64-bit xxHash (XXH64, seed 0): a third hash for the
// properties every HashFunc must have.
func xxHash(s string) uint64 { return xxhash.Sum64String(s) }

// fixedHash hashes terms through a table, so tests control every bit.
func fixedHash(m map[string]uint64) HashFunc {
	return func(s string) uint64 { return m[s] }
}

func TestSumKnownAnswers(t *testing.T) {
	const (
		a = 0xF0F0_0000_FFFF_1234
		b = 0x0FF0_FFFF_0000_4321
		c = 0x00FF_F0F0_F0F0_0F0F
	)
	h := fixedHash(map[string]uint64{"a": a, "b": b, "c": c})
	majority := uint64(a&b | a&c | b&c)
	tests := []struct {
		name string
		in   []Feature
		want uint64
	}{
		{"no features", nil, 0},
		{"single feature gives its hash", []Feature{{"a", 1}}, a},
		{"same feature repeated gives its hash", []Feature{{"a", 0.5}, {"a", 2}, {"a", 7}}, a},
		{"heavier of two wins every disputed bit", []Feature{{"a", 1}, {"b", 2}}, b},
		{"three equal weights give the bitwise majority", []Feature{{"a", 1}, {"b", 1}, {"c", 1}}, majority},
		{"equal and opposite votes tie to 0", []Feature{{"a", 1}, {"b", 1}}, a & b},
		{"zero weight votes nothing", []Feature{{"a", 0}}, 0},
		{"negative weight inverts", []Feature{{"a", -1}}, ^uint64(a)},
		{"NaN weight is ignored", []Feature{{"a", 1}, {"b", math.NaN()}}, a},
		{"Inf weights are ignored", []Feature{{"b", math.Inf(1)}, {"a", 1}, {"c", math.Inf(-1)}}, a},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sum(tt.in, h); got != tt.want {
				t.Errorf("Sum = %#016x, want %#016x", got, tt.want)
			}
		})
	}
}

func TestSumNilHashIsFNV1a(t *testing.T) {
	fs := []Feature{{"新闻", 2}, {"记者", 1}, {"比赛", 1.5}}
	if Sum(fs, nil) != Sum(fs, FNV1a) {
		t.Fatal("Sum with nil hash differs from FNV1a")
	}
}

// naiveSum is an independent SimHash with integer weights: counts votes per
// bit with an explicit branch.
func naiveSum(terms []string, weights []int, h HashFunc) uint64 {
	var fp uint64
	for i := 0; i < 64; i++ {
		total := 0
		for j, s := range terms {
			if h(s)&(1<<uint(i)) != 0 {
				total += weights[j]
			} else {
				total -= weights[j]
			}
		}
		if total > 0 {
			fp |= 1 << uint(i)
		}
	}
	return fp
}

func TestSumMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, h := range []HashFunc{FNV1a, SDBM, xxHash} {
		for trial := 0; trial < 200; trial++ {
			n := rng.IntN(40)
			terms := make([]string, n)
			weights := make([]int, n)
			fs := make([]Feature, n)
			for i := range terms {
				terms[i] = string(rune(0x4e00 + rng.IntN(300)))
				weights[i] = rng.IntN(9) - 2
				fs[i] = Feature{terms[i], float64(weights[i])}
			}
			if got, want := Sum(fs, h), naiveSum(terms, weights, h); got != want {
				t.Fatalf("trial %d: Sum = %#x, naive = %#x", trial, got, want)
			}
		}
	}
}

func TestSumDoesNotAllocate(t *testing.T) {
	fs := []Feature{{"新闻", 2}, {"记者", 1}, {"比赛", 1.5}}
	if n := testing.AllocsPerRun(100, func() { Sum(fs, FNV1a) }); n != 0 {
		t.Fatalf("Sum allocates %v times per call", n)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b uint64
		want int
	}{
		{0, 0, 0},
		{0, 1, 1},
		{0, math.MaxUint64, 64},
		{0xFF, 0x0F, 4},
		{1 << 63, 1, 2},
		{0xAAAA_AAAA_AAAA_AAAA, 0x5555_5555_5555_5555, 64},
		{0x1234_5678_9ABC_DEF0, 0x1234_5678_9ABC_DEF0, 0},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%#x, %#x) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSumPositional(t *testing.T) {
	h := fixedHash(map[string]uint64{"zero": 0, "ones": math.MaxUint64, "a": 0xF0F0_0000_FFFF_1234})
	// "zero" and "ones" tie on every bit of Sig. "zero" occurs in slice 0,
	// "ones" in slice 63, so Sig'[0] = -(1-1/64) + (0-1/64) = -1,
	// Sig'[63] = +1, and Sig'[i] = 0 elsewhere.
	tied := []PosFeature{
		{Term: "zero", Weight: 1, Positions: []int{0}},
		{Term: "ones", Weight: 1, Positions: []int{63}},
	}
	tests := []struct {
		name   string
		in     []PosFeature
		docLen int
		mu     float64
		want   uint64
	}{
		// SigFnl = 1.5*0 - 0.5*Sig': bit 0 = 1 (Sig'[0] = -1), bit 63 = 0.
		{"tie broken by position, default mu", tied, 64, DefaultMu, 1},
		// SigFnl = 0.5*Sig': only bit 63.
		{"tie broken by position, mu 0.5", tied, 64, 0.5, 1 << 63},
		{"non-finite mu means DefaultMu", tied, 64, math.NaN(), 1},
		{"mu 1 is plain SimHash", tied, 64, 1, 0},
		{"docLen 0 ignores positions", tied, 0, DefaultMu, 0},
		{"positions outside the document are ignored", []PosFeature{
			{Term: "zero", Weight: 1, Positions: []int{-1, 64, 1 << 40}},
			{Term: "ones", Weight: 1, Positions: []int{63}},
		}, 64, 0.5, 1 << 63},
		// Slice of position p is p*64/docLen: p = 99 of 100 is slice 63.
		{"positions scale to 64 slices", []PosFeature{
			{Term: "zero", Weight: 1, Positions: []int{0}},
			{Term: "ones", Weight: 1, Positions: []int{99}},
		}, 100, 0.5, 1 << 63},
		{"single feature keeps its hash", []PosFeature{{Term: "a", Weight: 2, Positions: []int{3, 9, 40}}}, 50, DefaultMu, 0xF0F0_0000_FFFF_1234},
		{"NaN weight is ignored", append([]PosFeature{{Term: "a", Weight: math.NaN(), Positions: []int{1}}}, tied...), 64, 0.5, 1 << 63},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SumPositional(tt.in, tt.docLen, h, tt.mu); got != tt.want {
				t.Errorf("SumPositional = %#016x, want %#016x", got, tt.want)
			}
		})
	}
}

func TestSumPositionalMuOneEqualsSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		n := 1 + rng.IntN(30)
		docLen := 1 + rng.IntN(500)
		pf := make([]PosFeature, n)
		f := make([]Feature, n)
		for i := range pf {
			term := string(rune(0x4e00 + rng.IntN(200)))
			w := float64(1 + rng.IntN(5))
			ps := make([]int, 1+rng.IntN(4))
			for j := range ps {
				ps[j] = rng.IntN(docLen)
			}
			pf[i] = PosFeature{Term: term, Weight: w, Positions: ps}
			f[i] = Feature{Term: term, Weight: w}
		}
		if got, want := SumPositional(pf, docLen, FNV1a, 1), Sum(f, FNV1a); got != want {
			t.Fatalf("trial %d: mu=1 gives %#x, Sum gives %#x", trial, got, want)
		}
	}
}

func TestSumPositionalSensitiveToOrder(t *testing.T) {
	// The same bag of words in two different orders: plain SimHash cannot
	// tell them apart, P-Simhash should in general.
	rng := rand.New(rand.NewPCG(5, 6))
	words := make([]string, 300)
	for i := range words {
		words[i] = string(rune(0x4e00 + rng.IntN(150)))
	}
	shuffled := append([]string(nil), words...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if p1, p2 := SumPositional(posFeatures(words), len(words), FNV1a, DefaultMu), SumPositional(posFeatures(shuffled), len(words), FNV1a, DefaultMu); p1 == p2 {
		t.Fatalf("P-Simhash of a shuffled text equals the original (%#x)", p1)
	}
}

// posFeatures turns a token sequence into TF-weighted positional features,
// in order of first occurrence.
func posFeatures(words []string) []PosFeature {
	idx := map[string]int{}
	var out []PosFeature
	for p, w := range words {
		i, ok := idx[w]
		if !ok {
			i = len(out)
			idx[w] = i
			out = append(out, PosFeature{Term: w})
		}
		out[i].Weight++
		out[i].Positions = append(out[i].Positions, p)
	}
	return out
}

func FuzzDistance(f *testing.F) {
	f.Add(uint64(0), uint64(0), uint64(0))
	f.Add(uint64(math.MaxUint64), uint64(1), uint64(1<<63))
	f.Fuzz(func(t *testing.T, a, b, c uint64) {
		dab, dba := Distance(a, b), Distance(b, a)
		if dab != dba {
			t.Fatalf("not symmetric: %d vs %d", dab, dba)
		}
		if Distance(a, a) != 0 {
			t.Fatal("distance to itself is not 0")
		}
		if dab < 0 || dab > 64 {
			t.Fatalf("distance %d out of range", dab)
		}
		if (dab == 0) != (a == b) {
			t.Fatal("distance 0 must mean equality")
		}
		if Distance(a, c) > dab+Distance(b, c) {
			t.Fatal("triangle inequality violated")
		}
		if dab != bits.OnesCount64(a)+bits.OnesCount64(b)-2*bits.OnesCount64(a&b) {
			t.Fatal("distance disagrees with inclusion-exclusion")
		}
	})
}

func FuzzSum(f *testing.F) {
	f.Add("新闻", 1.0, "记者", 2.0, "比赛", -1.0)
	f.Add("", math.NaN(), "x", math.Inf(1), "y", math.Inf(-1))
	f.Add("a", math.MaxFloat64, "b", math.MaxFloat64, "c", -math.MaxFloat64)
	f.Fuzz(func(t *testing.T, t1 string, w1 float64, t2 string, w2 float64, t3 string, w3 float64) {
		fs := []Feature{{t1, w1}, {t2, w2}, {t3, w3}}
		for _, h := range []HashFunc{FNV1a, SDBM, xxHash} {
			got := Sum(fs, h)
			if again := Sum(fs, h); again != got {
				t.Fatalf("not deterministic: %#x then %#x", got, again)
			}
			// Non-finite weights are ignored.
			var finite []Feature
			for _, f := range fs {
				if isFinite(f.Weight) {
					finite = append(finite, f)
				}
			}
			if g := Sum(finite, h); g != got {
				t.Fatalf("dropping non-finite weights changed the result: %#x vs %#x", g, got)
			}
			// A single finite positive-weight feature gives exactly its hash.
			if w1 > 0 && isFinite(w1) {
				if g := Sum(fs[:1], h); g != h(t1) {
					t.Fatalf("single feature: %#x, want %#x", g, h(t1))
				}
			}
			pf := []PosFeature{{t1, w1, []int{0, len(t1)}}, {t2, w2, []int{1}}, {t3, w3, []int{-5, 2}}}
			p := SumPositional(pf, len(t1)+1, h, w3)
			if again := SumPositional(pf, len(t1)+1, h, w3); again != p {
				t.Fatal("SumPositional is not deterministic")
			}
		}
	})
}
