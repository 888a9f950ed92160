package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Cluster reads of a report or an export. The counts are aggregated by
// the server (within its work_mem, spilling to disk beyond), so the
// client keeps nothing per cluster.
const (
	// clusterSizesQuery counts the clusters of the articles, in cluster
	// order, with their duplicates joined by cluster; dupOnlyClustersQuery
	// those only duplicates name (none while Commit's rules hold).
	clusterSizesQuery = `
SELECT a.cluster, a.n, coalesce(d.n, 0) FROM
	(SELECT cluster, count(*) AS n FROM articles GROUP BY cluster) a
	LEFT JOIN (SELECT cluster, count(*) AS n FROM duplicates GROUP BY cluster) d ON d.cluster = a.cluster
	ORDER BY a.cluster`
	dupOnlyClustersQuery = `SELECT d.cluster, 0, count(*) FROM duplicates d
	WHERE NOT EXISTS (SELECT 1 FROM articles a WHERE a.cluster = d.cluster) GROUP BY d.cluster ORDER BY d.cluster`
	clusterArticlesQuery   = `SELECT ` + sqlcore.ClusterArticleCols + ` FROM articles WHERE cluster = $1 ORDER BY id`
	clusterDuplicatesQuery = `SELECT ` + sqlcore.ClusterDuplicateCols + ` FROM duplicates WHERE cluster = $1 ORDER BY seq`
)

// ClusterSizes calls fn once for every cluster with its counts of stored
// articles and duplicates: the clusters holding a stored article in
// ascending id order, then any that only duplicates name. Rows are
// streamed.
func (s *Store) ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error {
	for _, q := range []string{clusterSizesQuery, dupOnlyClustersQuery} {
		err := s.each(ctx, "cluster sizes", q, nil, func(r pgx.Rows) error {
			var c storage.ClusterSize
			var a, d int64
			if err := r.Scan(&c.ID, &a, &d); err != nil {
				return fmt.Errorf("cluster sizes: %w", err)
			}
			c.Articles, c.Duplicates = int(a), int(d)
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
		err := s.each(ctx, "cluster members", q, []any{id}, func(r pgx.Rows) error {
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
