package evaldedup

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
)

// CandidateRecall is the default candidate stage's recall against brute
// force on one dev set (dedup.CandidateRecall), with the combined engine
// under the run's settings.
type CandidateRecall struct {
	dedup.RecallReport
	Seconds float64
	Stage   string // the candidate stage measured
}

// RunCandidateRecall measures CandidateRecall on docs in input order.
func RunCandidateRecall(ctx context.Context, seg dedup.Segmenter, base dedup.Options, docs []dedup.Doc) (*CandidateRecall, error) {
	opts := dedup.Options{Jaccard: base.Jaccard, Containment: base.Containment, CentresOnly: base.CentresOnly, NoMerge: base.NoMerge,
		NewIndex: base.NewIndex}
	stage := "*dedup.PrefixIndex"
	if base.NewIndex != nil {
		x, err := base.NewIndex(dedup.Query{Hamming: dedup.DefaultHamming, Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment})
		if _, ref := x.(*dedup.MemoryIndex); ref {
			// The exhaustive reference has no candidate stage to measure:
			// the prefix stage is measured instead.
			opts.NewIndex = nil
		} else if err == nil {
			stage = fmt.Sprintf("%T", x)
		}
	}
	t := time.Now()
	r, err := dedup.CandidateRecall(ctx, seg, opts, docs)
	if err != nil {
		return nil, fmt.Errorf("candidate recall: %w", err)
	}
	return &CandidateRecall{RecallReport: r, Seconds: time.Since(t).Seconds(), Stage: stage}, nil
}

// Write prints the recall line.
func (c *CandidateRecall) Write(w io.Writer) {
	if c == nil {
		return
	}
	n := float64(max(c.Docs, 1))
	fmt.Fprintf(w, "\ncandidate recall (%s stage vs brute force, combined): %d accepted pairs, %d missed, recall %.4f; "+
		"MemoryIndex (Hamming + exhaustive SpotSigs) missed %d, accepted pairs only the Hamming tables proposed %d; "+
		"candidates verified per document %.2f (MemoryIndex, verified inside the index: %.2f); %.1fs\n",
		c.Stage, c.Accepted, c.Missed, c.Recall(), c.MissedExhaustive, c.HammingOnly, float64(c.Candidates)/n, float64(c.ExhaustiveCandidates)/n, c.Seconds)
	if c.CapDropped >= 0 {
		fmt.Fprintf(w, "postings the stage's list caps dropped: %d\n", c.CapDropped)
	}
	if len(c.ByPath) > 0 {
		keys := slices.Sorted(maps.Keys(c.ByPath))
		fmt.Fprintf(w, "accepted pairs proposed, by path:")
		for _, k := range keys {
			fmt.Fprintf(w, " %s %d", k, c.ByPath[k])
		}
		fmt.Fprintln(w)
	}
}
