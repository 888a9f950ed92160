package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
)

// Shared dedup decisions. Single-Pass clustering needs each decision to see
// every earlier one; with several processes deciding against their own
// in-memory indexes, two processes that fetch a story and its reprint at
// the same moment would both store them. The store therefore offers a
// fleet-wide decision lock and a change feed: a process takes the lock,
// brings its index up to date with what others committed since its cursor
// (Changes), decides, commits, moves its cursor past its own commit and
// releases the lock. Decisions are serialised across the fleet; fetching,
// extraction and fingerprinting stay parallel.

// Cursor is a position in the store's commit history (storage.Cursor).
type Cursor = storage.Cursor

// LockDecisions takes the fleet-wide decision lock (a session advisory
// lock), waiting until it is free or ctx ends. The returned release is
// idempotent; Close releases it if still held; a killed process's lock is
// dropped by the server with its session.
func (s *Store) LockDecisions(ctx context.Context) (func() error, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("decision lock: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, lockDecide, s.schemaKey); err != nil {
		// The wait may have been cancelled after the lock was granted:
		// end the session so that it holds nothing.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
		conn.Release()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("decision lock: %w", ctx.Err())
		}
		return nil, fmt.Errorf("decision lock: %w", err)
	}
	return s.hold(conn, lockDecide, `SELECT pg_advisory_unlock($1, $2)`, "decision lock")
}

// Head returns the cursor after everything committed so far.
func (s *Store) Head(ctx context.Context) (Cursor, error) {
	var c Cursor
	err := s.pool.QueryRow(ctx, `SELECT (SELECT coalesce(max(id), 0) FROM articles),
		(SELECT coalesce(max(seq), 0) FROM duplicates), (SELECT coalesce(max(seq), 0) FROM cluster_merges)`).
		Scan(&c.Article, &c.Duplicate, &c.Merge)
	if err != nil {
		return Cursor{}, fmt.Errorf("head: %w", err)
	}
	return c, nil
}

// Change is one entry of the change feed (storage.Change).
type Change = storage.Change

// Merge is a cluster merge applied by a duplicate's commit (storage.Merge).
type Merge = storage.Merge

// Changes calls fn for what was committed after the cursor, from one
// snapshot: stored articles in id order, then duplicates in commit order,
// then cluster merges in order (articles and duplicates carry their
// current cluster, merges included). It returns the cursor after them.
// Ids are assigned in commit order only among commits that hold the
// decision lock; read the feed under it.
func (s *Store) Changes(ctx context.Context, after Cursor, fn func(Change) error) (Cursor, error) {
	next := after
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+fingerprintCols+` FROM articles WHERE id > $1 ORDER BY id`, after.Article)
		if err != nil {
			return err
		}
		var arts []storage.Article
		for rows.Next() {
			a, err := scanArticle(rows)
			if err != nil {
				rows.Close()
				return err
			}
			arts = append(arts, a)
		}
		if rows.Close(); rows.Err() != nil {
			return rows.Err()
		}
		rows, err = tx.Query(ctx, `SELECT seq, `+dupFingerprintCols+` FROM duplicates WHERE seq > $1 ORDER BY seq`, after.Duplicate)
		if err != nil {
			return err
		}
		type seqDup struct {
			seq int64
			d   storage.Duplicate
		}
		var dups []seqDup
		for rows.Next() {
			var x seqDup
			if x.d, err = scanDuplicateSeq(rows, &x.seq); err != nil {
				rows.Close()
				return err
			}
			dups = append(dups, x)
		}
		if rows.Close(); rows.Err() != nil {
			return rows.Err()
		}
		rows, err = tx.Query(ctx, `SELECT seq, into_cluster, from_cluster FROM cluster_merges WHERE seq > $1 ORDER BY seq`, after.Merge)
		if err != nil {
			return err
		}
		type seqMerge struct {
			seq int64
			m   Merge
		}
		merges, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seqMerge, error) {
			var x seqMerge
			err := r.Scan(&x.seq, &x.m.Into, &x.m.From)
			return x, err
		})
		if err != nil {
			return err
		}
		// The callbacks run after the reads, so that they may call the store.
		for i := range arts {
			if err := fn(Change{Article: &arts[i]}); err != nil {
				return callbackError{err}
			}
			next.Article = arts[i].ID
		}
		for i := range dups {
			if err := fn(Change{Duplicate: &dups[i].d}); err != nil {
				return callbackError{err}
			}
			next.Duplicate = dups[i].seq
		}
		for i := range merges {
			if err := fn(Change{Merge: &merges[i].m}); err != nil {
				return callbackError{err}
			}
			next.Merge = merges[i].seq
		}
		return nil
	})
	if err != nil {
		var cb callbackError
		if errors.As(err, &cb) {
			return next, cb.err
		}
		return next, fmt.Errorf("changes: %w", err)
	}
	return next, nil
}
