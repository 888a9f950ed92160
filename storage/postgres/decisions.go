package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
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
// decision lock (CommitDecision, LockDecisions); a snapshot taken without
// the lock sees a prefix of that order.
func (s *Store) Changes(ctx context.Context, after Cursor, fn func(Change) error) (Cursor, error) {
	feed, err := s.readChanges(ctx, s.pool, after, feedSnapshot)
	if err != nil {
		return after, fmt.Errorf("changes: %w", err)
	}
	// The callbacks run after the reads, so that they may call the store.
	next := after
	err = feed.each(&next, fn)
	return next, err
}

// changeFeed is what was committed after a cursor, read by readChanges.
type changeFeed struct {
	arts   []storage.Article
	dups   []seqDup
	merges []seqMerge
}

type seqDup struct {
	seq int64
	d   storage.Duplicate
}

type seqMerge struct {
	seq int64
	m   Merge
}

func (f *changeFeed) len() int { return len(f.arts) + len(f.dups) + len(f.merges) }

// each calls fn for every change in feed order, moving *next past each
// one it was called for.
func (f *changeFeed) each(next *Cursor, fn func(Change) error) error {
	for i := range f.arts {
		if err := fn(Change{Article: &f.arts[i]}); err != nil {
			return err
		}
		next.Article = f.arts[i].ID
	}
	for i := range f.dups {
		if err := fn(Change{Duplicate: &f.dups[i].d}); err != nil {
			return err
		}
		next.Duplicate = f.dups[i].seq
	}
	for i := range f.merges {
		if err := fn(Change{Merge: &f.merges[i].m}); err != nil {
			return err
		}
		next.Merge = f.merges[i].seq
	}
	return nil
}

// batcher runs a batch: a pool (each batch on one connection) or a
// transaction.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// How readChanges reads the feed in one round trip.
const (
	// feedSnapshot: on a pool, the three reads in a read-only REPEATABLE
	// READ transaction begun and committed in the batch: one snapshot.
	feedSnapshot = iota
	// feedLocked: in a transaction, after taking the decision lock
	// (transaction-scoped) in the batch: the reads run once it is granted,
	// each with a snapshot taken after that, and nothing else commits a
	// decision meanwhile.
	feedLocked
)

// readChanges reads the articles, duplicates and merges after `after` in
// one round trip (one batch), as mode says.
func (s *Store) readChanges(ctx context.Context, q batcher, after Cursor, mode int) (changeFeed, error) {
	var f changeFeed
	b := &pgx.Batch{}
	if mode == feedLocked {
		b.Queue(`SELECT pg_advisory_xact_lock($1, $2)`, lockDecide, s.schemaKey)
	} else {
		b.Queue(`BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`)
	}
	b.Queue(`SELECT `+sqlcore.FingerprintCols+` FROM articles WHERE id > $1 ORDER BY id`, after.Article)
	b.Queue(`SELECT seq, `+sqlcore.DupFingerprintCols+` FROM duplicates WHERE seq > $1 ORDER BY seq`, after.Duplicate)
	b.Queue(`SELECT seq, into_cluster, from_cluster FROM cluster_merges WHERE seq > $1 ORDER BY seq`, after.Merge)
	if mode == feedSnapshot {
		// A failed batch leaves the connection in a transaction: the pool
		// closes it rather than reuse it.
		b.Queue(`COMMIT`)
	}
	br := q.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		if mode == feedLocked {
			return f, fmt.Errorf("decision lock: %w", err)
		}
		return f, err
	}
	rows, err := br.Query()
	if err != nil {
		return f, err
	}
	if f.arts, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Article, error) { return s.rows.Article(r) }); err != nil {
		return f, err
	}
	if rows, err = br.Query(); err != nil {
		return f, err
	}
	f.dups, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (seqDup, error) {
		var x seqDup
		var err error
		x.d, err = s.rows.Duplicate(r, &x.seq)
		return x, err
	})
	if err != nil {
		return f, err
	}
	if rows, err = br.Query(); err != nil {
		return f, err
	}
	f.merges, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (seqMerge, error) {
		var x seqMerge
		err := r.Scan(&x.seq, &x.m.Into, &x.m.From)
		return x, err
	})
	if err != nil {
		return f, err
	}
	return f, br.Close()
}

// Recheck is called by CommitDecision under the decision lock when other
// processes committed decisions after the caller's cursor: tail holds
// them, in feed order. It brings the caller's index up to date with them
// and returns the commit to write instead of the one decided before (the
// same one when they change nothing), or an error to write nothing.
type Recheck func(tail []Change) (*storage.Commit, error)

// CommitDecision commits a page outcome decided optimistically, against an
// index holding the decisions up to *cur, without the decision lock. In
// one transaction it takes the page's URL lock (ErrAlreadyDecided as
// Commit), then the fleet's decision lock (transaction-scoped: released
// by the commit), reads what other processes committed after *cur (one
// round trip; usually nothing or a few entries) and, when that is not
// nothing, calls recheck (when not nil), which may replace c; then it writes. *cur moves
// past the tail as soon as it is read (the caller's index has it even if
// the write fails) and past c's own rows once c is committed. The lock is
// held for the tail read, the recheck and the writes: not for the
// caller's catch-up and decision, nor for the URL check. It returns the
// commit written (c or recheck's), with the ids Commit fills in.
func (s *Store) CommitDecision(ctx context.Context, cur *Cursor, c *storage.Commit, recheck Recheck) (*storage.Commit, error) {
	if err := validCommit(c); err != nil {
		return nil, err
	}
	var w written
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		replace, err := lockPage(ctx, tx, c.Page.URL)
		if err != nil {
			return err
		}
		feed, err := s.readChanges(ctx, tx, *cur, feedLocked)
		if err != nil {
			return fmt.Errorf("changes: %w", err)
		}
		if feed.len() > 0 && recheck != nil {
			tail := make([]Change, 0, feed.len())
			_ = feed.each(cur, func(ch Change) error { tail = append(tail, ch); return nil })
			next, err := recheck(tail)
			if err != nil {
				return callbackError{err}
			}
			if next.Page.URL != c.Page.URL {
				return fmt.Errorf("%w: recheck of %s returned a commit of %s", storage.ErrInvalid, c.Page.URL, next.Page.URL)
			}
			if err := validCommit(next); err != nil {
				return callbackError{err}
			}
			c = next
		}
		w, err = writeOutcome(ctx, tx, c, replace)
		return err
	})
	if err != nil {
		var cb callbackError
		if errors.As(err, &cb) {
			return nil, cb.err
		}
		return nil, fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	s.committed(ctx, c, w)
	cur.Article, cur.Duplicate, cur.Merge = max(cur.Article, w.ArticleID), max(cur.Duplicate, w.dupSeq), max(cur.Merge, w.mergeSeq)
	return c, nil
}
