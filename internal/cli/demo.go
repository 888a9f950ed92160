package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stderr)
	dir := fs.String("dir", "", "directory for the demo store and corpus, kept at the end (default: a new temporary directory, removed at the end)")
	keep := fs.Bool("keep", false, "keep the temporary directory and say where it is")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("demo: unexpected arguments %q", fs.Args())
	}
	keepDir := *keep || *dir != ""
	if *dir == "" {
		d, err := os.MkdirTemp("", "newscrawl-demo-")
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		*dir = d
		if !*keep {
			defer func() {
				if err := os.RemoveAll(d); err != nil {
					fmt.Fprintf(stderr, "demo: could not remove %s: %v\n", d, err)
					return
				}
				fmt.Fprintf(stdout, "removed %s (run with --keep to keep the store and corpus)\n", d)
			}()
		}
	} else if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if keepDir {
		defer fmt.Fprintf(stdout, "kept %s (store, site file and corpus)\n", *dir)
	}
	sites, stop, err := fixture.Listen()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer stop()
	for _, s := range sites {
		fmt.Fprintf(stdout, "fixture site %-10s %s\n", s.Name, s.URL)
	}
	dbPath := filepath.Join(*dir, "news.db")
	siteFile := filepath.Join(*dir, "sites.yaml")
	if err := os.WriteFile(siteFile, fixture.SiteYAML(sites, dbPath), 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	cfg, err := config.Parse(bytes.NewReader(fixture.SiteYAML(sites, dbPath)))
	if err != nil {
		return fmt.Errorf("demo: fixture config: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if _, err := crawl(ctx, &cfg, pipeline.CrawlOptions{ConfigPath: siteFile, ProgressEvery: 2 * time.Second, Log: log}, stdout, stderr); err != nil {
		return err
	}
	if err := demoCronRun(ctx, &cfg, pipeline.CrawlOptions{ConfigPath: siteFile, Log: log}, stdout); err != nil {
		return err
	}
	corpus := filepath.Join(*dir, "corpus.jsonl")
	n, err := pipeline.ExportFile(ctx, dbPath, corpus, pipeline.ExportOptions{})
	if err != nil {
		return fmt.Errorf("demo: export: %w", err)
	}

	store, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer store.Close()
	fmt.Fprintf(stdout, "\nkept articles:\n")
	stored := 0
	err = store.Articles(ctx, func(a storage.Article) error {
		stored++
		fmt.Fprintf(stdout, "  [%d] %s  (%s)\n", a.ID, a.Title, a.URL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(stdout, "dropped as near-duplicates:\n")
	dups := 0
	err = store.Duplicates(ctx, func(d storage.Duplicate) error {
		dups++
		fmt.Fprintf(stdout, "  %s\n    = duplicate of [%d] (%s; hamming %d, jaccard %.2f, containment %.2f)\n", d.URL, d.DupOf, d.Reason, d.Distance, d.Jaccard, d.Containment)
		return nil
	})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	want := fixture.Expected()
	if keepDir {
		fmt.Fprintf(stdout, "\nstore:  %s\nsites:  %s\ncorpus: %s (%d lines; `newscrawl export --db %s` writes it again)\n", dbPath, siteFile, corpus, n, dbPath)
	} else {
		fmt.Fprintf(stdout, "\ncorpus: %d lines exported (the store and corpus are in a temporary directory removed at the end; --keep keeps them)\n", n)
	}
	if stored != want.Stored || dups != want.Duplicates {
		return fmt.Errorf("demo: expected %d stored and %d duplicates, got %d and %d", want.Stored, want.Duplicates, stored, dups)
	}
	fmt.Fprintf(stdout, "demo ok: %d stories stored once, %d reprints recorded as duplicates\n", stored, dups)
	return demoReplica(ctx, *dir, log, stdout, stderr)
}
