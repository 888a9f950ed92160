package dedup

import (
	"context"
	"errors"
)

// RecallReport compares a candidate stage with exhaustive search on one
// sequence of documents.
type RecallReport struct {
	Docs int
	// Accepted counts the pairs (new document, indexed entry) that the
	// judge (Engine.verify) accepts, found by comparing every new document
	// with every indexed one (brute force).
	Accepted int
	// Missed counts the accepted pairs the engine's own candidate stage
	// did not propose.
	Missed int
	// MissedExhaustive counts the accepted pairs MemoryIndex (Hamming
	// tables plus the SpotSigs inverted index, the former default) did not
	// propose.
	MissedExhaustive int
	// HammingOnly counts the accepted pairs that only MemoryIndex's Hamming
	// tables proposed (its SpotSigs index did not): what the Simhash
	// candidates add.
	HammingOnly int
	// ByPath counts the accepted pairs the stage proposed by the path
	// that proposed them, for stages with several (lshindex: "lsh",
	// "head", "both", "hash").
	ByPath map[string]int
	// Candidates and ExhaustiveCandidates are the candidates proposed in
	// total by the engine's stage and by MemoryIndex.
	Candidates, ExhaustiveCandidates int
	// CapDropped counts the postings the stage's own bounds dropped
	// (lshindex: the head lists' HeadListCap); -1 for a stage without such
	// a bound.
	CapDropped int
}

// capReporter is a candidate stage whose lists are bounded and that counts
// what the bound dropped (lshindex.Index).
type capReporter interface {
	HeadDropped() int
}

// pathReporter is a candidate stage that says which of its paths proposed
// each candidate (lshindex.Index).
type pathReporter interface {
	CandidatePaths(fp *Fingerprint, q Query) map[uint64]string
}

// Recall is the share of accepted pairs the candidate stage proposed (1
// when there were none).
func (r RecallReport) Recall() float64 {
	if r.Accepted == 0 {
		return 1
	}
	return float64(r.Accepted-r.Missed) / float64(r.Accepted)
}

// CandidateRecall runs Single-Pass over docs in input order with options
// opts, deciding with MemoryIndex candidates, and at every document checks
// the candidate stage of an engine built with opts (opts.NewIndex's, or
// PrefixIndex) against brute force over everything indexed so far: both
// indexes receive the same entries, so every document is compared with the
// same indexed articles. It costs O(n²) verifications: dev sets only.
func CandidateRecall(ctx context.Context, seg Segmenter, opts Options, docs []Doc) (RecallReport, error) {
	var r RecallReport
	if opts.Index != nil || opts.Research.NeedsMemoryIndex() {
		return r, errors.New("dedup: candidate recall needs an engine building its own candidate stage")
	}
	eng, err := New(seg, opts)
	if err != nil {
		return r, err
	}
	if _, ok := eng.index.(*MemoryIndex); ok {
		return r, errors.New("dedup: candidate recall of MemoryIndex, the reference itself")
	}
	opts.NewIndex = NewExhaustiveIndex
	ref, err := New(seg, opts)
	if err != nil {
		return r, err
	}
	q := Query{Hamming: ref.opts.Hamming, Jaccard: ref.opts.Jaccard, Containment: ref.opts.Containment}
	var indexed []*Entry // everything indexed so far: the brute-force reference
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		fp := ref.Fingerprint(d.Title, d.Text)
		r.Docs++
		if !fp.Empty() {
			nq := q
			nq.NoSimhash = true
			spots, err := candidateIDs(ctx, ref.index, fp, nq)
			if err != nil {
				return r, err
			}
			exh, err := candidateIDs(ctx, ref.index, fp, q)
			if err != nil {
				return r, err
			}
			mine, err := candidateIDs(ctx, eng.index, fp, q)
			if err != nil {
				return r, err
			}
			var paths map[uint64]string
			if pr, ok := eng.index.(pathReporter); ok {
				paths = pr.CandidatePaths(fp, q)
			}
			r.Candidates += len(mine)
			r.ExhaustiveCandidates += len(exh)
			for _, c := range indexed {
				if _, _, reason := ref.verify(fp, c); reason == "" {
					continue
				}
				r.Accepted++
				if !mine[c.ID] {
					r.Missed++
				} else if p, ok := paths[c.ID]; ok {
					if r.ByPath == nil {
						r.ByPath = map[string]int{}
					}
					r.ByPath[p]++
				}
				if !exh[c.ID] {
					r.MissedExhaustive++
				}
				if exh[c.ID] && !spots[c.ID] {
					r.HammingOnly++
				}
			}
		}
		v, err := ref.decideAndAdd(ctx, uint64(i), fp)
		if err != nil {
			return r, err
		}
		if err := eng.record(ctx, uint64(i), fp, v); err != nil {
			return r, err
		}
		if !fp.Empty() && (!v.Duplicate || !opts.CentresOnly) {
			indexed = append(indexed, &Entry{ID: uint64(i), Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash, Title: fp.Title})
		}
	}
	r.CapDropped = -1
	if cr, ok := eng.index.(capReporter); ok {
		r.CapDropped = cr.HeadDropped()
	}
	return r, nil
}

// candidateIDs is the set of ids x proposes for fp.
func candidateIDs(ctx context.Context, x Index, fp *Fingerprint, q Query) (map[uint64]bool, error) {
	cands, err := x.Candidates(ctx, fp, q)
	if err != nil {
		return nil, err
	}
	ids := make(map[uint64]bool, len(cands))
	for _, c := range cands {
		ids[c.ID] = true
	}
	return ids, nil
}
