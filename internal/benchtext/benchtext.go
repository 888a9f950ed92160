// Package benchtext gives benchmarks and tests real Chinese news text without
// a segmenter: the articles of the shared robustness set
// bench/dev/robust.jsonl (the Li Gang et al. 2013 edit protocol; read with
// dataset.LoadRobust) and PseudoWords, a deterministic split of text into
// word-like tokens for packages that must not depend on segment (shingle,
// simhash, spotsigs).
package benchtext

import (
	"strings"
	"testing"
	"unicode"

	"github.com/newsdedup/newscrawl/internal/dataset"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
)

// RobustSet is the robustness set's path inside the shared data directory.
const RobustSet = "bench/dev/robust.jsonl"

// Doc is one document of the robustness set.
type Doc = dataset.RobustDoc

// Robust returns the documents of the robustness set. The test is skipped
// when the shared data is absent (a failure when CI is set, see
// devdatatest.Path) and fails when the file is unreadable or empty.
func Robust(tb testing.TB) []Doc {
	tb.Helper()
	docs, err := dataset.LoadRobust(devdatatest.Path(tb, RobustSet))
	if err != nil {
		tb.Fatal(err)
	}
	if len(docs) == 0 {
		tb.Fatalf("%s has no documents", RobustSet)
	}
	return docs
}

// FunctionChars are frequent Chinese function characters. PseudoWords emits
// them as words of their own, as a segmenter would.
const FunctionChars = "的了在是和与对将也这中为有不一上等及被把从到就都而要以于由向"

// PseudoWords splits text into pseudo-words: punctuation and function
// characters stand alone, white space is dropped, and other runs are cut
// into chunks of 1-3 runes whose length depends only on the chunk's first
// rune (a multiplicative hash), so an edit only changes the chunks around it.
func PseudoWords(text string) []string {
	rs := []rune(text)
	alone := func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || strings.ContainsRune(FunctionChars, r)
	}
	var out []string
	for i := 0; i < len(rs); {
		if alone(rs[i]) {
			if !unicode.IsSpace(rs[i]) {
				out = append(out, string(rs[i]))
			}
			i++
			continue
		}
		n := 1 + int(uint32(rs[i])*2654435761>>16)%3
		j := i + 1
		for j < len(rs) && j < i+n && !alone(rs[j]) {
			j++
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}
