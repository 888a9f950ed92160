package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Cluster reads of a report. The counts are aggregated by the server
// (within its work_mem, spilling to disk beyond), so the client keeps
// nothing per cluster.
const (
	// clusterSizesQuery counts every cluster once: those of the articles,
	// with their duplicates joined by cluster, then those only duplicates
	// name (none while Commit's rules hold).
	clusterSizesQuery = `
SELECT a.cluster, a.n, coalesce(d.n, 0) FROM
	(SELECT cluster, count(*) AS n FROM articles GROUP BY cluster) a
	LEFT JOIN (SELECT cluster, count(*) AS n FROM duplicates GROUP BY cluster) d ON d.cluster = a.cluster
UNION ALL
SELECT d.cluster, 0, count(*) FROM duplicates d
	WHERE NOT EXISTS (SELECT 1 FROM articles a WHERE a.cluster = d.cluster) GROUP BY d.cluster`
	clusterArticlesQuery   = `SELECT ` + sqlcore.ClusterArticleCols + ` FROM articles WHERE cluster = $1 ORDER BY id`
	clusterDuplicatesQuery = `SELECT ` + sqlcore.ClusterDuplicateCols + ` FROM duplicates WHERE cluster = $1 ORDER BY seq`
	clusterSizeQuery       = `SELECT (SELECT count(*) FROM articles WHERE cluster = $1), (SELECT count(*) FROM duplicates WHERE cluster = $1)`
)

// ClusterSizes calls fn once for every cluster with its counts of stored
// articles and duplicates, in no particular order. Rows are streamed.
func (s *Store) ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error {
	return s.each(ctx, "cluster sizes", clusterSizesQuery, nil, func(r pgx.Rows) error {
		var c storage.ClusterSize
		var a, d int64
		if err := r.Scan(&c.ID, &a, &d); err != nil {
			return fmt.Errorf("cluster sizes: %w", err)
		}
		c.Articles, c.Duplicates = int(a), int(d)
		return fn(c)
	})
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

// ClusterSize returns the counts of cluster id (zero counts for none).
func (s *Store) ClusterSize(ctx context.Context, id int64) (storage.ClusterSize, error) {
	c := storage.ClusterSize{ID: id}
	var a, d int64
	if err := s.pool.QueryRow(ctx, clusterSizeQuery, id).Scan(&a, &d); err != nil {
		return c, fmt.Errorf("cluster size %d: %w", id, err)
	}
	c.Articles, c.Duplicates = int(a), int(d)
	return c, nil
}
