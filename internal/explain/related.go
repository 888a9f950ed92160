package explain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/passages"
	"github.com/newsdedup/newscrawl/storage"
)

// MaxRelated caps the related articles an explanation lists (the most
// shared first).
const MaxRelated = 10

// Related is a stored article that shares passages with the explained
// one (dedup.Relate on the winnowing fingerprints stored with every
// article): the quoting relation between a follow-up and the story it
// re-uses, or between a partial reprint and its source.
type Related struct {
	ID                int64
	URL, Title, Site  string
	Cluster           int64
	PublishedAt       time.Time
	Share, OtherShare float64  // of the explained article's and of this one's content words, inside the shared passages
	Passages          int      // shared word runs (winnowing)
	Shared            []string // the shared passages as text, in the explained article's order
}

// FindRelated returns the stored articles that share passages with a
// (dedup.Related), the most shared first (the larger of both shares,
// then the lower id), at most MaxRelated. Articles stored without
// winnowing fingerprints (the partial-reprint rule was off) have none.
func FindRelated(ctx context.Context, s Store, a *storage.Article) ([]Related, error) {
	if len(a.Fingerprint.Prints) == 0 {
		return nil, nil
	}
	var found []Related
	err := s.Fingerprints(ctx, time.Time{}, func(o storage.Article) error {
		if o.ID == a.ID {
			return nil
		}
		r, ok := dedup.Relate(a.Fingerprint.Prints, a.Fingerprint.ContentWords, o.Fingerprint.Prints, o.Fingerprint.ContentWords)
		if !ok {
			return nil
		}
		found = append(found, Related{ID: o.ID, Share: r.ShareA, OtherShare: r.ShareB, Passages: len(r.Passages)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("explain: related articles: %w", err)
	}
	slices.SortFunc(found, func(x, y Related) int {
		if bx, by := max(x.Share, x.OtherShare), max(y.Share, y.OtherShare); bx != by {
			if bx > by {
				return -1
			}
			return 1
		}
		return int(x.ID - y.ID)
	})
	found = found[:min(len(found), MaxRelated)]
	for i := range found {
		o, err := s.Article(ctx, found[i].ID)
		if err != nil {
			return nil, fmt.Errorf("explain: related article %d: %w", found[i].ID, err)
		}
		r := &found[i]
		r.URL, r.Title, r.Site, r.Cluster, r.PublishedAt = o.URL, o.Title, o.Site, o.Cluster, o.PublishedAt
		r.Shared = passages.Shared(a.Text, o.Text)
	}
	return found, nil
}

// writeRelated prints the related articles of a stored article.
func writeRelated(b *strings.Builder, e *Explanation) {
	if e.Article == nil {
		return
	}
	if len(e.Related) == 0 {
		fmt.Fprintf(b, "related:  no other stored article shares passages with it\n")
		return
	}
	fmt.Fprintf(b, "related:  %d stored article(s) share passages with it (winnowing; share of its words / of theirs):\n", len(e.Related))
	for _, r := range e.Related {
		fmt.Fprintf(b, "  article %d (%s, cluster %d): %.0f%% / %.0f%% in %d passage(s)\n    %s\n    %q\n",
			r.ID, r.Site, r.Cluster, 100*r.Share, 100*r.OtherShare, r.Passages, r.URL, r.Title)
		for _, s := range r.Shared {
			fmt.Fprintf(b, "    « %s »\n", s)
		}
	}
}
