package keyfp

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

type lexicon struct {
	stop map[string]bool
	pos  map[string]string
}

func (l lexicon) IsStop(w string) bool { return l.stop[w] }
func (l lexicon) POS(w string) (string, bool) {
	t, ok := l.pos[w]
	return t, ok
}

var testLex = lexicon{
	stop: map[string]bool{"的": true},
	pos: map[string]string{
		"北京": "ns", "上海": "ns", "记者": "n", "会议": "n", "发展": "vn", "经济": "n",
		"市场": "n", "企业": "n", "政府": "nt", "报道": "v",
	},
}

var testWords = []string{"北京", "记者", "报道", "的", "2024", "北京", "上海", "会议", "会议", "会议",
	"发展", "经济", "的", "市场", "企业", "政府"}

// TestComputeKnownAnswer: weights (IDF 1) are 会议 3×1.5, 北京 2×2, 上海 and
// 政府 2, the nouns 企业/市场/经济/记者 1.5, 报道 and 发展 1; 的 is a stopword
// and 2024 has no letter. The expected MD5 was computed outside Go:
// python3 -c "import hashlib; print(hashlib.md5('\x1f'.join(sorted([...])).encode()).hexdigest())".
func TestComputeKnownAnswer(t *testing.T) {
	fp := Compute(testWords, Config{Lexicon: testLex, IDF: func(string) float64 { return 1 }})
	wantKW := []string{"上海", "企业", "会议", "北京", "市场", "政府", "经济", "记者"}
	if !fp.OK || !slices.Equal(fp.Keywords, wantKW) {
		t.Fatalf("keywords = %q (ok %v), want %q", fp.Keywords, fp.OK, wantKW)
	}
	if got := hex.EncodeToString(fp.Sum[:]); got != "b491bbf6fed9b443904747b885b56b4c" {
		t.Errorf("MD5 fingerprint = %s", got)
	}
}

func TestTopKeywords(t *testing.T) {
	idf := map[string]float64{"报道": 10, "发展": math.NaN(), "上海": math.Inf(1)}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"boosted", Config{N: 3, Lexicon: testLex}, []string{"会议", "北京", "上海"}},
		{"no boost: term frequency decides", Config{N: 3, Lexicon: testLex, NoBoost: true}, []string{"会议", "北京", "上海"}},
		{"idf lifts a verb, NaN and Inf count 0", Config{N: 2, Lexicon: testLex, IDF: func(t string) float64 {
			if v, ok := idf[t]; ok {
				return v
			}
			return 1
		}}, []string{"报道", "会议"}},
		{"no lexicon: stopwords are terms", Config{N: 20}, []string{"会议", "北京", "的", "上海", "企业", "发展", "市场", "报道", "政府", "经济", "记者"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, k := range TopKeywords(testWords, tt.cfg) {
				got = append(got, k.Term)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBoost(t *testing.T) {
	tests := []struct {
		tag  string
		want float64
	}{
		{"ns", ProperNounBoost}, {"nr", ProperNounBoost}, {"nrt", ProperNounBoost}, {"nrfg", ProperNounBoost},
		{"nt", ProperNounBoost}, {"nz", ProperNounBoost}, {"n", NounBoost}, {"ng", NounBoost},
		{"vn", 1}, {"v", 1}, {"", 1}, {"a", 1},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			if got := Boost(tt.tag); got != tt.want {
				t.Errorf("Boost(%q) = %v, want %v", tt.tag, got, tt.want)
			}
		})
	}
}

// TestOrderInvariant: reordering the text (same term counts) keeps the
// fingerprint; changing a keyword changes it.
func TestOrderInvariant(t *testing.T) {
	cfg := Config{Lexicon: testLex}
	want := Compute(testWords, cfg)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		w := slices.Clone(testWords)
		r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		if got := Compute(w, cfg); got.Sum != want.Sum {
			t.Fatalf("shuffle %d: %x != %x", i, got.Sum, want.Sum)
		}
	}
	w := append(slices.Clone(testWords), "广州", "广州", "广州", "广州")
	if got := Compute(w, cfg); got.Sum == want.Sum {
		t.Error("a new heavy keyword did not change the fingerprint")
	}
}

func TestTooFewKeywords(t *testing.T) {
	tests := []struct {
		name  string
		words []string
	}{
		{"empty", nil},
		{"only stopwords and numbers", []string{"的", "2024", "的", "3.5"}},
		{"seven terms", []string{"a", "b", "c", "d", "e", "f", "g", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := Compute(tt.words, Config{Lexicon: testLex})
			if fp.OK || fp.Sum != ([16]byte{}) || fp.Keywords != nil {
				t.Errorf("got %+v, want no fingerprint", fp)
			}
		})
	}
}

// TestSeparator: keywords are joined with a separator, so that a different
// split of the same characters gives a different fingerprint.
func TestSeparator(t *testing.T) {
	a := Compute([]string{"ab", "c"}, Config{N: 2})
	b := Compute([]string{"a", "bc"}, Config{N: 2})
	if !a.OK || !b.OK || a.Sum == b.Sum {
		t.Errorf("ab|c and a|bc collide: %x %x", a.Sum, b.Sum)
	}
}

// XXHash is a faster HashFunc than MD5: xxHash64 (seed 0) in the first
// eight bytes, zero in the rest. 64 bits keep collisions negligible (about
// 2^-64 per pair) for a corpus of any size a crawler stores.
func XXHash(joined string) [16]byte {
	var out [16]byte
	h := xxhash.Sum64String(joined)
	for i := range 8 {
		out[i] = byte(h >> (8 * i))
	}
	return out
}

func TestXXHash(t *testing.T) {
	a, b := XXHash("上海\x1f北京"), XXHash("上海\x1f北京")
	if a != b || a == XXHash("北京\x1f上海") || a == MD5("上海\x1f北京") {
		t.Error("XXHash not deterministic or not distinct")
	}
	if [8]byte(a[8:]) != ([8]byte{}) {
		t.Error("XXHash fills more than 8 bytes")
	}
}

func TestSmoothIDF(t *testing.T) {
	df := map[string]int{"a": 9, "b": 0, "c": 20}
	idf := SmoothIDF(9, func(t string) int { return df[t] })
	if got := idf("a"); math.Abs(got-1) > 1e-12 {
		t.Errorf("idf(term in every doc) = %v, want 1", got)
	}
	if got := idf("b"); math.Abs(got-(math.Log(10)+1)) > 1e-12 {
		t.Errorf("idf(unseen) = %v", got)
	}
	if got := idf("c"); got != 1 {
		t.Errorf("idf(df > N) = %v, want clamped to 1", got)
	}
}

func BenchmarkCompute(b *testing.B) {
	words := make([]string, 0, 600)
	for i := range 600 {
		words = append(words, testWords[i%len(testWords)]+string(rune('a'+i%50)))
	}
	for _, h := range []struct {
		name string
		fn   HashFunc
	}{{"md5", MD5}, {"xxhash", XXHash}} {
		b.Run(h.name, func(b *testing.B) {
			cfg := Config{Lexicon: testLex, IDF: func(string) float64 { return 1 }, Hash: h.fn}
			for b.Loop() {
				Compute(words, cfg)
			}
		})
		b.Run(h.name+"-hash-only", func(b *testing.B) {
			s := "上海\x1f企业\x1f会议\x1f北京\x1f市场\x1f政府\x1f经济\x1f记者"
			for b.Loop() {
				h.fn(s)
			}
		})
	}
}

// TestFreqs: with Config.Freqs every keyword is hashed with its count, as
// the chapter's 8-keyword figure assumes (semantic-fingerprint-chapter-book.txt,
// line 90): the same keywords with other counts give another fingerprint.
// The expected MD5 was computed outside Go: python3 -c "import hashlib;
// print(hashlib.md5('\x1f'.join(k+'\x1e'+str(n) for k, n in sorted(...)).encode()).hexdigest())".
func TestFreqs(t *testing.T) {
	cfg := Config{Lexicon: testLex, IDF: func(string) float64 { return 1 }, Freqs: true}
	fp := Compute(testWords, cfg)
	if got := hex.EncodeToString(fp.Sum[:]); got != "bd80517e0e7ad6af7fdbb2cc77157e25" {
		t.Errorf("MD5 fingerprint with frequencies = %s", got)
	}
	tests := []struct {
		name  string
		words []string
		same  bool
	}{
		{"one more 上海 (same keywords, other count)", append(slices.Clone(testWords), "上海"), false},
		{"reordered", append(slices.Clone(testWords[1:]), testWords[0]), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Compute(tc.words, cfg)
			plainA := Compute(testWords, Config{Lexicon: testLex, IDF: func(string) float64 { return 1 }})
			plainB := Compute(tc.words, Config{Lexicon: testLex, IDF: func(string) float64 { return 1 }})
			if !slices.Equal(got.Keywords, fp.Keywords) || plainA.Sum != plainB.Sum {
				t.Fatalf("keywords changed: %q", got.Keywords)
			}
			if (got.Sum == fp.Sum) != tc.same {
				t.Errorf("same fingerprint: %v, want %v", got.Sum == fp.Sum, tc.same)
			}
		})
	}
}

// FuzzComputeFreqs: any word list gives a fingerprint without panicking,
// with and without frequencies; both see the same keywords, a fingerprint
// exists exactly when n keywords do, and reversing the words changes
// neither fingerprint (keywords and counts do not depend on order).
func FuzzComputeFreqs(f *testing.F) {
	f.Add("北京 记者 报道 的 2024 北京 上海 会议 会议 会议 发展 经济 的 市场 企业 政府", 8)
	f.Add("", 0)
	f.Add("a b c a b c d", 2)
	f.Fuzz(func(t *testing.T, text string, n int) {
		words := strings.Fields(text)
		n = n % 16
		plain := Config{N: n, Lexicon: testLex, IDF: func(string) float64 { return 1 }}
		freq := plain
		freq.Freqs = true
		a, b := Compute(words, plain), Compute(words, freq)
		if a.OK != b.OK || !slices.Equal(a.Keywords, b.Keywords) {
			t.Fatalf("keywords differ: %q / %q", a.Keywords, b.Keywords)
		}
		want := n
		if want <= 0 {
			want = DefaultN
		}
		if a.OK && len(a.Keywords) != want {
			t.Fatalf("%d keywords, want %d", len(a.Keywords), want)
		}
		rev := slices.Clone(words)
		slices.Reverse(rev)
		if Compute(rev, freq).Sum != b.Sum || Compute(rev, plain).Sum != a.Sum {
			t.Fatal("word order changed a fingerprint")
		}
	})
}
