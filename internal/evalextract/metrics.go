package evalextract

import (
	"strings"
	"unicode"
)

// isPySpace reports whether r matches Python's re `\s` on str patterns
// (str.isspace): Unicode White_Space plus the information separators
// U+001C..U+001F, which Python also treats as whitespace.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// bigrams counts the character bigrams of s with all whitespace removed,
// exactly as bench/score.py's bigrams(): a string of one character counts as
// one "bigram" of itself.
func bigrams(s string) (map[[2]rune]int, int) {
	rs := make([]rune, 0, len(s)/2)
	for _, r := range s {
		if !isPySpace(r) {
			rs = append(rs, r)
		}
	}
	m := make(map[[2]rune]int, len(rs))
	switch len(rs) {
	case 0:
		return m, 0
	case 1:
		m[[2]rune{rs[0], -1}] = 1
		return m, 1
	}
	for i := 0; i+1 < len(rs); i++ {
		m[[2]rune{rs[i], rs[i+1]}]++
	}
	return m, len(rs) - 1
}

// BigramF1 is the character-bigram F1 of pred against truth with
// whitespace removed, a reimplementation of bench/score.py bigram_f1.
func BigramF1(pred, truth string) float64 {
	a, na := bigrams(pred)
	b, nb := bigrams(truth)
	if na == 0 && nb == 0 {
		return 1
	}
	if na == 0 || nb == 0 {
		return 0
	}
	inter := 0
	for k, ca := range a {
		if cb := b[k]; cb > 0 {
			inter += min(ca, cb)
		}
	}
	if inter == 0 {
		return 0
	}
	p := float64(inter) / float64(na)
	r := float64(inter) / float64(nb)
	return 2 * p * r / (p + r)
}

// isPyWord reports whether r matches Python's re `\w` on str patterns:
// letters, numbers (str.isalnum) and the underscore.
func isPyWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// pyTokens is re.findall(r'\w+', text) of the ScrapingHub benchmark.
func pyTokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if isPyWord(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// shingles counts the 4-token shingles of s as the ScrapingHub
// benchmark's _ngrams does: for texts shorter than 4 tokens, one shingle of
// all tokens (none for an empty text).
func shingles(s string) map[string]int {
	const n = 4
	toks := pyTokens(s)
	m := map[string]int{}
	for i := 0; i < max(1, len(toks)-n+1); i++ {
		end := min(i+n, len(toks))
		if end <= i {
			continue
		}
		m[strings.Join(toks[i:end], "\x00")]++
	}
	return m
}

// TPFPFN is one page's normalised shingle counts (they sum to 1, or all 0).
type TPFPFN struct{ TP, FP, FN float64 }

// ShingleMatch reimplements string_shingle_matching of the ScrapingHub
// article-extraction-benchmark evaluate.py (4-token shingles, counts
// normalised by their sum so long texts do not weigh more).
func ShingleMatch(truth, pred string) TPFPFN {
	ts, ps := shingles(truth), shingles(pred)
	var tp, fp, fn float64
	for k, tc := range ts {
		pc := ps[k]
		tp += float64(min(tc, pc))
		fn += float64(max(0, tc-pc))
	}
	for k, pc := range ps {
		tc := ts[k]
		if tc == 0 {
			fp += float64(pc)
		} else {
			fp += float64(max(0, pc-tc))
		}
	}
	s := tp + fp + fn
	if s > 0 {
		return TPFPFN{tp / s, fp / s, fn / s}
	}
	return TPFPFN{}
}

// ShingleAccuracy is get_accuracy of the benchmark: 1 when both texts have
// identical token lists.
func ShingleAccuracy(truth, pred string) float64 {
	a, b := pyTokens(truth), pyTokens(pred)
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if a[i] != b[i] {
			return 0
		}
	}
	return 1
}

// ShingleScores is metrics_from_tp_fp_fns of the benchmark: precision is
// the mean over pages with tp+fp > 0, recall the mean over pages with
// tp+fn > 0, F1 is computed from the two means.
func ShingleScores(xs []TPFPFN) (precision, recall, f1 float64) {
	var ps, rs []float64
	for _, x := range xs {
		if x.TP+x.FP > 0 {
			ps = append(ps, prec(x))
		}
		if x.TP+x.FN > 0 {
			rs = append(rs, rec(x))
		}
	}
	precision, recall = mean(ps), mean(rs)
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return precision, recall, f1
}

func prec(x TPFPFN) float64 { return share(x, x.FP) }

func rec(x TPFPFN) float64 { return share(x, x.FN) }

// share is x.TP / (x.TP + wrong), where wrong is x.FP for precision and
// x.FN for recall, with evaluate.py's edge cases: 1 when there are no
// false positives nor false negatives, 0 when TP and wrong are both 0.
func share(x TPFPFN, wrong float64) float64 {
	if x.FP == 0 && x.FN == 0 {
		return 1
	}
	if x.TP == 0 && wrong == 0 {
		return 0
	}
	return x.TP / (x.TP + wrong)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
