package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// The change feed: a storage.Cursor names the last article id, duplicate
// seq and cluster_merges seq seen. Article ids and duplicate seqs are rowid
// aliases that grow with every commit: rows are never deleted from these
// tables, so SQLite's max(rowid)+1 never reuses a number (a rolled-back
// commit's number is reused, but it was never visible). cluster_merges is
// AUTOINCREMENT. Commits of one store are serialised by its lock and the
// write mutex, so numbers are assigned in commit order.

// Head returns the cursor after everything committed so far.
func (s *Store) Head(ctx context.Context) (storage.Cursor, error) {
	var c storage.Cursor
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(id), 0) FROM articles),
		(SELECT coalesce(max(seq), 0) FROM duplicates), (SELECT coalesce(max(seq), 0) FROM cluster_merges)`).
		Scan(&c.Article, &c.Duplicate, &c.Merge)
	if err != nil {
		return storage.Cursor{}, fmt.Errorf("head: %w", damaged(err))
	}
	return c, nil
}

// Changes calls fn for what was committed after the cursor, from one read
// transaction: stored articles in id order, then duplicates in commit
// order, then cluster merges in order (articles and duplicates carry their
// current cluster, merges included). It returns the cursor after the
// changes fn accepted. fn may read the store but must not write it.
func (s *Store) Changes(ctx context.Context, after storage.Cursor, fn func(storage.Change) error) (storage.Cursor, error) {
	next := after
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return next, fmt.Errorf("changes: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to undo
	each := func(what, query string, arg int64, row func(*sql.Rows) error) error {
		rows, err := tx.QueryContext(ctx, query, arg)
		if err != nil {
			return fmt.Errorf("changes: %s: %w", what, damaged(err))
		}
		defer rows.Close()
		for rows.Next() {
			if err := row(rows); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("changes: %s: %w", what, damaged(err))
		}
		return nil
	}
	err = each("articles", `SELECT `+sqlcore.FingerprintCols+` FROM articles WHERE id > ? ORDER BY id`, after.Article, func(r *sql.Rows) error {
		a, err := s.rows.Article(r)
		if err != nil {
			return fmt.Errorf("changes: %w", damaged(err))
		}
		if err := fn(storage.Change{Article: &a}); err != nil {
			return err
		}
		next.Article = a.ID
		return nil
	})
	if err != nil {
		return next, err
	}
	err = each("duplicates", `SELECT seq, `+sqlcore.DupFingerprintCols+` FROM duplicates WHERE seq > ? ORDER BY seq`, after.Duplicate, func(r *sql.Rows) error {
		var seq int64
		d, err := s.rows.Duplicate(r, &seq)
		if err != nil {
			return fmt.Errorf("changes: %w", damaged(err))
		}
		if err := fn(storage.Change{Duplicate: &d}); err != nil {
			return err
		}
		next.Duplicate = seq
		return nil
	})
	if err != nil {
		return next, err
	}
	err = each("merges", `SELECT seq, into_cluster, from_cluster FROM cluster_merges WHERE seq > ? ORDER BY seq`, after.Merge, func(r *sql.Rows) error {
		var seq int64
		var m storage.Merge
		if err := r.Scan(&seq, &m.Into, &m.From); err != nil {
			return fmt.Errorf("changes: merges: %w", damaged(err))
		}
		if err := fn(storage.Change{Merge: &m}); err != nil {
			return err
		}
		next.Merge = seq
		return nil
	})
	return next, err
}
