package dedup

import "github.com/newsdedup/newscrawl/winnow"

// Relation is what two stored texts share, from their packed winnowing
// fingerprints (PackPrints) alone: the passages (content-word runs,
// StartA in the first text, StartB in the second, winnow.RunsOfPairs) and
// the share of each text's content words inside them. It links a
// follow-up with the story it quotes whether or not they ever met as
// near-duplicate candidates (a follow-up that re-uses a fifth of a story
// stays far below the Jaccard threshold).
type Relation struct {
	Passages []winnow.Passage
	// ShareA and ShareB are the shares of the first and the second text's
	// content words inside the passages.
	ShareA, ShareB float64
	// Words is the number of the first text's content words inside them.
	Words int
}

// MinRelatedShare and MinRelatedWords: two texts are related (Related)
// when their shared passages hold at least MinRelatedWords content words
// (two winnowing guarantee windows: one shared phrase is not a relation)
// and at least MinRelatedShare of one side's content words: a follow-up
// re-uses a fifth of a story or more (the reprint web's follow-ups 20-35 %
// of its sentences: shares 0.28-0.73 on the larger side), while one
// sentence inserted from another story, or a stock phrase two stories of
// a category share, stays below. On the reprint web at 0.2 every stored
// follow-up is linked to its story and 11 of 95 links join stories that
// the web's truth does not relate; at 0.1, 45 of 171 (eval web).
const (
	MinRelatedShare = 0.2
	MinRelatedWords = 2 * winnow.DefaultG
)

// Relate compares two packed fingerprint sets of na and nb content words;
// ok is false when either has none or they share too little (Related).
func Relate(a []uint64, na int, b []uint64, nb int) (r Relation, ok bool) {
	ps := sharedPrints(a, na, b, nb)
	if len(ps) == 0 || na <= 0 || nb <= 0 {
		return Relation{}, false
	}
	ca, cb := winnow.Covered(na, ps), coveredB(nb, ps)
	r = Relation{Passages: ps, ShareA: float64(ca) / float64(na), ShareB: float64(cb) / float64(nb), Words: ca}
	return r, r.Related()
}

// Related reports whether the relation passes MinRelatedWords and
// MinRelatedShare.
func (r Relation) Related() bool {
	return r.Words >= MinRelatedWords && max(r.ShareA, r.ShareB) >= MinRelatedShare
}
