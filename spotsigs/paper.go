package spotsigs

import "math"

// PaperPartitions returns the length partitions of Li Yan et al. 2017
// (li-yan-2017-spotsigs-chinese-news.txt line 132, Example 2, after
// Theobald et al.'s optimal partitioning): the first starts at 1, a
// partition starting at p ends at ⌊p/τ + 1⌋, the next starts after it, and
// the partition whose end reaches maxLen (the longest document) is open,
// returned with end 0. With τ = 0.5 and 261 that is [1,3], [4,9], …,
// [190,+∞). Index cuts finer ranges ([L, ⌈L/τ⌉)): both keep every pair
// with Jaccard ≥ τ in one partition or two adjacent ones, and the index's
// results are exact either way; this function is the paper's rule, for
// the method's own evaluation and its test. It returns nil unless
// 0 < tau < 1 and maxLen ≥ 1.
func PaperPartitions(tau float64, maxLen int) [][2]int {
	if !(tau > 0 && tau < 1) || maxLen < 1 {
		return nil
	}
	var out [][2]int
	for p := 1; ; {
		// The small epsilon keeps p/τ from landing just below a whole
		// number (3/0.6 is 5 exactly in the paper).
		end := int(math.Floor(float64(p)/tau + 1 + 1e-9))
		if end >= maxLen {
			return append(out, [2]int{p, 0})
		}
		out = append(out, [2]int{p, end})
		p = end + 1
	}
}
