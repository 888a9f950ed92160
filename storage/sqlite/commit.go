package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Commit writes one page outcome in one transaction; see Store.Commit.
func (s *Store) Commit(ctx context.Context, c *storage.Commit) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var r sqlcore.Assigned
	err := s.writeTx(ctx, func(tx *sql.Tx) (err error) {
		r, err = s.commitTx(ctx, tx, c, nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	r.Fill(c)
	return nil
}

// commitTx writes one validated page outcome in the caller's transaction
// (s.writeMu held). An article's document frequencies go to the store
// (addTerms), or are left to the batch b when it is not nil (Batch.Commit
// counts them once the commit has succeeded).
func (s *Store) commitTx(ctx context.Context, tx *sql.Tx, c *storage.Commit, b *Batch) (r sqlcore.Assigned, err error) {
	if err := s.putPage(ctx, tx, &c.Page, false); err != nil {
		return r, err
	}
	for _, u := range c.Parts {
		part := sqlcore.PartPage(c, u)
		if err := s.putPage(ctx, tx, &part, true); err != nil {
			return r, fmt.Errorf("part %s: %w", u, err)
		}
	}
	switch {
	case c.Article != nil:
		return s.commitArticle(ctx, tx, c, b)
	case c.Duplicate != nil:
		return s.commitDuplicate(ctx, tx, c)
	}
	return r, nil
}

// putPage writes p's record, replacing a non-final record of its URL. A
// final record fails with ErrAlreadyDecided, or stays when keepFinal (the
// record of a part).
func (s *Store) putPage(ctx context.Context, tx *sql.Tx, p *storage.Page, keepFinal bool) error {
	old, err := outcome(ctx, tx.StmtContext(ctx, s.stmts.pageOutcome), p.URL)
	if err != nil {
		return err
	}
	replace, err := sqlcore.Replace(old)
	if err != nil {
		if keepFinal {
			return nil
		}
		return err
	}
	if replace {
		if _, err := tx.StmtContext(ctx, s.stmts.deletePage).ExecContext(ctx, p.URL); err != nil {
			return err
		}
	}
	_, err = tx.StmtContext(ctx, s.stmts.insertPage).ExecContext(ctx, sqlcore.PageArgs(p)...)
	return err
}

// commitArticle writes c's article, its terms (unless a batch b counts
// them) and its raw response.
func (s *Store) commitArticle(ctx context.Context, tx *sql.Tx, c *storage.Commit, b *Batch) (r sqlcore.Assigned, err error) {
	a := c.Article
	if a.PartialOf != 0 {
		var u string
		var cl int64
		err := tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, a.PartialOf).Scan(&u, &cl)
		if errors.Is(err, sql.ErrNoRows) {
			return r, sqlcore.MissingPartialOf(a.PartialOf)
		} else if err != nil {
			return r, err
		}
	}
	err = tx.StmtContext(ctx, s.stmts.insertArticle).QueryRowContext(ctx, sqlcore.ArticleArgs(c.Page.URL, a)...).
		Scan(&r.ArticleID, &r.ArticleCluster)
	if err != nil {
		return r, err
	}
	if b == nil {
		if err := s.addTerms(ctx, tx, c.Terms); err != nil {
			return r, err
		}
	}
	if c.Raw != nil {
		if err := putRaw(ctx, tx, c.Page.URL, c.Raw); err != nil {
			return r, err
		}
	}
	return r, nil
}

// commitDuplicate writes c's duplicate and applies its cluster merges.
func (s *Store) commitDuplicate(ctx context.Context, tx *sql.Tx, c *storage.Commit) (r sqlcore.Assigned, err error) {
	d := c.Duplicate
	var artURL string
	var artCluster int64
	err = tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, d.DupOf).Scan(&artURL, &artCluster)
	if errors.Is(err, sql.ErrNoRows) {
		return r, sqlcore.MissingDupOf(d.DupOf)
	} else if err != nil {
		return r, err
	}
	r.DupOfURL, r.DupCluster = sqlcore.DupTarget(d, artURL, artCluster)
	args := sqlcore.DuplicateArgs(c.Page.URL, d, r.DupOfURL, r.DupCluster, s.packer.pack(d.Text))
	if _, err := tx.StmtContext(ctx, s.stmts.insertDup).ExecContext(ctx, args...); err != nil {
		return r, err
	}
	for _, m := range sqlcore.Merges(d) {
		for _, q := range []string{`UPDATE articles SET cluster = ? WHERE cluster = ?`, `UPDATE duplicates SET cluster = ? WHERE cluster = ?`,
			`INSERT INTO cluster_merges(into_cluster, from_cluster) VALUES (?, ?)`} {
			if _, err := tx.ExecContext(ctx, q, r.DupCluster, m); err != nil {
				return r, fmt.Errorf("merge cluster %d into %d: %w", m, r.DupCluster, err)
			}
		}
	}
	return r, nil
}

// outcome reads the outcome of url's page record with the pageOutcome
// statement st ("" when it has none).
func outcome(ctx context.Context, st *sql.Stmt, url string) (string, error) {
	var o string
	err := st.QueryRowContext(ctx, url).Scan(&o)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return o, err
}

// Decided reports the final outcome of a URL.
func (s *Store) Decided(ctx context.Context, u string) (storage.Outcome, bool, error) {
	o, err := outcome(ctx, s.stmts.pageOutcome, u)
	if err != nil {
		return "", false, fmt.Errorf("decided %s: %w", u, err)
	}
	out, ok := sqlcore.Decided(o)
	return out, ok, nil
}
