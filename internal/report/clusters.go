package report

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// A store that counts its clusters itself (clusterReader: storage/sqlite
// and storage/postgres aggregate them in SQL, storage/memory in its own
// maps) hands the report one count a cluster, streamed: the report keeps the size distribution (one entry
// per distinct size) and the LargestClusters largest, and reads the
// members of those only, so its memory does not grow with the store.
//
// Any other Source is counted here, in one small value per cluster
// (clusterCount: two counts, the first site and the representative
// article's id): about 40 bytes a cluster. Clusters spanning more than
// one site keep their further sites apart (few are), and the titles and
// URLs are read for the listed clusters only.

// clusterReader is a store that counts its clusters: ClusterSizes calls
// fn once for every cluster; ClusterMembers calls fn for a cluster's
// stored articles in id order, then its duplicates.
type clusterReader interface {
	ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error
	ClusterMembers(ctx context.Context, id int64, fn func(storage.ClusterMember) error) error
}

// storeClusters fills r's cluster-size distribution and its n largest
// clusters from a store that counts them.
func storeClusters(ctx context.Context, cr clusterReader, r *Report, n int) error {
	top := make([]Cluster, 0, n+1)
	err := cr.ClusterSizes(ctx, func(c storage.ClusterSize) error {
		size := c.Size()
		r.ClusterSizes[size]++
		top = keepLargest(top, Cluster{ID: c.ID, Size: size, Articles: c.Articles}, n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for i := range top {
		if err := describe(ctx, cr, &top[i]); err != nil {
			return err
		}
	}
	r.Largest = slices.Clip(top)
	return nil
}

// byLargest orders clusters by size, largest first, then by id.
func byLargest(a, b Cluster) int {
	return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID))
}

// keepLargest inserts c into top (sorted byLargest) unless top holds n
// clusters that all come before it.
func keepLargest(top []Cluster, c Cluster, n int) []Cluster {
	i, _ := slices.BinarySearchFunc(top, c, byLargest)
	if i >= n {
		return top
	}
	top = slices.Insert(top, i, c)
	return top[:min(len(top), n)]
}

// describe reads the members of a listed cluster: its distinct sites and
// the title and URL of its representative article (repOf).
func describe(ctx context.Context, cr clusterReader, c *Cluster) error {
	sites := map[string]bool{}
	var rep storage.ClusterMember
	err := cr.ClusterMembers(ctx, c.ID, func(m storage.ClusterMember) error {
		sites[m.Site] = true
		if m.ID != 0 && repOf(c.ID, rep.Title != "", m.ID) {
			rep = m
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("report: cluster %d: %w", c.ID, err)
	}
	c.Sites, c.Title, c.URL = len(sites), rep.Title, rep.URL
	return nil
}

// repOf reports whether article, the next of cluster's articles in id
// order, replaces the one chosen so far (none, or titled: one with a
// title) as the article whose title the listing shows: the first article
// with a title, unless the article that names the cluster comes (the
// oldest: ids are in commit order).
func repOf(cluster int64, titled bool, article int64) bool {
	return !titled || article == cluster
}

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
		if repOf(id, c.repTitled, article) {
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
	slices.SortFunc(all, byLargest)
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
