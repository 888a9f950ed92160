package evalmethods

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
	"github.com/newsdedup/newscrawl/winnow"
)

// WordSegmenter is what the winnowing evaluation needs from *segment.Segmenter.
type WordSegmenter interface {
	Words(text string) []string
	IsStop(w string) bool
}

// contentWords are the words of text without stopwords: the chapter's
// k-word blocks are blocks of keywords.
func contentWords(seg WordSegmenter, text string) []string {
	ws := seg.Words(text)
	out := ws[:0]
	for _, w := range ws {
		if !seg.IsStop(w) {
			out = append(out, w)
		}
	}
	return out
}

// PairOverlap is the winnowing evidence between a new text and an earlier one.
type PairOverlap struct {
	Passages int
	// Shared is the share of the new text's words inside shared passages;
	// Own = 1 − Shared is what the new text adds.
	Shared, Own float64
	OwnWords    int
	// EstOwn is Own estimated from the fingerprints alone (winnow.Runs),
	// as an index that keeps no words computes it; Est is what the
	// engine's partial-reprint rule sees (both sides, estimated).
	EstOwn float64
	Est    dedup.Own
	// Spots is the same rule's input from the SpotSigs signatures instead
	// of winnowing (the share of each side's spots the other lacks, own
	// words scaled from the content words): the cheaper alternative,
	// since stores keep signatures anyway.
	Spots dedup.Own
	// OldOwn is the share of the earlier text's words outside the shared
	// passages: what the earlier text has that the new one lacks.
	OldOwn float64
}

// Overlap compares new (words) with old.
func Overlap(newWords, oldWords []string, c winnow.Config) (PairOverlap, error) {
	pn, err := winnow.Fingerprints(newWords, c)
	if err != nil {
		return PairOverlap{}, err
	}
	po, _ := winnow.Fingerprints(oldWords, c)
	ps, err := winnow.Passages(newWords, pn, oldWords, po, c)
	if err != nil {
		return PairOverlap{}, err
	}
	if len(newWords) == 0 {
		return PairOverlap{}, nil
	}
	cov := winnow.Covered(len(newWords), ps)
	shared := float64(cov) / float64(len(newWords))
	o := PairOverlap{Passages: len(ps), Shared: shared, Own: 1 - shared, OwnWords: len(newWords) - cov}
	rs, err := winnow.Runs(pn, len(newWords), po, len(oldWords), c)
	if err != nil {
		return PairOverlap{}, err
	}
	o.EstOwn = 1 - float64(winnow.Covered(len(newWords), rs))/float64(len(newWords))
	o.Est = dedup.OwnOf(len(newWords), len(oldWords), rs)
	if len(oldWords) > 0 {
		rev := make([]winnow.Passage, len(ps))
		for i, p := range ps {
			rev[i] = winnow.Passage{StartA: p.StartB, StartB: p.StartA, Len: p.Len}
		}
		o.OldOwn = 1 - float64(winnow.Covered(len(oldWords), rev))/float64(len(oldWords))
	}
	return o, nil
}

// ownRule is a candidate partial-reprint rule: keep the new text when it
// adds at least MinOwn of its words and at least MinOwnWords words.
type ownRule struct {
	MinOwn      float64
	MinOwnWords int
}

func (r ownRule) keeps(o PairOverlap) bool { return o.Own >= r.MinOwn && o.OwnWords >= r.MinOwnWords }

// group is one kind of text pair of the winnowing table.
type group struct {
	name string
	ov   []PairOverlap
	// wantKept: the pairs are different stories (a rule that keeps
	// them is right) rather than copies of one story.
	wantKept bool
}

// writeWinnowRow prints one group's row (without the line end): own-text
// quantiles, what each rule keeps, the both-own range and the estimate's.
func writeWinnowRow(w io.Writer, g *group, rules []ownRule, bothRules []float64) {
	own := make([]float64, len(g.ov))
	none := 0
	for i, o := range g.ov {
		own[i] = o.Own
		if o.Passages == 0 {
			none++
		}
	}
	sort.Float64s(own)
	q := func(p float64) float64 {
		if len(own) == 0 {
			return 0
		}
		return own[min(len(own)-1, int(p*float64(len(own))))]
	}
	fmt.Fprintf(w, "| %s | %d | %d | %.3f | %.3f | %.3f | %.3f |", g.name, len(g.ov), none, q(0), q(0.5), q(0.9), q(1))
	for _, r := range rules {
		kept := 0
		for _, o := range g.ov {
			if r.keeps(o) {
				kept++
			}
		}
		mark := ""
		if g.wantKept {
			mark = " (different stories)"
		}
		fmt.Fprintf(w, " %d%s |", kept, mark)
	}
	maxBoth := 0.0
	for _, b := range bothRules {
		kept := 0
		for _, o := range g.ov {
			if min(o.Own, o.OldOwn) >= b {
				kept++
			}
		}
		fmt.Fprintf(w, " %d |", kept)
	}
	minBoth := 1.0
	for _, o := range g.ov {
		maxBoth = max(maxBoth, min(o.Own, o.OldOwn))
		minBoth = min(minBoth, min(o.Own, o.OldOwn))
	}
	fmt.Fprintf(w, " %.3f | %.3f |", minBoth, maxBoth)
	minEst, maxEst := 1.0, 0.0
	for _, o := range g.ov {
		minEst, maxEst = min(minEst, o.EstOwn), max(maxEst, o.EstOwn)
	}
	fmt.Fprintf(w, " %.3f | %.3f |", minEst, maxEst)
	minSt, maxSt, minB, maxB, kept := 1.0, 0.0, 1.0, 0.0, 0
	for _, o := range g.ov {
		minSt, maxSt = min(minSt, o.Est.Stored), max(maxSt, o.Est.Stored)
		b := min(o.Est.New, o.Est.Stored)
		minB, maxB = min(minB, b), max(maxB, b)
		if o.Est.Keeps() {
			kept++
		}
	}
	mark := ""
	if g.wantKept {
		mark = " (different stories)"
	}
	fmt.Fprintf(w, " %.3f | %.3f | %.3f | %.3f | %d%s |", minSt, maxSt, minB, maxB, kept, mark)
	minN, maxN, minS, maxS, spotKept := 1.0, 0.0, 1.0, 0.0, 0
	for _, o := range g.ov {
		minN, maxN = min(minN, o.Spots.New), max(maxN, o.Spots.New)
		minS, maxS = min(minS, o.Spots.Stored), max(maxS, o.Spots.Stored)
		if o.Spots.Keeps() {
			spotKept++
		}
	}
	fmt.Fprintf(w, " %.3f | %.3f | %.3f | %.3f | %d%s |", minN, maxN, minS, maxS, spotKept, mark)
}

// spotOwn is dedup.Own from SpotSigs signatures: the share of each side's
// spots (a multiset) the other lacks; words scales the new text's content
// words by its share.
func spotOwn(a, b spotsigs.Signature, words int) dedup.Own {
	if len(a) == 0 || len(b) == 0 {
		return dedup.Own{}
	}
	n := float64(spotsigs.Overlap(a, b))
	o := dedup.Own{New: 1 - n/float64(len(a)), Stored: 1 - n/float64(len(b))}
	o.NewWords = int(o.New * float64(words))
	return o
}

// Winnow prints the winnowing evidence on the dev sets: for every true
// duplicate pair of the reprint web (later copy against an earlier one),
// every follow-up hard negative (follow-up against the story it re-uses)
// and every edited variant of the robustness set (against its original):
// passages found, the share of the new text that is its own, and how a
// partial-reprint rule (keep a text that adds at least x of its words)
// would decide each group.
func Winnow(ctx context.Context, seg WordSegmenter, web, robust Set, c winnow.Config, w io.Writer) error {
	t := time.Now()
	var groups []*group
	get := func(name string, wantKept bool) *group {
		for _, g := range groups {
			if g.name == name {
				return g
			}
		}
		g := &group{name: name, wantKept: wantKept}
		groups = append(groups, g)
		return g
	}
	eng, err := dedup.New(seg, dedup.Options{})
	if err != nil {
		return err
	}
	sig := func(text string) spotsigs.Signature { return eng.Fingerprint("", text).Signature }
	words := make([][]string, len(web.Docs))
	sigs := make([]spotsigs.Signature, len(web.Docs))
	byStory := map[string][]int{}
	for i, d := range web.Docs {
		words[i] = contentWords(seg, d.Text)
		sigs[i] = sig(d.Text)
		byStory[d.Label] = append(byStory[d.Label], i)
	}
	nwords := 0
	for i, d := range web.Docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		nwords += len(words[i])
		for _, j := range byStory[d.Label] {
			if j >= i {
				break
			}
			o, err := Overlap(words[i], words[j], c)
			if err != nil {
				return err
			}
			o.Spots = spotOwn(sigs[i], sigs[j], len(words[i]))
			get("web: copy vs earlier copy ("+d.Kind+")", false).ov = append(get("web: copy vs earlier copy ("+d.Kind+")", false).ov, o)
		}
		if d.Kind == "followup" && d.FollowupOf != "" {
			for _, j := range byStory[d.FollowupOf] {
				o, err := Overlap(words[i], words[j], c)
				if err != nil {
					return err
				}
				o.Spots = spotOwn(sigs[i], sigs[j], len(words[i]))
				get("web: follow-up vs the story it re-uses", true).ov = append(get("web: follow-up vs the story it re-uses", true).ov, o)
				o, err = Overlap(words[j], words[i], c)
				if err != nil {
					return err
				}
				o.Spots = spotOwn(sigs[j], sigs[i], len(words[j]))
				get("web: re-used story vs its follow-up", true).ov = append(get("web: re-used story vs its follow-up", true).ov, o)
			}
		}
	}
	n, err := robustOverlaps(ctx, seg, robust, sig, c, get)
	if err != nil {
		return err
	}
	nwords += n
	elapsed := time.Since(t)
	fmt.Fprintf(w, "\n## Winnowing (Schleimer et al. 2003, k = %d, g = %d words, stopwords dropped): shared passages and own text\n\n", c.K, c.G)
	fmt.Fprintf(w, "own = share of the new text's words outside every passage it shares with the other text.\n\n")
	rules := []ownRule{{0.2, 40}, {0.25, 40}, {0.3, 40}, {0.4, 40}}
	bothRules := []float64{0.1, 0.15, 0.2}
	fmt.Fprintf(w, "| pairs | n | no passage | own: min | median | p90 | max |")
	for _, r := range rules {
		fmt.Fprintf(w, " kept at own ≥ %.2f, ≥ %d words |", r.MinOwn, r.MinOwnWords)
	}
	for _, b := range bothRules {
		fmt.Fprintf(w, " kept when both own ≥ %.2f |", b)
	}
	fmt.Fprintf(w, " both own: min | max | estimated own (fingerprints only): min | max | estimated stored own: min | max | both own, estimated: min | max | kept by the engine's rule (dedup.Own.Keeps, estimated) |")
	fmt.Fprintf(w, " spot own: min | max | spot stored own: min | max | kept by the rule on spot shares |")
	fmt.Fprintf(w, "\n|---|---|---|---|---|---|---|%s\n", strings.Repeat("---|", len(rules)+len(bothRules)+14))
	sort.SliceStable(groups, func(a, b int) bool { return groups[a].name < groups[b].name })
	for _, g := range groups {
		writeWinnowRow(w, g, rules, bothRules)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%d texts' content words (%d words) winnowed and compared in %.0f ms (machine shared with other builds)\n", len(web.Docs)+len(robust.Docs), nwords, float64(elapsed.Microseconds())/1000)
	return nil
}

// robustOverlaps adds every edited variant of the robustness set, against
// its original, to its group; it returns the content words it read.
func robustOverlaps(ctx context.Context, seg WordSegmenter, robust Set, sig func(string) spotsigs.Signature, c winnow.Config,
	get func(name string, wantKept bool) *group) (int, error) {
	orig := map[string][]string{}
	origSig := map[string]spotsigs.Signature{}
	for _, d := range robust.Docs {
		if d.Kind == "orig" {
			orig[d.Label] = contentWords(seg, d.Text)
			origSig[d.Label] = sig(d.Text)
		}
	}
	nwords := 0
	for _, d := range robust.Docs {
		if err := ctx.Err(); err != nil {
			return nwords, err
		}
		o, ok := orig[d.Label]
		if !ok || d.Kind == "orig" || d.Kind == "distinct" {
			continue
		}
		nw := contentWords(seg, d.Text)
		nwords += len(nw)
		ov, err := Overlap(nw, o, c)
		if err != nil {
			return nwords, err
		}
		ov.Spots = spotOwn(sig(d.Text), origSig[d.Label], len(nw))
		g := get(fmt.Sprintf("robust: %s %2d%% vs original", d.Kind, d.Pct), false)
		g.ov = append(g.ov, ov)
	}
	return nwords, nil
}
