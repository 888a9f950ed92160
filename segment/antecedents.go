package segment

import (
	"bufio"
	_ "embed" // antecedents.txt
	"fmt"
	"strings"
)

// Ratios of Li Yan et al. 2017 for the two antecedent sets of the paper.
const (
	// PaperBasicRatio: basic antecedents have t1/t2 > 0.6.
	PaperBasicRatio = 0.6
	// PaperOptRatio: optimised antecedents have t1/t2 > 0.9.
	PaperOptRatio = 0.9
)

// AntecedentSet names a choice of SpotSigs antecedents.
type AntecedentSet string

// The antecedent sets Li Yan et al. (2017) compare, and the learned default.
const (
	// AntecedentsLearned: 的, 是, 在, 了 and the shipped rows with
	// t1/t2 > 0.8 (internal/antecedents.DefaultOptRatio), what Antecedents returns (the default).
	AntecedentsLearned AntecedentSet = "learned"
	// AntecedentsBasic: the paper's basic antecedents 的, 是, 在, 了 (the
	// most frequent function words, each with t1/t2 > 0.6 in the shipped
	// statistics, which TestAntecedentsOf checks).
	AntecedentsBasic AntecedentSet = "basic"
	// AntecedentsOptimised: 的, 是, 在, 了 and the rows with t1/t2 > 0.9,
	// the paper's optimised antecedents.
	AntecedentsOptimised AntecedentSet = "optimised"
)

// AntecedentsOf returns the antecedents of set: basic is 的, 是, 在, 了;
// optimised is those plus every row of the statistics shipped in
// antecedents.txt (learned on CWCED dev pages, the top 100
// stopwords by main-text count) with t1/t2 > PaperOptRatio; learned is
// Antecedents(). An unknown set is an error.
func AntecedentsOf(set AntecedentSet) ([]string, error) {
	switch set {
	case AntecedentsLearned, "":
		return Antecedents(), nil
	case AntecedentsBasic:
		return append([]string(nil), baseAntecedents...), nil
	case AntecedentsOptimised:
		return antecedentsAbove(ParseAntecedents(antecedentsFile), PaperOptRatio), nil
	}
	return nil, fmt.Errorf("segment: unknown antecedent set %q (want learned, basic or optimised)", set)
}

// antecedentsAbove is 的, 是, 在, 了 plus the words of stats with a ratio
// above r (T2 > 0), in file order.
func antecedentsAbove(stats []AntecedentStat, r float64) []string {
	out := append([]string(nil), baseAntecedents...)
	seen := map[string]bool{}
	for _, w := range out {
		seen[w] = true
	}
	for _, st := range stats {
		if st.T2 > 0 && st.Ratio > r && !seen[st.Word] {
			seen[st.Word] = true
			out = append(out, st.Word)
		}
	}
	return out
}

// baseAntecedents are always antecedents: the most frequent Chinese function
// words, the "basic" set of Li Yan et al. 2017.
var baseAntecedents = []string{"的", "是", "在", "了"}

//go:embed antecedents.txt
var antecedentsFile string

// Antecedents returns the SpotSigs antecedents: 的, 是, 在, 了 and the
// optimised antecedents learned by `newscrawl-lab learn-antecedents`
// (internal/antecedents) and shipped
// in antecedents.txt (its header says how it was made).
func Antecedents() []string {
	out := append([]string(nil), baseAntecedents...)
	seen := map[string]bool{}
	for _, w := range out {
		seen[w] = true
	}
	for _, st := range ParseAntecedents(antecedentsFile) {
		if st.Optimised && !seen[st.Word] {
			seen[st.Word] = true
			out = append(out, st.Word)
		}
	}
	return out
}

// ParseAntecedents reads the rows written by FormatAntecedents; it
// ignores comment and malformed lines (the embedded file is checked by
// TestEmbeddedAntecedents).
func ParseAntecedents(s string) []AntecedentStat {
	var out []AntecedentStat
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			continue
		}
		var st AntecedentStat
		st.Word = f[0]
		if _, err := fmt.Sscan(f[1], &st.T1); err != nil {
			continue
		}
		if _, err := fmt.Sscan(f[2], &st.T2); err != nil {
			continue
		}
		if _, err := fmt.Sscan(f[3], &st.Ratio); err != nil {
			continue
		}
		st.Basic = f[4] == "basic" || f[4] == "optimised"
		st.Optimised = f[4] == "optimised"
		out = append(out, st)
	}
	return out
}

// AntecedentStat is one row of the antecedents file: a stopword's counts: T1 in the labelled main text, T2
// in the whole page's visible text, summed over the pages.
type AntecedentStat struct {
	Word      string
	T1, T2    int
	Ratio     float64 // T1/T2; +Inf when T2 is 0
	Rank      int     // 1-based rank by T1
	Basic     bool    // Rank <= TopN, T2 > 0 and Ratio > BasicRatio
	Optimised bool    // Rank <= TopN, T2 > 0 and Ratio > OptRatio
}

// FormatAntecedents writes the antecedents file format: '#' comment lines
// (header), then one row per basic antecedent "word\tT1\tT2\tratio\tset"
// where set is "optimised" or "basic".
func FormatAntecedents(header []string, stats []AntecedentStat) string {
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# ")
		b.WriteString(h)
		b.WriteByte('\n')
	}
	for _, st := range stats {
		if !st.Basic {
			continue
		}
		set := "basic"
		if st.Optimised {
			set = "optimised"
		}
		fmt.Fprintf(&b, "%s\t%d\t%d\t%.4f\t%s\n", st.Word, st.T1, st.T2, st.Ratio, set)
	}
	return b.String()
}
