package spotsigs

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// extractReference is Extract as it was before the Spotter: the word list
// marked and indexed whole. The Spotter must give the same signature.
func extractReference(words []string, cfg Config) Signature {
	c, d := cfg.Chain, cfg.Distance
	if c == 0 {
		c = DefaultChain
	}
	if d == 0 {
		d = DefaultDistance
	}
	ante := make([]bool, len(words))
	content := make([]int, 0, len(words))
	for i, w := range words {
		switch {
		case cfg.IsAntecedent(w):
			ante[i] = true
		case cfg.IsStop != nil && cfg.IsStop(w):
		default:
			content = append(content, i)
		}
	}
	sig := Signature{}
	next := 0
	for i, w := range words {
		if !ante[i] {
			if next < len(content) && content[next] == i {
				next++
			}
			continue
		}
		avail := len(content) - next
		if avail < d || (avail-d)/d < c-1 {
			continue
		}
		h := fnvString(fnvOffset64, w)
		for j := 1; j <= c; j++ {
			h = fnvString(h, words[content[next+j*d-1]])
		}
		sig = append(sig, h)
	}
	slices.Sort(sig)
	return sig
}

// TestSpotterMatchesReference feeds random word streams (antecedents,
// stopwords and content words mixed, runs of antecedents, chains longer
// than the text, more pending antecedents than the compaction threshold)
// to Extract and compares with the whole-list reference.
func TestSpotterMatchesReference(t *testing.T) {
	vocab := []string{"的", "了", "在", "和", "记者", "北京", "报道", "新闻", "今天", "市场", "a", "b"}
	isAnte, isStop := WordSet("的", "了", "在", "a"), WordSet("和", "b")
	for _, tc := range []struct {
		name       string
		words      int
		anteShare  float64
		chain, dst int
	}{
		{"defaults", 200, 0.2, 0, 0},
		{"chain 2 distance 1 (paper)", 200, 0.2, 2, 1},
		{"chain 3 distance 2", 500, 0.3, 3, 2},
		{"mostly antecedents", 300, 0.9, 2, 3},
		{"chain longer than the text", 50, 0.3, 40, 2},
		{"long text, many pending", 20000, 0.95, 4, 8},
		{"empty", 0, 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.words), uint64(tc.chain)))
			words := make([]string, tc.words)
			for i := range words {
				if r.Float64() < tc.anteShare {
					words[i] = []string{"的", "了", "在", "a"}[r.IntN(4)]
				} else {
					words[i] = vocab[3+r.IntN(len(vocab)-3)]
				}
			}
			cfg := Config{IsAntecedent: isAnte, IsStop: isStop, Chain: tc.chain, Distance: tc.dst}
			got := mustExtract(t, words, cfg)
			if want := extractReference(words, cfg); !slices.Equal(got, want) {
				t.Fatalf("Spotter gives %d spots, the whole-list reference %d", len(got), len(want))
			}
			if got == nil {
				t.Fatal("nil signature, want an empty one")
			}
			// AddClassified with the classes computed by the caller.
			sp, err := NewSpotter(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range words {
				sp.AddClassified(w, isAnte(w), isStop(w))
			}
			if cl := sp.Signature(); !slices.Equal(cl, got) {
				t.Fatalf("AddClassified gives %d spots, Add %d", len(cl), len(got))
			}
		})
	}
}

func TestSpotterHugeChain(t *testing.T) {
	// c·d overflows int: no spot can be formed, and none is kept pending.
	sp, err := NewSpotter(Config{IsAntecedent: WordSet("的"), Chain: math.MaxInt / 2, Distance: 3})
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		sp.Add("的")
		sp.Add("新闻")
	}
	if len(sp.pending) != 0 || len(sp.ring) != 0 {
		t.Errorf("%d pending spots and %d ring words kept for a chain that cannot fit", len(sp.pending), len(sp.ring))
	}
	if sig := sp.Signature(); len(sig) != 0 {
		t.Errorf("%d spots, want none", len(sig))
	}
}

func FuzzSpotterMatchesReference(f *testing.F) {
	f.Add("记者 在 北京 报道 了 新闻 的 和", uint8(2), uint8(1))
	f.Add("的 的 的 a b a 的", uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, text string, c, d uint8) {
		words := strings.Fields(text)
		cfg := Config{IsAntecedent: WordSet("的", "了", "在", "a"), IsStop: WordSet("和", "b"), Chain: int(c % 8), Distance: int(d % 8)}
		want := extractReference(words, cfg)
		if got := mustExtract(t, words, cfg); !slices.Equal(got, want) {
			t.Fatalf("Spotter %v, reference %v", got, want)
		}
		sp, err := NewSpotter(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range words {
			sp.AddClassified(w, cfg.IsAntecedent(w), cfg.IsStop(w))
		}
		if got := sp.Signature(); !slices.Equal(got, want) {
			t.Fatalf("AddClassified %v, reference %v", got, want)
		}
	})
}
