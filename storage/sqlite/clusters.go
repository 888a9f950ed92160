package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Cluster reads of a report or an export. All walk the cluster indexes
// (articles_cluster, duplicates_cluster) in key order, so SQLite neither
// sorts nor builds a temporary table: the memory they take does not grow
// with the store.
const (
	// clusterSizesQuery counts the clusters of the articles, in cluster
	// order, with the duplicates counted by a lookup in
	// duplicates_cluster; dupOnlyClustersQuery those only duplicates name
	// (none while Commit's rules hold).
	clusterSizesQuery = `SELECT a.cluster, count(*), (SELECT count(*) FROM duplicates d WHERE d.cluster = a.cluster)
	FROM articles a GROUP BY a.cluster ORDER BY a.cluster`
	dupOnlyClustersQuery = `SELECT d.cluster, 0, count(*) FROM duplicates d
	WHERE NOT EXISTS (SELECT 1 FROM articles a WHERE a.cluster = d.cluster) GROUP BY d.cluster ORDER BY d.cluster`
	clusterArticlesQuery   = `SELECT ` + sqlcore.ClusterArticleCols + ` FROM articles WHERE cluster = ? ORDER BY id`
	clusterDuplicatesQuery = `SELECT ` + sqlcore.ClusterDuplicateCols + ` FROM duplicates WHERE cluster = ? ORDER BY seq`
)

// ClusterSizes calls fn once for every cluster with its counts of stored
// articles and duplicates: the clusters holding a stored article in
// ascending id order, then any that only duplicates name. Rows are
// streamed.
func (s *Store) ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error {
	for _, q := range []string{clusterSizesQuery, dupOnlyClustersQuery} {
		err := s.each(ctx, "cluster sizes", q, nil, func(r *sql.Rows) error {
			var c storage.ClusterSize
			if err := r.Scan(&c.ID, &c.Articles, &c.Duplicates); err != nil {
				return fmt.Errorf("cluster sizes: %w", err)
			}
			return fn(c)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ClusterMembers calls fn for every member of cluster id: its stored
// articles in id order, then its duplicates in commit order.
func (s *Store) ClusterMembers(ctx context.Context, id int64, fn func(storage.ClusterMember) error) error {
	for _, q := range []string{clusterArticlesQuery, clusterDuplicatesQuery} {
		err := s.each(ctx, "cluster members", q, []any{id}, func(r *sql.Rows) error {
			m, err := sqlcore.ClusterMember(r)
			if err != nil {
				return fmt.Errorf("cluster members: %w", err)
			}
			return fn(m)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
