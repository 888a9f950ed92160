package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Batch groups many commits in one write transaction, for bulk writers
// (import): SQLite's cost per transaction (the WAL append and the
// statement of BEGIN/COMMIT) is paid once per batch instead of once per
// page. A Commit that fails in its checks (a URL decided before, a
// missing dup_of or partial_of: read before anything is written) leaves
// nothing of itself and the batch goes on; one that fails while writing
// (an I/O error, a constraint the checks do not foresee) rolls the whole
// batch back, and End reports it. No savepoint is taken per commit: a
// savepoint makes SQLite's FTS5 tables (the title search) flush their
// pending rows, so each record cost a flush of the title index. Nothing
// of a batch is visible to other connections, nor durable, before End; a
// crash loses the whole open batch, which an idempotent bulk writer simply
// redoes. A Batch holds the store's write lock of this process until End or
// Rollback: other writes of the process wait, so a batch is for one
// goroutine that ends it before writing anything else.
//
// The document frequencies of a batch's articles are counted in memory
// (termTally) and written by End in one fold, with the docs counter raised
// once, instead of one docfreq_pending row and one counter update per
// article: the same counts, in the same transaction, at a fraction of the
// statements.
type Batch struct {
	s       *Store
	tx      *sql.Tx
	done    bool
	aborted error     // the failed write that rolled the batch back
	docs    int64     // articles committed in the batch
	tally   termTally // their distinct terms, counted
	// The largest article id and duplicate seq before the batch: End
	// indexes the titles of the rows after them (deferTitles).
	artBefore, dupBefore int64
}

// BeginBatch opens a batch. The transaction lives until End or Rollback,
// not until ctx ends (ctx bounds only the BEGIN).
func (s *Store) BeginBatch(ctx context.Context) (*Batch, error) {
	s.writeMu.Lock()
	tx, err := s.db.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		s.writeMu.Unlock()
		return nil, fmt.Errorf("begin batch: %w", err)
	}
	art, dup, err := deferTitles(ctx, tx)
	if err != nil {
		err = errors.Join(err, tx.Rollback())
		s.writeMu.Unlock()
		return nil, fmt.Errorf("begin batch: %w", err)
	}
	return &Batch{s: s, tx: tx, tally: termTally{at: make(map[string]int)}, artBefore: art, dupBefore: dup}, nil
}

// errBatchDone is returned by the methods of an ended batch.
var errBatchDone = errors.New("batch already ended")

// ErrBatchAborted is End's error after a commit of the batch failed while
// writing and rolled it back (the commit's error says why).
var ErrBatchAborted = errors.New("the batch was rolled back")

// NextArticleID is the id the store's next article gets: one after the
// largest (the insert computes it so). A bulk writer holding the store's
// lock, the only one writing articles, may assign ids ahead with it.
func (s *Store) NextArticleID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM articles`).Scan(&id); err != nil {
		return 0, fmt.Errorf("next article id: %w", err)
	}
	return id, nil
}

// Commit writes one page outcome in the batch, with the semantics of
// Store.Commit (ErrAlreadyDecided for a URL decided before, in the store
// or earlier in the batch); the ids it assigns are final once End succeeds.
func (b *Batch) Commit(ctx context.Context, c *storage.Commit) error {
	if b.done {
		return fmt.Errorf("commit %s: %w", c.Page.URL, errBatchDone)
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if err := b.s.precheck(ctx, b.tx, c); err != nil {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	r, err := b.s.commitTx(ctx, b.tx, c, b)
	if err != nil {
		// Part of this commit may be in the transaction: roll it all back.
		b.done, b.aborted = true, fmt.Errorf("commit %s: %w", c.Page.URL, err)
		defer b.s.writeMu.Unlock()
		if rerr := b.tx.Rollback(); rerr != nil {
			return fmt.Errorf("%w (the batch is rolled back: %w)", b.aborted, rerr)
		}
		return fmt.Errorf("%w (the batch is rolled back)", b.aborted)
	}
	if c.Article != nil {
		b.docs++
		for _, t := range c.Terms {
			b.tally.addOnce(t, b.docs)
		}
	}
	r.Fill(c)
	return nil
}

// precheck reads, in the batch, what makes a commit fail before it writes
// anything: a URL decided before (storage.ErrAlreadyDecided), a duplicate's
// missing dup_of, an article's missing partial_of (storage.ErrNotFound).
func (s *Store) precheck(ctx context.Context, tx *sql.Tx, c *storage.Commit) error {
	old, err := outcome(ctx, tx.StmtContext(ctx, s.stmts.pageOutcome), c.Page.URL)
	if err != nil {
		return err
	}
	if _, err := sqlcore.Replace(old); err != nil {
		return err
	}
	exists := func(id int64, missing func(int64) error) error {
		var u string
		var cl int64
		err := tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, id).Scan(&u, &cl)
		if errors.Is(err, sql.ErrNoRows) {
			return missing(id)
		}
		return err
	}
	switch {
	case c.Duplicate != nil:
		return exists(c.Duplicate.DupOf, sqlcore.MissingDupOf)
	case c.Article != nil && c.Article.PartialOf != 0:
		return exists(c.Article.PartialOf, sqlcore.MissingPartialOf)
	}
	return nil
}

// Decided is Store.Decided as seen inside the batch.
func (b *Batch) Decided(ctx context.Context, u string) (storage.Outcome, bool, error) {
	if b.done {
		return "", false, fmt.Errorf("decided %s: %w", u, errBatchDone)
	}
	o, err := outcome(ctx, b.tx.StmtContext(ctx, b.s.stmts.pageOutcome), u)
	if err != nil {
		return "", false, fmt.Errorf("decided %s: %w", u, err)
	}
	out, ok := sqlcore.Decided(o)
	return out, ok, nil
}

// Article is Store.Article as seen inside the batch.
func (b *Batch) Article(ctx context.Context, id int64) (storage.Article, error) {
	if b.done {
		return storage.Article{}, fmt.Errorf("article %d: %w", id, errBatchDone)
	}
	a, err := b.s.rows.Article(b.tx.QueryRowContext(ctx, `SELECT `+sqlcore.ArticleCols+` FROM articles WHERE id = ?`, id))
	return sqlcore.One(a, err, sql.ErrNoRows, "article", id)
}

// End folds the batch's document frequencies into the store, commits the
// batch and releases the write lock. After a failed End nothing of the
// batch was written.
func (b *Batch) End() error {
	if b.aborted != nil {
		return fmt.Errorf("end batch: %w: %w", ErrBatchAborted, b.aborted)
	}
	if b.done {
		return errBatchDone
	}
	b.done = true
	defer b.s.writeMu.Unlock()
	ctx := context.Background() // the batch outlives its callers' contexts
	if err := b.endWrites(ctx); err != nil {
		if rerr := b.tx.Rollback(); rerr != nil {
			return fmt.Errorf("end batch: %w (and rolling back: %w)", err, rerr)
		}
		return fmt.Errorf("end batch: %w", err)
	}
	if err := b.tx.Commit(); err != nil {
		return fmt.Errorf("end batch: %w", err)
	}
	return nil
}

// Rollback discards the batch and releases the write lock; it is a no-op
// on an ended batch, so it can be deferred.
func (b *Batch) Rollback() error {
	if b.done {
		return nil
	}
	b.done = true
	defer b.s.writeMu.Unlock()
	return b.tx.Rollback()
}

// endWrites writes what the batch deferred: its titles and its document
// frequencies.
func (b *Batch) endWrites(ctx context.Context) error {
	if err := fillTitles(ctx, b.tx, b.artBefore, b.dupBefore); err != nil {
		return err
	}
	if b.docs > 0 {
		if err := b.s.foldBatch(ctx, b.tx, &b.tally, b.docs); err != nil {
			return fmt.Errorf("document frequencies: %w", err)
		}
	}
	return nil
}
