package evalmethods

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/winnow"
)

// WinnowChapter is the source of the sentence-block winnowing, relative to
// ../shared (the blog capture has the same steps at lines 151-195).
const WinnowChapter = "papers/semantic-fingerprint-chapter-book.txt"

// ChapterPrint is one fingerprint of the chapter's copy detection: the hash
// of a whole sentence (Sentence true) or of a k-word block, with the global
// position of its first word among the text's keywords.
type ChapterPrint struct {
	Hash     uint64
	Pos      int
	Sentence bool
}

// ChapterSelect is step 3) of the chapter's algorithm (book lines 167-177)
// on one sentence's block hashes hs with windows of w = g − k + 1 hashes; it
// returns the indexes of the selected hashes in order:
//
//	① in the first window select the minimum, the rightmost of equal minima;
//	② move the window one hash to the right, until the last window;
//	③ if the previous selection f left the window, select the rightmost
//	  minimum of the window (searching from right to left);
//	④ else compare f with the window's new rightmost hash h: if f < h keep
//	  f, otherwise select h.
//
// This is Schleimer et al.'s robust winnowing. With fewer than w hashes
// there is no window ("1<=i<=n-g+k", line 151) and nothing is selected.
func ChapterSelect(hs []uint64, w int) []int {
	if w < 1 || len(hs) < w {
		return nil
	}
	rightmostMin := func(lo, hi int) int {
		best := hi
		for i := hi - 1; i >= lo; i-- {
			if hs[i] < hs[best] {
				best = i
			}
		}
		return best
	}
	f := rightmostMin(0, w-1) // ①
	out := []int{f}
	for i := 1; i+w-1 < len(hs); i++ { // ②
		right := i + w - 1
		switch {
		case f < i: // ③
			f = rightmostMin(i, right)
			out = append(out, f)
		case hs[f] >= hs[right]: // ④
			f = right
			out = append(out, f)
		}
	}
	return out
}

// ChapterWinnow is the chapter's fingerprint algorithm (book lines
// 159-179; input: sentences of keywords, noise granularity k, detection
// granularity g): 1) every sentence with at least k keywords is hashed
// whole and its hash kept with its global position; 2) such a sentence is
// cut into k-word blocks (Karp-Rabin, winnow.BlockHashes), and 3) the block
// hashes of each sentence are winnowed with windows of g − k + 1
// (ChapterSelect). Sentences with fewer than k keywords are noise and
// dropped (line 133-137). An invalid k, g (need 1 ≤ k ≤ g) is an error.
func ChapterWinnow(sentences [][]string, k, g int) ([]ChapterPrint, error) {
	if k < 1 || g < k {
		return nil, fmt.Errorf("chapter winnowing: need 1 <= k <= g, got k=%d g=%d", k, g)
	}
	var out []ChapterPrint
	pos := 0
	for _, s := range sentences {
		start := pos
		pos += len(s)
		if len(s) < k {
			continue
		}
		out = append(out, ChapterPrint{Hash: sentenceHash(s), Pos: start, Sentence: true})
		hs := winnow.BlockHashes(s, k)
		for _, i := range ChapterSelect(hs, g-k+1) {
			out = append(out, ChapterPrint{Hash: hs[i], Pos: start + i})
		}
	}
	return out, nil
}

// sentenceHash is FNV-1a 64 of the sentence's keywords joined by U+001F.
func sentenceHash(s []string) uint64 {
	h := uint64(14695981039346656037)
	for i, w := range s {
		if i > 0 {
			h ^= 0x1f
			h *= 1099511628211
		}
		for j := 0; j < len(w); j++ {
			h ^= uint64(w[j])
			h *= 1099511628211
		}
	}
	return h
}

// sentenceEnds are the runes that end a sentence block.
const sentenceEnds = "。！？；!?;\n"

// keywordSentences splits text into sentences at sentenceEnds and returns
// each sentence's keywords (words without stopwords).
func keywordSentences(seg WordSegmenter, text string) [][]string {
	var out [][]string
	for _, s := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(sentenceEnds, r) }) {
		if ws := contentWords(seg, s); len(ws) > 0 {
			out = append(out, ws)
		}
	}
	return out
}

// containment is the share of a's distinct hashes that b also has.
func containment(a, b []uint64) float64 {
	if len(a) == 0 {
		return 0
	}
	set := make(map[uint64]bool, len(b))
	for _, h := range b {
		set[h] = true
	}
	seen := map[uint64]bool{}
	hit := 0
	for _, h := range a {
		if !seen[h] {
			seen[h] = true
			if set[h] {
				hit++
			}
		}
	}
	return float64(hit) / float64(len(seen))
}

// cwPair is one text pair of the chapter table, with both methods' prints.
type cwPair struct {
	group                  string
	wholeNew, wholeOld     []uint64
	chapterNew, chapterOld []uint64
	sentNew, sentOld       []uint64 // the chapter's whole-sentence hashes
}

// cwText is a text's whole-text winnowing hashes, chapter hashes and the
// chapter's whole-sentence hashes among them.
type cwText struct{ whole, chapter, sent []uint64 }

func cwPrints(seg WordSegmenter, text string, c winnow.Config) (cwText, error) {
	ps, err := winnow.Fingerprints(contentWords(seg, text), c)
	if err != nil {
		return cwText{}, err
	}
	var t cwText
	for _, p := range ps {
		t.whole = append(t.whole, p.Hash)
	}
	cps, err := ChapterWinnow(keywordSentences(seg, text), c.K, c.G)
	if err != nil {
		return cwText{}, err
	}
	for _, p := range cps {
		t.chapter = append(t.chapter, p.Hash)
		if p.Sentence {
			t.sent = append(t.sent, p.Hash)
		}
	}
	return t, nil
}

// ChapterWinnowTable compares the chapter's sentence-block winnowing with
// the product's whole-text winnowing (winnow.Fingerprints) on the pairs of
// the dev sets: copies of one story on the reprint web, follow-ups against
// the story they re-use, and robust.jsonl's edited variants against their
// original. It prints, per kind of pair, the share of pairs sharing a
// fingerprint and the median share of the new text's fingerprints found in
// the other text, with the prints per text.
func ChapterWinnowTable(ctx context.Context, seg WordSegmenter, web, robust Set, c winnow.Config, w io.Writer) error {
	memo := map[string]cwText{}
	get := func(d Doc) (cwText, error) {
		key := d.ID + "\x00" + d.Text
		if p, ok := memo[key]; ok {
			return p, nil
		}
		p, err := cwPrints(seg, d.Text, c)
		memo[key] = p
		return p, err
	}
	var pairs []cwPair
	add := func(group string, a, b Doc) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		pa, err := get(a)
		if err != nil {
			return err
		}
		pb, err := get(b)
		if err != nil {
			return err
		}
		pairs = append(pairs, cwPair{group, pa.whole, pb.whole, pa.chapter, pb.chapter, pa.sent, pb.sent})
		return nil
	}
	if err := cwWebPairs(web, add); err != nil {
		return err
	}
	orig := map[string]Doc{}
	for _, d := range robust.Docs {
		if d.Kind == "orig" {
			orig[d.Label] = d
		}
	}
	for _, d := range robust.Docs {
		if o, ok := orig[d.Label]; ok && d.Kind != "orig" && d.Kind != "distinct" {
			if err := add(fmt.Sprintf("robust: %s %2d%% vs original", d.Kind, d.Pct), d, o); err != nil {
				return err
			}
		}
	}
	writeChapterWinnow(w, pairs, c, len(memo))
	return nil
}

// cwWebPairs adds the reprint web's copy pairs (each copy against every
// earlier copy of its story) and follow-up pairs.
func cwWebPairs(web Set, add func(string, Doc, Doc) error) error {
	byStory := map[string][]Doc{}
	for _, d := range web.Docs {
		for _, e := range byStory[d.Label] {
			if err := add("web: copy vs earlier copy", d, e); err != nil {
				return err
			}
		}
		byStory[d.Label] = append(byStory[d.Label], d)
	}
	for _, d := range web.Docs {
		if d.Kind != "followup" || d.FollowupOf == "" {
			continue
		}
		for _, e := range byStory[d.FollowupOf] {
			if err := add("web: follow-up vs the story it re-uses (different stories)", d, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeChapterWinnow(w io.Writer, pairs []cwPair, c winnow.Config, texts int) {
	fmt.Fprintf(w, "\n## The chapter's sentence-block winnowing (%s, lines 125-179) against whole-text winnowing, k = %d, g = %d keywords\n\n", WinnowChapter, c.K, c.G)
	fmt.Fprintf(w, "Chapter: every sentence with ≥ k keywords hashed whole, and its k-word blocks winnowed within the sentence (windows of g − k + 1); whole text: the product's winnow.Fingerprints over all keywords. contained = share of the new text's distinct fingerprints the other text has. Published: no figure; the chapter claims every copy longer than g is found and O(n) time (line 179); its worked example (line 143) lost its sentence and blocks in both captures.\n\n")
	fmt.Fprintf(w, "| pairs | n | whole text: any shared | contained, median | chapter: any shared | contained, median | shared whole sentences, median |\n|---|---|---|---|---|---|---|\n")
	var groups []string
	for _, p := range pairs {
		if !slices.Contains(groups, p.group) {
			groups = append(groups, p.group)
		}
	}
	slices.Sort(groups)
	for _, g := range groups {
		var wc, cc, sc []float64
		wAny, cAny := 0, 0
		for _, p := range pairs {
			if p.group != g {
				continue
			}
			a, b := containment(p.wholeNew, p.wholeOld), containment(p.chapterNew, p.chapterOld)
			wc, cc = append(wc, a), append(cc, b)
			sc = append(sc, containment(p.sentNew, p.sentOld))
			if a > 0 {
				wAny++
			}
			if b > 0 {
				cAny++
			}
		}
		n := len(wc)
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n", g, n, float64(wAny)/float64(n), median(wc), float64(cAny)/float64(n), median(cc), median(sc))
	}
	fmt.Fprintf(w, "\n%d texts fingerprinted.\n", texts)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
