package evaldedup

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/newsdedup/newscrawl/internal/dataset"
)

// Li Gang et al.'s robustness protocol (li-gang-2013-semantic-fingerprint-simhash.txt):
// additions and deletions of 1-20 % of a text at random positions (line
// 151), sentences taken out and put back at random positions (line 153),
// 1,000 test texts and 50 texts whose sentences are added (line 155).
var (
	// LiGangEditPcts are the edit shares of the generated set, those of
	// robust.jsonl (the paper's Figure 2 spans 1-20 %; its points are in an
	// image).
	LiGangEditPcts = []int{1, 2, 5, 10, 15, 20}
	// LiGangReorderPcts are the shares of sentences moved.
	LiGangReorderPcts = []int{20, 100}
)

const (
	// LiGangBases is the paper's number of test texts (line 155).
	LiGangBases = 1000
	// LiGangAddTexts is the paper's number of texts for additions (line 155).
	LiGangAddTexts = 50
	// liGangMinSentences: a base text needs this many sentences for its
	// edits to be sentence edits rather than the cut of its only sentence.
	liGangMinSentences = 5
	// LiGangSeed fixes the generated set.
	LiGangSeed = 2013
)

// sentenceEnd are the runes that end a sentence (kept with it).
const sentenceEnd = "。！？!?；;\n"

// splitSentences cuts text after every sentenceEnd rune; empty pieces and
// pieces of white space only are dropped.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if strings.ContainsRune(sentenceEnd, r) {
			end := i + utf8.RuneLen(r)
			if s := text[start:end]; strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
			start = end
		}
	}
	if s := text[start:]; strings.TrimSpace(s) != "" {
		out = append(out, s)
	}
	return out
}

func runeLen(ss []string) int {
	n := 0
	for _, s := range ss {
		n += utf8.RuneCountInString(s)
	}
	return n
}

// firstRunes is the first n runes of s.
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// addEdit inserts sentences of pool at random sentence boundaries until
// pct % of the base's characters are added; the last one is cut to hit
// the target.
func addEdit(r *rand.Rand, sents, pool []string, pct int) string {
	out := append([]string(nil), sents...)
	need := runeLen(sents) * pct / 100
	for need > 0 && len(pool) > 0 {
		s := pool[r.IntN(len(pool))]
		if n := utf8.RuneCountInString(s); n > need {
			s = firstRunes(s, need)
		}
		need -= utf8.RuneCountInString(s)
		at := r.IntN(len(out) + 1)
		out = append(out[:at], append([]string{s}, out[at:]...)...)
	}
	return strings.Join(out, "")
}

// deleteEdit removes random whole sentences while they fit in pct % of
// the characters, then cuts the rest from the end of one more sentence.
func deleteEdit(r *rand.Rand, sents []string, pct int) string {
	out := append([]string(nil), sents...)
	need := runeLen(sents) * pct / 100
	for _, i := range r.Perm(len(out)) {
		if n := utf8.RuneCountInString(out[i]); n > 0 && n <= need {
			need -= n
			out[i] = ""
		}
	}
	for _, i := range r.Perm(len(out)) {
		if n := utf8.RuneCountInString(out[i]); need > 0 && n > need {
			out[i] = firstRunes(out[i], n-need)
			break
		}
	}
	return strings.Join(out, "")
}

// reorderEdit moves pct % of the sentences (at least one) to random
// positions; 100 shuffles them all.
func reorderEdit(r *rand.Rand, sents []string, pct int) string {
	out := append([]string(nil), sents...)
	if pct >= 100 {
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return strings.Join(out, "")
	}
	for range max(1, len(sents)*pct/100) {
		i := r.IntN(len(out))
		s := out[i]
		out = append(out[:i], out[i+1:]...)
		at := r.IntN(len(out) + 1)
		out = append(out[:at], append([]string{s}, out[at:]...)...)
	}
	return strings.Join(out, "")
}

// liGangMaxShared: a base text sharing more than this share of its
// sentences with an earlier base is a copy of it and not used (a base and
// its copy would count as a false merge of two groups).
const liGangMaxShared = 0.2

// distinctBases drops every text sharing more than liGangMaxShared of its
// sentences with an earlier kept text; it returns the kept texts.
func distinctBases(texts []string) []string {
	owner := map[string]bool{}
	var out []string
	for _, t := range texts {
		sents := splitSentences(t)
		shared := 0
		for _, s := range sents {
			if owner[sentenceKey(s)] {
				shared++
			}
		}
		if len(sents) == 0 || float64(shared) > liGangMaxShared*float64(len(sents)) {
			continue
		}
		for _, s := range sents {
			owner[sentenceKey(s)] = true
		}
		out = append(out, t)
	}
	return out
}

// sentenceKey is a sentence's letters and digits only, so that copies
// differing in punctuation, width or white space compare equal.
func sentenceKey(s string) string {
	var b strings.Builder
	for _, r := range width.Fold.String(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// LiGangSet builds the paper's robustness set from up to LiGangBases base
// texts (those with at least liGangMinSentences sentences and not copies of
// an earlier base, see distinctBases, in order) with
// sentences for additions from pool: per base its original and its add,
// delete (LiGangEditPcts) and reorder (LiGangReorderPcts) variants, in the
// layout of robust.jsonl (group = base index). It also returns how many
// bases were usable.
func LiGangSet(bases, pool []string, seed uint64) ([]dataset.RobustDoc, int) {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	var poolSents []string
	for _, t := range pool {
		poolSents = append(poolSents, splitSentences(t)...)
	}
	var docs []dataset.RobustDoc
	n := 0
	for _, text := range distinctBases(bases) {
		sents := splitSentences(text)
		if len(sents) < liGangMinSentences || n == LiGangBases {
			continue
		}
		g := fmt.Sprintf("lg%04d", n)
		n++
		docs = append(docs, dataset.RobustDoc{ID: g + "-orig", Group: g, Text: text, Op: "orig"})
		for _, p := range LiGangEditPcts {
			docs = append(docs,
				dataset.RobustDoc{ID: fmt.Sprintf("%s-add%02d", g, p), Group: g, Text: addEdit(r, sents, poolSents, p), Op: "add", Pct: p},
				dataset.RobustDoc{ID: fmt.Sprintf("%s-del%02d", g, p), Group: g, Text: deleteEdit(r, sents, p), Op: "delete", Pct: p})
		}
		for _, p := range LiGangReorderPcts {
			docs = append(docs, dataset.RobustDoc{ID: fmt.Sprintf("%s-reo%03d", g, p), Group: g, Text: reorderEdit(r, sents, p), Op: "reorder", Pct: p})
		}
	}
	return docs, n
}
