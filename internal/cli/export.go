package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "data/news.db", "SQLite store to read")
	format := fs.String("format", "jsonl", "output format (jsonl)")
	out := fs.String("out", "", "output file (default: standard output)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *format != "jsonl" {
		return usagef("export: unknown --format %q (supported: jsonl)", *format)
	}
	if fs.NArg() > 0 {
		return usagef("export: unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		if _, err := pipeline.ExportDB(ctx, *db, stdout); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	}
	n, err := pipeline.ExportFile(ctx, *db, *out)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stderr, "export: %d lines written to %s\n", n, *out)
	return nil
}
