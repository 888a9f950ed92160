package spotsigs

import (
	"slices"
	"strings"
	"testing"
)

// TestLiYanExample1 reproduces Example 1 of Li Yan et al. 2017
// (li-yan-2017-spotsigs-chinese-news.txt lines 122-126): antecedents
// {and, in, out, was, to, at}, distance 1, chain 2; a chain skips
// antecedents (the paper's rule, line 122: "从该先行词后面的第一个非先行词
// 开始取…非先行词"), which is what Extract does without a stopword set.
func TestLiYanExample1(t *testing.T) {
	text := "The unified loan and return system in Chengdu was rolled out in 2014 and gives local residents " +
		"free access to all public library resources at all branches"
	cfg := Config{IsAntecedent: WordSet("and", "in", "out", "was", "to", "at"), Chain: 2, Distance: 1}
	want := sorted(
		SpotHash("and", "return", "system"),
		SpotHash("in", "Chengdu", "rolled"),
		SpotHash("was", "rolled", "2014"),
		SpotHash("out", "2014", "gives"),
		SpotHash("in", "2014", "gives"),
		SpotHash("and", "gives", "local"),
		SpotHash("to", "all", "public"),
		SpotHash("at", "all", "branches"),
	)
	if got := mustExtract(t, strings.Fields(text), cfg); !slices.Equal(got, want) {
		t.Fatalf("got %d spots, want the paper's 8: %x / %x", len(got), got, want)
	}
}

// TestLiYanExample2 reproduces Example 2 (line 132): the partitions for
// τ = 0.5 and 0.6 when the longest page has 261 antecedents, as printed.
func TestLiYanExample2(t *testing.T) {
	for _, tc := range []struct {
		name string
		tau  float64
		want [][2]int
	}{
		{"tau 0.5", 0.5, [][2]int{{1, 3}, {4, 9}, {10, 21}, {22, 45}, {46, 93}, {94, 189}, {190, 0}}},
		{"tau 0.6", 0.6, [][2]int{{1, 2}, {3, 6}, {7, 12}, {13, 22}, {23, 39}, {40, 67}, {68, 114}, {115, 192}, {193, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PaperPartitions(tc.tau, 261); !slices.Equal(got, tc.want) {
				t.Errorf("PaperPartitions(%v, 261) = %v, want %v", tc.tau, got, tc.want)
			}
		})
	}
	for _, bad := range []struct {
		tau float64
		max int
	}{{0, 261}, {1, 261}, {0.5, 0}} {
		if got := PaperPartitions(bad.tau, bad.max); got != nil {
			t.Errorf("PaperPartitions(%v, %d) = %v, want nil", bad.tau, bad.max, got)
		}
	}
}

// TestLiYanExample3 checks what Example 3 (line 191) states that does not
// need its four pages (they are not in the shared data): at τ = 0.6 pages
// of 72, 69 and 146 features lie in the adjacent partitions [68,114] and
// [115,192]. The text is not consistent: its third page (63 features) is
// in [40,67], and its 1-4 Jaccard of 0.747 exceeds the 72/146 = 0.493
// that a multiset Jaccard of signatures of 72 and 146 spots can reach
// (Jaccard ≤ |A|/|B|, which the test checks on our Jaccard).
func TestLiYanExample3(t *testing.T) {
	parts := PaperPartitions(0.6, 261)
	of := func(n int) [2]int {
		for _, p := range parts {
			if n >= p[0] && (p[1] == 0 || n <= p[1]) {
				return p
			}
		}
		return [2]int{}
	}
	for n, want := range map[int][2]int{72: {68, 114}, 69: {68, 114}, 146: {115, 192}, 63: {40, 67}} {
		if got := of(n); got != want {
			t.Errorf("%d features: partition %v, want %v", n, got, want)
		}
	}
	a, b := make(Signature, 72), make(Signature, 146)
	for i := range a {
		a[i] = uint64(i)
	}
	for i := range b {
		b[i] = uint64(i)
	}
	if j := Jaccard(a, b); j > 72.0/146+1e-12 {
		t.Errorf("Jaccard of 72 spots within 146 = %v, above the bound 72/146", j)
	}
}
