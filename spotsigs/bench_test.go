package spotsigs

import (
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// benchAntecedents are the function characters and punctuation that
// benchtext.PseudoWords emits alone: they stand in for the stopword
// antecedents of Li Yan et al. after real segmentation.
var benchAntecedents = append(strings.Split(benchtext.FunctionChars, ""), "，", "。", "、", "；", "：")

func benchConfig() Config {
	return Config{IsAntecedent: WordSet(benchAntecedents...), Chain: 2, Distance: 1}
}

type benchDoc struct {
	benchtext.Doc
	words []string
	sig   Signature
}

func loadSigs(b *testing.B) []benchDoc {
	docs := benchtext.Robust(b)
	cfg := benchConfig()
	out := make([]benchDoc, len(docs))
	for i, d := range docs {
		w := benchtext.PseudoWords(d.Text)
		sig, err := Extract(w, cfg)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = benchDoc{Doc: d, words: w, sig: sig}
	}
	return out
}

// BenchmarkExtract extracts signatures of the real articles (one op is one
// article) and checks them against the signatures computed in setup.
func BenchmarkExtract(b *testing.B) {
	docs := loadSigs(b)
	cfg := benchConfig()
	spots := 0
	for _, d := range docs {
		spots += len(d.sig)
	}
	i := 0
	for b.Loop() {
		d := &docs[i%len(docs)]
		sig, err := Extract(d.words, cfg)
		if err != nil || len(sig) != len(d.sig) {
			b.Fatalf("doc %s: %d spots, want %d (%v)", d.ID, len(sig), len(d.sig), err)
		}
		i++
	}
	b.ReportMetric(float64(spots)/float64(len(docs)), "spots/doc")
}

// BenchmarkJaccard compares each original article with its edited copies
// (same group in robust.jsonl), restricted to signatures of 300-800 spots,
// and checks every value against the naive map-based Jaccard.
func BenchmarkJaccard(b *testing.B) {
	docs := loadSigs(b)
	orig := map[string]Signature{}
	for _, d := range docs {
		if d.Op == "orig" {
			orig[d.Group] = d.sig
		}
	}
	type pair struct {
		a, b Signature
		want float64
	}
	var pairs []pair
	spots := 0
	for _, d := range docs {
		o, ok := orig[d.Group]
		if !ok || d.Op == "orig" || len(o) < 300 || len(o) > 800 || len(d.sig) < 300 || len(d.sig) > 800 {
			continue
		}
		pairs = append(pairs, pair{o, d.sig, naiveJaccard(o, d.sig)})
		spots += len(o) + len(d.sig)
	}
	if len(pairs) < 10 {
		b.Fatalf("only %d pairs of 300-800 spots", len(pairs))
	}
	i := 0
	for b.Loop() {
		p := &pairs[i%len(pairs)]
		if got := Jaccard(p.a, p.b); got != p.want {
			b.Fatalf("pair %d: Jaccard %v, naive %v", i%len(pairs), got, p.want)
		}
		i++
	}
	b.ReportMetric(float64(spots)/float64(2*len(pairs)), "spots/sig")
	b.ReportMetric(float64(len(pairs)), "pairs")
}

// BenchmarkQuery indexes every article of the robustness set and queries
// each one at Jaccard 0.5 (one op is one query); setup checks a sample of
// queries against a brute-force scan.
func BenchmarkQuery(b *testing.B) {
	const tau = 0.5
	docs := loadSigs(b)
	x, err := NewIndex(tau)
	if err != nil {
		b.Fatal(err)
	}
	ref := refIndex{}
	for i, d := range docs {
		if err := x.Add(uint64(i), d.sig); err != nil {
			b.Fatal(err)
		}
		ref[uint64(i)] = d.sig
	}
	for i := 0; i < len(docs); i += 37 {
		got, want := x.Query(docs[i].sig, tau), ref.search(docs[i].sig, byJaccard, tau, 0)
		if !equalMatches(got, want) {
			b.Fatalf("doc %s: index %d matches, brute force %d", docs[i].ID, len(got), len(want))
		}
	}
	found := 0
	i := 0
	for b.Loop() {
		j := i % len(docs)
		ms := x.Query(docs[j].sig, tau)
		if len(docs[j].sig) > 0 && !slices.ContainsFunc(ms, func(m Match) bool { return m.ID == uint64(j) }) {
			b.Fatalf("doc %s does not find itself", docs[j].ID)
		}
		found += len(ms)
		i++
	}
	b.ReportMetric(float64(found)/float64(i), "matches/query")
}
