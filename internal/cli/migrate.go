package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("migrate", stderr)
	from := fs.String("from", "data/news.db", "SQLite store to copy (it must exist)")
	to := fs.String("to", "", "postgres:// URL of the target database (its schema must hold no corpus yet)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("migrate: unexpected arguments %q", fs.Args())
	}
	if !pipeline.IsPostgres(*to) {
		return usagef("migrate: --to must be a postgres:// URL, got %q", *to)
	}
	if pipeline.IsPostgres(*from) {
		return usagef("migrate: --from must be a SQLite file, got a URL")
	}
	st, err := pipeline.Migrate(ctx, *from, *to)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrated %s: %d runs, %d pages, %d articles, %d duplicates, %d raw responses, %d terms over %d documents\n",
		*from, st.Runs, st.Pages, st.Articles, st.Duplicates, st.Raw, st.Terms, st.Docs)
	return nil
}
