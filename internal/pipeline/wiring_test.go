package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
)

func TestExtractPage(t *testing.T) {
	ex, err := extract.New(extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := fixture.Stories()[0]
	html := "<html><head><title>" + st.Title + "</title></head><body><article><h1>" + st.Title + "</h1><p>" +
		strings.Join(st.Paragraphs, "</p><p>") + "</p></article></body></html>"
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		page        Page
		wantCharset string
		wantErr     func(error) bool
	}{
		{"utf-8 file", Page{URL: "file:///a.html", Body: []byte(html)}, "utf-8", nil},
		{"gbk by header", Page{URL: "http://x/a.html", Body: []byte(gbk), ContentType: "text/html; charset=gbk"}, "gb18030", nil},
		{"gbk by override", Page{URL: "http://x/a.html", Body: []byte(gbk), Charset: "gb2312"}, "gb18030", nil},
		{"unknown override", Page{Body: []byte(html), Charset: "klingon"}, "", func(err error) bool {
			var de *DecodeError
			return errors.As(err, &de)
		}},
		{"no article", Page{Body: []byte("<html><body><ul><li><a href=/a>a</a></li></ul></body></html>")}, "", func(err error) bool {
			return errors.Is(err, extract.ErrNoArticle)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			art, dec, err := ExtractPage(ex, tc.page)
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("err = %v, want the other kind", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if dec.Charset != tc.wantCharset || art.Title != st.Title || !strings.Contains(art.Text, st.Paragraphs[0]) {
				t.Fatalf("charset %q title %q text %.40q; want %q, the story", dec.Charset, art.Title, art.Text, tc.wantCharset)
			}
		})
	}
}

func TestReadLimited(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadLimited(p, 5); err != nil || string(b) != "12345" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadLimited(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := ReadLimited(p+"x", 4); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v, want not-exist", err)
	}
}

// TestCrawlAndExport runs the wiring end to end on the fixture web: Crawl
// stores the fixture's stories once and records their reprints, and
// ExportFile writes one line per decided URL.
func TestCrawlAndExport(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary and crawls the fixture web")
	}
	sites, stop, err := fixture.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	cfg, err := config.Parse(bytes.NewReader(fixture.SiteYAML(sites, db)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var status bytes.Buffer
	res, err := Crawl(ctx, &cfg, CrawlOptions{ConfigPath: "fixture", Status: &status})
	if err != nil {
		t.Fatal(err)
	}
	want := fixture.Expected()
	if res.Run.Status != storage.RunCompleted || res.Run.Stats.Stored != want.Stored || res.Run.Stats.Duplicates != want.Duplicates {
		t.Fatalf("run %+v, want completed with %d stored and %d duplicates", res.Run, want.Stored, want.Duplicates)
	}
	if !strings.Contains(status.String(), "; 0 fingerprints indexed") {
		t.Errorf("status lines %q do not report the index rebuild", status.String())
	}
	out := filepath.Join(dir, "corpus.jsonl")
	n, err := ExportFile(ctx, db, out, ExportOptions{})
	if err != nil || n != want.Stored+want.Duplicates {
		t.Fatalf("export: %d lines, %v; want %d", n, err, want.Stored+want.Duplicates)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l export.Record
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kept {
			kept++
		}
	}
	if kept != want.Stored {
		t.Errorf("%d kept lines, want %d", kept, want.Stored)
	}
	// A second crawl of the same web decides nothing new and finds the
	// index rebuilt from the store.
	status.Reset()
	res, err = Crawl(ctx, &cfg, CrawlOptions{ConfigPath: "fixture", Status: &status})
	if err != nil || res.Run.Stats.Stored != 0 {
		t.Fatalf("second crawl: %+v, %v; want nothing stored", res.Run, err)
	}
	if !strings.Contains(status.String(), "fingerprints indexed") || strings.Contains(status.String(), " 0 fingerprints indexed") {
		t.Errorf("second crawl status %q: want the stored articles indexed", status.String())
	}
	if _, err := ExportFile(ctx, filepath.Join(dir, "none.db"), filepath.Join(dir, "x.jsonl"), ExportOptions{}); !errors.Is(err, storage.ErrNoStore) {
		t.Errorf("export of a missing store: %v, want storage.ErrNoStore", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.jsonl")); !os.IsNotExist(err) {
		t.Errorf("export of a missing store created its output: %v", err)
	}
}

func TestOfflineDedup(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	seg, err := NewSegmenter(config.Segment{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dedup.New(seg, dedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := fixture.Stories()
	text := func(i int) string { return strings.Join(st[i].Paragraphs, "\n") }
	docs := []OfflineDoc{
		{ID: json.RawMessage(`"a"`), Text: text(0)},
		{ID: json.RawMessage(`"b"`), Text: text(1)},
		{ID: json.RawMessage(`"a2"`), Text: text(0)},
	}
	res, kept, dups, err := Dedup(context.Background(), eng, docs)
	if err != nil {
		t.Fatal(err)
	}
	if kept != 2 || dups != 1 || string(res[2].DupOf) != `"a"` || string(res[2].Cluster) != `"a"` || string(res[1].Cluster) != `"b"` {
		t.Fatalf("kept %d dups %d, results %+v", kept, dups, res)
	}
}
