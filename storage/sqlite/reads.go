package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// SQL fragments of the reads and checks.
const (
	// badSignatureCond selects signatures that sqlcore.UnpackSignature rejects (or
	// that are not blobs at all); badSignature describes them.
	badSignatureCond = `typeof(signature) <> 'blob' OR length(signature) % 8 <> 0`
	badSignature     = `CASE WHEN typeof(signature) <> 'blob' THEN ' signature is ' || typeof(signature) || ', not a blob'
		ELSE ' signature of ' || length(signature) || ' bytes is not a multiple of 8' END`
	// finalPage is the condition under which Push (at time ?5) ignores a
	// URL (storage.Page.Skipped).
	finalPage = `outcome IN ('stored', 'duplicate', 'part') OR (outcome = 'error' AND permanent <> 0 AND (retry_at IS NULL OR retry_at > ?5))`
)

// PageOf returns the page record of url, or ErrNotFound.
func (s *Store) PageOf(ctx context.Context, u string) (storage.Page, error) {
	p, err := s.rows.Page(s.db.QueryRowContext(ctx, `SELECT `+sqlcore.PageCols+` FROM pages WHERE url = ?`, u))
	return sqlcore.One(p, err, sql.ErrNoRows, "page", u)
}

// Article returns the article with that id, or ErrNotFound.
func (s *Store) Article(ctx context.Context, id int64) (storage.Article, error) {
	a, err := s.rows.Article(s.db.QueryRowContext(ctx, `SELECT `+sqlcore.ArticleCols+` FROM articles WHERE id = ?`, id))
	return sqlcore.One(a, err, sql.ErrNoRows, "article", id)
}

// ArticleByURL returns the article stored for url, or ErrNotFound.
func (s *Store) ArticleByURL(ctx context.Context, u string) (storage.Article, error) {
	a, err := s.rows.Article(s.db.QueryRowContext(ctx, `SELECT `+sqlcore.ArticleCols+` FROM articles WHERE url = ?`, u))
	return sqlcore.One(a, err, sql.ErrNoRows, "article", u)
}

// each runs query and calls row for every result row, streaming.
func (s *Store) each(ctx context.Context, what, query string, args []any, row func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, damaged(err))
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return damaged(err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, damaged(err))
	}
	return nil
}

// Articles calls fn for every stored article in id order. Rows are streamed;
// fn may call the store.
func (s *Store) Articles(ctx context.Context, fn func(storage.Article) error) error {
	return s.each(ctx, "articles", `SELECT `+sqlcore.ArticleCols+` FROM articles ORDER BY id`, nil, func(r *sql.Rows) error {
		a, err := s.rows.Article(r)
		if err != nil {
			return fmt.Errorf("articles: %w", err)
		}
		return fn(a)
	})
}

// Fingerprints calls fn, in id order, for every article fetched or published
// at or after since (zero: all), without reading its text.
func (s *Store) Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error {
	query := `SELECT ` + sqlcore.FingerprintCols + ` FROM articles ORDER BY id`
	var args []any
	if !since.IsZero() {
		query = `SELECT ` + sqlcore.FingerprintCols + ` FROM articles WHERE fetched_at >= ?1 OR published_at >= ?1 ORDER BY id`
		args = []any{sqlcore.SinceNanos(since)}
	}
	return s.each(ctx, "fingerprints", query, args, func(r *sql.Rows) error {
		a, err := s.rows.Article(r)
		if err != nil {
			return fmt.Errorf("fingerprints: %w", err)
		}
		return fn(a)
	})
}

// Duplicates calls fn for every duplicate verdict in commit order.
func (s *Store) Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error {
	return s.each(ctx, "duplicates", `SELECT `+sqlcore.DuplicateCols+` FROM duplicates ORDER BY seq`, nil, func(r *sql.Rows) error {
		d, err := s.rows.Duplicate(r)
		if err != nil {
			return fmt.Errorf("duplicates: %w", err)
		}
		return fn(d)
	})
}

// DuplicateFingerprints calls fn, in commit order, for every duplicate
// verdict fetched or published at or after since (zero: all), without
// reading its text.
func (s *Store) DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error {
	query := `SELECT ` + sqlcore.DupFingerprintCols + ` FROM duplicates ORDER BY seq`
	var args []any
	if !since.IsZero() {
		query = `SELECT ` + sqlcore.DupFingerprintCols + ` FROM duplicates WHERE fetched_at >= ?1 OR published_at >= ?1 ORDER BY seq`
		args = []any{sqlcore.SinceNanos(since)}
	}
	return s.each(ctx, "duplicate fingerprints", query, args, func(r *sql.Rows) error {
		d, err := s.rows.Duplicate(r)
		if err != nil {
			return fmt.Errorf("duplicate fingerprints: %w", err)
		}
		return fn(d)
	})
}

// Pages calls fn for every page record in commit order.
func (s *Store) Pages(ctx context.Context, fn func(storage.Page) error) error {
	return s.each(ctx, "pages", `SELECT `+sqlcore.PageCols+` FROM pages ORDER BY seq`, nil, func(r *sql.Rows) error {
		p, err := s.rows.Page(r)
		if err != nil {
			return fmt.Errorf("pages: %w", err)
		}
		return fn(p)
	})
}

// Check runs PRAGMA integrity_check and foreign_key_check and verifies the
// cross-table invariants in one read snapshot.
func (s *Store) Check(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	var bad []string
	truncated := false
	collect := func(query string) error {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if n == maxCheckRows {
				truncated = true
				break
			}
			n++
			var msg string
			if err := rows.Scan(&msg); err != nil {
				return err
			}
			bad = append(bad, msg)
		}
		return rows.Err()
	}

	var integrity []string
	rows, err := tx.QueryContext(ctx, `PRAGMA integrity_check(100)`)
	if err != nil {
		return fmt.Errorf("check: integrity_check: %w", damaged(err))
	}
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return fmt.Errorf("check: integrity_check: %w", damaged(err))
		}
		integrity = append(integrity, msg)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check: integrity_check: %w", damaged(err))
	}
	if len(integrity) != 1 || integrity[0] != "ok" {
		return fmt.Errorf("check %s: %w: %s", s.path, ErrDamaged, strings.Join(integrity, "; "))
	}

	queries := append([]string{
		`SELECT 'foreign key: ' || "table" || ' rowid ' || coalesce(rowid, 'NULL') || ' -> ' || parent FROM pragma_foreign_key_check`,
	}, sqlcore.Invariants()...)
	queries = append(queries,
		`SELECT 'article ' || id || `+badSignature+` FROM articles WHERE `+badSignatureCond,
		`SELECT 'duplicate ' || url || `+badSignature+` FROM duplicates WHERE `+badSignatureCond,
		`SELECT 'article ' || id || ' prints or passages are not blobs of 8-byte values (passages: 24-byte triples)'
			FROM articles WHERE typeof(prints) <> 'blob' OR length(prints) % 8 <> 0 OR typeof(passages) <> 'blob' OR length(passages) % 24 <> 0`,
		`SELECT 'duplicate ' || url || ' prints are not a blob of 8-byte values'
			FROM duplicates WHERE typeof(prints) <> 'blob' OR length(prints) % 8 <> 0`,
		`SELECT 'term ' || quote(term) || ' has document frequency ' || df FROM docfreq WHERE df < 1`,
		`SELECT 'docs counter missing' WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = 'docs')`,
		`SELECT 'docs counter ' || value || ' but ' || (SELECT count(*) FROM articles) || ' articles'
			FROM meta WHERE key = 'docs' AND value <> (SELECT count(*) FROM articles)`,
	)
	for _, q := range queries {
		if err := collect(q); err != nil {
			return fmt.Errorf("check: %w", damaged(err))
		}
	}
	if _, err := readPending(ctx, tx); errors.Is(err, errBadTermLog) {
		bad = append(bad, err.Error())
	} else if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if len(bad) == 0 {
		return nil
	}
	if truncated {
		bad = append(bad, fmt.Sprintf("(reading stopped after %d rows of one check)", maxCheckRows))
	}
	return storage.CheckFailed(bad)
}
