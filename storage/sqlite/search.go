package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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
// Chinese word, one character) is no phrase of trigrams, but each of its
// occurrences begins a trigram: the tables index each title followed by
// titleEnd, so that a title's last two characters and its last one, and a
// title of one or two characters, begin a trigram too. The trigrams that
// begin with the query are a range of the index's vocabulary (the
// fts5vocab tables of migrationTitleEnd answer a range of terms without
// reading the others); their occurrences, read from the "instance" table,
// sorted by row and cut in SQL, are the rows that hold the query, when
// there are at most shortQueryMaxInstances of them. This needs the query
// folded as the tokenizer folds the titles, which Go does when no letter
// of the query has a case partner outside ASCII (storage.StableFold: the
// tokenizer folds ASCII as strings.ToLower does), with the two exceptions
// that indexedTitle and indexedForm take care of. A query with more
// occurrences, or with other letters, scans the titles instead, in the FTS
// table, which holds only the titles (and titleEnd), with instr() in SQL
// when the query's letters fold alike in SQLite's ASCII-only lower() and
// in Go, and in Go otherwise; a query with that many occurrences mostly
// meets its limit of hits early in the scan. Every row either way is
// checked with storage.TitleMatches, the rule of the search.

// titleEnd is what the title tables hold after each title, as Go and as
// SQL (titleEndSQL): two U+0001, a control character that the tokenizer
// keeps as a character of its own and that neither it nor strings.ToLower
// folds. Titles are not expected to hold it, but one that does is still
// found exactly, as is a query that holds it: each occurrence of a query
// in a title still begins a trigram.
const (
	titleEnd    = "\x01\x01"
	titleEndSQL = "char(1, 1)"
)

// indexedTitle and indexedNewTitle are what the title tables hold for a
// title (of the row read, of the row a trigger writes): the title with İ
// (U+0130) as i, followed by titleEnd. strings.ToLower makes İ i, but the
// tokenizer keeps it, and no case folding pairs it with i or I; with it
// replaced, a title matches a query by storage.TitleMatches exactly when
// what is indexed of it does, and its trigrams are folded as Go folds.
const (
	indexedTitle    = "replace(title, 'İ', 'i') || " + titleEndSQL
	indexedNewTitle = "replace(new.title, 'İ', 'i') || " + titleEndSQL
)

// shortQueryMaxInstances is the most occurrences of a query shorter than
// storage.MinIndexedQuery that the index reads and sorts (about 1 µs
// each); a query with more is common enough that a scan of the titles
// meets the search's limit of hits early. In the 1 M scale store the most
// frequent two-character run begins 70,219 trigrams, 基金 48,092, 经济
// 15,189; 中 begins 121,363 and 的 539,815.
const shortQueryMaxInstances = 100_000

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

// migrationTitleEnd takes the schema from version 12 to 13: the title
// tables are built again with indexedTitle, the triggers write it too,
// and the vocabulary tables of the short queries are made (fts5vocab:
// "row" gives each trigram's rows and occurrences, "instance" each
// occurrence's row). The new tables are filled before the old ones are
// dropped: filled after, they would reuse the freed pages, and SQLite
// would keep a statement journal of every reused page, in memory
// (temp_store): 384 MB at 1 M articles.
const migrationTitleEnd = `
DROP TRIGGER article_titles_insert;
DROP TRIGGER article_titles_delete;
DROP TRIGGER article_titles_update;
DROP TRIGGER duplicate_titles_insert;
DROP TRIGGER duplicate_titles_delete;
DROP TRIGGER duplicate_titles_update;
CREATE VIRTUAL TABLE article_titles_13 USING fts5(title, tokenize = 'trigram');
CREATE VIRTUAL TABLE duplicate_titles_13 USING fts5(title, tokenize = 'trigram');
INSERT INTO article_titles_13(rowid, title) SELECT id, ` + indexedTitle + ` FROM articles;
INSERT INTO duplicate_titles_13(rowid, title) SELECT seq, ` + indexedTitle + ` FROM duplicates;
DROP TABLE article_titles;
DROP TABLE duplicate_titles;
ALTER TABLE article_titles_13 RENAME TO article_titles;
ALTER TABLE duplicate_titles_13 RENAME TO duplicate_titles;
CREATE VIRTUAL TABLE article_title_terms USING fts5vocab(article_titles, 'row');
CREATE VIRTUAL TABLE article_title_instances USING fts5vocab(article_titles, 'instance');
CREATE VIRTUAL TABLE duplicate_title_terms USING fts5vocab(duplicate_titles, 'row');
CREATE VIRTUAL TABLE duplicate_title_instances USING fts5vocab(duplicate_titles, 'instance');
CREATE TRIGGER article_titles_insert AFTER INSERT ON articles
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'titles_deferred') BEGIN
	INSERT INTO article_titles(rowid, title) VALUES (new.id, ` + indexedNewTitle + `);
END;
CREATE TRIGGER article_titles_delete AFTER DELETE ON articles BEGIN
	DELETE FROM article_titles WHERE rowid = old.id;
END;
CREATE TRIGGER article_titles_update AFTER UPDATE OF id, title ON articles BEGIN
	DELETE FROM article_titles WHERE rowid = old.id;
	INSERT INTO article_titles(rowid, title) VALUES (new.id, ` + indexedNewTitle + `);
END;
CREATE TRIGGER duplicate_titles_insert AFTER INSERT ON duplicates
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'titles_deferred') BEGIN
	INSERT INTO duplicate_titles(rowid, title) VALUES (new.seq, ` + indexedNewTitle + `);
END;
CREATE TRIGGER duplicate_titles_delete AFTER DELETE ON duplicates BEGIN
	DELETE FROM duplicate_titles WHERE rowid = old.seq;
END;
CREATE TRIGGER duplicate_titles_update AFTER UPDATE OF seq, title ON duplicates BEGIN
	DELETE FROM duplicate_titles WHERE rowid = old.seq;
	INSERT INTO duplicate_titles(rowid, title) VALUES (new.seq, ` + indexedNewTitle + `);
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
		{`INSERT INTO article_titles(rowid, title) SELECT id, ` + indexedTitle + ` FROM articles WHERE id > ?`, art},
		{`INSERT INTO duplicate_titles(rowid, title) SELECT seq, ` + indexedTitle + ` FROM duplicates WHERE seq > ?`, dup},
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
	arts, err := s.matchTitles(ctx, titleIndex{"article_titles", "article_title_terms", "article_title_instances"}, q, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("search titles: articles: %w", err)
	}
	var dups []int64
	if len(arts) <= limit {
		dupIndex := titleIndex{"duplicate_titles", "duplicate_title_terms", "duplicate_title_instances"}
		if dups, err = s.matchTitles(ctx, dupIndex, q, limit+1-len(arts)); err != nil {
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

// titleIndex names a title table of migrationTitleEnd and its vocabulary
// tables.
type titleIndex struct{ table, terms, instances string }

// matchTitles returns the rowids, ascending, of at most n rows of the
// title table of idx whose title matches q.
func (s *Store) matchTitles(ctx context.Context, idx titleIndex, q string, n int) ([]int64, error) {
	table := idx.table
	// The tables hold İ as i (indexedTitle): so does the query, which
	// matches the same titles by storage.TitleMatches either way.
	q = strings.ReplaceAll(q, "İ", "i")
	short := utf8.RuneCountInString(q) < storage.MinIndexedQuery
	if short && storage.StableFold(q) {
		ids, ok, err := s.matchShort(ctx, idx, q, n)
		if err != nil || ok {
			return ids, err
		}
	}
	var rows *sql.Rows
	var err error
	switch {
	case !short:
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
		if storage.TitleMatches(strings.TrimSuffix(title, titleEnd), q) {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

// matchShort answers a query of fewer than storage.MinIndexedQuery
// characters, every letter of which folds alike in the tokenizer and in
// Go, from the vocabulary of idx: the rows of the trigrams that begin
// with q, folded. ok is false, and no row read, when those trigrams occur
// more than shortQueryMaxInstances times.
func (s *Store) matchShort(ctx context.Context, idx titleIndex, q string, n int) (ids []int64, ok bool, err error) {
	// Every trigram beginning with lo sorts from lo to lo followed by a
	// byte that no UTF-8 text holds; the vocabulary is in byte order.
	lo := indexedForm(q)
	hi := lo + "\xff"
	if few, err := s.fewOccurrences(ctx, idx.terms, lo, hi); err != nil || !few {
		return nil, false, err
	}
	// The first rows of the occurrences, sorted in SQL, which keeps only
	// the first m: a title that holds q twice takes two of them, so m
	// grows while it held too few titles.
	for m := 2 * n; ; m *= 2 {
		docs, err := s.int64s(ctx, `SELECT doc FROM `+idx.instances+` WHERE term >= ? AND term < ? ORDER BY doc LIMIT ?`, lo, hi, m)
		if err != nil {
			return nil, false, err
		}
		if ids, err = s.checkTitles(ctx, idx.table, slices.Compact(docs), q, n); err != nil {
			return nil, false, err
		}
		if len(ids) == n || len(docs) < m {
			return ids, true, nil
		}
	}
}

// indexedForm returns q, a query that is storage.StableFold and holds no
// İ, as the title tables index the runs of a title that match it by
// storage.TitleMatches: lower-cased, with U+FFFE and U+FFFF as U+FFFD, as
// the tokenizer reads them (it folds no other character that has no case
// in Go).
func indexedForm(q string) string {
	return strings.Map(func(r rune) rune {
		if r == '\uFFFE' || r == '\uFFFF' {
			return utf8.RuneError
		}
		return r
	}, strings.ToLower(q))
}

// fewOccurrences reports whether the trigrams from lo to hi in terms (a
// vocabulary table of migrationTitleEnd) occur at most
// shortQueryMaxInstances times; it stops reading when they occur more.
func (s *Store) fewOccurrences(ctx context.Context, terms, lo, hi string) (bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT cnt FROM `+terms+` WHERE term >= ? AND term < ?`, lo, hi)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var occurrences int64
	for rows.Next() {
		var cnt int64
		if err := rows.Scan(&cnt); err != nil {
			return false, err
		}
		if occurrences += cnt; occurrences > shortQueryMaxInstances {
			return false, rows.Close()
		}
	}
	return true, rows.Err()
}

// int64s returns the single int64 column of query's rows.
func (s *Store) int64s(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// checkTitles returns the first n of ids (rowids of table, ascending)
// whose title matches q.
func (s *Store) checkTitles(ctx context.Context, table string, ids []int64, q string, n int) ([]int64, error) {
	st, err := s.db.PrepareContext(ctx, `SELECT title FROM `+table+` WHERE rowid = ?`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var out []int64
	for _, id := range ids {
		if len(out) == n {
			break
		}
		var title string
		err := st.QueryRowContext(ctx, id).Scan(&title)
		if errors.Is(err, sql.ErrNoRows) {
			continue // removed since the vocabulary was read
		} else if err != nil {
			return nil, err
		}
		if storage.TitleMatches(strings.TrimSuffix(title, titleEnd), q) {
			out = append(out, id)
		}
	}
	return out, nil
}
