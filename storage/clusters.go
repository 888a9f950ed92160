package storage

// ClusterSize is a cluster's member counts: its stored articles and the
// duplicate verdicts in it. Stores that count clusters themselves
// (ClusterSizes of storage/sqlite, storage/postgres and storage/memory)
// report every cluster once, so that a reader keeps nothing per cluster.
type ClusterSize struct {
	ID                   int64
	Articles, Duplicates int
}

// Size is the cluster's stored articles plus its duplicates.
func (c ClusterSize) Size() int { return c.Articles + c.Duplicates }

// ClusterMember is one member of a cluster as a listing shows it: a stored
// article (ID its id) or a duplicate verdict (ID 0), with its URL, site and
// title.
type ClusterMember struct {
	ID    int64
	URL   string
	Site  string
	Title string
}
