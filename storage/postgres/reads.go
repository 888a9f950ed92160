package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// PageOf returns the page record of url, or ErrNotFound.
func (s *Store) PageOf(ctx context.Context, u string) (storage.Page, error) {
	p, err := s.rows.Page(s.pool.QueryRow(ctx, `SELECT `+sqlcore.PageCols+` FROM pages WHERE url = $1`, u))
	return sqlcore.One(p, err, pgx.ErrNoRows, "page", u)
}

// Article returns the article with that id, or ErrNotFound.
func (s *Store) Article(ctx context.Context, id int64) (storage.Article, error) {
	a, err := s.rows.Article(s.pool.QueryRow(ctx, `SELECT `+sqlcore.ArticleCols+` FROM articles WHERE id = $1`, id))
	return sqlcore.One(a, err, pgx.ErrNoRows, "article", id)
}

// ArticleByURL returns the article stored for url, or ErrNotFound.
func (s *Store) ArticleByURL(ctx context.Context, u string) (storage.Article, error) {
	a, err := s.rows.Article(s.pool.QueryRow(ctx, `SELECT `+sqlcore.ArticleCols+` FROM articles WHERE url = $1`, u))
	return sqlcore.One(a, err, pgx.ErrNoRows, "article", u)
}

// each runs query and calls row for every result row, streaming; row's
// error is returned unchanged.
func (s *Store) each(ctx context.Context, what, query string, args []any, row func(pgx.Rows) error) error {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// articles streams articles; fn's error is returned unchanged.
func (s *Store) articles(ctx context.Context, what, query string, args []any, fn func(storage.Article) error) error {
	return s.each(ctx, what, query, args, func(r pgx.Rows) error {
		a, err := s.rows.Article(r)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fn(a)
	})
}

func (s *Store) duplicates(ctx context.Context, what, query string, args []any, fn func(storage.Duplicate) error) error {
	return s.each(ctx, what, query, args, func(r pgx.Rows) error {
		d, err := s.rows.Duplicate(r)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fn(d)
	})
}

// Articles calls fn for every stored article in id order.
func (s *Store) Articles(ctx context.Context, fn func(storage.Article) error) error {
	return s.articles(ctx, "articles", `SELECT `+sqlcore.ArticleCols+` FROM articles ORDER BY id`, nil, fn)
}

// Fingerprints calls fn, in id order, for every article fetched or
// published at or after since (zero: all), without its text.
func (s *Store) Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error {
	if since.IsZero() {
		return s.articles(ctx, "fingerprints", `SELECT `+sqlcore.FingerprintCols+` FROM articles ORDER BY id`, nil, fn)
	}
	return s.articles(ctx, "fingerprints", `SELECT `+sqlcore.FingerprintCols+` FROM articles
		WHERE fetched_at >= $1 OR published_at >= $1 ORDER BY id`, []any{sqlcore.SinceNanos(since)}, fn)
}

// Duplicates calls fn for every duplicate verdict in commit order.
func (s *Store) Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error {
	return s.duplicates(ctx, "duplicates", `SELECT `+sqlcore.DuplicateCols+` FROM duplicates ORDER BY seq`, nil, fn)
}

// DuplicateFingerprints calls fn, in commit order, for every duplicate
// fetched or published at or after since (zero: all), without its text.
func (s *Store) DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error {
	if since.IsZero() {
		return s.duplicates(ctx, "duplicate fingerprints", `SELECT `+sqlcore.DupFingerprintCols+` FROM duplicates ORDER BY seq`, nil, fn)
	}
	return s.duplicates(ctx, "duplicate fingerprints", `SELECT `+sqlcore.DupFingerprintCols+` FROM duplicates
		WHERE fetched_at >= $1 OR published_at >= $1 ORDER BY seq`, []any{sqlcore.SinceNanos(since)}, fn)
}

// Pages calls fn for every page record in commit order.
func (s *Store) Pages(ctx context.Context, fn func(storage.Page) error) error {
	return s.each(ctx, "pages", `SELECT `+sqlcore.PageCols+` FROM pages ORDER BY seq`, nil, func(r pgx.Rows) error {
		p, err := s.rows.Page(r)
		if err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		return fn(p)
	})
}

// Check verifies the cross-table invariants in one snapshot and that this
// Store's heartbeat is working.
func (s *Store) Check(ctx context.Context) error {
	queries := append(sqlcore.Invariants(),
		`SELECT 'article ' || id || ' signature of ' || length(signature) || ' bytes is not a multiple of 8'
			FROM articles WHERE length(signature) % 8 <> 0`,
		`SELECT 'duplicate ' || url || ' signature of ' || length(signature) || ' bytes is not a multiple of 8'
			FROM duplicates WHERE length(signature) % 8 <> 0`,
		`SELECT 'article ' || id || ' prints of ' || length(prints) || ' bytes or passages of ' || length(passages) || ' bytes malformed'
			FROM articles WHERE length(prints) % 8 <> 0 OR length(passages) % 24 <> 0`,
		`SELECT 'duplicate ' || url || ' prints of ' || length(prints) || ' bytes is not a multiple of 8'
			FROM duplicates WHERE length(prints) % 8 <> 0`,
		`SELECT 'term ' || quote_literal(term) || ' has document frequency ' || df FROM docfreq WHERE df < 1`,
		`SELECT 'docs counter missing' WHERE NOT EXISTS (SELECT 1 FROM counters WHERE key = 'docs')`,
		`SELECT 'docs counter ' || value || ' plus ' || (SELECT count(*) FROM docfreq_log) || ' logged documents but '
			|| (SELECT count(*) FROM articles) || ' articles'
			FROM counters WHERE key = 'docs' AND value + (SELECT count(*) FROM docfreq_log) <> (SELECT count(*) FROM articles)`,
	)
	var bad []string
	truncated := false
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for _, q := range queries {
			rows, err := tx.Query(ctx, q+fmt.Sprintf(" LIMIT %d", maxCheckRows+1))
			if err != nil {
				return err
			}
			msgs, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			if len(msgs) > maxCheckRows {
				msgs, truncated = msgs[:maxCheckRows], true
			}
			bad = append(bad, msgs...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	s.mu.Lock()
	if s.beatErr != nil {
		bad = append(bad, "heartbeat: "+s.beatErr.Error())
	}
	if s.foldErr != nil {
		bad = append(bad, "document-frequency fold: "+s.foldErr.Error())
	}
	s.mu.Unlock()
	if len(bad) == 0 {
		return nil
	}
	if truncated {
		bad = append(bad, fmt.Sprintf("(reading stopped after %d rows of one check)", maxCheckRows))
	}
	return fmt.Errorf("schema %s: %w", s.schema, storage.CheckFailed(bad))
}
