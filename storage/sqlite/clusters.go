package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Cluster reads of a report. Both walk the cluster indexes (articles_cluster,
// duplicates_cluster) in key order, so SQLite neither sorts nor builds a
// temporary table: the memory they take does not grow with the store.
const (
	// clusterSizesQuery counts every cluster once: those of the articles,
	// with the duplicates counted by a lookup in duplicates_cluster, then
	// those only duplicates name (none while Commit's rules hold).
	clusterSizesQuery = `
SELECT a.cluster, count(*), (SELECT count(*) FROM duplicates d WHERE d.cluster = a.cluster)
	FROM articles a GROUP BY a.cluster
UNION ALL
SELECT d.cluster, 0, count(*) FROM duplicates d
	WHERE NOT EXISTS (SELECT 1 FROM articles a WHERE a.cluster = d.cluster) GROUP BY d.cluster`
	clusterArticlesQuery   = `SELECT ` + sqlcore.ClusterArticleCols + ` FROM articles WHERE cluster = ? ORDER BY id`
	clusterDuplicatesQuery = `SELECT ` + sqlcore.ClusterDuplicateCols + ` FROM duplicates WHERE cluster = ? ORDER BY seq`
	clusterSizeQuery       = `SELECT (SELECT count(*) FROM articles WHERE cluster = ?1), (SELECT count(*) FROM duplicates WHERE cluster = ?1)`
)

// ClusterSizes calls fn once for every cluster with its counts of stored
// articles and duplicates, in no particular order. Rows are streamed.
func (s *Store) ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error {
	return s.each(ctx, "cluster sizes", clusterSizesQuery, nil, func(r *sql.Rows) error {
		var c storage.ClusterSize
		if err := r.Scan(&c.ID, &c.Articles, &c.Duplicates); err != nil {
			return fmt.Errorf("cluster sizes: %w", err)
		}
		return fn(c)
	})
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

// ClusterSize returns the counts of cluster id (zero counts for none),
// from the cluster indexes alone.
func (s *Store) ClusterSize(ctx context.Context, id int64) (storage.ClusterSize, error) {
	c := storage.ClusterSize{ID: id}
	if err := s.db.QueryRowContext(ctx, clusterSizeQuery, id).Scan(&c.Articles, &c.Duplicates); err != nil {
		return c, fmt.Errorf("cluster size %d: %w", id, damaged(err))
	}
	return c, nil
}
