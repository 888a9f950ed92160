package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

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
// never creates a store) to w; see Export.
func ExportDB(ctx context.Context, db string, w io.Writer) (int, error) {
	if _, err := os.Stat(db); err != nil {
		return 0, err
	}
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	return Export(ctx, store, w)
}

// ExportFile exports the SQLite store at db to a new file out.
func ExportFile(ctx context.Context, db, out string) (int, error) {
	if _, err := os.Stat(db); err != nil {
		return 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	n, err := ExportDB(ctx, db, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
