package memory

import (
	"context"
	"sort"

	"github.com/newsdedup/newscrawl/storage"
)

// ClusterSizes calls fn once for every cluster with its counts of stored
// articles and duplicates: the clusters holding a stored article in
// ascending id order, then any that only duplicates name. The counts are
// taken under the lock; fn runs after it, so it may call back into the
// store.
func (m *Store) ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return err
	}
	by := map[int64]*storage.ClusterSize{}
	get := func(id int64) *storage.ClusterSize {
		c := by[id]
		if c == nil {
			c = &storage.ClusterSize{ID: id}
			by[id] = c
		}
		return c
	}
	for _, a := range m.articles {
		get(a.Cluster).Articles++
	}
	for _, d := range m.dups {
		get(d.Cluster).Duplicates++
	}
	m.mu.RUnlock()
	sizes := make([]storage.ClusterSize, 0, len(by))
	for _, c := range by {
		sizes = append(sizes, *c)
	}
	sort.Slice(sizes, func(i, j int) bool {
		if ai, aj := sizes[i].Articles > 0, sizes[j].Articles > 0; ai != aj {
			return ai
		}
		return sizes[i].ID < sizes[j].ID
	})
	for _, c := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// ClusterMembers calls fn for every member of cluster id: its stored
// articles in id order, then its duplicates in commit order.
func (m *Store) ClusterMembers(ctx context.Context, id int64, fn func(storage.ClusterMember) error) error {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return err
	}
	var members []storage.ClusterMember
	for _, a := range m.articles {
		if a.Cluster == id {
			members = append(members, storage.ClusterMember{ID: a.ID, URL: a.URL, Site: a.Site, Title: a.Title,
				Source: a.Source, PublishedAt: a.PublishedAt, PartialOf: a.PartialOf})
		}
	}
	var dups []*memDup
	for _, d := range m.dups {
		if d.Cluster == id {
			dups = append(dups, d)
		}
	}
	m.mu.RUnlock()
	sort.Slice(dups, func(i, j int) bool { return dups[i].seq < dups[j].seq })
	for _, d := range dups {
		members = append(members, storage.ClusterMember{URL: d.URL, Site: d.Site, Title: d.Title,
			Source: d.Source, PublishedAt: d.PublishedAt, Reason: d.Reason})
	}
	for _, c := range members {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}
