package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
)

// dedupDoc is one input document of offline dedup.
type dedupDoc struct {
	ID    json.RawMessage `json:"id"`
	Title string          `json:"title"`
	Text  string          `json:"text"`
	Err   string          `json:"-"` // why the document could not be read (HTML input)
}

// dedupResult is one output line.
type dedupResult struct {
	ID          json.RawMessage `json:"id"`
	Cluster     json.RawMessage `json:"cluster"`
	Kept        bool            `json:"kept"`
	DupOf       json.RawMessage `json:"dup_of"`
	Jaccard     *float64        `json:"jaccard,omitempty"`
	Containment *float64        `json:"containment,omitempty"`
	Reason      string          `json:"reason,omitempty"`
}

func cmdDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dedup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "input: a JSONL file of {id, text, title} or a directory of HTML pages")
	out := fs.String("out", "", "output JSONL file (default: standard output)")
	jac := fs.Float64("jaccard", dedup.DefaultJaccard, "SpotSigs Jaccard threshold")
	ham := fs.Int("hamming", dedup.DefaultHamming, "Simhash candidate radius")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *in == "" || fs.NArg() > 0 {
		return usagef("dedup: --in FILE.jsonl or --in DIR is required")
	}
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	defer stopProfile()
	st, err := os.Stat(*in)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	var docs []dedupDoc
	if st.IsDir() {
		docs, err = readHTMLDir(*in, stderr)
	} else {
		docs, err = readJSONL(*in)
	}
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	t0 := time.Now()
	seg, err := newSegmenter(segmentDefaults())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "dedup: segmenter loaded in %.2fs; %d documents\n", time.Since(t0).Seconds(), len(docs))
	eng, err := dedup.New(seg, dedup.Options{Hamming: *ham, Jaccard: *jac})
	if err != nil {
		return usageError{err}
	}

	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	t1 := time.Now()
	kept, dups := 0, 0
	batch := make([]dedup.Doc, len(docs))
	for i, d := range docs {
		batch[i] = dedup.Doc{Title: d.Title, Text: d.Text}
	}
	// Clusters can merge later in the batch (dedup.Verdict.Merged), so the
	// lines are written once every verdict is in.
	results := make([]dedupResult, len(docs))
	clusters := make([]uint64, len(docs))
	err = eng.Batch(ctx, batch, func(i int, v dedup.Verdict) error {
		r := dedupResult{ID: docs[i].ID, Kept: !v.Duplicate, DupOf: json.RawMessage("null"), Reason: v.Reason}
		clusters[i] = uint64(i)
		if v.Duplicate {
			dups++
			r.DupOf = docs[v.DupOf].ID
			clusters[i] = v.Cluster
			j, c := v.Jaccard, v.Containment
			r.Jaccard, r.Containment = &j, &c
		} else {
			kept++
		}
		results[i] = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	for i := range results {
		results[i].Cluster = docs[eng.ClusterOf(clusters[i])].ID
		if err := enc.Encode(results[i]); err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	el := time.Since(t1)
	fmt.Fprintf(stderr, "dedup: %d documents in %.2fs (%.0f docs/s): %d kept, %d duplicates\n",
		len(docs), el.Seconds(), float64(len(docs))/el.Seconds(), kept, dups)
	return nil
}

func readJSONL(path string) ([]dedupDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []dedupDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var d dedupDoc
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(d.ID) == 0 || string(d.ID) == "null" {
			return nil, fmt.Errorf("%s:%d: missing id", path, line)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return docs, nil
}

// readHTMLDir extracts every .html/.htm/.shtml file under dir; the id is the
// path relative to dir. Pages without an article are kept with empty text
// (they never join a cluster) and reported.
func readHTMLDir(dir string, stderr io.Writer) ([]dedupDoc, error) {
	ex, err := extract.New(extract.Options{})
	if err != nil {
		return nil, err
	}
	var docs []dedupDoc
	skipped := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !isHTMLName(path) {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		id, _ := json.Marshal(filepath.ToSlash(rel))
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		doc := dedupDoc{ID: id}
		body, _, err := decode.ToUTF8(raw, "", "")
		if err == nil {
			var a *extract.Article
			if a, err = ex.Extract("file://"+filepath.ToSlash(path), body); err == nil {
				doc.Title, doc.Text = a.Title, a.Text
			}
		}
		if err != nil {
			skipped++
			if !errors.Is(err, extract.ErrNoArticle) {
				fmt.Fprintf(stderr, "dedup: %s: %v\n", rel, err)
			}
		}
		docs = append(docs, doc)
		return nil
	})
	if skipped > 0 {
		fmt.Fprintf(stderr, "dedup: %d pages had no extractable article (kept as singletons)\n", skipped)
	}
	return docs, err
}

func isHTMLName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".html", ".htm", ".shtml", ".xhtml":
		return true
	}
	return false
}
