package postgres

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/storage"
)

// Title search (serve's /search): a GIN index over an expression, the set
// of two- and three-character substrings of the lower-cased title
// (title_grams, a function of the store's schema), on articles and on
// duplicates. A query of two characters or more (a two-character Chinese
// word included) asks the index for the rows whose title holds every gram
// of the query (GIN's array containment, @>), and checks each with
// storage.TitleMatches; a one-character query scans the titles with
// strpos(). The matching rows are read through the index first and sorted
// after (a MATERIALIZED common table expression): walking the primary key
// in order and computing every title's grams was the planner's choice for
// rare queries, and cost a function call per row.
//
// This is pg_trgm's method (trigram sets in a GIN index) without the
// extension: an extension lives in one schema of the database and needs
// CREATE on it, while stores are schemas of a shared database created by
// their owner; pg_trgm also drops punctuation from its trigrams. The index
// is an ordinary expression index, maintained by every INSERT, UPDATE and
// DELETE in the writing transaction and built by the migration.
//
// lower() folds case by the database's locale. The index and strpos() are
// used only when every character of the query folds the same way
// everywhere (characters without case, ASCII letters whose case partners
// are ASCII); any other query scans the titles and folds them in Go.

// migrationTitleSearch takes the schema from version 5 to 6.
const migrationTitleSearch = `
CREATE FUNCTION title_grams(t TEXT) RETURNS TEXT[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT coalesce(array_agg(DISTINCT g), '{}') FROM (
		SELECT substr(lower(t), i, 3) AS g FROM generate_series(1, char_length(t) - 2) AS i
		UNION ALL
		SELECT substr(lower(t), i, 2) FROM generate_series(1, char_length(t) - 1) AS i
	) AS grams
$$;
CREATE INDEX articles_title_grams ON articles USING gin (title_grams(title)) WITH (fastupdate = off);
CREATE INDEX duplicates_title_grams ON duplicates USING gin (title_grams(title)) WITH (fastupdate = off);
`

// minGramQuery is the shortest query, in characters, that the gram index
// answers (its shortest grams).
const minGramQuery = 2

// searchPage is how many candidate rows a title search reads per query.
const searchPage = 512

// SearchTitles returns the articles (by id), then the duplicates (in commit
// order), whose title matches q by storage.TitleMatches, at most limit of
// them; more reports that there were more. An empty q matches nothing.
func (s *Store) SearchTitles(ctx context.Context, q string, limit int) (hits []storage.TitleHit, more bool, err error) {
	if q == "" || limit <= 0 {
		return nil, false, nil
	}
	cond, indexed := titleCondition(q)
	hits, err = s.matchTitles(ctx, titleQuery("id, url, site, title, cluster, run_id", "0, '', 0", "articles", "id", cond, indexed), q, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("search titles: articles: %w", err)
	}
	if len(hits) <= limit {
		dups, err := s.matchTitles(ctx, titleQuery("seq, url, site, title, cluster, run_id, dup_of, reason, jaccard", "",
			"duplicates", "seq", cond, indexed), q, limit+1-len(hits))
		if err != nil {
			return nil, false, fmt.Errorf("search titles: duplicates: %w", err)
		}
		for i := range dups {
			dups[i].ID = 0 // the seq, only a cursor
		}
		hits = append(hits, dups...)
	}
	if len(hits) > limit {
		hits, more = hits[:limit], true
	}
	return hits, more, nil
}

// titleCondition is the SQL condition ($1: the query) that selects the
// rows a title search reads, a superset of its matches, and whether it is
// answered by the gram index.
func titleCondition(q string) (cond string, indexed bool) {
	switch {
	case !storage.StableFold(q):
		return `$1::text IS NOT NULL`, false // every row, checked in Go
	case utf8.RuneCountInString(q) >= minGramQuery:
		return `title_grams(title) @> title_grams($1)`, true
	default:
		return `strpos(lower(title), lower($1)) > 0`, false
	}
}

// titleQuery is the query of a page of matchTitles over table (cols, then
// the constant columns extra), in key order. The index's matches are read
// first and sorted after (MATERIALIZED); a scanning condition walks the
// primary key and stops at the page's end.
func titleQuery(cols, extra, table, key, cond string, indexed bool) string {
	out := cols
	if extra != "" {
		out += ", " + extra
	}
	if indexed {
		return `WITH m AS MATERIALIZED (SELECT ` + cols + ` FROM ` + table + ` WHERE ` + cond + ` AND ` + key + ` > $2)
			SELECT ` + out + ` FROM m ORDER BY ` + key + ` LIMIT $3`
	}
	return `SELECT ` + out + ` FROM ` + table + ` WHERE ` + cond + ` AND ` + key + ` > $2 ORDER BY ` + key + ` LIMIT $3`
}

// matchTitles reads the rows of query ($1 the query q, $2 the cursor, $3
// the page size) page by page and returns at most n of those whose title
// matches q; the first column is the cursor (id or seq).
func (s *Store) matchTitles(ctx context.Context, query string, q string, n int) ([]storage.TitleHit, error) {
	var hits []storage.TitleHit
	var after int64
	for len(hits) < n {
		rows, err := s.pool.Query(ctx, query, q, after, searchPage)
		if err != nil {
			return nil, err
		}
		read := 0
		for rows.Next() && len(hits) < n {
			var h storage.TitleHit
			if err := rows.Scan(&h.ID, &h.URL, &h.Site, &h.Title, &h.Cluster, &h.RunID, &h.DupOf, &h.Reason, &h.Jaccard); err != nil {
				rows.Close()
				return nil, err
			}
			read++
			after = h.ID
			if storage.TitleMatches(h.Title, q) {
				hits = append(hits, h)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if read < searchPage {
			break
		}
	}
	return hits, nil
}
