package dedup

import (
	"context"
	"fmt"
	"slices"
	"unicode"

	"github.com/newsdedup/newscrawl/simhash"
	"github.com/newsdedup/newscrawl/spotsigs"
	"github.com/newsdedup/newscrawl/winnow"
)

// Decide compares fp with the indexed articles (centres and members) and
// returns the verdict: a duplicate when one passes verification, in the
// oldest of the clusters that passed (Verdict.Merged lists the others), or
// a new cluster. It does not change the index: call Add (or MergeClusters
// and AddMember) once the article is recorded. Decide and Add must not run
// concurrently with each other.
//
// A near-duplicate is a verdict; the error is the index's (a shared index
// that cannot answer), and the verdict is then not to be used.
func (e *Engine) Decide(ctx context.Context, fp *Fingerprint) (Verdict, error) {
	v := Verdict{Distance: -1, Reason: "new"}
	if fp.Empty() {
		v.Reason = "empty"
		return v, nil
	}
	q := Query{Hamming: e.opts.Hamming, Jaccard: e.opts.Jaccard, Containment: e.opts.Containment, Since: e.since}
	switch e.opts.Research.Mode {
	case SimhashOnly:
		q.NoSpotSigs, q.Containment = true, 0
		cands, err := e.index.Candidates(ctx, fp, q)
		if err != nil {
			return Verdict{}, fmt.Errorf("dedup: candidates: %w", err)
		}
		return e.decideSimhash(fp, cands), nil
	case SpotSigsOnly:
		q.NoSimhash, q.Containment = true, 0
	}
	cands, err := e.index.Candidates(ctx, fp, q)
	if err != nil {
		return Verdict{}, fmt.Errorf("dedup: candidates: %w", err)
	}
	return e.decideAmong(ctx, fp, cands)
}

// decideAmong is Decide's verdict from the candidates the index proposed.
func (e *Engine) decideAmong(ctx context.Context, fp *Fingerprint, cands []*Entry) (Verdict, error) {
	v := Verdict{Distance: -1, Reason: "new"}
	v.Candidates = len(cands)
	var best, partial match
	var clusters []uint64 // distinct clusters of the matched candidates
	for _, c := range cands {
		m := match{entry: c}
		m.j, m.cont, m.reason = e.verify(fp, c)
		if m.reason == "" {
			continue
		}
		if e.partialPair(fp, &m) {
			// A different article that shares a part with fp: not a
			// match, and no bridge between clusters either.
			if m.better(partial) {
				partial = m
			}
			continue
		}
		if !slices.Contains(clusters, c.Cluster) {
			clusters = append(clusters, c.Cluster)
		}
		if m.better(best) {
			best = m
		}
	}
	if best.entry == nil {
		if partial.entry != nil {
			c := partial.entry
			return Verdict{Distance: -1, Reason: "partial", Candidates: len(cands), Jaccard: partial.j, Containment: partial.cont,
				Matched: c.ID, PartialOf: c.ID, PartialOfCluster: c.Cluster, Passages: partial.passages,
				OwnShare: partial.own.New, StoredOwnShare: partial.own.Stored}, nil
		}
		// (A partial pair needs a Jaccard verdict, which a text too short
		// to compare never gets: the image rule below and the partial
		// rule above never both apply.)
		iv, ok, err := e.decideImage(ctx, fp, len(cands))
		if err != nil {
			return Verdict{}, err
		}
		if ok {
			return iv, nil
		}
		return v, nil
	}
	passages := best.passages
	if passages == nil {
		passages = sharedRuns(fp, best.entry)
	}
	into := best.entry.Cluster
	var merged []uint64
	if len(clusters) > 1 && !e.opts.NoMerge && !e.opts.CentresOnly {
		slices.Sort(clusters)
		into, merged = clusters[0], clusters[1:]
	}
	return Verdict{
		Duplicate: true, DupOf: into, Cluster: into, Matched: best.entry.ID,
		Distance: simhash.Distance(fp.Simhash, best.entry.Simhash),
		Jaccard:  best.j, Containment: best.cont, Reason: best.reason, Candidates: len(cands),
		Merged: merged, Passages: passages,
	}, nil
}

// match is a candidate that passed verification, with the winnowing
// evidence when the partial-reprint rule looked at it.
type match struct {
	entry    *Entry
	j, cont  float64
	reason   string
	passages []winnow.Passage
	own      Own
}

// better reports whether m beats o (the higher of Jaccard and
// containment, then the lower id).
func (m match) better(o match) bool {
	if o.entry == nil {
		return true
	}
	ms, obest := max(m.j, m.cont), max(o.j, o.cont)
	return ms > obest || (ms == obest && m.entry.ID < o.entry.ID)
}

// partialPair reports whether the partial-reprint rule (Own.Keeps) makes
// the verified pair of fp and m's entry two different articles: only
// pairs verified by Jaccard, and not a brief by containment
// (DefaultContainment), both with winnowing fingerprints. It records the
// passages and own shares it computed in m.
func (e *Engine) partialPair(fp *Fingerprint, m *match) bool {
	if !e.opts.PartialReprint || m.reason != "jaccard" || m.cont >= DefaultContainment || !distinctHeadlines(fp.Title, m.entry.Title) {
		return false
	}
	m.passages = sharedRuns(fp, m.entry)
	if m.passages == nil || fp.ContentWords == 0 || m.entry.ContentWords == 0 {
		return false
	}
	m.own = OwnOf(fp.ContentWords, m.entry.ContentWords, m.passages)
	return m.own.Keeps()
}

// distinctHeadlines reports whether two headlines (TitleSet) are both
// known and overlap below MaxFollowUpTitleOverlap (Han: ...Han): a
// follow-up's own headline, not the shared one of an extended copy.
func distinctHeadlines(a, b []uint64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	limit := MaxFollowUpTitleOverlap
	if hanHeadline(a) && hanHeadline(b) {
		limit = MaxFollowUpTitleOverlapHan
	}
	return titleOverlap(a, b) < limit
}

// hanHeadline reports whether most bigrams of a TitleSet start with a
// Chinese character.
func hanHeadline(t []uint64) bool {
	n := 0
	for _, bg := range t {
		if unicode.Is(unicode.Han, rune(bg>>32)) {
			n++
		}
	}
	return 2*n > len(t)
}

// verify is the judge: the SpotSigs Jaccard and containment of fp with an
// indexed entry, and the reason it is a near-duplicate ("" when it is not).
func (e *Engine) verify(fp *Fingerprint, c *Entry) (j, cont float64, reason string) {
	switch {
	case c.Hash == fp.Hash && e.opts.Research.KeywordExact:
		// fp.Hash is the keyword fingerprint when the text has enough
		// keywords (Options.KeywordExact).
		return spotsigs.Jaccard(fp.Signature, c.Signature), spotsigs.Containment(fp.Signature, c.Signature), "keywords"
	case c.Hash == fp.Hash:
		return 1, 1, "exact"
	case fp.Short() || len(c.Signature) < MinSpots:
		// Too few spots for Jaccard to mean much: near-exact only.
		j = spotsigs.Jaccard(fp.Signature, c.Signature)
		if j >= ShortJaccard && len(fp.Signature) > 0 {
			reason = "short"
		}
	default:
		j = spotsigs.Jaccard(fp.Signature, c.Signature)
		cont = spotsigs.Containment(fp.Signature, c.Signature)
		switch {
		case j >= e.opts.Jaccard:
			reason = "jaccard"
		case e.opts.Research.Mode == Combined && e.opts.Containment > 0 && cont >= e.opts.Containment &&
			min(len(fp.Signature), len(c.Signature)) >= MinContainmentSpots &&
			(j >= MinContainmentJaccard || titleOverlap(fp.Title, c.Title) >= MinTitleOverlap):
			reason = "containment"
		}
	}
	return j, cont, reason
}

// Own is what each side of a verified pair adds (the partial-reprint
// rule): New is the share of the new article's content words outside
// every passage it shares with the verified articles, NewWords their
// number, and Stored the smallest share of a verified article's content
// words outside the passages it shares with the new one.
type Own struct {
	New      float64
	NewWords int
	Stored   float64
}

// Keeps reports whether the partial-reprint rule keeps the new article:
// both sides add at least MinMutualOwnShare, one at least MinOwnShare,
// and the new one at least MinOwnWords words. (The engine also requires
// that the pair is not a brief by containment.)
func (o Own) Keeps() bool {
	return o.NewWords >= MinOwnWords && min(o.New, o.Stored) >= MinMutualOwnShare && max(o.New, o.Stored) >= MinOwnShare
}

// OwnOf is Own for one pair from its shared passages (StartA in the new
// text of na content words, StartB in the stored one of nb).
func OwnOf(na, nb int, ps []winnow.Passage) Own {
	if na <= 0 {
		return Own{}
	}
	covA := winnow.Covered(na, ps)
	o := Own{New: float64(na-covA) / float64(na), NewWords: na - covA}
	if nb > 0 {
		o.Stored = float64(nb-coveredB(nb, ps)) / float64(nb)
	}
	return o
}

// coveredB is winnow.Covered on the passages' other side.
func coveredB(n int, ps []winnow.Passage) int {
	rev := make([]winnow.Passage, len(ps))
	for i, p := range ps {
		rev[i] = winnow.Passage{StartA: p.StartB, StartB: p.StartA, Len: p.Len}
	}
	return winnow.Covered(n, rev)
}

// decideSimhash is classic Simhash: the nearest centre within k.
func (e *Engine) decideSimhash(fp *Fingerprint, cands []*Entry) Verdict {
	v := Verdict{Distance: -1, Reason: "new", Candidates: len(cands)}
	var best *Entry
	bestD := 65
	for _, c := range cands {
		d := simhash.Distance(fp.Simhash, c.Simhash)
		if d <= e.opts.Hamming && (d < bestD || (d == bestD && c.ID < best.ID)) {
			best, bestD = c, d
		}
	}
	if best == nil {
		return v
	}
	return Verdict{Duplicate: true, DupOf: best.Cluster, Cluster: best.Cluster, Matched: best.ID, Distance: bestD,
		Jaccard: spotsigs.Jaccard(fp.Signature, best.Signature), Reason: "hamming", Candidates: len(cands)}
}
