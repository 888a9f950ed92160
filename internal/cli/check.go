package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	db := fs.String("db", "", "SQLite file or postgres:// URL of the store (default: the site file's storage, or "+config.Default().Storage+")")
	site := fs.String("site", "", "site file whose storage, dedup and segment settings the index snapshot is checked against (default: built-in defaults)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("check: unexpected arguments %q", fs.Args())
	}
	cfg, err := siteConfig(*site, *db)
	if err != nil {
		return err
	}
	rep, err := pipeline.Check(ctx, &cfg, cfg.Storage)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	what := "cross-table invariants"
	if rep.FileCheck {
		what = "whole file (integrity_check) and cross-table invariants; recorded for later crawls"
	}
	fmt.Fprintf(stdout, "store %s: sound (%s) in %.1fs\n", rep.Store, what, rep.StoreTook.Seconds())
	fmt.Fprintf(stdout, "index snapshot: %s (%.1fs)\n", rep.Snapshot, rep.SnapshotTook.Seconds())
	return nil
}

// siteConfig is the configuration of commands that take --site and --db:
// the site file's (else the defaults), its storage replaced by db when
// given. A site file that does not load is a usage error.
func siteConfig(site, db string) (config.Config, error) {
	cfg := config.Default()
	if site != "" {
		c, err := config.Load(site)
		if err != nil {
			return cfg, usageError{err}
		}
		cfg = c
	}
	if db != "" {
		cfg.Storage = db
	}
	return cfg, nil
}
