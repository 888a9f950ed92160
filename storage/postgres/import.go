package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// importBatch is how many rows Import sends per COPY.
const importBatch = 1000

// ErrNotEmpty: Import needs an empty target store.
var ErrNotEmpty = errors.New("target store is not empty")

// ImportStats counts what Import copied.
type ImportStats struct {
	Runs, Pages, Articles, Duplicates, Terms, Docs, Raw int
}

// Import copies every run, page, article, duplicate verdict and document
// frequency of src into this store, which must hold none (ErrNotEmpty
// otherwise), in one transaction: it either copies all or nothing. Article
// ids, run ids, clusters and the commit order of pages and duplicates are
// kept, so that dup_of links and cluster ids stay valid. The frontier is
// not copied (the next crawl re-reads its start pages). Import holds the
// crawl lock exclusively, waiting at most migrateLockWait for running
// crawls (ErrLocked after that). A src value PostgreSQL cannot store (text
// with NUL bytes or invalid UTF-8) fails the import with ErrInvalid naming
// the record.
func (s *Store) Import(ctx context.Context, src storage.Store) (ImportStats, error) {
	var st ImportStats
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		st = ImportStats{}
		if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", s.opt.migrateLockWait.Milliseconds())); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockCrawl, s.schemaKey); err != nil {
			if isCode(err, codeLockNotAvailable) {
				return fmt.Errorf("crawls are running on schema %s: %w", s.schema, storage.ErrLocked)
			}
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs) OR EXISTS (SELECT 1 FROM pages)
			OR EXISTS (SELECT 1 FROM articles) OR EXISTS (SELECT 1 FROM docfreq) OR EXISTS (SELECT 1 FROM docfreq_log)`).Scan(&used); err != nil {
			return err
		}
		if used {
			return fmt.Errorf("schema %s: %w", s.schema, ErrNotEmpty)
		}
		imp := &importer{ctx: ctx, tx: tx}
		steps := []func() error{
			func() error { return imp.runs(src, &st) },
			func() error { return imp.pages(src, &st) },
			func() error { return imp.articles(src, &st) },
			func() error { return imp.duplicates(src, &st) },
			func() error { return imp.docFreqs(src, &st) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`SELECT setval(pg_get_serial_sequence('runs', 'id'), max(id)) FROM runs HAVING count(*) > 0`,
			`SELECT setval(pg_get_serial_sequence('pages', 'seq'), max(seq)) FROM pages HAVING count(*) > 0`,
			`SELECT setval(pg_get_serial_sequence('articles', 'id'), max(id)) FROM articles HAVING count(*) > 0`,
			`SELECT setval(pg_get_serial_sequence('duplicates', 'seq'), max(seq)) FROM duplicates HAVING count(*) > 0`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("sequences: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return ImportStats{}, fmt.Errorf("import into postgres schema %s: %w", s.schema, err)
	}
	return st, nil
}

// importer sends rows to one table per COPY batch.
type importer struct {
	ctx  context.Context
	tx   pgx.Tx
	rows [][]any
}

func (im *importer) add(table string, cols []string, row ...any) error {
	im.rows = append(im.rows, row)
	if len(im.rows) < importBatch {
		return nil
	}
	return im.flush(table, cols)
}

func (im *importer) flush(table string, cols []string) error {
	if len(im.rows) == 0 {
		return nil
	}
	if _, err := im.tx.CopyFrom(im.ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(im.rows)); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	im.rows = im.rows[:0]
	return nil
}

// storable reports an error (ErrInvalid) naming what when a value holds
// text PostgreSQL's text type rejects.
func storable(what string, vals ...string) error {
	for _, v := range vals {
		if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("%w: %s holds text that is not valid UTF-8 without NUL bytes", storage.ErrInvalid, what)
		}
	}
	return nil
}

func (im *importer) runs(src storage.Store, st *ImportStats) error {
	runs, err := src.Runs(im.ctx)
	if err != nil {
		return fmt.Errorf("read runs: %w", err)
	}
	cols := sqlcore.Names(sqlcore.RunCols)
	for _, r := range runs {
		stats, err := sqlcore.Stats(r.Stats)
		if err != nil {
			return err
		}
		if err := storable(fmt.Sprintf("run %d", r.ID), r.Status, r.Config); err != nil {
			return err
		}
		if err := im.add("runs", cols, r.ID, sqlcore.NullTime(r.StartedAt), sqlcore.NullTime(r.FinishedAt), r.Status, r.Config, stats); err != nil {
			return err
		}
		st.Runs++
	}
	return im.flush("runs", cols)
}

func (im *importer) pages(src storage.Store, st *ImportStats) error {
	cols := sqlcore.Names("seq, " + sqlcore.PageCols)
	err := src.Pages(im.ctx, func(p storage.Page) error {
		if err := storable("page "+p.URL, p.URL, p.Site, p.ErrKind, p.Err); err != nil {
			return err
		}
		st.Pages++
		return im.add("pages", cols, append([]any{int64(st.Pages)}, sqlcore.PageArgs(&p)...)...)
	})
	if err != nil {
		return fmt.Errorf("pages: %w", err)
	}
	return im.flush("pages", cols)
}

func (im *importer) articles(src storage.Store, st *ImportStats) error {
	cols := sqlcore.Names(sqlcore.ArticleCols)
	err := src.Articles(im.ctx, func(a storage.Article) error {
		if err := storable(fmt.Sprintf("article %d (%s)", a.ID, a.URL), a.URL, a.Site, a.Title, a.Text, a.Source,
			a.Author, a.Editor, a.ContentHash); err != nil {
			return err
		}
		st.Articles++
		return im.add("articles", cols, append([]any{a.ID}, sqlcore.ArticleArgs(a.URL, &a)...)...)
	})
	if err != nil {
		return fmt.Errorf("articles: %w", err)
	}
	if err := im.flush("articles", cols); err != nil {
		return err
	}
	return im.raws(src, st)
}

// raws copies the raw responses a RawStore source kept.
func (im *importer) raws(src storage.Store, st *ImportStats) error {
	rs, ok := src.(storage.RawStore)
	if !ok {
		return nil
	}
	var urls []string
	if err := src.Articles(im.ctx, func(a storage.Article) error { urls = append(urls, a.URL); return nil }); err != nil {
		return fmt.Errorf("raw responses: %w", err)
	}
	for _, u := range urls {
		r, err := rs.Raw(im.ctx, u)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("raw responses: %w", err)
		}
		if err := storable("raw response of "+u, r.Proto); err != nil {
			return err
		}
		if err := putRaw(im.ctx, im.tx, u, &r); err != nil {
			return err
		}
		st.Raw++
	}
	return nil
}

func (im *importer) duplicates(src storage.Store, st *ImportStats) error {
	cols := sqlcore.Names("seq, " + sqlcore.DuplicateCols)
	err := src.Duplicates(im.ctx, func(d storage.Duplicate) error {
		if err := storable("duplicate "+d.URL, d.URL, d.Site, d.DupOfURL, d.Reason, d.Title, d.Text, d.Source, d.Author); err != nil {
			return err
		}
		st.Duplicates++
		return im.add("duplicates", cols, append([]any{int64(st.Duplicates)},
			sqlcore.DuplicateArgs(d.URL, &d, d.DupOfURL, d.Cluster, d.Text)...)...)
	})
	if err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	return im.flush("duplicates", cols)
}

func (im *importer) docFreqs(src storage.Store, st *ImportStats) error {
	cols := []string{"term", "df"}
	docs, err := src.DocFreqs(im.ctx, func(term string, df int) error {
		if err := storable(fmt.Sprintf("term %q", term), term); err != nil {
			return err
		}
		st.Terms++
		return im.add("docfreq", cols, term, int64(df))
	})
	if err != nil {
		return fmt.Errorf("document frequencies: %w", err)
	}
	if err := im.flush("docfreq", cols); err != nil {
		return err
	}
	st.Docs = docs
	if _, err := im.tx.Exec(im.ctx, `UPDATE counters SET value = $1 WHERE key = 'docs'`, docs); err != nil {
		return fmt.Errorf("docs counter: %w", err)
	}
	return nil
}
