package storage

import "time"

// ClusterSize is a cluster's member counts: its stored articles and the
// duplicate verdicts in it. Stores that count clusters themselves
// (ClusterSizes of storage/sqlite, storage/postgres and storage/memory)
// let a reader such as a report or an export keep nothing per cluster.
type ClusterSize struct {
	ID                   int64
	Articles, Duplicates int
}

// Size is the cluster's stored articles plus its duplicates.
func (c ClusterSize) Size() int { return c.Articles + c.Duplicates }

// ClusterMember is one member of a cluster as a listing or an export's
// copies show it: a stored article (ID its id, PartialOf as stored) or a
// duplicate verdict (ID 0, Reason as stored), with its URL, site, title,
// 来源 and publication time.
type ClusterMember struct {
	ID          int64
	URL         string
	Site        string
	Title       string
	Source      string
	PublishedAt time.Time
	PartialOf   int64
	Reason      string
}
