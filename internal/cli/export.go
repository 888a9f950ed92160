package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr)
	db := fs.String("db", "data/news.db", "store to read: a SQLite file or a postgres:// URL")
	format := fs.String("format", pipeline.FormatJSONL, "output format: "+strings.Join(pipeline.ExportFormats, ", "))
	out := fs.String("out", "", "output file (default: standard output); a .gz name gzips a WARC export record by record")
	keptOnly := fs.Bool("kept-only", false, "only stored articles, no duplicate verdicts")
	related := fs.Bool("related", false, "give every stored article its related articles (the stored articles it shares passages with, key related)")
	since := fs.String("since", "", "only records fetched at or after this time: RFC 3339 (2026-11-23T08:00:00Z), a date (2026-11-23, UTC) or a duration before now (24h)")
	run := fs.Int64("run", 0, "only records of this run id (report and serve list the runs)")
	channel := fs.String("channel", "", "only records of this channel: newsroom (the portal's or an agency's newsroom), self_media (网易号, 新浪看点, 搜狐号, 企鹅号, 公众号 posts) or unknown (also the records stored before channels were recorded)")
	bom := fs.Bool("bom", false, "csv: start with a UTF-8 byte order mark, so that Excel reads the file as UTF-8 (without it Excel shows Chinese as mojibake)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if dbFlagEmpty(fs) {
		return usagef("export: --db must name a file")
	}
	if !slices.Contains(pipeline.ExportFormats, *format) {
		return usagef("export: unknown --format %q (supported: %s)", *format, strings.Join(pipeline.ExportFormats, ", "))
	}
	if fs.NArg() > 0 {
		return usagef("export: unexpected arguments %q", fs.Args())
	}
	if *bom && *format != pipeline.FormatCSV {
		return usagef("export: --bom applies to --format csv only")
	}
	if *run < 0 {
		return usagef("export: --run must be a run id (> 0), got %d", *run)
	}
	if *channel != "" && !export.ValidChannel(*channel) {
		return usagef("export: unknown --channel %q (newsroom, self_media or unknown)", *channel)
	}
	t, err := export.ParseSince(*since, time.Now())
	if err != nil {
		return usageError{fmt.Errorf("export: --%w", err)}
	}
	o := pipeline.ExportOptions{Format: *format, Filter: export.Filter{KeptOnly: *keptOnly, Since: t, RunID: *run, Related: *related, Channel: *channel},
		Gzip: *format == pipeline.FormatWARC && strings.HasSuffix(*out, ".gz"), BOM: *bom}
	if *out == "" {
		if _, err := pipeline.ExportDB(ctx, *db, stdout, o); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	}
	n, err := pipeline.ExportFile(ctx, *db, *out, o)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stderr, "export: %d records written to %s\n", n, *out)
	return nil
}

// dbFlagEmpty reports whether --db was given with an empty value, which is
// an error rather than a silent fallback to a default store.
func dbFlagEmpty(fs *flag.FlagSet) bool {
	empty := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "db" && strings.TrimSpace(f.Value.String()) == "" {
			empty = true
		}
	})
	return empty
}
