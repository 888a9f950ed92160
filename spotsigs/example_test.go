package spotsigs_test

import (
	"fmt"
	"strings"

	"github.com/newsdedup/newscrawl/spotsigs"
)

// Spots start after antecedents (here English articles and "is"): a
// reprint with one sentence added keeps most spots of the original.
func ExampleExtract() {
	cfg := spotsigs.Config{IsAntecedent: spotsigs.WordSet("a", "the", "is")}
	sig := func(text string) spotsigs.Signature {
		s, err := spotsigs.Extract(strings.Fields(text), cfg)
		if err != nil {
			panic(err)
		}
		return s
	}
	orig := sig("the council approved the budget and the mayor signed a decree that is binding")
	copy := sig("the council approved the budget and the mayor signed a decree that is binding the vote was close")
	other := sig("a storm hit the coast and the port is closed")
	fmt.Printf("%d spots; Jaccard with the reprint %.2f, with another story %.2f\n",
		len(orig), spotsigs.Jaccard(orig, copy), spotsigs.Jaccard(orig, other))
	// Output: 5 spots; Jaccard with the reprint 0.83, with another story 0.00
}

// An Index finds every indexed signature whose Jaccard with the query
// reaches a threshold, reading only the length partitions that can.
func ExampleIndex() {
	x, err := spotsigs.NewIndex(0.5)
	if err != nil {
		panic(err)
	}
	a := spotsigs.Signature{1, 2, 3, 4}
	b := spotsigs.Signature{1, 2, 3, 5}
	c := spotsigs.Signature{7, 8, 9, 10}
	for id, s := range []spotsigs.Signature{a, b, c} {
		if err := x.Add(uint64(id), s); err != nil {
			panic(err)
		}
	}
	for _, m := range x.Query(a, 0.5) {
		fmt.Printf("%d %.2f\n", m.ID, m.Jaccard)
	}
	// Unordered output:
	// 0 1.00
	// 1 0.60
}
