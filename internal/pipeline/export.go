package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/renameio/v2"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/warcexport"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
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
	// BOM starts a CSV export with the UTF-8 byte order mark, by which
	// Excel recognises UTF-8 (without it, it reads the file in the
	// system's ANSI code page and shows Chinese as mojibake).
	BOM bool
}

// utf8BOM is the UTF-8 encoding of U+FEFF.
const utf8BOM = "\xef\xbb\xbf"

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
		if o.BOM {
			if _, err := io.WriteString(w, utf8BOM); err != nil {
				return 0, err
			}
		}
		return export.CSV(ctx, store, o.Filter, w)
	case FormatWARC:
		c, err := warcexport.Write(ctx, store, w, warcexport.Options{Filter: o.Filter, Gzip: o.Gzip, Software: "newscrawl", Now: time.Now()})
		return c.Articles() + c.Revisit, err
	}
	return 0, fmt.Errorf("unknown export format %q (supported: %s)", o.Format, strings.Join(ExportFormats, ", "))
}

// ExportDB exports the store db names to w; see ExportTo. It opens the
// store with OpenExisting: a postgres:// URL exports the shared store; a
// SQLite file must exist (exporting never creates a store) and is opened
// read-only (a store the process cannot write exports too) and checked
// with QuickCheck first: a damaged store is an error wrapping
// sqlite.ErrDamaged before anything is written.
func ExportDB(ctx context.Context, db string, w io.Writer, o ExportOptions) (int, error) {
	store, err := OpenExisting(ctx, db)
	if err != nil {
		return 0, err
	}
	if qc, ok := store.(quickChecker); ok {
		if err := qc.QuickCheck(ctx); err != nil {
			store.Close()
			return 0, err
		}
	}
	n, err := ExportTo(ctx, store, w, o)
	// Close reports a SQLite store that changed under a lock-free read (see
	// sqlite.ReadOnly): the export is then not to be trusted.
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// ExportFile exports the store db names to the file out, atomically: the
// records go to a temporary file beside out (created exclusively, so never
// through a planted symlink) that replaces out only when the export is
// complete and synced. On any error out is left as it was (absent, or the
// previous export), never truncated or empty. A symlink at out is replaced,
// not followed, unless it leads to a pipe or a device: a named pipe, a
// device or a symlink to one (/dev/stdout, /dev/null) is written into as a
// stream, never replaced (a rename put a regular file in place of the
// pipe, or, for a user who can write /dev, of /dev/null). A directory is
// an error.
func ExportFile(ctx context.Context, db, out string, o ExportOptions) (int, error) {
	if err := CheckStoreName(db); err != nil {
		return 0, err
	}
	if !IsPostgres(db) {
		if err := sqliteExists(db); err != nil {
			return 0, err
		}
	}
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() {
		return exportStream(ctx, db, out, fi, o)
	}
	if err := folderExists(out); err != nil {
		return 0, err
	}
	f, err := renameio.NewPendingFile(out, renameio.WithTempDir(filepath.Dir(out)), renameio.WithPermissions(0o644))
	if err != nil {
		return 0, err
	}
	defer f.Cleanup() //nolint:errcheck // a no-op after CloseAtomicallyReplace; otherwise removes the temporary file
	n, err := ExportDB(ctx, db, f, o)
	if err != nil {
		return n, err
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return n, fmt.Errorf("write %s: %w", out, err)
	}
	return n, nil
}

// exportStream exports into out, an existing file that is not a regular
// file: a pipe or a device is opened for writing (not truncated, not
// replaced); anything else is refused.
func exportStream(ctx context.Context, db, out string, fi fs.FileInfo, o ExportOptions) (int, error) {
	m := fi.Mode()
	if m&(os.ModeNamedPipe|os.ModeCharDevice) == 0 {
		kind := "not a regular file"
		if m.IsDir() {
			kind = "a directory"
		}
		return 0, fmt.Errorf("export to %s: it is %s", out, kind)
	}
	f, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		return 0, fmt.Errorf("export to %s: %w", out, err)
	}
	n, err := ExportDB(ctx, db, f, o)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", out, cerr)
	}
	return n, err
}

// OpenExisting opens the store db names for the reading commands (export,
// report, serve, explain, the evals' reads), read-only: a postgres:// URL
// opens the shared PostgreSQL store (postgres.ReadOnly: an empty schema is
// never given one); anything else is a SQLite file, which must exist. No
// store there is an error wrapping storage.ErrNoStore that says to run
// crawl, import or migrate first.
func OpenExisting(ctx context.Context, db string) (storage.Store, error) {
	if err := CheckStoreName(db); err != nil {
		return nil, err
	}
	if IsPostgres(db) {
		s, err := postgres.Open(ctx, db, postgres.ReadOnly())
		if errors.Is(err, storage.ErrNoStore) {
			return nil, noStoreAt(db, "")
		}
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := sqliteExists(db); err != nil {
		return nil, err
	}
	s, err := sqlite.Open(ctx, db, sqlite.ReadOnly())
	if err != nil {
		return nil, err
	}
	return s, nil
}

// noStoreAt is the error of a reading command finding no store at db,
// wrapping storage.ErrNoStore; why, when not "", says what is missing.
func noStoreAt(db, why string) error {
	if why != "" {
		why = ": " + why
	}
	return fmt.Errorf("%w at %s%s (run crawl, import or migrate first)", storage.ErrNoStore, StoreName(db), why)
}

// sqliteExists returns nil when the SQLite file db exists, and an error
// wrapping storage.ErrNoStore when neither it nor its folder does (or a
// part of the path is a file, not a folder).
func sqliteExists(db string) error {
	_, err := os.Stat(db)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOTDIR):
		return noStoreAt(db, "a part of the path is a file, not a folder")
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(db)
	if _, derr := os.Stat(dir); errors.Is(derr, fs.ErrNotExist) {
		return noStoreAt(db, "no folder "+dir)
	}
	return noStoreAt(db, "")
}

// folderExists returns an error naming the folder of the file out when it
// is missing or not a folder, before a temporary file is created there.
func folderExists(out string) error {
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("cannot write %s: no folder %s", out, dir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", out, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a folder", out, dir)
	}
	return nil
}
