package report

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// Clusters are counted in one small value per cluster (clusterCount: two
// counts, the first site and the representative article's id) instead of
// a struct holding a title and a set of sites per cluster: at 1 M stored
// articles the per-cluster sets and titles made the report's heap grow
// by hundreds of bytes per article. Clusters spanning more than one site
// keep their further sites apart (few are), and the titles and URLs are
// read for the listed clusters only.

// clusterCount is what the report keeps of a cluster while reading.
type clusterCount struct {
	size, articles int32
	site           int32 // index of the first site seen (clusterTally.names)
	sites          int32 // distinct sites
	rep            int64 // the article whose title the listing shows (0: none)
	repTitled      bool  // rep has a title
}

// clusterTally counts the members of every cluster.
type clusterTally struct {
	counts map[int64]clusterCount
	names  []string         // site names by index
	index  map[string]int32 // index of a site name
	more   map[int64][]int32
}

func newClusterTally() *clusterTally {
	return &clusterTally{counts: map[int64]clusterCount{}, index: map[string]int32{}, more: map[int64][]int32{}}
}

// member counts one member of cluster id, from site; article is the
// member's article id (0 for a duplicate), titled when it has a title.
func (t *clusterTally) member(id int64, site string, article int64, titled bool) {
	si, ok := t.index[site]
	if !ok {
		si = int32(len(t.names))
		t.names = append(t.names, site)
		t.index[site] = si
	}
	c, seen := t.counts[id]
	switch {
	case !seen:
		c.site, c.sites = si, 1
	case si != c.site && !slices.Contains(t.more[id], si):
		t.more[id] = append(t.more[id], si)
		c.sites++
	}
	c.size++
	if article != 0 {
		c.articles++
		// The first article with a title, unless the article that names
		// the cluster comes (the oldest: ids are in commit order).
		if !c.repTitled || article == id {
			c.rep, c.repTitled = article, titled
		}
	}
	t.counts[id] = c
}

// largest returns the n largest clusters (size, then id), with the title
// and URL of their representative article read from src.
func (t *clusterTally) largest(ctx context.Context, src Source, n int) ([]Cluster, error) {
	all := make([]Cluster, 0, len(t.counts))
	for id, c := range t.counts {
		all = append(all, Cluster{ID: id, Size: int(c.size), Articles: int(c.articles), Sites: int(c.sites)})
	}
	slices.SortFunc(all, func(a, b Cluster) int {
		return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID))
	})
	top := all[:min(len(all), n)]
	for i := range top {
		rep := t.counts[top[i].ID].rep
		if rep == 0 {
			continue
		}
		a, err := src.Article(ctx, rep)
		if err != nil {
			return nil, fmt.Errorf("report: cluster %d: %w", top[i].ID, err)
		}
		top[i].Title, top[i].URL = a.Title, a.URL
	}
	return slices.Clip(top), nil
}

// sizes adds the cluster-size distribution to r.
func (t *clusterTally) sizes(r *Report) {
	for _, c := range t.counts {
		r.ClusterSizes[int(c.size)]++
	}
}

// articlesWithoutText calls fn for every stored article, without its text
// when src can leave it out (a report reads no text).
func articlesWithoutText(ctx context.Context, src Source, fn func(storage.Article) error) error {
	if f, ok := src.(interface {
		Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error
	}); ok {
		return f.Fingerprints(ctx, time.Time{}, fn)
	}
	return src.Articles(ctx, fn)
}

// duplicatesWithoutText is articlesWithoutText for duplicates.
func duplicatesWithoutText(ctx context.Context, src Source, fn func(storage.Duplicate) error) error {
	if f, ok := src.(interface {
		DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error
	}); ok {
		return f.DuplicateFingerprints(ctx, time.Time{}, fn)
	}
	return src.Duplicates(ctx, fn)
}
