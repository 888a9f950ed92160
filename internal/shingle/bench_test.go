package shingle

import (
	"math"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// benchW is the shingle width used on pseudo-words (Broder et al. used w = 10
// English words; Chinese pseudo-words of 1-3 runes are shorter).
const benchW = 4

type benchDoc struct {
	benchtext.Doc
	words []string
	set   []uint64
}

func loadSets(b *testing.B) []benchDoc {
	docs := benchtext.Robust(b)
	out := make([]benchDoc, len(docs))
	for i, d := range docs {
		w := benchtext.PseudoWords(d.Text)
		out[i] = benchDoc{Doc: d, words: w, set: Shingles(w, benchW)}
	}
	return out
}

// BenchmarkShingles shingles each real article (one op is one article).
func BenchmarkShingles(b *testing.B) {
	docs := loadSets(b)
	i := 0
	for b.Loop() {
		d := &docs[i%len(docs)]
		if s := Shingles(d.words, benchW); len(s) != len(d.set) {
			b.Fatalf("doc %s: %d shingles, want %d", d.ID, len(s), len(d.set))
		}
		i++
	}
}

// BenchmarkSignature computes 192-function MinHash signatures of real
// articles and checks, over original/edited pairs, that the estimate is
// within 5 standard deviations of the exact Jaccard.
func BenchmarkSignature(b *testing.B) {
	docs := loadSets(b)
	mh, err := NewMinHasher(DefaultRows*DefaultBands, 1)
	if err != nil {
		b.Fatal(err)
	}
	orig := map[string][]uint64{}
	for _, d := range docs {
		if d.Op == "orig" {
			orig[d.Group] = d.set
		}
	}
	n := float64(mh.Size())
	for _, d := range docs {
		o, ok := orig[d.Group]
		if !ok || len(d.set) == 0 {
			continue
		}
		j := Jaccard(o, d.set)
		est := EstimateJaccard(mh.Signature(o), mh.Signature(d.set))
		if sd := math.Sqrt(j * (1 - j) / n); math.Abs(est-j) > 5*sd+1e-9 {
			b.Fatalf("doc %s: estimate %.3f, exact %.3f", d.ID, est, j)
		}
	}
	want := mh.Signature(docs[0].set)
	i := 0
	for b.Loop() {
		d := &docs[i%len(docs)]
		sig := mh.Signature(d.set)
		if i%len(docs) == 0 && !slices.Equal(sig, want) {
			b.Fatal("signature is not deterministic")
		}
		i++
	}
}

// BenchmarkLSHQuery indexes every article with 32 bands of 6 rows and
// queries each (one op is one query, signature included).
func BenchmarkLSHQuery(b *testing.B) {
	docs := loadSets(b)
	x, err := NewLSH(DefaultRows, DefaultBands)
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range docs {
		if len(d.set) > 0 {
			if err := x.Add(uint64(i), d.set); err != nil {
				b.Fatal(err)
			}
		}
	}
	i, cands := 0, 0
	for b.Loop() {
		j := i % len(docs)
		c := x.Query(docs[j].set)
		if len(docs[j].set) > 0 && !slices.Contains(c, uint64(j)) {
			b.Fatalf("doc %s is not its own candidate", docs[j].ID)
		}
		cands += len(c)
		i++
	}
	b.ReportMetric(float64(cands)/float64(i), "candidates/query")
}
