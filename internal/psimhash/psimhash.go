// Package psimhash is P-Simhash as published by Zhang Yanan, Chen Weiwei,
// Fu Yinjin and Xu Kun (2022, 基于Simhash改進的文本去重算法), with its
// baselines: classic Simhash and E-Simhash. It lives in the lab because the
// product's decision does not use it (the product fingerprints with
// simhash.Sum; its optional positional mode is simhash.SumPositional); `eval
// psimhash` measures it.
//
// Line numbers below are those of ../shared/papers/zhang-yanan-2022-p-simhash.txt.
// Equations (3), (5) and (6) are images in that capture (lines 77, 89, 97 hold
// only their numbers); where the package needs them it says which reading it
// takes from the words around them.
//
//   - Weighting: TFC (line 75-79): w(t,d) = (m_dt/M_d)·log(N/n_t), divided
//     by the L2 norm of the document's weights, with m_dt the occurrences of t
//     in d, M_d the features of d, n_t the training documents holding t, N the
//     training documents; see [Model.TFC].
//   - Modified Jaccard (line 87-91): the occurrence counts x_k, y_k of the two
//     words in the n training documents holding both; see [Model.MJ].
//   - J-Tidf (line 93-97): TFC lowered for words associated with another
//     feature word of the same document; see [Model.Prepare].
//   - PBDR (line 131-137): per feature word, a d-bit occurrence vector over
//     absolute word positions, mapped by one fixed random function to f = 64
//     dimensions, mean-centred and binarised into the word's own Sig′; see
//     [PositionSig].
//   - SigFnl (line 151) = μ·Sig + (1−μ)·Sig′ with 0 read as −1, multiplied by
//     the word's J-Tidf weight (line 153), summed and binarised (155-157);
//     see [Doc.Sum].
//   - E-Simhash (line 41, 179, 203): term frequency times the word's left and
//     right information entropy learned on the training set, and every
//     occurrence's hash XORed with its position; see [Model.ESimhash].
//
// The package is pure: word sequences in, fingerprints out.
package psimhash

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/simhash"
)

// The paper's settings.
const (
	// TopM is the number of feature words: "选择权重前20的特征词" (line 199).
	TopM = 20
	// Mu is μ of SigFnl, "参数选择μ=1.5" (line 187).
	Mu = 1.5
	// Hamming is the paper's threshold: "汉明距离取10" (line 183).
	Hamming = 10
	// Bits is f, the signature length: "使用64位二进制01向量" (line 183).
	Bits = 64
)

// PositionSeed fixes PBDR's random mapping function, "使用同一映射函數"
// (line 149): every word of every document uses the same mapping, so
// signatures compare across documents and runs.
const PositionSeed = 0x5a4e2022

// Model holds what P-Simhash and E-Simhash learn on the training set
// (line 179): document frequencies for TFC, per-word occurrence counts per
// training document for the Modified Jaccard, and left/right neighbour
// entropies for E-Simhash. Build it with [Train]; it is read-only afterwards
// and safe for concurrent use.
type Model struct {
	docs    int
	post    map[string][]posting // word → training documents holding it, by document
	entropy map[string]float64   // word → H_left + H_right
	meanH   float64              // mean entropy, for words not seen in training
}

// posting is one training document holding a word, with the word's count.
type posting struct {
	doc   int32
	count int32
}

// Train learns a Model from training documents, each a word sequence;
// words for which isStop is true (isStop may be nil) and empty words are
// removed first, as step (1) removes stopwords and symbols (line 143).
func Train(docs [][]string, isStop func(string) bool) *Model {
	m := &Model{docs: len(docs), post: map[string][]posting{}, entropy: map[string]float64{}}
	left := map[string]map[string]int{}
	right := map[string]map[string]int{}
	for d, words := range docs {
		ws := clean(words, isStop)
		counts := map[string]int32{}
		for i, w := range ws {
			counts[w]++
			if i > 0 {
				addNeighbour(left, w, ws[i-1])
				addNeighbour(right, ws[i-1], w)
			}
		}
		for w, c := range counts {
			m.post[w] = append(m.post[w], posting{doc: int32(d), count: c})
		}
	}
	sum, n := 0.0, 0
	for w := range m.post {
		h := entropy(left[w]) + entropy(right[w])
		m.entropy[w] = h
		sum += h
		n++
	}
	if n > 0 {
		m.meanH = sum / float64(n)
	}
	return m
}

func addNeighbour(tab map[string]map[string]int, w, nb string) {
	t := tab[w]
	if t == nil {
		t = map[string]int{}
		tab[w] = t
	}
	t[nb]++
}

// entropy is the Shannon entropy (bits) of a neighbour distribution.
func entropy(c map[string]int) float64 {
	tot := 0
	for _, n := range c {
		tot += n
	}
	h := 0.0
	for _, n := range c {
		p := float64(n) / float64(tot)
		h -= p * math.Log2(p)
	}
	return h
}

// clean drops empty words and stopwords.
func clean(words []string, isStop func(string) bool) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if w == "" || strings.TrimSpace(w) == "" || (isStop != nil && isStop(w)) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// Docs returns the number of training documents.
func (m *Model) Docs() int { return m.docs }

// DF returns the number of training documents holding w.
func (m *Model) DF(w string) int { return len(m.post[w]) }

// MJ is the Modified Jaccard of words x and y over the training documents
// (line 87-91). The text defines J = f11/(f01+f10+f11) (line 83-87) on
// presence, then says counts of x and y in documents holding both vary at
// random and modifies J "to remove the effect of scale" with n (documents
// holding both) and the counts x_k, y_k (line 91); the formula itself is an
// image. Our reading multiplies the presence Jaccard by the mean count
// agreement over those n documents:
//
//	MJ(x,y) = f11/(f01+f10+f11) · (1/n)·Σ_{k=1..n} min(x_k,y_k)/max(x_k,y_k),   n = f11
//
// so two words that always appear together and equally often score 1, and
// MJ is 0 when they never share a document. MJ(x, x) is 0: a word does not
// lower its own weight.
func (m *Model) MJ(x, y string) float64 {
	if x == y {
		return 0
	}
	a, b := m.post[x], m.post[y]
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n, agree := 0, 0.0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].doc < b[j].doc:
			i++
		case a[i].doc > b[j].doc:
			j++
		default:
			lo, hi := min(a[i].count, b[j].count), max(a[i].count, b[j].count)
			agree += float64(lo) / float64(hi)
			n++
			i++
			j++
		}
	}
	if n == 0 {
		return 0
	}
	jac := float64(n) / float64(len(a)+len(b)-n)
	return jac * agree / float64(n)
}

// Term is one feature word of a document with its weight and its absolute
// positions in the cleaned word sequence.
type Term struct {
	Word      string
	Weight    float64
	Positions []int
}

// terms counts the cleaned words of a document, in order of first occurrence.
func terms(ws []string) []Term {
	idx := map[string]int{}
	var out []Term
	for p, w := range ws {
		i, ok := idx[w]
		if !ok {
			i = len(out)
			idx[w] = i
			out = append(out, Term{Word: w})
		}
		out[i].Positions = append(out[i].Positions, p)
	}
	return out
}

// TFC weights the words of a document (line 75-79, equation (3) an image;
// the text names its parts: m_dt, M_d, n_t): w = (m_dt/M_d)·log((N+1)/(n_t+1)),
// divided by the L2 norm of all the document's w (the "C" of TFC, Salton
// and Buckley's cosine normalisation). The +1 keeps words unseen in training
// finite. A word in every training document weighs 0, as log(N/n) gives.
// Scaling all weights of a document by one factor changes no fingerprint bit,
// so the normalisation matters only for reporting weights. It returns the
// terms in order of first occurrence and the cleaned length d.
func (m *Model) TFC(words []string, isStop func(string) bool) ([]Term, int) {
	ws := clean(words, isStop)
	ts := terms(ws)
	norm := 0.0
	for i := range ts {
		tf := float64(len(ts[i].Positions)) / float64(len(ws))
		ts[i].Weight = tf * math.Log(float64(m.docs+1)/float64(m.DF(ts[i].Word)+1))
		norm += ts[i].Weight * ts[i].Weight
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := range ts {
			ts[i].Weight /= norm
		}
	}
	return ts, len(ws)
}

// Doc is a document prepared for P-Simhash: its top-m feature words with
// their J-Tidf weights and positions, and its cleaned length d.
type Doc struct {
	Terms []Term
	Len   int
}

// Prepare runs steps (1), (2) and the weighting of (5) (line 143-153): clean
// the words, weight them with TFC, keep the top m (ties by word), then apply
// J-Tidf. Equation (6) is an image; the text says J-Tidf optimises the TF-IDF
// weight by the Jaccard similarity (line 95) to lower the weight of words that
// co-occur strongly, so that in "李白是唐代诗人" against "李白不是唐代诗人" the
// words 是/不是 decide the signature (line 55-65). That needs all of 李白,
// 唐代 and 诗人 lowered, so our reading is symmetric: every feature word t
// gets w(t)·(1 − max MJ(t,s)) over the other feature words s. With jtidf
// false the TFC weights are kept (the ablation).
func (m *Model) Prepare(words []string, isStop func(string) bool, topM int, jtidf bool) Doc {
	ts, d := m.TFC(words, isStop)
	slices.SortFunc(ts, func(a, b Term) int {
		if a.Weight != b.Weight {
			return cmp.Compare(b.Weight, a.Weight)
		}
		return strings.Compare(a.Word, b.Word)
	})
	if topM > 0 && len(ts) > topM {
		ts = ts[:topM:topM]
	}
	if jtidf {
		f := make([]float64, len(ts))
		for i := range ts {
			mx := 0.0
			for j, s := range ts {
				if j != i {
					mx = max(mx, m.MJ(ts[i].Word, s.Word))
				}
			}
			f[i] = 1 - mx
		}
		for i := range ts {
			ts[i].Weight *= f[i]
		}
	}
	return Doc{Terms: ts, Len: d}
}

// splitmix64 is the finaliser of SplitMix64 (Steele, Lea, Flood 2014), the
// random function of PBDR's mapping.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Dim is PBDR's mapping function (line 133): absolute position p of the
// d-bit occurrence vector → one of the f = 64 dimensions, the same for
// every word and document.
func Dim(p int) int {
	return int(splitmix64(uint64(p)^PositionSeed) % Bits)
}

// PositionSig is a word's PBDR position signature Sig′ (line 131-137):
// ① u has bit p set for every position p where the word occurs; ② every
// set bit is mapped by [Dim] to a dimension of v and summed there; ③ the
// mean of v's 64 entries is subtracted; ④ bit j of Sig′ is 1 when v[j] − mean
// > 0. Positions below 0 are ignored. No positions give 0.
func PositionSig(positions []int) uint64 {
	var v [Bits]int
	n := 0
	for _, p := range positions {
		if p < 0 {
			continue
		}
		v[Dim(p)]++
		n++
	}
	var sig uint64
	for j, c := range v {
		// c − n/64 > 0  ⇔  64·c > n
		if Bits*c > n {
			sig |= 1 << uint(j)
		}
	}
	return sig
}

// Sum is P-Simhash's signature of d (steps (2)-(7), line 145-157): for every
// feature word, Sig = h(word) (FNV-1a when h is nil), Sig′ = PositionSig;
// SigFnl[j] = μ·s_j + (1−μ)·s′_j with s, s′ = ±1 for bits 1, 0 (line 151);
// the word votes weight·SigFnl[j] in dimension j (line 153); bit j of the
// signature is 1 when the total is > 0 (line 157). μ = 1 gives the classic
// Simhash of the same weighted words. Words with a non-finite weight are
// ignored; a non-finite μ is read as the paper's [Mu].
func (d Doc) Sum(h simhash.HashFunc, mu float64) uint64 {
	if h == nil {
		h = simhash.FNV1a
	}
	if math.IsNaN(mu) || math.IsInf(mu, 0) {
		mu = Mu
	}
	var v [Bits]float64
	for _, t := range d.Terms {
		if math.IsNaN(t.Weight) || math.IsInf(t.Weight, 0) {
			continue
		}
		sig, pos := h(t.Word), PositionSig(t.Positions)
		for j := range v {
			s, sp := -1.0, -1.0
			if sig>>uint(j)&1 == 1 {
				s = 1
			}
			if pos>>uint(j)&1 == 1 {
				sp = 1
			}
			v[j] += t.Weight * (mu*s + (1-mu)*sp)
		}
	}
	return signs(&v)
}

func signs(v *[Bits]float64) uint64 {
	var fp uint64
	for j, x := range v {
		if x > 0 {
			fp |= 1 << uint(j)
		}
	}
	return fp
}

// Simhash is the classic Simhash of section 1.1 (line 25-33) over all the
// cleaned words of a document, weighted with TF-IDF (the "tf×idf" of
// equation (2), line 71-75, without P-Simhash's top m and J-Tidf). The bool
// is false when no word is left.
func (m *Model) Simhash(words []string, isStop func(string) bool, h simhash.HashFunc) (uint64, bool) {
	ts, _ := m.TFC(words, isStop)
	fs := make([]simhash.Feature, len(ts))
	for i, t := range ts {
		fs[i] = simhash.Feature{Term: t.Word, Weight: t.Weight}
	}
	return simhash.Sum(fs, h), len(fs) > 0
}

// ESimhash is the E-Simhash baseline as the P-Simhash paper describes it
// (its source, reference [11], is not among our texts): words weighted by
// "词频和熵" (line 41), term frequency times the word's left plus right
// information entropy learned on the training set (line 179; words unseen
// in training get the mean entropy), and every occurrence's hash XORed with
// its position ("将全部特征词哈希与其每个位置分别进行异或操作", line 203), all
// words, no top m. The bool is false when no word is left.
func (m *Model) ESimhash(words []string, isStop func(string) bool, h simhash.HashFunc) (uint64, bool) {
	if h == nil {
		h = simhash.FNV1a
	}
	ws := clean(words, isStop)
	ts := terms(ws)
	var v [Bits]float64
	for _, t := range ts {
		e, ok := m.entropy[t.Word]
		if !ok {
			e = m.meanH
		}
		w := float64(len(t.Positions)) / float64(len(ws)) * e
		x := h(t.Word)
		for _, p := range t.Positions {
			y := x ^ uint64(p)
			for j := range v {
				if y>>uint(j)&1 == 1 {
					v[j] += w
				} else {
					v[j] -= w
				}
			}
		}
	}
	return signs(&v), len(ts) > 0
}
