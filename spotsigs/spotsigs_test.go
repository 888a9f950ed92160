package spotsigs

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func sorted(hs ...uint64) Signature {
	s := Signature(slices.Clone(hs))
	slices.Sort(s)
	return s
}

func mustExtract(t testing.TB, words []string, cfg Config) Signature {
	t.Helper()
	sig, err := Extract(words, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// TestExtractPaperExample reproduces the example of Theobald et al. (2008, §3):
// antecedents {a, an, the, is}, chain length 2, spot distance 1, stopwords skipped.
func TestExtractPaperExample(t *testing.T) {
	text := "at a rally to kick off a weeklong campaign for the south carolina primary obama tried to set " +
		"the record straight from an attack circulating widely on the internet that is designed to play " +
		"on prejudices against muslims and fears of terrorism"
	cfg := Config{
		IsAntecedent: WordSet("a", "an", "the", "is"),
		IsStop:       WordSet("at", "to", "off", "for", "from", "on", "that", "against", "and", "of"),
		Chain:        2,
		Distance:     1,
	}
	want := sorted(
		SpotHash("a", "rally", "kick"),
		SpotHash("a", "weeklong", "campaign"),
		SpotHash("the", "south", "carolina"),
		SpotHash("the", "record", "straight"),
		SpotHash("an", "attack", "circulating"),
		SpotHash("the", "internet", "designed"),
		SpotHash("is", "designed", "play"),
	)
	if got := mustExtract(t, strings.Fields(text), cfg); !slices.Equal(got, want) {
		t.Fatalf("got %d spots %x, want %x", len(got), got, want)
	}
}

func TestExtract(t *testing.T) {
	ante := WordSet("的", "了", "在")
	stop := WordSet("和", "也")
	tests := []struct {
		name  string
		words string
		cfg   Config
		want  Signature
	}{
		{"default chain 1 distance 1", "记者 在 北京 报道 了 新闻",
			Config{IsAntecedent: ante},
			sorted(SpotHash("在", "北京"), SpotHash("了", "新闻"))},
		{"chain skips stopwords and antecedents", "在 和 的 北京 也 报道",
			Config{IsAntecedent: ante, IsStop: stop, Chain: 2},
			// 在 → 北京 报道; 的 → 北京 报道 (same spot twice: multiset)
			sorted(SpotHash("在", "北京", "报道"), SpotHash("的", "北京", "报道"))},
		{"distance 2 takes every second content word", "在 甲 乙 丙 丁 戊",
			Config{IsAntecedent: ante, Chain: 2, Distance: 2},
			sorted(SpotHash("在", "乙", "丁"))},
		{"incomplete chain at the end is dropped", "甲 在 乙 丙 了 丁",
			Config{IsAntecedent: ante, Chain: 2},
			sorted(SpotHash("在", "乙", "丙"))},
		{"repeated spots are kept", "在 北京 在 北京",
			Config{IsAntecedent: ante},
			sorted(SpotHash("在", "北京"), SpotHash("在", "北京"))},
		{"no antecedent, no spots", "甲 乙 丙", Config{IsAntecedent: ante}, Signature{}},
		{"empty text", "", Config{IsAntecedent: ante}, Signature{}},
		{"huge chain forms no spot", "在 甲 乙", Config{IsAntecedent: ante, Chain: math.MaxInt, Distance: math.MaxInt}, Signature{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustExtract(t, strings.Fields(tt.words), tt.cfg)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %x, want %x", got, tt.want)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	ante := WordSet("的")
	for _, cfg := range []Config{
		{},
		{IsAntecedent: ante, Chain: -1},
		{IsAntecedent: ante, Distance: -1},
	} {
		if _, err := Extract([]string{"的", "x"}, cfg); err == nil {
			t.Errorf("Extract accepted config %+v", cfg)
		}
	}
}

func TestSpotHashSeparatesWords(t *testing.T) {
	if SpotHash("ab", "c") == SpotHash("a", "bc") {
		t.Fatal("word boundaries do not change the spot hash")
	}
	if SpotHash("a", "b") == SpotHash("b", "a") {
		t.Fatal("antecedent and chain are interchangeable")
	}
}

func TestMeasures(t *testing.T) {
	tests := []struct {
		name          string
		a, b          Signature
		overlap       int
		jaccard, cont float64
	}{
		{"both empty", nil, nil, 0, 0, 0},
		{"one empty", nil, Signature{1, 2}, 0, 0, 0},
		{"identical", Signature{1, 2, 3}, Signature{1, 2, 3}, 3, 1, 1},
		{"disjoint", Signature{1, 2}, Signature{3, 4}, 0, 0, 0},
		// min counts: 1→1, 2→1; max counts: 1→2, 2→2, 3→1, 4→1.
		{"multisets", Signature{1, 1, 2, 3}, Signature{1, 2, 2, 4}, 2, 2.0 / 6, 0.5},
		{"contained", Signature{5, 7}, Signature{1, 5, 6, 7, 9}, 2, 2.0 / 5, 1},
		{"repeats count", Signature{4, 4, 4}, Signature{4}, 1, 1.0 / 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, sw := range []bool{false, true} {
				a, b := tt.a, tt.b
				if sw {
					a, b = b, a
				}
				if got := Overlap(a, b); got != tt.overlap {
					t.Errorf("Overlap = %d, want %d", got, tt.overlap)
				}
				if got := Jaccard(a, b); got != tt.jaccard {
					t.Errorf("Jaccard = %v, want %v", got, tt.jaccard)
				}
				if got := Containment(a, b); got != tt.cont {
					t.Errorf("Containment = %v, want %v", got, tt.cont)
				}
			}
		})
	}
}

func TestJaccardDoesNotAllocate(t *testing.T) {
	a, b := Signature{1, 2, 3, 5, 8}, Signature{2, 3, 4, 8, 9}
	if n := testing.AllocsPerRun(100, func() { Jaccard(a, b); Containment(a, b) }); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}

// naiveJaccard counts multiplicities in maps: Σmin / Σmax.
func naiveJaccard(a, b Signature) float64 {
	ca, cb := map[uint64]int{}, map[uint64]int{}
	for _, v := range a {
		ca[v]++
	}
	for _, v := range b {
		cb[v]++
	}
	mn, mx := 0, 0
	for v, n := range ca {
		mn += min(n, cb[v])
		mx += max(n, cb[v])
	}
	for v, n := range cb {
		if _, ok := ca[v]; !ok {
			mx += n
		}
	}
	if mx == 0 {
		return 0
	}
	return float64(mn) / float64(mx)
}

// sigFromBytes decodes a signature over a small alphabet so values repeat.
func sigFromBytes(b []byte) Signature {
	s := make(Signature, len(b))
	for i, c := range b {
		s[i] = uint64(c % 13)
	}
	slices.Sort(s)
	return s
}

func FuzzJaccard(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{2, 3, 4})
	f.Add([]byte{}, []byte{})
	f.Add([]byte{7, 7, 7}, []byte{7})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, b := sigFromBytes(x), sigFromBytes(y)
		j, jr := Jaccard(a, b), Jaccard(b, a)
		if j != jr {
			t.Fatalf("not symmetric: %v vs %v", j, jr)
		}
		if !(j >= 0 && j <= 1) {
			t.Fatalf("Jaccard %v outside [0,1]", j)
		}
		if n := naiveJaccard(a, b); n != j {
			t.Fatalf("Jaccard %v, naive %v", j, n)
		}
		c := Containment(a, b)
		if !(c >= j && c <= 1) || c != Containment(b, a) {
			t.Fatalf("containment %v (Jaccard %v)", c, j)
		}
		if len(a) > 0 && (Jaccard(a, a) != 1 || Containment(a, a) != 1) {
			t.Fatal("a signature is not identical to itself")
		}
	})
}

func FuzzExtract(f *testing.F) {
	f.Add("记者 在 北京 报道 了 新闻 的 和", uint8(2), uint8(1))
	f.Add("", uint8(0), uint8(0))
	f.Add("的 的 的", uint8(255), uint8(255))
	f.Fuzz(func(t *testing.T, text string, c, d uint8) {
		words := strings.Fields(text)
		cfg := Config{IsAntecedent: WordSet("的", "了", "在", "a"), IsStop: WordSet("和", "b"), Chain: int(c % 8), Distance: int(d % 8)}
		sig, err := Extract(words, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(sig) {
			t.Fatal("signature not sorted")
		}
		n := 0
		for _, w := range words {
			if cfg.IsAntecedent(w) {
				n++
			}
		}
		if len(sig) > n {
			t.Fatalf("%d spots from %d antecedents", len(sig), n)
		}
		again, _ := Extract(words, cfg)
		if !slices.Equal(sig, again) {
			t.Fatal("not deterministic")
		}
		// Also use every byte as a word (invalid UTF-8 included).
		var ws []string
		for i := 0; i < len(text); i++ {
			ws = append(ws, text[i:i+1])
		}
		if _, err := Extract(ws, cfg); err != nil {
			t.Fatal(err)
		}
	})
}

// SpotHash is the 64-bit FNV-1a hash of a spot: the antecedent and each
// chain word, each followed by the byte 0xFF: the hash Extract gives the
// spot, computed apart for the tests.
func SpotHash(antecedent string, chain ...string) uint64 {
	h := fnvString(fnvOffset64, antecedent)
	for _, w := range chain {
		h = fnvString(h, w)
	}
	return h
}
