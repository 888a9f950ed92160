package dedup

import (
	"maps"
	"slices"
)

// ClusterMerges records which clusters were merged into which, for the
// indexes' MergeClusters and ClusterOf; every Index implementation keeps
// one. It is not safe for concurrent use: the index's lock guards it.
//
// merged maps a cluster that was merged into another to the surviving
// cluster, always directly, so resolving a cluster is one lookup; aliases
// is its inverse (surviving cluster -> clusters merged into it), so that a
// merge re-points only the clusters it moves.
type ClusterMerges struct {
	merged  map[uint64]uint64
	aliases map[uint64][]uint64
}

// NewClusterMerges returns an empty record.
func NewClusterMerges() ClusterMerges {
	return ClusterMerges{merged: map[uint64]uint64{}, aliases: map[uint64][]uint64{}}
}

// Merge moves the clusters from (and every cluster merged into them) into
// the cluster into (resolved first).
func (c *ClusterMerges) Merge(into uint64, from []uint64) {
	into = c.Of(into)
	for _, f := range from {
		f = c.Of(f)
		if f == into {
			continue
		}
		moved := append(c.aliases[f], f)
		delete(c.aliases, f)
		for _, m := range moved {
			c.merged[m] = into
		}
		c.aliases[into] = append(c.aliases[into], moved...)
	}
}

// Of returns the cluster that cluster is now part of (itself when it was
// never merged).
func (c *ClusterMerges) Of(cluster uint64) uint64 {
	if into, ok := c.merged[cluster]; ok {
		return into
	}
	return cluster
}

// Len is the number of clusters merged into another.
func (c *ClusterMerges) Len() int { return len(c.merged) }

// Pairs returns every (merged cluster, surviving cluster) pair in
// ascending order of the merged cluster: replaying them with Merge into an
// empty record rebuilds this one (snapshots).
func (c *ClusterMerges) Pairs() [][2]uint64 {
	keys := slices.Sorted(maps.Keys(c.merged))
	out := make([][2]uint64, len(keys))
	for i, k := range keys {
		out[i] = [2]uint64{k, c.merged[k]}
	}
	return out
}
