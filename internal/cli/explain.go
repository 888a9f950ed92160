package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/explain"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

func cmdExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("explain", stderr)
	db := fs.String("db", "data/news.db", "store to read: a SQLite file or a postgres:// URL")
	th := addThresholdFlags(fs)
	pos, err := parseInterspersed(fs, args) // flags before or after the URL
	if err != nil {
		return usageError{err}
	}
	if len(pos) != 1 {
		return usagef("explain: want one URL, got %d arguments", len(pos))
	}
	u := pos[0]
	thr, err := th.resolve()
	if err != nil {
		return err
	}
	store, err := pipeline.OpenExisting(ctx, *db)
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	defer store.Close()
	e, err := explain.Explain(ctx, store, u, thr)
	if errors.Is(err, storage.ErrNotFound) {
		// The store keeps canonical URLs: try the canonical form.
		if c, cerr := urlnorm.Canonical(u, nil); cerr == nil && c != u {
			e, err = explain.Explain(ctx, store, c, thr)
		}
	}
	if err != nil {
		return err
	}
	return explain.Write(stdout, e)
}
