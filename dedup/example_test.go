package dedup_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/newsdedup/newscrawl/dedup"
)

// fields is a toy Segmenter for English text: words are what lies between
// spaces, and a few function words are stopwords. The crawler uses
// *segment.Segmenter (gse's dictionary) instead.
type fields struct{}

func (fields) Words(text string) []string { return strings.Fields(strings.ToLower(text)) }
func (fields) IsStop(w string) bool {
	switch w {
	case "a", "an", "the", "is", "are", "was", "were", "there", "and", "of", "to", "in", "on":
		return true
	}
	return false
}

// Single-Pass clustering: each article is compared with the ones indexed
// before it; a near-duplicate is a verdict, recorded against the article it
// copies, and a new article opens a cluster of its own.
func Example() {
	ctx := context.Background()
	eng, err := dedup.New(fields{}, dedup.Options{})
	if err != nil {
		panic(err)
	}
	docs := []string{
		"The city council approved the budget on Monday. The mayor is expected to sign it, and there is a vote on the transport plan next week. The budget was debated for a month in the council.",
		"The city council approved the budget on Monday. The mayor is expected to sign it, and there is a vote on the transport plan next week. The budget was debated for a month in the council. Reporting by a staff writer.",
		"A storm hit the coast on Sunday. The port is closed and there are delays on the railway. The weather service said the wind was the strongest of the year in the region.",
	}
	for i, text := range docs {
		id := uint64(i + 1) // ids are the store's article ids, from 1
		fp := eng.Fingerprint("", text)
		v, err := eng.Decide(ctx, fp) // an error is the index's, not a verdict
		if err != nil {
			panic(err)
		}
		if v.Duplicate {
			fmt.Printf("article %d: duplicate of article %d (Jaccard %.2f)\n", id, v.DupOf, v.Jaccard)
			continue
		}
		if err := eng.Add(ctx, id, id, fp); err != nil { // stored: the centre of a new cluster
			panic(err)
		}
		fmt.Printf("article %d: %s\n", id, v.Reason)
	}
	// Output:
	// article 1: new
	// article 2: duplicate of article 1 (Jaccard 0.92)
	// article 3: new
}
