package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/storage"
)

// Title search (serve's /search): every article's and duplicate's title is
// kept in an FTS5 table with the trigram tokenizer (SQLite's FTS5
// documentation, "The Trigram Tokenizer": the text is indexed as every
// sequence of three characters, so a MATCH on a quoted phrase of three or
// more characters finds the rows that hold it as a substring, with Unicode
// case folding; Chinese needs no word segmentation). Triggers on articles
// and duplicates keep the tables in step with every write, in the writing
// transaction; the migration builds them for an existing store.
//
// A query of fewer than storage.MinIndexedQuery characters (a two-character
// Chinese word) holds no trigram: the titles are scanned instead, in the
// FTS table, which holds only the titles, with instr() in SQL when the
// query's letters fold alike in SQLite's ASCII-only lower() and in Go
// (storage.StableFold), and in Go otherwise. Every row
// either way is checked with storage.TitleMatches, the rule of the search.

// migrationTitleSearch takes the schema from version 9 to 10: the title
// tables, filled from the stored rows, and the triggers that keep them.
const migrationTitleSearch = `
CREATE VIRTUAL TABLE article_titles USING fts5(title, tokenize = 'trigram');
CREATE VIRTUAL TABLE duplicate_titles USING fts5(title, tokenize = 'trigram');
INSERT INTO article_titles(rowid, title) SELECT id, title FROM articles;
INSERT INTO duplicate_titles(rowid, title) SELECT seq, title FROM duplicates;
CREATE TRIGGER article_titles_insert AFTER INSERT ON articles BEGIN
	INSERT INTO article_titles(rowid, title) VALUES (new.id, new.title);
END;
CREATE TRIGGER article_titles_delete AFTER DELETE ON articles BEGIN
	DELETE FROM article_titles WHERE rowid = old.id;
END;
CREATE TRIGGER article_titles_update AFTER UPDATE OF id, title ON articles BEGIN
	DELETE FROM article_titles WHERE rowid = old.id;
	INSERT INTO article_titles(rowid, title) VALUES (new.id, new.title);
END;
CREATE TRIGGER duplicate_titles_insert AFTER INSERT ON duplicates BEGIN
	INSERT INTO duplicate_titles(rowid, title) VALUES (new.seq, new.title);
END;
CREATE TRIGGER duplicate_titles_delete AFTER DELETE ON duplicates BEGIN
	DELETE FROM duplicate_titles WHERE rowid = old.seq;
END;
CREATE TRIGGER duplicate_titles_update AFTER UPDATE OF seq, title ON duplicates BEGIN
	DELETE FROM duplicate_titles WHERE rowid = old.seq;
	INSERT INTO duplicate_titles(rowid, title) VALUES (new.seq, new.title);
END;
`

// migrationDeferredTitles takes the schema from version 11 to 12: the
// insert triggers of the title tables do nothing while the meta row
// titlesDeferred exists. A Batch writes that row at its start and, at its
// End, inserts the titles of the rows it added in one statement and
// deletes the row, in its own transaction, so no other connection ever
// sees it. Through the triggers every insert was a statement transaction
// with a savepoint, at which SQLite's FTS5 tables flush their pending
// rows: one flush of the title index per stored record.
const migrationDeferredTitles = `
DROP TRIGGER article_titles_insert;
CREATE TRIGGER article_titles_insert AFTER INSERT ON articles
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'titles_deferred') BEGIN
	INSERT INTO article_titles(rowid, title) VALUES (new.id, new.title);
END;
DROP TRIGGER duplicate_titles_insert;
CREATE TRIGGER duplicate_titles_insert AFTER INSERT ON duplicates
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'titles_deferred') BEGIN
	INSERT INTO duplicate_titles(rowid, title) VALUES (new.seq, new.title);
END;
`

// deferTitles makes the title triggers stand aside in tx and returns the
// largest article id and duplicate seq before it, from which fillTitles
// indexes the rows added since.
func deferTitles(ctx context.Context, tx *sql.Tx) (art, dup int64, err error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('titles_deferred', 1)`); err != nil {
		return 0, 0, fmt.Errorf("defer the title index: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(id), 0) FROM articles), (SELECT coalesce(max(seq), 0) FROM duplicates)`).Scan(&art, &dup)
	if err != nil {
		return 0, 0, fmt.Errorf("defer the title index: %w", err)
	}
	return art, dup, nil
}

// fillTitles indexes the titles of the articles after id art and the
// duplicates after seq dup, and puts the triggers back to work.
func fillTitles(ctx context.Context, tx *sql.Tx, art, dup int64) error {
	for _, q := range []struct {
		query string
		after int64
	}{
		{`INSERT INTO article_titles(rowid, title) SELECT id, title FROM articles WHERE id > ?`, art},
		{`INSERT INTO duplicate_titles(rowid, title) SELECT seq, title FROM duplicates WHERE seq > ?`, dup},
	} {
		if _, err := tx.ExecContext(ctx, q.query, q.after); err != nil {
			return fmt.Errorf("title index: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = 'titles_deferred'`); err != nil {
		return fmt.Errorf("title index: %w", err)
	}
	return nil
}

// SearchTitles returns the articles (by id), then the duplicates (in commit
// order), whose title matches q by storage.TitleMatches, at most limit of
// them; more reports that there were more. An empty q matches nothing.
func (s *Store) SearchTitles(ctx context.Context, q string, limit int) (hits []storage.TitleHit, more bool, err error) {
	if q == "" || limit <= 0 {
		return nil, false, nil
	}
	arts, err := s.matchTitles(ctx, "article_titles", q, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("search titles: articles: %w", err)
	}
	var dups []int64
	if len(arts) <= limit {
		if dups, err = s.matchTitles(ctx, "duplicate_titles", q, limit+1-len(arts)); err != nil {
			return nil, false, fmt.Errorf("search titles: duplicates: %w", err)
		}
	}
	if len(arts)+len(dups) > limit {
		more = true
		if len(arts) > limit {
			arts, dups = arts[:limit], nil
		} else {
			dups = dups[:limit-len(arts)]
		}
	}
	for _, id := range arts {
		h := storage.TitleHit{ID: id}
		err := s.db.QueryRowContext(ctx, `SELECT url, site, title, cluster, run_id FROM articles WHERE id = ?`, id).
			Scan(&h.URL, &h.Site, &h.Title, &h.Cluster, &h.RunID)
		if errors.Is(err, sql.ErrNoRows) {
			continue // removed since it matched
		} else if err != nil {
			return nil, false, fmt.Errorf("search titles: article %d: %w", id, err)
		}
		hits = append(hits, h)
	}
	for _, seq := range dups {
		var h storage.TitleHit
		err := s.db.QueryRowContext(ctx, `SELECT url, site, title, cluster, run_id, dup_of, reason, jaccard FROM duplicates WHERE seq = ?`, seq).
			Scan(&h.URL, &h.Site, &h.Title, &h.Cluster, &h.RunID, &h.DupOf, &h.Reason, &h.Jaccard)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		} else if err != nil {
			return nil, false, fmt.Errorf("search titles: duplicate %d: %w", seq, err)
		}
		hits = append(hits, h)
	}
	return hits, more, nil
}

// matchTitles returns the rowids, ascending, of at most n rows of table (a
// title table of migrationTitleSearch) whose title matches q.
func (s *Store) matchTitles(ctx context.Context, table, q string, n int) ([]int64, error) {
	var rows *sql.Rows
	var err error
	switch {
	case utf8.RuneCountInString(q) >= storage.MinIndexedQuery:
		phrase := `"` + strings.ReplaceAll(q, `"`, `""`) + `"`
		rows, err = s.db.QueryContext(ctx, `SELECT rowid, title FROM `+table+` WHERE `+table+` MATCH ? ORDER BY rowid`, phrase)
	case storage.Caseless(q):
		rows, err = s.db.QueryContext(ctx, `SELECT rowid, title FROM `+table+` WHERE instr(title, ?) > 0 ORDER BY rowid`, q)
	case storage.StableFold(q):
		rows, err = s.db.QueryContext(ctx, `SELECT rowid, title FROM `+table+` WHERE instr(lower(title), lower(?)) > 0 ORDER BY rowid`, q)
	default:
		rows, err = s.db.QueryContext(ctx, `SELECT rowid, title FROM `+table+` ORDER BY rowid`)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for len(ids) < n && rows.Next() {
		var id int64
		var title string
		if err := rows.Scan(&id, &title); err != nil {
			return nil, err
		}
		if storage.TitleMatches(title, q) {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}
