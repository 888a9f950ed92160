package evalmethods

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/internal/bloomset"
	"github.com/newsdedup/newscrawl/keyfp"
)

// Segmenter is what the keyword-fingerprint evaluation needs from
// *segment.Segmenter.
type Segmenter interface {
	Words(text string) []string
	IsStop(w string) bool
	POS(w string) (string, bool)
	InvFreq(w string) (float64, bool)
}

// KeyFPVariant is one way of computing the keyword fingerprint.
type KeyFPVariant struct {
	Name string
	N    int
	// IDF: "corpus" (smoothed idf over the whole set) or "dict"
	// (the dictionary's log inverse frequency, no corpus needed).
	IDF     string
	NoBoost bool
	// Freqs hashes each keyword with its count (the chapter's "8个关键词及其词频").
	Freqs bool
	Hash  keyfp.HashFunc
}

// The chapter's figure for 8 keywords with their frequencies (the same
// sentence in both captures).
const keyFPPublished = "precision > 98 %, recall ≈ 30 % (semantic-fingerprint-chapter-book.txt line 90, semantic-fingerprint-chapter-blog.md line 102: \"选取8个关键词及其词频作为其指纹时,准确度在98%以上,查全率在30%左右\"; the chapter says neither on which data nor how pairs are counted)"

// DefaultKeyFPVariants: the chapter's method (n = 8, MD5, boosts) with
// both IDF sources, without the boosts, and other n.
func DefaultKeyFPVariants() []KeyFPVariant {
	return []KeyFPVariant{
		{Name: "keyfp n=8 corpus-idf + frequencies (the chapter's figure)", N: 8, IDF: "corpus", Freqs: true},
		{Name: "keyfp n=8 corpus-idf", N: 8, IDF: "corpus"},
		{Name: "keyfp n=8 dict-idf + frequencies", N: 8, IDF: "dict", Freqs: true},
		{Name: "keyfp n=8 dict-idf", N: 8, IDF: "dict"},
		{Name: "keyfp n=8 corpus-idf no-boost", N: 8, IDF: "corpus", NoBoost: true},
		{Name: "keyfp n=5 corpus-idf", N: 5, IDF: "corpus"},
		{Name: "keyfp n=12 corpus-idf", N: 12, IDF: "corpus"},
		{Name: "keyfp n=20 corpus-idf", N: 20, IDF: "corpus"},
	}
}

// PairCount counts the pairs of documents that share a key.
type PairCount struct {
	True, False int // same label / different labels
	// BeyondExact: true pairs whose texts' exact hashes differ.
	BeyondExact int
	// FalseByLabels counts the false pairs per pair of labels ("a ~ b",
	// labels in order).
	FalseByLabels map[string]int
}

// KeyFPRow is one method's figures on one set.
type KeyFPRow struct {
	Method     string
	Pairs      PairCount
	NoFP       int // documents without a fingerprint (too few keywords)
	UsPerDoc   float64
	RecallByOp map[string]float64 // robustness set: variants sharing their original's key
}

// exactHash is the decision's exact layer today (dedup.Fingerprint.Hash):
// SHA-256 of the normalised word sequence, each word length-prefixed.
func exactHash(words []string) [16]byte {
	h := sha256.New()
	var n [4]byte
	for _, w := range words {
		binary.LittleEndian.PutUint32(n[:], uint32(len(w)))
		h.Write(n[:])
		h.Write([]byte(w))
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}

// countPairs counts the pairs of documents with equal non-zero keys.
func countPairs(docs []Doc, keys, exact [][16]byte) PairCount {
	groups := map[[16]byte][]int{}
	for i, k := range keys {
		if k != ([16]byte{}) {
			groups[k] = append(groups[k], i)
		}
	}
	var pc PairCount
	var gs [][]int
	for _, g := range groups {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(a, b int) bool { return gs[a][0] < gs[b][0] })
	for _, g := range gs {
		for a := 0; a < len(g); a++ {
			for b := a + 1; b < len(g); b++ {
				i, j := g[a], g[b]
				if docs[i].Label == docs[j].Label {
					pc.True++
					if exact[i] != exact[j] {
						pc.BeyondExact++
					}
					continue
				}
				pc.False++
				la, lb := docs[i].Label, docs[j].Label
				if lb < la {
					la, lb = lb, la
				}
				if pc.FalseByLabels == nil {
					pc.FalseByLabels = map[string]int{}
				}
				pc.FalseByLabels[la+" ~ "+lb]++
			}
		}
	}
	return pc
}

// truePairs is the number of pairs of documents with the same label.
func truePairs(docs []Doc) int {
	n := map[string]int{}
	for _, d := range docs {
		n[d.Label]++
	}
	t := 0
	for _, c := range n {
		t += c * (c - 1) / 2
	}
	return t
}

// recallByOp: for a robustness set, the share of each edit's variants whose
// key equals their original's.
func recallByOp(docs []Doc, keys [][16]byte) map[string]float64 {
	orig := map[string][16]byte{}
	for i, d := range docs {
		if d.Kind == "orig" {
			orig[d.Label] = keys[i]
		}
	}
	hit, all := map[string]int{}, map[string]int{}
	for i, d := range docs {
		if d.Kind == "orig" || d.Kind == "distinct" {
			continue
		}
		k := fmt.Sprintf("%s %d%%", d.Kind, d.Pct)
		all[k]++
		if o, ok := orig[d.Label]; ok && o == keys[i] && o != ([16]byte{}) {
			hit[k]++
		}
	}
	out := map[string]float64{}
	for k, n := range all {
		out[k] = float64(hit[k]) / float64(n)
	}
	return out
}

// writeKeyFPRows prints one set's table, its false pairs by labels and,
// for the robustness set, the share of variants keyed like their original.
func writeKeyFPRows(w io.Writer, s Set, rows []KeyFPRow, segMs float64) {
	fmt.Fprintf(w, "\n### %s: %d documents, %d true pairs; segmentation %.0f ms in all\n\n", s.Name, len(s.Docs), truePairs(s.Docs), segMs)
	fmt.Fprintf(w, "| method | true pairs found | recall of pairs | precision of pairs | published P / R | beyond exact | false pairs | no fingerprint | µs/doc (after segmentation) |\n|---|---|---|---|---|---|---|---|---|\n")
	tp := truePairs(s.Docs)
	for _, r := range rows {
		pub := "—"
		if strings.HasPrefix(r.Method, "keyfp n=8 ") && strings.Contains(r.Method, "frequencies") {
			pub = "> 0.98 / ≈ 0.30"
		}
		fmt.Fprintf(w, "| %s | %d | %.4f | %.4f | %s | %d | %d | %d | %.1f |\n", r.Method, r.Pairs.True, ratio(r.Pairs.True, tp),
			ratio(r.Pairs.True, r.Pairs.True+r.Pairs.False), pub, r.Pairs.BeyondExact, r.Pairs.False, r.NoFP, r.UsPerDoc)
	}
	for _, r := range rows {
		if len(r.Pairs.FalseByLabels) == 0 {
			continue
		}
		var ls []string
		for l, n := range r.Pairs.FalseByLabels {
			ls = append(ls, fmt.Sprintf("%s %d", l, n))
		}
		sort.Strings(ls)
		fmt.Fprintf(w, "\nfalse pairs of %s, by pair of labels: %s\n", r.Method, strings.Join(ls, ", "))
	}
	if ops := rows[0].RecallByOp; hasOrig(s.Docs) && len(ops) > 0 {
		var keys []string
		for k := range ops {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(a, b int) bool { return opLess(keys[a], keys[b]) })
		fmt.Fprintf(w, "\n\nvariants whose key equals their original's:\n\n| setting |")
		for _, r := range rows {
			fmt.Fprintf(w, " %s |", r.Method)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(rows)))
		for _, k := range keys {
			fmt.Fprintf(w, "| %s |", k)
			for _, r := range rows {
				fmt.Fprintf(w, " %.3f |", r.RecallByOp[k])
			}
			fmt.Fprintln(w)
		}
	}
}

// KeyFP prints, for every set, how many duplicate pairs the exact text hash
// and each keyword-fingerprint variant find, how many of those the text hash
// misses, the false pairs (different stories sharing a key), documents left
// without a fingerprint and the cost per document; then the Bloom filter's
// size and measured false-positive rate for the sets' fingerprints.
func KeyFP(ctx context.Context, seg Segmenter, sets []Set, variants []KeyFPVariant, w io.Writer) error {
	fmt.Fprintf(w, "\n## Keyword semantic fingerprint (crawler book chapter): pairs of documents sharing a key\n")
	fmt.Fprintf(w, "\nA pair is true when both documents are copies of one story; \"beyond exact\" counts true pairs\nwhose normalised texts differ (the SHA-256 text hash misses them). Published: %s.\n", keyFPPublished)
	var allKeys [][16]byte
	for _, s := range sets {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := time.Now()
		words := make([][]string, len(s.Docs))
		exact := make([][16]byte, len(s.Docs))
		df := map[string]int{}
		for i, d := range s.Docs {
			words[i] = seg.Words(d.Text)
			seen := map[string]bool{}
			for _, x := range words[i] {
				if !seen[x] {
					seen[x] = true
					df[x]++
				}
			}
		}
		segMs := float64(time.Since(t).Microseconds()) / 1000
		t = time.Now()
		for i := range s.Docs {
			exact[i] = exactHash(words[i])
		}
		exactUs := float64(time.Since(t).Nanoseconds()) / 1000 / float64(len(s.Docs))
		for i := range s.Docs {
			if len(words[i]) == 0 {
				exact[i] = [16]byte{}
			}
		}
		rows := []KeyFPRow{{Method: "exact text hash (SHA-256, today)", Pairs: countPairs(s.Docs, exact, exact), UsPerDoc: exactUs, RecallByOp: recallByOp(s.Docs, exact)}}
		corpusIDF := keyfp.SmoothIDF(len(s.Docs), func(t string) int { return df[t] })
		dictIDF := func(t string) float64 {
			if d, ok := seg.InvFreq(t); ok {
				return d
			}
			return maxDictIDF // not in the dictionary: rarer than any word in it
		}
		for _, v := range variants {
			cfg := keyfp.Config{N: v.N, Lexicon: seg, NoBoost: v.NoBoost, Freqs: v.Freqs, Hash: v.Hash, IDF: corpusIDF}
			if v.IDF == "dict" {
				cfg.IDF = dictIDF
			}
			keys := make([][16]byte, len(s.Docs))
			noFP := 0
			t := time.Now()
			for i := range s.Docs {
				fp := keyfp.Compute(words[i], cfg)
				keys[i] = fp.Sum
				if !fp.OK {
					noFP++
				}
			}
			us := float64(time.Since(t).Nanoseconds()) / 1000 / float64(len(s.Docs))
			if v.N == keyfp.DefaultN && v.IDF == "corpus" && !v.NoBoost && !v.Freqs {
				allKeys = append(allKeys, keys...)
			}
			rows = append(rows, KeyFPRow{Method: v.Name, Pairs: countPairs(s.Docs, keys, exact), NoFP: noFP, UsPerDoc: us, RecallByOp: recallByOp(s.Docs, keys)})
		}
		writeKeyFPRows(w, s, rows, segMs)
		fmt.Fprintln(w)
	}
	return bloomReport(allKeys, w)
}

func hasOrig(docs []Doc) bool {
	for _, d := range docs {
		if d.Kind == "orig" {
			return true
		}
	}
	return false
}

// maxDictIDF is the dictionary IDF of a word the dictionary lacks: that of
// a word seen once, log2 of the dictionary's total frequency (33,335,153
// for gse's zh_s dictionary, log2 ≈ 25).
const maxDictIDF = 25

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// opLess orders "add 1%" < "add 2%" < ... by op then number.
func opLess(a, b string) bool {
	var oa, ob string
	var pa, pb int
	fmt.Sscanf(a, "%s %d%%", &oa, &pa)
	fmt.Sscanf(b, "%s %d%%", &ob, &pb)
	if oa != ob {
		return oa < ob
	}
	return pa < pb
}

// bloomReport sizes a Bloom filter for the distinct fingerprints of the
// sets at bloomset.DefaultFPRate, adds them, and measures its false
// positives on keys that were never added.
func bloomReport(keys [][16]byte, w io.Writer) error {
	distinct := map[[16]byte]bool{}
	for _, k := range keys {
		if k != ([16]byte{}) {
			distinct[k] = true
		}
	}
	if len(distinct) == 0 {
		return nil
	}
	s, err := bloomset.New(uint64(len(distinct)), bloomset.DefaultFPRate)
	if err != nil {
		return err
	}
	for k := range distinct {
		s.Add(k[:])
	}
	const probes = 1_000_000
	fp := 0
	var k [16]byte
	for i := range uint64(probes) {
		binary.LittleEndian.PutUint64(k[:], i)
		binary.LittleEndian.PutUint64(k[8:], ^i*0x9E3779B97F4A7C15)
		if s.Test(k[:]) {
			fp++
		}
	}
	fmt.Fprintf(w, "Bloom filter (bloomset) for the %d distinct n=8 corpus-idf fingerprints of these sets, sized at p = %g: %d bits (%.1f bits per key), k = %d; measured false positives %d of %d never-added keys (%.5f); expected %.5f\n",
		len(distinct), bloomset.DefaultFPRate, s.Bits(), float64(s.Bits())/float64(len(distinct)), s.K(), fp, probes, float64(fp)/probes, s.FalsePositiveRate())
	return nil
}
