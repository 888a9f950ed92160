package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/renameio/v2"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// ExportLine is one line of `export --format jsonl`: the format
// ../shared/bench/score.py reads, plus metadata and dedup evidence.
type ExportLine struct {
	URL         string   `json:"url"`
	Site        string   `json:"site"`
	Kept        bool     `json:"kept"`
	DupOf       *string  `json:"dup_of"`
	Cluster     int64    `json:"cluster"`
	Title       string   `json:"title"`
	Text        string   `json:"text"`
	PublishedAt *string  `json:"published_at"`
	Source      string   `json:"source"`
	Author      string   `json:"author"`
	Editor      string   `json:"editor,omitempty"`
	FetchedAt   string   `json:"fetched_at"`
	Simhash     string   `json:"simhash"`
	Distance    *int     `json:"distance,omitempty"`
	Jaccard     *float64 `json:"jaccard,omitempty"`
	Containment *float64 `json:"containment,omitempty"`
}

// Export writes one line per decided article URL: stored articles, then
// duplicate verdicts. It returns the number of lines written.
func Export(ctx context.Context, store storage.Store, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	err := store.Articles(ctx, func(a storage.Article) error {
		n++
		return enc.Encode(ExportLine{
			URL: a.URL, Site: a.Site, Kept: true, Cluster: a.Cluster,
			Title: a.Title, Text: a.Text, PublishedAt: timePtr(a.PublishedAt),
			Source: a.Source, Author: a.Author, Editor: a.Editor,
			FetchedAt: a.FetchedAt.UTC().Format(time.RFC3339), Simhash: fmt.Sprintf("%016x", a.Fingerprint.Simhash),
		})
	})
	if err != nil {
		return n, err
	}
	err = store.Duplicates(ctx, func(d storage.Duplicate) error {
		n++
		dupOf, dist, jac, cont := d.DupOfURL, d.Distance, d.Jaccard, d.Containment
		return enc.Encode(ExportLine{
			URL: d.URL, Site: d.Site, Kept: false, DupOf: &dupOf, Cluster: d.Cluster,
			Title: d.Title, Text: d.Text, PublishedAt: timePtr(d.PublishedAt),
			Source: d.Source, Author: d.Author,
			FetchedAt: d.FetchedAt.UTC().Format(time.RFC3339), Simhash: fmt.Sprintf("%016x", d.Simhash),
			Distance: &dist, Jaccard: &jac, Containment: &cont,
		})
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}

// ExportDB exports the SQLite store at db (which must exist: exporting
// never creates a store) to w; see Export. The store is opened read-only
// (a store the process cannot write exports too) and checked with
// QuickCheck first: a damaged store is an error wrapping sqlite.ErrDamaged
// before anything is written.
func ExportDB(ctx context.Context, db string, w io.Writer) (int, error) {
	if _, err := os.Stat(db); err != nil {
		return 0, err
	}
	store, err := sqlite.Open(ctx, db, sqlite.ReadOnly())
	if err != nil {
		return 0, err
	}
	if err := store.QuickCheck(ctx); err != nil {
		store.Close()
		return 0, err
	}
	n, err := Export(ctx, store, w)
	// Close reports a store that changed under a lock-free read (see
	// sqlite.ReadOnly): the export is then not to be trusted.
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// ExportFile exports the SQLite store at db to the file out, atomically: the
// lines go to a temporary file beside out (created exclusively, so never
// through a planted symlink) that replaces out only when the export is
// complete and synced. On any error out is left as it was (absent, or the
// previous export), never truncated or empty. A symlink at out is replaced,
// not followed.
func ExportFile(ctx context.Context, db, out string) (int, error) {
	if _, err := os.Stat(db); err != nil {
		return 0, err
	}
	f, err := renameio.NewPendingFile(out, renameio.WithTempDir(filepath.Dir(out)), renameio.WithPermissions(0o644))
	if err != nil {
		return 0, err
	}
	defer f.Cleanup() //nolint:errcheck // a no-op after CloseAtomicallyReplace; otherwise removes the temporary file
	n, err := ExportDB(ctx, db, f)
	if err != nil {
		return n, err
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return n, fmt.Errorf("write %s: %w", out, err)
	}
	return n, nil
}
