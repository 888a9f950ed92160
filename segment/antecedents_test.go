package segment

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestEmbeddedAntecedents checks the shipped list.
func TestEmbeddedAntecedents(t *testing.T) {
	if !strings.Contains(antecedentsFile, "learn-antecedents --data") {
		t.Error("antecedents.txt header does not say how it was made")
	}
	rows := ParseAntecedents(antecedentsFile)
	opt := 0
	for _, r := range rows {
		if r.Optimised {
			opt++
		}
	}
	if opt == 0 {
		t.Fatal("antecedents.txt has no optimised rows")
	}
	a := Antecedents()
	if !slices.Equal(a[:4], []string{"的", "是", "在", "了"}) {
		t.Errorf("Antecedents() starts %q", a[:4])
	}
	s := sharedSegmenter(t)
	seen := map[string]bool{}
	for _, w := range a {
		if seen[w] || !s.IsStop(w) {
			t.Errorf("antecedent %q duplicated or not a stopword", w)
		}
		seen[w] = true
	}
	if len(a) < opt {
		t.Errorf("%d antecedents, %d optimised rows", len(a), opt)
	}
}

func TestAntecedentsOf(t *testing.T) {
	stats := ParseAntecedents(antecedentsFile)
	count := func(r float64) int {
		n := 0
		for _, st := range stats {
			if st.T2 > 0 && st.Ratio > r && !slices.Contains(baseAntecedents, st.Word) {
				n++
			}
		}
		return len(baseAntecedents) + n
	}
	tests := []struct {
		set  AntecedentSet
		want int
	}{
		{AntecedentsBasic, len(baseAntecedents)},
		{AntecedentsOptimised, count(PaperOptRatio)},
		{AntecedentsLearned, len(Antecedents())},
		{"", len(Antecedents())},
	}
	for _, tt := range tests {
		t.Run(string(tt.set), func(t *testing.T) {
			got, err := AntecedentsOf(tt.set)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Errorf("%d antecedents, want %d", len(got), tt.want)
			}
			for _, w := range baseAntecedents {
				if !slices.Contains(got, w) {
					t.Errorf("%s missing", w)
				}
			}
		})
	}
	basic, _ := AntecedentsOf(AntecedentsBasic)
	learned, _ := AntecedentsOf(AntecedentsLearned)
	opt, _ := AntecedentsOf(AntecedentsOptimised)
	if !(len(basic) < len(opt) && len(opt) < len(learned)) {
		t.Errorf("sizes basic %d, learned %d, optimised %d: want basic < optimised < learned", len(basic), len(learned), len(opt))
	}
	// The basic words pass the paper's basic ratio in the shipped statistics.
	for _, st := range stats {
		if slices.Contains(basic, st.Word) && !(st.T2 > 0 && st.Ratio > PaperBasicRatio) {
			t.Errorf("basic antecedent %s has t1/t2 %.3f", st.Word, st.Ratio)
		}
	}
	if _, err := AntecedentsOf("everything"); err == nil {
		t.Error("unknown set accepted")
	}
}

func TestAntecedentsAbove(t *testing.T) {
	stats := []AntecedentStat{
		{Word: "和", T2: 10, Ratio: 0.95},
		{Word: "我", T2: 10, Ratio: 0.7},
		{Word: "你", T2: 10, Ratio: 0.9}, // not strictly above 0.9
		{Word: "啊", T2: 0, Ratio: math.Inf(1)},
		{Word: "的", T2: 10, Ratio: 0.99}, // already a base antecedent
	}
	tests := []struct {
		name string
		r    float64
		want []string
	}{
		{"paper optimised 0.9", 0.9, []string{"的", "是", "在", "了", "和"}},
		{"paper basic 0.6", 0.6, []string{"的", "是", "在", "了", "和", "我", "你"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := antecedentsAbove(stats, tt.r); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
