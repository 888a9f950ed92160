package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestImportWriterFailure: the store's writer commits batches while the
// next records are decided, so when a write fails the decisions have run
// ahead of the store. The import must stop with the write's error, count
// only what the store holds (the batches committed before the failing
// one), leave a store that passes its checks and no index snapshot (the
// index holds records the store does not), and a second import must then
// decide the rest into that store, whose next article ids the import
// assigns ahead.
func TestImportWriterFailure(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	s0 := fixture.Stories()[0]
	base := strings.Join(s0.Paragraphs, "\n")
	const batch, n = 40, 200
	var in strings.Builder
	for i := range n {
		text := fmt.Sprintf("第%d号：%s", i, base) // near-duplicates of one another
		if i%4 == 0 {
			text = randomText(uint64(i), 400) // unlike any other
		}
		fmt.Fprintf(&in, `{"url":"http://x/%d","title":%q,"text":%s}`+"\n", i, s0.Title, quote(text))
	}
	tests := []struct {
		name       string
		boom       int // the record whose article insert fails
		wantStored int // records committed before it: whole batches
	}{
		{name: "failure in the third batch", boom: 2*batch + 8, wantStored: 2 * batch},
		{name: "failure in the first batch", boom: 4, wantStored: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg.Storage = filepath.Join(t.TempDir(), "news.db")
			store, err := sqlite.Open(ctx, cfg.Storage)
			if err != nil {
				t.Fatal(err)
			}
			store.Close()
			raw, err := sql.Open("sqlite", "file:"+cfg.Storage+"?_pragma=busy_timeout(5000)")
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(fmt.Sprintf(`CREATE TRIGGER boom BEFORE INSERT ON articles WHEN new.url = 'http://x/%d'
				BEGIN SELECT RAISE(ABORT, 'planted failure'); END`, tt.boom)); err != nil {
				t.Fatal(err)
			}
			imp := func() (ImportStats, error) {
				return Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(in.String()), "in.jsonl", false),
					ImportOptions{Segmenter: seg, batch: batch})
			}
			st, err := imp()
			if err == nil || !strings.Contains(err.Error(), "planted failure") || !strings.Contains(err.Error(), fmt.Sprintf("http://x/%d", tt.boom)) {
				t.Fatalf("import through the planted failure: %v (%+v)", err, st)
			}
			if got := st.Stored + st.Duplicates + st.NotArticle; got != tt.wantStored {
				t.Fatalf("stats count %d committed (%+v), want %d", got, st, tt.wantStored)
			}
			if pages := countPages(t, cfg.Storage); pages != tt.wantStored {
				t.Fatalf("%d pages in the store, stats say %d", pages, tt.wantStored)
			}
			if _, err := os.Stat(cfg.Storage + ".index"); !os.IsNotExist(err) {
				t.Fatalf("an index snapshot was saved after a failed write: %v", err)
			}
			if _, err := raw.Exec(`DROP TRIGGER boom`); err != nil {
				t.Fatal(err)
			}
			st2, err := imp()
			if err != nil {
				t.Fatal(err)
			}
			if st2.AlreadyDecided != tt.wantStored || st2.Stored+st2.Duplicates != n-tt.wantStored || st2.Stored == 0 || st2.Duplicates == 0 {
				t.Fatalf("second import: %+v", st2)
			}
			if pages := countPages(t, cfg.Storage); pages != n {
				t.Fatalf("%d pages after the second import, want %d", pages, n)
			}
		})
	}
}

// randomText is n CJK characters drawn with seed, in sentences.
func randomText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for i := range n {
		b.WriteRune(rune(0x4e00 + r.IntN(3000)))
		if i%20 == 19 {
			b.WriteString("。")
		}
	}
	return b.String()
}

// countPages counts the page records of the SQLite store at path, after
// checking the store.
func countPages(t *testing.T, path string) int {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Check(ctx); err != nil {
		t.Fatal(err)
	}
	pages := 0
	if err := store.Pages(ctx, func(storage.Page) error { pages++; return nil }); err != nil {
		t.Fatal(err)
	}
	return pages
}
