package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/devdata"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// verdictCorpus builds an import file of a few thousand texts from the dev
// reprint web's truth (../shared/bench/dev/truth.jsonl: url, title, text
// of every article page, reprints included): every record as it is, every
// record without its first sentence (a near-duplicate of it), and every
// record's first half joined to the next one's second half (a mix that is
// neither). It skips the test when the shared data is absent.
func verdictCorpus(t *testing.T) []byte {
	t.Helper()
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "..", "shared", "bench", "dev", "truth.jsonl")
	f, err := os.Open(path)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but the shared bench data is missing: %v", err)
		}
		t.Skipf("shared bench data not found (%v); it lives in ../shared beside the repository", err)
	}
	defer f.Close()
	var recs []ImportRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r ImportRecord
		if err := json.Unmarshal(sc.Bytes(), &struct {
			URL   *string `json:"url"`
			Title *string `json:"title"`
			Text  *string `json:"text"`
		}{&r.URL, &r.Title, &r.Text}); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if r.Text != "" {
			recs = append(recs, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	put := func(u, title, text string) {
		if err := enc.Encode(ImportRecord{URL: u, Title: title, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range recs {
		put(r.URL, r.Title, r.Text)
		if _, rest, ok := strings.Cut(r.Text, "。"); ok && rest != "" {
			put(r.URL+"#cut", r.Title, rest)
		}
		next := []rune(recs[(i+1)%len(recs)].Text)
		own := []rune(r.Text)
		put(r.URL+"#mix", r.Title, string(own[:len(own)/2])+string(next[len(next)/2:]))
	}
	return b.Bytes()
}

// TestImportBatchedVerdicts: an import that commits its records in batches
// of many to a transaction (document frequencies counted in memory and folded at each
// batch's end) exports exactly what an import committing every record on
// its own does: the same URLs, outcomes, clusters, Jaccards and reasons,
// and the same document frequencies in the store.
func TestImportBatchedVerdicts(t *testing.T) {
	ctx := context.Background()
	in := verdictCorpus(t)
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type result struct {
		st      ImportStats
		export  []byte
		docs    int
		docfreq string
	}
	const batch = 300 // records per transaction: several batches on this input
	run := func(t *testing.T, perRecord bool) result {
		cfg := cfg
		cfg.Storage = filepath.Join(t.TempDir(), "news.db")
		st, err := Import(ctx, &cfg, "in.jsonl", StreamImport(bytes.NewReader(in), "in.jsonl", false),
			ImportOptions{Segmenter: seg, Now: func() time.Time { return at }, perRecord: perRecord, batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		store, err := sqlite.Open(ctx, cfg.Storage)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		if err := store.Check(ctx); err != nil {
			t.Fatal(err)
		}
		var r result
		r.st = st
		var out bytes.Buffer
		if _, err := Export(ctx, store, &out); err != nil {
			t.Fatal(err)
		}
		r.export = out.Bytes()
		var df strings.Builder
		r.docs, err = store.DocFreqs(ctx, func(term string, n int) error { fmt.Fprintf(&df, "%s %d\n", term, n); return nil })
		if err != nil {
			t.Fatal(err)
		}
		r.docfreq = df.String()
		return r
	}
	ref := run(t, true)
	if ref.st.Stored == 0 || ref.st.Duplicates == 0 || ref.st.Read < 2*batch {
		t.Fatalf("reference import %+v: want stored articles and duplicates over several batches", ref.st)
	}
	t.Logf("per record: %d read, %d stored, %d duplicates, %d decided before", ref.st.Read, ref.st.Stored, ref.st.Duplicates, ref.st.AlreadyDecided)
	got := run(t, false)
	if got.st.Read != ref.st.Read || got.st.Stored != ref.st.Stored || got.st.Duplicates != ref.st.Duplicates ||
		got.st.NotArticle != ref.st.NotArticle || got.st.AlreadyDecided != ref.st.AlreadyDecided {
		t.Errorf("batched import %+v, per record %+v", got.st, ref.st)
	}
	if got.docs != ref.docs || got.docfreq != ref.docfreq {
		t.Errorf("document frequencies differ: %d docs, %d bytes of terms; per record %d, %d", got.docs, len(got.docfreq), ref.docs, len(ref.docfreq))
	}
	if !bytes.Equal(got.export, ref.export) {
		g, r := strings.Split(string(got.export), "\n"), strings.Split(string(ref.export), "\n")
		for i := range min(len(g), len(r)) {
			if g[i] != r[i] {
				t.Fatalf("exports differ at line %d:\nbatched    %.300s\nper record %.300s", i+1, g[i], r[i])
			}
		}
		t.Fatalf("exports differ: %d lines batched, %d per record", len(g), len(r))
	}
}
