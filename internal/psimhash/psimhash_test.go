package psimhash

import (
	"math"
	"math/bits"
	"testing"

	"github.com/newsdedup/newscrawl/simhash"
)

// TestPositionSigSteps checks PBDR's steps ① to ④ (line 131-137) against a
// hand computation: occurrences mapped by Dim, mean n/64 subtracted, > 0 set.
func TestPositionSigSteps(t *testing.T) {
	tests := []struct {
		name string
		pos  []int
	}{
		{"one occurrence", []int{7}},
		{"three occurrences", []int{0, 5, 9}},
		{"repeated dimension", []int{1, 1, 2}},
		{"negative ignored", []int{-3, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v [Bits]float64
			n := 0
			for _, p := range tc.pos {
				if p >= 0 {
					v[Dim(p)]++
					n++
				}
			}
			var want uint64
			for j := range v {
				if v[j]-float64(n)/Bits > 0 {
					want |= 1 << uint(j)
				}
			}
			if got := PositionSig(tc.pos); got != want {
				t.Errorf("PositionSig(%v) = %#x, want %#x", tc.pos, got, want)
			}
			if n > 0 && want == 0 {
				t.Errorf("PositionSig(%v) = 0 with %d occurrences", tc.pos, n)
			}
		})
	}
	if PositionSig(nil) != 0 {
		t.Error("PositionSig(nil) != 0")
	}
}

// TestDimSpreads: the mapping function spreads positions over all 64
// dimensions (a function that ignored p would make Sig′ constant).
func TestDimSpreads(t *testing.T) {
	seen := map[int]bool{}
	for p := 0; p < 1000; p++ {
		d := Dim(p)
		if d < 0 || d >= Bits {
			t.Fatalf("Dim(%d) = %d outside 0..63", p, d)
		}
		seen[d] = true
	}
	if len(seen) != Bits {
		t.Errorf("1000 positions reach %d dimensions, want 64", len(seen))
	}
}

// TestPaperReorderExample is the text's section 2.2 example (line 103-111):
// "太阳队总决赛赢了雄鹿队" and "雄鹿队总决赛赢了太阳队" get the same classic
// Simhash signature; P-Simhash's position signatures tell them apart, but
// only when the two team names weigh differently. The document vector is
// linear, V = μ·Σ w·Sig + (1−μ)·Σ w·Sig′, so swapping two words of equal
// weight leaves both sums, and the signature, unchanged at every μ.
func TestPaperReorderExample(t *testing.T) {
	a := []string{"太阳队", "总决赛", "赢", "了", "雄鹿队"}
	b := []string{"雄鹿队", "总决赛", "赢", "了", "太阳队"}
	tests := []struct {
		name     string
		train    [][]string
		mu       float64
		wantDiff bool
	}{
		{"mu 1 is classic Simhash", unequal, 1, false},
		{"mu 0 is position only", unequal, 0, true},
		{"mu 0.3", unequal, 0.3, true},
		{"equal weights, mu 0", equal, 0, false},
		{"equal weights, paper's mu 1.5", equal, Mu, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Train(tc.train, nil)
			sa, _ := m.Simhash(a, nil, nil)
			sb, _ := m.Simhash(b, nil, nil)
			if sa != sb {
				t.Fatalf("classic Simhash %#x != %#x: the paper says they are equal", sa, sb)
			}
			da, db := m.Prepare(a, nil, TopM, true), m.Prepare(b, nil, TopM, true)
			d := simhash.Distance(da.Sum(nil, tc.mu), db.Sum(nil, tc.mu))
			if (d > 0) != tc.wantDiff {
				t.Errorf("distance %d at μ=%v, want different: %v", d, tc.mu, tc.wantDiff)
			}
		})
	}
}

// Training sets for TestPaperReorderExample: in unequal 总决赛, 赢 and 了
// are in every training document (weight 0) and 雄鹿队 in half (lower IDF
// than 太阳队), so the team names alone set the signature; in equal both
// team names are in none.
var (
	unequal = [][]string{{"总决赛", "赢", "了", "雄鹿队"}, {"总决赛", "赢", "了", "雄鹿队"}, {"总决赛", "赢", "了"}, {"总决赛", "赢", "了"}}
	equal   = [][]string{{"比赛"}, {"新闻"}, {"总决赛", "天气"}}
)

// TestMuOneIsWeightedSimhash: with μ = 1 SigFnl = Sig, so Doc.Sum is
// simhash.Sum of the same weighted words.
func TestMuOneIsWeightedSimhash(t *testing.T) {
	d := Doc{Terms: []Term{
		{Word: "北京", Weight: 3, Positions: []int{0, 5, 9}},
		{Word: "新闻", Weight: 2, Positions: []int{2, 7}},
		{Word: "记者", Weight: 1, Positions: []int{4}},
	}, Len: 10}
	fs := make([]simhash.Feature, len(d.Terms))
	for i, t := range d.Terms {
		fs[i] = simhash.Feature{Term: t.Word, Weight: t.Weight}
	}
	if got, want := d.Sum(nil, 1), simhash.Sum(fs, nil); got != want {
		t.Errorf("Sum(μ=1) = %#x, simhash.Sum = %#x", got, want)
	}
	if d.Sum(nil, math.NaN()) != d.Sum(nil, Mu) {
		t.Error("a NaN μ is not read as the paper's μ")
	}
}

// TestSigFnlRange: where Sig and Sig′ agree SigFnl is ±1 whatever μ, where
// they differ its magnitude is |2μ−1| (line 187). A single word of weight 1
// whose Sig′ is all ones (impossible in practice) is emulated by comparing
// two μ: bits where Sig has 1 stay 1 for every μ ≥ 0.5.
func TestSigFnlRange(t *testing.T) {
	d := Doc{Terms: []Term{{Word: "总决赛", Weight: 1, Positions: []int{3}}}}
	sig := simhash.FNV1a("总决赛")
	for _, mu := range []float64{0.6, 1, 1.5, 1.9, 3} {
		if got := d.Sum(nil, mu); got != sig {
			t.Errorf("one word, μ=%v: %#x, want its hash %#x (|2μ−1| keeps the sign of Sig)", mu, got, sig)
		}
	}
	pos := PositionSig([]int{3})
	// μ < 0.5: where they differ, Sig′ wins; where they agree, both.
	want := pos
	if got := d.Sum(nil, 0.2); got != want {
		t.Errorf("one word, μ=0.2: %#x, want Sig′ %#x", got, want)
	}
}

// TestModifiedJaccard checks MJ on a small training set against the hand
// computation of the formula in MJ's comment.
func TestModifiedJaccard(t *testing.T) {
	docs := [][]string{
		{"李白", "唐代", "诗人", "李白"},
		{"李白", "唐代", "诗人"},
		{"李白", "唐代"},
		{"杜甫", "诗人"},
	}
	m := Train(docs, nil)
	tests := []struct {
		x, y string
		want float64
	}{
		// 李白 in docs 0,1,2 (2,1,1), 唐代 in 0,1,2 (1,1,1): f11 3, union 3;
		// count agreement (1/2 + 1 + 1)/3.
		{"李白", "唐代", 1 * (0.5 + 1 + 1) / 3},
		// 唐代 {0,1,2}, 诗人 {0,1,3}: f11 2, union 4; counts equal.
		{"唐代", "诗人", 2.0 / 4},
		{"李白", "杜甫", 0},
		{"李白", "李白", 0},
		{"李白", "unseen", 0},
	}
	for _, tc := range tests {
		t.Run(tc.x+"-"+tc.y, func(t *testing.T) {
			if got := m.MJ(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("MJ = %v, want %v", got, tc.want)
			}
			if got, back := m.MJ(tc.x, tc.y), m.MJ(tc.y, tc.x); got != back {
				t.Errorf("MJ not symmetric: %v, %v", got, back)
			}
		})
	}
}

// TestPaperCooccurrenceExample is section 2.1's example (line 57-65): in a
// training set where 李白, 唐代 and 诗人 always appear together, J-Tidf
// lowers 唐代 and 诗人 so that 是/不是 weigh more in "李白是唐代诗人" against
// "李白不是唐代诗人", and the two signatures move apart.
func TestPaperCooccurrenceExample(t *testing.T) {
	var docs [][]string
	for i := 0; i < 20; i++ {
		docs = append(docs, []string{"李白", "唐代", "诗人", "作品"})
		docs = append(docs, []string{"是", "不是", "新闻", "报道"}, []string{"是", "体育", "比赛"}, []string{"不是", "天气"})
	}
	m := Train(docs, nil)
	a := []string{"李白", "是", "唐代", "诗人"}
	b := []string{"李白", "不是", "唐代", "诗人"}
	plainA, plainB := m.Prepare(a, nil, TopM, false), m.Prepare(b, nil, TopM, false)
	jA, jB := m.Prepare(a, nil, TopM, true), m.Prepare(b, nil, TopM, true)
	weight := func(d Doc, w string) float64 {
		for _, t := range d.Terms {
			if t.Word == w {
				return t.Weight
			}
		}
		return math.NaN()
	}
	for _, w := range []string{"李白", "唐代", "诗人"} {
		switch {
		case !(weight(jA, w) < weight(plainA, w)/10):
			t.Errorf("J-Tidf weight of %s %v, TFC %v: not lowered", w, weight(jA, w), weight(plainA, w))
		case !(weight(jA, "是") > weight(jA, w)):
			t.Errorf("after J-Tidf 是 (%v) should weigh more than %s (%v)", weight(jA, "是"), w, weight(jA, w))
		}
	}
	dPlain := simhash.Distance(plainA.Sum(nil, 1), plainB.Sum(nil, 1))
	dJ := simhash.Distance(jA.Sum(nil, 1), jB.Sum(nil, 1))
	if dJ <= dPlain {
		t.Errorf("Hamming with J-Tidf %d, without %d: J-Tidf should separate the texts more", dJ, dPlain)
	}
}

// TestESimhashUsesPositions: E-Simhash XORs each occurrence's hash with its
// position (line 41, 203), so reordering words changes the signature and
// one word added at the head shifts every position (the distortion the
// paper criticises, line 41).
func TestESimhashUsesPositions(t *testing.T) {
	m := Train([][]string{{"太阳队", "总决赛", "赢", "雄鹿队"}, {"雄鹿队", "输", "太阳队", "赢", "总决赛", "了"}}, nil)
	a, _ := m.ESimhash([]string{"太阳队", "总决赛", "赢", "雄鹿队"}, nil, nil)
	b, _ := m.ESimhash([]string{"雄鹿队", "总决赛", "赢", "太阳队"}, nil, nil)
	if a == b {
		t.Error("E-Simhash of the reordered text is unchanged")
	}
	if _, ok := m.ESimhash(nil, nil, nil); ok {
		t.Error("E-Simhash of no words reports features")
	}
}

// TestTFC: weights are L2-normalised TF·log((N+1)/(n+1)).
func TestTFC(t *testing.T) {
	m := Train([][]string{{"a", "b"}, {"a"}, {"c"}}, nil)
	ts, d := m.TFC([]string{"a", "b", "b", "", "stop"}, func(w string) bool { return w == "stop" })
	if d != 3 {
		t.Fatalf("cleaned length %d, want 3", d)
	}
	wa := 1.0 / 3 * math.Log(4.0/3)
	wb := 2.0 / 3 * math.Log(4.0/2)
	n := math.Hypot(wa, wb)
	want := map[string]float64{"a": wa / n, "b": wb / n}
	for _, tm := range ts {
		if math.Abs(tm.Weight-want[tm.Word]) > 1e-12 {
			t.Errorf("TFC(%s) = %v, want %v", tm.Word, tm.Weight, want[tm.Word])
		}
	}
}

// FuzzPSimhash: any word sequence and μ give a deterministic signature
// without panicking; μ = 1 equals the classic Simhash of the prepared
// words; a word's Sig′ has at most as many bits as it has occurrences.
func FuzzPSimhash(f *testing.F) {
	f.Add("太阳队 总决赛 赢 了 雄鹿队", 1.5)
	f.Add("", 0.0)
	f.Add("a a a a b", -2.5)
	m := Train([][]string{{"太阳队", "总决赛"}, {"a", "b"}}, nil)
	f.Fuzz(func(t *testing.T, text string, mu float64) {
		words := splitSpaces(text)
		d := m.Prepare(words, nil, TopM, true)
		if d.Sum(nil, mu) != d.Sum(nil, mu) {
			t.Fatal("not deterministic")
		}
		fs := make([]simhash.Feature, len(d.Terms))
		for i, tm := range d.Terms {
			fs[i] = simhash.Feature{Term: tm.Word, Weight: tm.Weight}
			if c := bits.OnesCount64(PositionSig(tm.Positions)); c > len(tm.Positions) {
				t.Fatalf("Sig′ of %q has %d bits for %d occurrences", tm.Word, c, len(tm.Positions))
			}
		}
		if d.Sum(nil, 1) != simhash.Sum(fs, nil) {
			t.Fatal("μ=1 differs from classic Simhash")
		}
		m.ESimhash(words, nil, nil)
		m.Simhash(words, nil, nil)
	})
}

func splitSpaces(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if r == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
