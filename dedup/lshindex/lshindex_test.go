package lshindex_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/indextest"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
)

func newIndex(t *testing.T) dedup.Index {
	x, err := lshindex.New(lshindex.Config{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment, MinContainment: dedup.MinContainmentSpots})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestConformance(t *testing.T) { indextest.Run(t, newIndex) }

// TestConformanceSpilled: the suite with the cold data in a file.
func TestConformanceSpilled(t *testing.T) {
	indextest.Run(t, func(t *testing.T) dedup.Index {
		x := newIndex(t).(*lshindex.Index)
		if err := x.SpillCold(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	})
}

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  lshindex.Config
	}{
		{"zero_jaccard", lshindex.Config{}},
		{"jaccard_below_design", lshindex.Config{Jaccard: 0.2}},
		{"containment_above_one", lshindex.Config{Jaccard: 0.35, Containment: 1.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := lshindex.New(tc.cfg); err == nil {
				t.Errorf("New(%+v) accepted", tc.cfg)
			}
		})
	}
}
