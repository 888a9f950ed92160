package sqlcore

import "github.com/newsdedup/newscrawl/storage"

// Columns of a cluster's members (storage.ClusterMember) in the articles
// and in the duplicates table, in the order ClusterMember scans them.
const (
	ClusterArticleCols   = `id, url, site, title, source, published_at, partial_of, ''`
	ClusterDuplicateCols = `0, url, site, title, source, published_at, 0, reason`
)

// ClusterMember scans a ClusterArticleCols or ClusterDuplicateCols row.
func ClusterMember(sc Scanner) (storage.ClusterMember, error) {
	var m storage.ClusterMember
	err := sc.Scan(&m.ID, &m.URL, &m.Site, &m.Title, &m.Source, nanos{&m.PublishedAt}, &m.PartialOf, &m.Reason)
	return m, err
}
