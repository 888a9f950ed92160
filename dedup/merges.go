package dedup

// clusterMerges records which clusters were merged into which, for the
// indexes' MergeClusters and ClusterOf. The caller holds the index's lock.
//
// merged maps a cluster that was merged into another to the surviving
// cluster, always directly, so resolving a cluster is one lookup; aliases
// is its inverse (surviving cluster -> clusters merged into it), so that a
// merge re-points only the clusters it moves.
type clusterMerges struct {
	merged  map[uint64]uint64
	aliases map[uint64][]uint64
}

func newClusterMerges() clusterMerges {
	return clusterMerges{merged: map[uint64]uint64{}, aliases: map[uint64][]uint64{}}
}

// merge moves the clusters from (and every cluster merged into them) into
// the cluster into (resolved first).
func (c *clusterMerges) merge(into uint64, from []uint64) {
	into = c.of(into)
	for _, f := range from {
		f = c.of(f)
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

// of returns the cluster that cluster is now part of (itself when it was
// never merged).
func (c *clusterMerges) of(cluster uint64) uint64 {
	if into, ok := c.merged[cluster]; ok {
		return into
	}
	return cluster
}
