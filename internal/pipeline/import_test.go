package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

func TestStreamImport(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantErr string
		want              int
	}{
		{"records and a blank line", "{\"url\":\"u1\",\"text\":\"t\"}\n\n{\"url\":\"u2\",\"title\":\"h\",\"text\":\"t\",\"site\":\"s\",\"published_at\":\"2026-11-01T08:00:00+08:00\"}\n", "", 2},
		{"unknown key", "{\"url\":\"u1\",\"text\":\"t\"}\n{\"url\":\"u2\",\"text\":\"t\",\"body\":\"x\"}\n", "in.jsonl:2: json: unknown field \"body\"", 1},
		{"missing url", "{\"text\":\"t\"}\n", "in.jsonl:1: missing url", 0},
		{"missing text", "{\"url\":\"u\",\"title\":\"t\"}\n", "in.jsonl:1: missing text", 0},
		{"bad JSON", "{\"url\":\"u\",\n", "in.jsonl:1:", 0},
		{"bad date", "{\"url\":\"u\",\"text\":\"t\",\"published_at\":\"yesterday\"}\n", "in.jsonl:1:", 0},
		{"two values", "{\"url\":\"u\",\"text\":\"t\"} {}\n", "in.jsonl:1: more than one JSON value", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			var err error
			for rec, e := range StreamImport(strings.NewReader(tc.in), "in.jsonl") {
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
	cfg.Storage = filepath.Join(t.TempDir(), "news.db")
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(in), "in.jsonl"), ImportOptions{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if st.Read != len(lines) || st.Stored != len(lines)-1 || st.Duplicates != 1 {
		t.Fatalf("first import: %+v", st)
	}
	st, err = Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(in), "in.jsonl"), ImportOptions{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	if st.AlreadyDecided != len(lines) || st.Stored != 0 || st.Indexed != len(lines) {
		t.Fatalf("second import: %+v", st)
	}
	store, err := sqlite.Open(ctx, cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	o, ok, err := store.Decided(ctx, "http://y/copy")
	if err != nil || !ok || o != storage.OutcomeDuplicate {
		t.Fatalf("the reprint: %v %v %v, want a duplicate", o, ok, err)
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
		for rec, err := range StreamImport(strings.NewReader(in), "in.jsonl") {
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

// TestImportRefusesPostgres: a postgres:// store is an error, not a SQLite
// file created under that name.
func TestImportRefusesPostgres(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := config.Default()
	cfg.Storage = "postgres://u@127.0.0.1:1/news"
	_, err := Import(context.Background(), &cfg, "in.jsonl", StreamImport(strings.NewReader(""), "in.jsonl"), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "SQLite stores only") {
		t.Fatalf("error %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files created: %v", ents)
	}
}
