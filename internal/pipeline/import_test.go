package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/dedupinput"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

func TestStreamImport(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantErr string
		want              int
		lenient           bool
	}{
		{"records and a blank line", "{\"url\":\"u1\",\"text\":\"t\"}\n\n{\"url\":\"u2\",\"title\":\"h\",\"text\":\"t\",\"site\":\"s\",\"published_at\":\"2026-11-01T08:00:00+08:00\"}\n", "", 2, false},
		{"unknown key", "{\"url\":\"u1\",\"text\":\"t\"}\n{\"url\":\"u2\",\"text\":\"t\",\"body\":\"x\"}\n", "in.jsonl:2: unknown key \"body\"", 1, false},
		{"unknown key, lenient", "{\"url\":\"u1\",\"text\":\"t\"}\n{\"url\":\"u2\",\"text\":\"t\",\"body\":\"x\"}\n", "", 2, true},
		// A line of newscrawl's own export (internal/export.Record): its
		// keys are known, url, title, text, site and published_at used.
		{"export line", `{"run_id":3,"url":"https://a.example/1","site":"a","kept":true,"dup_of":null,"cluster":1,"title":"t","text":"x","published_at":"2026-11-20T08:00:00+08:00","source":"s","author":"a","editor":"","fetched_at":"2026-11-20T08:00:00Z","simhash":"00000000000000ff","distance":null,"jaccard":null,"containment":null,"reason":null,"partial_of":null,"own_share":null,"passages":null}` + "\n", "", 1, false},
		{"missing url", "{\"text\":\"t\"}\n", "in.jsonl:1: missing url", 0, false},
		{"blank url", "{\"url\":\" \\t \",\"text\":\"t\"}\n", "in.jsonl:1: missing url", 0, false},
		{"missing text", "{\"url\":\"u\",\"title\":\"t\"}\n", "in.jsonl:1: missing text", 0, false},
		{"bad JSON", "{\"url\":\"u\",\n", "in.jsonl:1:", 0, false},
		{"bad date", "{\"url\":\"u\",\"text\":\"t\",\"published_at\":\"yesterday\"}\n", "in.jsonl:1:", 0, false},
		{"two values", "{\"url\":\"u\",\"text\":\"t\"} {}\n", "in.jsonl:1: more than one JSON value", 0, false},
		{"date before 1678", "{\"url\":\"u1\",\"text\":\"t\",\"published_at\":\"2026-11-01T08:00:00Z\"}\n{\"url\":\"u\",\"text\":\"t\",\"published_at\":\"1500-01-01T00:00:00Z\"}\n", "in.jsonl:2: invalid argument: published_at 1500-01-01T00:00:00Z outside 1678..2261", 1, false},
		{"date after 2261", "{\"url\":\"u\",\"text\":\"t\",\"published_at\":\"9999-12-31T23:59:59Z\"}\n", "in.jsonl:1: invalid argument: published_at 9999-12-31T23:59:59Z outside 1678..2261", 0, false},
		{"text given twice", "{\"url\":\"u1\",\"text\":\"t\"}\n{\"url\":\"u\",\"text\":\"t\",\"text\":\"\"}\n", "in.jsonl:2: key \"text\" given twice", 1, false},
		{"url given twice in two cases", "{\"url\":\"u\",\"URL\":\"v\",\"text\":\"t\"}\n", "in.jsonl:1: keys \"url\" and \"URL\" both set \"url\"", 0, false},
		{"invalid UTF-8", "{\"url\":\"u\",\"text\":\"\xb1\xb1\xbe\xa9\"}\n", "in.jsonl:1: not valid UTF-8 at byte 20", 0, false},
		{"lone surrogate", "{\"url\":\"u\",\"text\":\"\\udead\"}\n", "in.jsonl:1: escape \\udead at byte 20 is half a UTF-16 surrogate pair", 0, false},
		{"line too long", "{\"url\":\"u\",\"text\":\"" + strings.Repeat("x", dedupinput.MaxLine) + "\"}\n", "in.jsonl:1: line longer than 64 MiB", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			var err error
			for rec, e := range StreamImport(strings.NewReader(tc.in), "in.jsonl", tc.lenient) {
				if e != nil {
					err = e
					break
				}
				if rec.Site == "" {
					t.Fatal("record without a site")
				}
				n++
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if n != tc.want {
				t.Fatalf("%d records before the error, want %d", n, tc.want)
			}
		})
	}
}

// TestImport: imported records go through the dedup decision (a reprint
// becomes a duplicate), and importing again changes nothing.
func TestImport(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "news.db") }},
		{"postgres", pgSchema}, // skipped without a server (a failure under CI)
	} {
		t.Run(tc.name, func(t *testing.T) { testImport(t, tc.store(t)) })
	}
}

// testImport imports the fixture stories and a reprint into db twice: the
// first import stores every story and records the reprint as a duplicate,
// the second finds every URL decided.
func testImport(t *testing.T, db string) {
	ctx := context.Background()
	var lines []string
	for _, s := range fixture.Stories() {
		text := strings.Join(s.Paragraphs, "\n")
		lines = append(lines, `{"url":"http://x/`+s.ID+`","title":"`+s.Title+`","text":`+quote(text)+`}`)
	}
	s0 := fixture.Stories()[0]
	lines = append(lines, `{"url":"http://y/copy","title":"`+s0.Title+`","text":`+quote(strings.Join(s0.Paragraphs[1:], "\n"))+`}`)
	in := strings.Join(lines, "\n") + "\n"
	cfg := config.Default()
	cfg.Storage = db
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(in), "in.jsonl", false), ImportOptions{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if st.Read != len(lines) || st.Stored != len(lines)-1 || st.Duplicates != 1 {
		t.Fatalf("first import: %+v", st)
	}
	st, err = Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(in), "in.jsonl", false), ImportOptions{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if st.AlreadyDecided != len(lines) || st.Stored != 0 || st.Indexed != len(lines) {
		t.Fatalf("second import: %+v", st)
	}
	store, err := OpenStore(ctx, cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	o, ok, err := store.Decided(ctx, "http://y/copy")
	if err != nil || !ok || o != storage.OutcomeDuplicate {
		t.Fatalf("the reprint: %v %v %v, want a duplicate", o, ok, err)
	}
}

// TestImportBatches: records are committed many to a transaction;
// across batch boundaries every URL is decided exactly once, a URL repeated
// inside one batch keeps its first verdict, and an error ends the import
// with every record before it kept (the open batch is committed).
func TestImportBatches(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	s0 := fixture.Stories()[0]
	base := strings.Join(s0.Paragraphs, "\n")
	const batch = 500 // records per transaction, for a test of a few batches
	n := batch + batch/2
	tests := []struct {
		name    string
		tail    string // appended after the n records
		wantErr string
	}{
		{name: "all lines good"},
		{name: "bad line after one and a half batches", tail: `{"url":"http://bad"}` + "\n", wantErr: "missing text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg.Storage = filepath.Join(t.TempDir(), "news.db")
			var b strings.Builder
			for i := range n {
				u := fmt.Sprintf("http://x/%d", i)
				if i == 7 {
					u = "http://x/3" // repeated inside the first batch
				}
				text := fmt.Sprintf("第%d号：%s", i, base)
				if i%50 == 0 {
					text = fmt.Sprintf("编号%d的独立报道：城市%d的居民讨论交通、天气与学校的新安排。", i, i*7)
				}
				fmt.Fprintf(&b, `{"url":%q,"title":%q,"text":%s}`+"\n", u, s0.Title, quote(text))
			}
			b.WriteString(tt.tail)
			st, err := Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(b.String()), "in.jsonl", false), ImportOptions{Segmenter: seg, batch: batch})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("import error %v, want %q", err, tt.wantErr)
			}
			if st.Read != n || st.AlreadyDecided != 1 || st.Stored+st.Duplicates != n-1 || st.Stored == 0 || st.Duplicates == 0 {
				t.Fatalf("stats %+v", st)
			}
			store, err := sqlite.Open(ctx, cfg.Storage)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			for i := range n {
				if i == 7 {
					continue
				}
				u := fmt.Sprintf("http://x/%d", i)
				if _, ok, err := store.Decided(ctx, u); err != nil || !ok {
					t.Fatalf("%s not decided after the import: %v", u, err)
				}
			}
			pages := 0
			if err := store.Pages(ctx, func(storage.Page) error { pages++; return nil }); err != nil {
				t.Fatal(err)
			}
			if pages != n-1 {
				t.Fatalf("%d pages stored, want %d", pages, n-1)
			}
			if err := store.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzStreamImport: any input yields records with a url and a text, or
// stops at an error naming a line; it never panics.
func FuzzStreamImport(f *testing.F) {
	f.Add("{\"url\":\"u\",\"text\":\"t\"}\n")
	f.Add("{\"url\":\"u\",\"text\":\"t\",\"published_at\":\"2026-01-02T03:04:05Z\",\"site\":\"s\",\"title\":\"h\"}\n\n{\"url\":1}\n")
	f.Add("{\"url\":\"u\",\"text\":\"t\"} {\"x\":1}\n")
	f.Add("\xff\xfe{}\n")
	f.Fuzz(func(t *testing.T, in string) {
		for rec, err := range StreamImport(strings.NewReader(in), "in.jsonl", false) {
			if err != nil {
				if !strings.HasPrefix(err.Error(), "in.jsonl:") {
					t.Fatalf("error without a line: %v", err)
				}
				break
			}
			if rec.URL == "" || rec.Text == "" || rec.Site == "" {
				t.Fatalf("record without url, text or site: %+v", rec)
			}
		}
	})
}

// TestFingerprintAhead: the records come out in input order with the
// fingerprint Engine.Fingerprint gives (computed ahead on every core, or
// left nil for TF-IDF weights), and an input error ends the sequence.
func TestFingerprintAhead(t *testing.T) {
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	var recs []ImportRecord
	for i, s := range fixture.Stories() {
		recs = append(recs, ImportRecord{URL: fmt.Sprintf("http://x/%d", i), Title: s.Title, Text: strings.Join(s.Paragraphs, "\n")})
	}
	for len(recs) < 3*importChunk/2 {
		recs = append(recs, ImportRecord{URL: fmt.Sprintf("http://x/%d", len(recs)), Text: fmt.Sprintf("第%d条：%s", len(recs), recs[len(recs)%5].Text)})
	}
	bad := errors.New("in.jsonl:99: missing text")
	tests := []struct {
		name      string
		weighting segment.Weighting
		wantFP    bool
	}{
		{name: "tf: fingerprinted ahead", weighting: segment.TF, wantFP: true},
		{name: "tf-idf: in turn", weighting: segment.TFIDF, wantFP: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, err := dedup.New(seg, dedup.Options{Research: dedup.Research{Weighting: tt.weighting}})
			if err != nil {
				t.Fatal(err)
			}
			in := func(yield func(ImportRecord, error) bool) {
				for _, r := range recs {
					if !yield(r, nil) {
						return
					}
				}
				yield(ImportRecord{}, bad)
			}
			done := make(chan struct{})
			defer close(done)
			i := 0
			for it := range itemsOf(fingerprintAhead(in, eng, done)) {
				if i == len(recs) {
					if it.err != bad {
						t.Fatalf("item %d: err %v, want the input's error", i, it.err)
					}
					i++
					continue
				}
				if it.err != nil || it.rec.URL != recs[i].URL {
					t.Fatalf("item %d: %s, %v; want %s", i, it.rec.URL, it.err, recs[i].URL)
				}
				switch {
				case !tt.wantFP && it.fp != nil:
					t.Fatalf("item %d fingerprinted ahead with TF-IDF weights", i)
				case tt.wantFP && (it.fp == nil || !reflect.DeepEqual(it.fp, eng.Fingerprint(recs[i].Title, recs[i].Text))):
					t.Fatalf("item %d: fingerprint differs from Engine.Fingerprint", i)
				}
				i++
			}
			if i != len(recs)+1 {
				t.Fatalf("%d items, want %d", i, len(recs)+1)
			}
		})
	}
}
