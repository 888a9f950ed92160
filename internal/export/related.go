package export

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
)

// MaxRelated caps the related articles of one record (the most shared
// first), and MaxRelatedPosting the articles one winnowing print may link:
// a print that many stored articles share is boilerplate (a stock
// sentence, a standard disclaimer), not a quotation, and following it
// would cost a comparison per pair of them.
const (
	MaxRelated        = 10
	MaxRelatedPosting = 200
)

// RelatedLink is one related article in an export's related list: the
// stored article a record shares passages with (dedup.Relate on the
// winnowing prints stored with every article) and the share of each
// side's content words inside the shared passages.
type RelatedLink struct {
	URL        string  `json:"url"`
	Share      float64 `json:"share"`       // of this record's article
	OtherShare float64 `json:"other_share"` // of the related article
}

// relatedPrints is what the related index keeps of a stored article.
type relatedPrints struct {
	url    string
	prints []uint64
	words  int
}

// LoadRelated returns the related articles of every stored article with
// winnowing prints, by article id. It keeps every article's prints in
// memory (8 bytes each, about one per three content words) and an
// inverted index of them, and compares each article only with those
// sharing a print that at most MaxRelatedPosting articles have.
func LoadRelated(ctx context.Context, src ClusterSource) (map[int64][]RelatedLink, error) {
	var arts []relatedPrints
	var ids []int64
	posting := map[uint64][]int32{}
	err := src.Fingerprints(ctx, time.Time{}, func(a storage.Article) error {
		ps := a.Fingerprint.Prints
		if len(ps) == 0 || a.Fingerprint.ContentWords <= 0 {
			return nil
		}
		i := int32(len(arts))
		arts = append(arts, relatedPrints{url: a.URL, prints: ps, words: a.Fingerprint.ContentWords})
		ids = append(ids, a.ID)
		var last uint64
		for k, p := range ps {
			h := p &^ (1<<32 - 1)
			if k > 0 && h == last {
				continue // prints are sorted: a repeated hash counts once
			}
			last = h
			posting[h] = append(posting[h], i)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("related: %w", err)
	}
	out := map[int64][]RelatedLink{}
	for i := range arts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if links := relatedOf(arts, posting, int32(i)); len(links) > 0 {
			out[ids[i]] = links
		}
	}
	return out, nil
}

// relatedOf compares article i with every article sharing one of its
// prints (in a posting of at most MaxRelatedPosting articles).
func relatedOf(arts []relatedPrints, posting map[uint64][]int32, i int32) []RelatedLink {
	a := &arts[i]
	seen := map[int32]bool{i: true}
	var links []RelatedLink
	for _, p := range a.prints {
		list := posting[p&^(1<<32-1)]
		if len(list) > MaxRelatedPosting {
			continue
		}
		for _, j := range list {
			if seen[j] {
				continue
			}
			seen[j] = true
			b := &arts[j]
			if r, ok := dedup.Relate(a.prints, a.words, b.prints, b.words); ok {
				links = append(links, RelatedLink{URL: b.url, Share: r.ShareA, OtherShare: r.ShareB})
			}
		}
	}
	slices.SortFunc(links, func(x, y RelatedLink) int {
		if c := cmp.Compare(max(y.Share, y.OtherShare), max(x.Share, x.OtherShare)); c != 0 {
			return c
		}
		return cmp.Compare(x.URL, y.URL)
	})
	return links[:min(len(links), MaxRelated)]
}
