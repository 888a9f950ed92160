package extract

import (
	"fmt"
	"math"
)

// Tuning holds the extraction thresholds that `eval extract` refits
// without the site it scores (leave-one-site-out); a zero field takes
// its default. The defaults and the figures behind them are in
// docs/THRESHOLDS.md.
type Tuning struct {
	// LinkBlockDensity: a block inside the chosen container whose text
	// is at least this share link text is a link list and is cut, and a
	// sibling above it is not merged (Readability's cleanConditionally
	// drops short blocks with link density > 0.5).
	LinkBlockDensity float64
	// SiblingScoreShare: a sibling of the best candidate scoring at
	// least this share of its score is merged into the article
	// (Readability's 20%).
	SiblingScoreShare float64
	// CloseRunnerUp: a candidate outside the chosen content scoring at
	// least this share of the best asks go-readability for a second
	// opinion.
	CloseRunnerUp float64
}

// Default tuning values.
const (
	DefaultLinkBlockDensity  = 0.5
	DefaultSiblingScoreShare = 0.2
	DefaultCloseRunnerUp     = 0.8
)

var defaultTuning = Tuning{LinkBlockDensity: DefaultLinkBlockDensity, SiblingScoreShare: DefaultSiblingScoreShare, CloseRunnerUp: DefaultCloseRunnerUp}

// resolve fills in the defaults and checks that every value is a share
// in (0, 1].
func (t Tuning) resolve() (Tuning, error) {
	for _, f := range []struct {
		name string
		v    *float64
		def  float64
	}{
		{"link block density", &t.LinkBlockDensity, DefaultLinkBlockDensity},
		{"sibling score share", &t.SiblingScoreShare, DefaultSiblingScoreShare},
		{"close runner-up", &t.CloseRunnerUp, DefaultCloseRunnerUp},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
		if math.IsNaN(*f.v) || *f.v <= 0 || *f.v > 1 {
			return Tuning{}, fmt.Errorf("tuning: %s %v is not in (0, 1]", f.name, *f.v)
		}
	}
	return t, nil
}
