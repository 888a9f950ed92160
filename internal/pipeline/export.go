package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/warcexport"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// Export formats.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
	FormatWARC  = "warc"
)

// ExportFormats lists the formats ExportTo writes.
var ExportFormats = []string{FormatJSONL, FormatCSV, FormatWARC}

// ExportOptions choose an export's format and records.
type ExportOptions struct {
	Format string // FormatJSONL (default), FormatCSV or FormatWARC
	Filter export.Filter
	// Gzip compresses a WARC export record by record (.warc.gz).
	Gzip bool
}

// Export writes one JSON line per decided article URL (internal/export):
// stored articles, then duplicate verdicts. It returns the number of lines
// written.
func Export(ctx context.Context, store storage.Store, w io.Writer) (int, error) {
	return export.JSONL(ctx, store, export.Filter{}, w)
}

// ExportTo writes store in o's format and returns the number of records
// (lines, CSV rows, or WARC records for articles and duplicates).
func ExportTo(ctx context.Context, store storage.Store, w io.Writer, o ExportOptions) (int, error) {
	switch o.Format {
	case FormatJSONL, "":
		return export.JSONL(ctx, store, o.Filter, w)
	case FormatCSV:
		return export.CSV(ctx, store, o.Filter, w)
	case FormatWARC:
		c, err := warcexport.Write(ctx, store, w, warcexport.Options{Filter: o.Filter, Gzip: o.Gzip, Software: "newscrawl", Now: time.Now()})
		return c.Articles() + c.Revisit, err
	}
	return 0, fmt.Errorf("unknown export format %q (supported: %s)", o.Format, strings.Join(ExportFormats, ", "))
}

// ExportDB exports the store db names (a postgres:// URL, or a SQLite
// file, which must exist: exporting never creates a store) to w; see
// ExportTo.
func ExportDB(ctx context.Context, db string, w io.Writer, o ExportOptions) (int, error) {
	var store storage.Store
	var err error
	if IsPostgres(db) {
		store, err = OpenStore(ctx, db)
	} else {
		store, err = OpenExisting(ctx, db)
	}
	if err != nil {
		return 0, err
	}
	defer store.Close()
	return ExportTo(ctx, store, w, o)
}

// ExportFile exports the store db names to a new file out.
func ExportFile(ctx context.Context, db, out string, o ExportOptions) (int, error) {
	if !IsPostgres(db) {
		if _, err := os.Stat(db); err != nil {
			return 0, err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	n, err := ExportDB(ctx, db, f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// OpenExisting opens the SQLite store at db for reading commands (export,
// report, serve, explain): a missing file is an error, never a new store.
func OpenExisting(ctx context.Context, db string) (*sqlite.Store, error) {
	if _, err := os.Stat(db); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, db)
}
