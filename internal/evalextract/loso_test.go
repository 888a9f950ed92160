package evalextract

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/extract"
)

// TestFolds checks the fold logic on made-up scores: two grid points,
// three sites. Site a prefers point 1 strongly, b and c slightly prefer
// point 0 (the default): a fold holding out a is fitted on b and c and
// takes point 0, so a's gain is not counted, while the in-sample fit
// takes point 1.
func TestFolds(t *testing.T) {
	def := extract.Tuning{LinkBlockDensity: extract.DefaultLinkBlockDensity, SiblingScoreShare: extract.DefaultSiblingScoreShare, CloseRunnerUp: extract.DefaultCloseRunnerUp}
	other := extract.Tuning{LinkBlockDensity: 0.4, SiblingScoreShare: 0.1, CloseRunnerUp: 0.7}
	grid := []extract.Tuning{def, other}
	s := &losoSet{name: "x", pages: []losoPage{{site: "a"}, {site: "b"}, {site: "c"}}}
	s.scores = [][]pageScore{
		{{f1: 0.2}, {f1: 0.9}, {f1: 0.9}},
		{{f1: 1.0}, {f1: 0.8}, {f1: 0.8}},
	}
	r := &Report{}
	s.addFolds(grid, r)
	for _, tc := range []struct {
		metric string
		want   float64
	}{
		{"LOSO: mean bigram F1 at the defaults", (0.2 + 0.9 + 0.9) / 3},
		{"LOSO: mean bigram F1 fitted on all sites", (1.0 + 0.8 + 0.8) / 3},
		// a: fitted on b, c -> default (0.2); b: fitted on a, c -> other
		// (0.8); c likewise (0.8).
		{"LOSO: mean bigram F1 leave-one-site-out", (0.2 + 0.8 + 0.8) / 3},
	} {
		t.Run(tc.metric, func(t *testing.T) {
			got, ok := r.Value("x", tc.metric)
			if !ok || math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("%s = %v (found %v), want %v", tc.metric, got, ok, tc.want)
			}
		})
	}
	if len(r.Folds) != 3 || r.Folds[0].Tuning != def || r.Folds[1].Tuning != other {
		t.Errorf("folds %+v", r.Folds)
	}
}

func TestCloneTreeIsDeep(t *testing.T) {
	s := &losoSet{pages: []losoPage{{body: []byte("<html><body><div id=a><p>one</p><p>two</p></div></body></html>")}}}
	if err := s.parse(); err != nil {
		t.Fatal(err)
	}
	orig := s.pages[0].doc
	c := cloneTree(orig)
	// Remove every child of the copy's <body>: the original keeps its.
	body := c.FirstChild.LastChild
	for body.FirstChild != nil {
		body.RemoveChild(body.FirstChild)
	}
	if ob := orig.FirstChild.LastChild; ob.FirstChild == nil {
		t.Error("removing nodes from the copy changed the original")
	}
}

func TestDateNoteCheck(t *testing.T) {
	n := dateNote{ours: "2005-07-05", evidence: "7/5/2005 9:23:57 PM", why: "US order:"}
	id := "05e98007-d810"
	july5 := time.Date(2005, 7, 5, 21, 23, 57, 0, time.UTC)
	for _, tc := range []struct {
		name, page string
		ours       time.Time
		want       string
	}{
		{"evidence and our date", "<p>发布日期： 7/5/2005 9:23:57 PM</p>", july5, "05e98007: US order: \"7/5/2005 9:23:57 PM\""},
		{"evidence gone", "<p>nothing</p>", july5, "NOT FOUND"},
		{"our date differs", "<p>7/5/2005 9:23:57 PM</p>", july5.AddDate(0, 0, 1), "is not the page's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := n.check(id, []byte(tc.page), tc.ours); !strings.Contains(got, tc.want) {
				t.Errorf("check = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
