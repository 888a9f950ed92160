package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/storage"
)

// Commit writes one page outcome in one transaction; see Store.Commit.
func (s *Store) Commit(ctx context.Context, c *storage.Commit) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var r commitResult
	err := s.writeTx(ctx, func(tx *sql.Tx) (err error) {
		r, err = s.commitTx(ctx, tx, c)
		return err
	})
	if err != nil {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	r.fill(c)
	return nil
}

// commitResult is what a commit's transaction assigned.
type commitResult struct {
	artID, artCluster int64
	dupOfURL          string
	dupCluster        int64
}

// fill copies the assigned ids into the committed article or duplicate.
func (r commitResult) fill(c *storage.Commit) {
	switch {
	case c.Article != nil:
		c.Article.ID, c.Article.Cluster = r.artID, r.artCluster
	case c.Duplicate != nil:
		c.Duplicate.DupOfURL, c.Duplicate.Cluster = r.dupOfURL, r.dupCluster
	}
}

// commitTx writes one validated page outcome in the caller's transaction
// (s.writeMu held).
func (s *Store) commitTx(ctx context.Context, tx *sql.Tx, c *storage.Commit) (r commitResult, err error) {
	p := &c.Page
	var old string
	err = tx.StmtContext(ctx, s.stmts.pageOutcome).QueryRowContext(ctx, p.URL).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return r, err
	case storage.Outcome(old).Final():
		return r, fmt.Errorf("%w (%s)", storage.ErrAlreadyDecided, old)
	default:
		if _, err := tx.StmtContext(ctx, s.stmts.deletePage).ExecContext(ctx, p.URL); err != nil {
			return r, err
		}
	}
	if _, err := tx.StmtContext(ctx, s.stmts.insertPage).ExecContext(ctx, p.URL, p.Site, p.RunID,
		string(p.Outcome), p.Status, p.ErrKind, p.Err, boolInt(p.Permanent), nullTime(p.FetchedAt), nullTime(p.RetryAt), p.PartOf); err != nil {
		return r, err
	}
	if err := s.commitParts(ctx, tx, c); err != nil {
		return r, err
	}
	switch {
	case c.Article != nil:
		a := c.Article
		if a.PartialOf != 0 {
			var u string
			var cl int64
			err := tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, a.PartialOf).Scan(&u, &cl)
			if errors.Is(err, sql.ErrNoRows) {
				return r, fmt.Errorf("partial_of %d: %w", a.PartialOf, storage.ErrNotFound)
			} else if err != nil {
				return r, err
			}
		}
		err := tx.StmtContext(ctx, s.stmts.insertArticle).QueryRowContext(ctx, p.URL, a.Site, a.RunID,
			a.Title, a.Text, nullTime(a.PublishedAt), a.Source, a.Author, a.Editor, nullTime(a.FetchedAt),
			a.ContentHash, a.Cluster, int64(a.Fingerprint.Simhash), packSignature(a.Fingerprint.Signature),
			a.Fingerprint.Length, a.Fingerprint.Image, packSignature(a.Fingerprint.Prints), a.Fingerprint.ContentWords,
			a.PartialOf, a.OwnShare, packPassages(a.Passages), strings.Join(a.Pages, "\n"),
			strings.Join(a.PagesMissing, "\n")).Scan(&r.artID, &r.artCluster)
		if err != nil {
			return r, err
		}
		if err := s.addTerms(ctx, tx, c.Terms); err != nil {
			return r, err
		}
		if c.Raw != nil {
			if err := putRaw(ctx, tx, p.URL, c.Raw); err != nil {
				return r, err
			}
		}
	case c.Duplicate != nil:
		d := c.Duplicate
		err := tx.StmtContext(ctx, s.stmts.articleRef).QueryRowContext(ctx, d.DupOf).Scan(&r.dupOfURL, &r.dupCluster)
		if errors.Is(err, sql.ErrNoRows) {
			return r, fmt.Errorf("dup_of %d: %w", d.DupOf, storage.ErrNotFound)
		} else if err != nil {
			return r, err
		}
		if d.DupOfURL != "" {
			r.dupOfURL = d.DupOfURL
		}
		if d.Cluster != 0 {
			r.dupCluster = d.Cluster
		}
		if _, err := tx.StmtContext(ctx, s.stmts.insertDup).ExecContext(ctx, p.URL, d.Site, d.RunID, d.DupOf,
			r.dupOfURL, r.dupCluster, d.Distance, d.Jaccard, d.Containment, d.Title, s.packer.pack(d.Text), nullTime(d.PublishedAt),
			d.Source, d.Author, nullTime(d.FetchedAt), int64(d.Simhash), packSignature(d.Signature), d.Reason,
			d.Image, d.ImageSimilarity, packSignature(d.Prints), d.ContentWords); err != nil {
			return r, err
		}
		merges := slices.Clone(d.Merges)
		slices.Sort(merges)
		for _, m := range slices.Compact(merges) {
			for _, q := range []string{`UPDATE articles SET cluster = ? WHERE cluster = ?`, `UPDATE duplicates SET cluster = ? WHERE cluster = ?`,
				`INSERT INTO cluster_merges(into_cluster, from_cluster) VALUES (?, ?)`} {
				if _, err := tx.ExecContext(ctx, q, r.dupCluster, m); err != nil {
					return r, fmt.Errorf("merge cluster %d into %d: %w", m, r.dupCluster, err)
				}
			}
		}
	}
	return r, nil
}

// commitParts records the later pages of a multi-page article
// (Commit.Parts) as pages of outcome part; a URL already decided keeps
// its record.
func (s *Store) commitParts(ctx context.Context, tx *sql.Tx, c *storage.Commit) error {
	p := &c.Page
	for _, u := range c.Parts {
		var old string
		err := tx.StmtContext(ctx, s.stmts.pageOutcome).QueryRowContext(ctx, u).Scan(&old)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case storage.Outcome(old).Final():
			continue
		default:
			if _, err := tx.StmtContext(ctx, s.stmts.deletePage).ExecContext(ctx, u); err != nil {
				return err
			}
		}
		if _, err := tx.StmtContext(ctx, s.stmts.insertPage).ExecContext(ctx, u, p.Site, p.RunID,
			string(storage.OutcomePart), p.Status, "", "", 0, nullTime(p.FetchedAt), nil, p.URL); err != nil {
			return fmt.Errorf("part %s: %w", u, err)
		}
	}
	return nil
}

// Decided reports the final outcome of a URL.
func (s *Store) Decided(ctx context.Context, u string) (storage.Outcome, bool, error) {
	var o string
	err := s.stmts.pageOutcome.QueryRowContext(ctx, u).Scan(&o)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("decided %s: %w", u, err)
	}
	if !storage.Outcome(o).Final() {
		return "", false, nil
	}
	return storage.Outcome(o), true, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
