package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// exportLine is one line of `export --format jsonl`: the format
// ../shared/bench/score.py reads, plus metadata and dedup evidence.
type exportLine struct {
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
	if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	store, err := sqlite.Open(ctx, *db)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer store.Close()

	w := stdout
	var f *os.File
	if *out != "" {
		f, err = os.Create(*out)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer f.Close()
		w = f
	}
	n, err := exportJSONL(ctx, store, w)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stderr, "export: %d lines written to %s\n", n, *out)
	}
	return nil
}

// exportJSONL writes one line per decided article URL: stored articles, then
// duplicate verdicts. It returns the number of lines written.
func exportJSONL(ctx context.Context, store storage.Store, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	err := store.Articles(ctx, func(a storage.Article) error {
		n++
		return enc.Encode(exportLine{
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
		return enc.Encode(exportLine{
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
