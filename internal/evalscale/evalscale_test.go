package evalscale

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// smallCorpus writes n texts made of the fixture stories' paragraphs in
// rotating combinations, with a few exact repeats.
func smallCorpus(t *testing.T, n int) string {
	t.Helper()
	var paras []string
	for _, s := range fixture.Stories() {
		paras = append(paras, s.Paragraphs...)
	}
	var b bytes.Buffer
	for i := range n {
		text := paras[i%len(paras)] + "\n" + paras[(i*7+3)%len(paras)]
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("s%d", i), "title": fmt.Sprintf("标题%d", i), "text": text})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun(t *testing.T) {
	seg, err := pipeline.NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	corpus := smallCorpus(t, 60)
	rep, err := Run(context.Background(), Config{Docs: []int{20, 40}, Corpus: corpus, Queries: 10, Dir: t.TempDir(), Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.P50 <= 0 || r.P99 < r.P50 || r.ImportPerSec <= 0 || r.StoreBytes <= 0 || r.StartUp <= 0 {
			t.Fatalf("row not filled in: %+v", r)
		}
	}
	var out bytes.Buffer
	rep.WriteTable(&out, 0)
	if !strings.Contains(out.String(), "| 40 |") {
		t.Fatalf("table:\n%s", out.String())
	}
	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{
		{"sizes out of order", Config{Docs: []int{40, 20}, Corpus: corpus, Segmenter: seg}, "ascending"},
		{"corpus too short", Config{Docs: []int{100}, Corpus: corpus, Queries: 10, Segmenter: seg}, "110 texts needed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Run(context.Background(), tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRunStartUp: the start-up measurement fills stores, uses the
// snapshot plus exactly the tail committed after it, and prints a row per
// size.
func TestRunStartUp(t *testing.T) {
	seg, err := pipeline.NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	fpPath := filepath.Join(t.TempDir(), "fp")
	f, err := os.Create(fpPath)
	if err != nil {
		t.Fatal(err)
	}
	w, err := scalecorpus.NewWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1200 {
		sig := make(spotsigs.Signature, 20+rng.IntN(100))
		for i := range sig {
			sig[i] = uint64(rng.IntN(30000))
		}
		slices.Sort(sig)
		if err := w.Write(&dedup.Fingerprint{Simhash: rng.Uint64(), Signature: sig, Title: []uint64{rng.Uint64()}, Words: 100}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rows, err := RunStartUp(context.Background(), StartUpConfig{Docs: []int{300, 600}, Fingerprints: fpPath, Dir: t.TempDir(), Tail: 50, Segmenter: seg, Status: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.Tail != 50 || r.SnapshotBytes <= 0 || r.StoreBytes <= 0 || r.SnapLoad <= 0 || r.RebuildLoad <= 0 || r.Terms == 0 {
			t.Fatalf("row not filled in: %+v", r)
		}
	}
	var out bytes.Buffer
	WriteStartUpTable(&out, rows, 0)
	if !strings.Contains(out.String(), "| 600 |") {
		t.Fatalf("table:\n%s", out.String())
	}
}
