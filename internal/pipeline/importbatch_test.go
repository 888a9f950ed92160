package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	const batch, n = 40, 200
	in := writerTestInput(n)
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
			// The record before the failing one repeats the one before
			// it: decided before by a record that is never committed, so
			// not counted as decided before.
			lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
			lines[tt.boom-1] = lines[tt.boom-2]
			in := strings.Join(lines, "\n") + "\n"
			imp := func() (ImportStats, error) {
				return Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(in), "in.jsonl", false),
					ImportOptions{Segmenter: seg, batch: batch})
			}
			st, err := imp()
			if err == nil || !strings.Contains(err.Error(), "planted failure") || !strings.Contains(err.Error(), fmt.Sprintf("http://x/%d", tt.boom)) {
				t.Fatalf("import through the planted failure: %v (%+v)", err, st)
			}
			if got := st.Stored + st.Duplicates + st.NotArticle + st.AlreadyDecided; got != tt.wantStored {
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
			if st2.AlreadyDecided != tt.wantStored+1 || st2.Stored+st2.Duplicates != n-tt.wantStored-1 || st2.Stored == 0 || st2.Duplicates == 0 {
				t.Fatalf("second import: %+v", st2)
			}
			if pages := countPages(t, cfg.Storage); pages != n-1 {
				t.Fatalf("%d pages after the second import, want %d", pages, n-1)
			}
		})
	}
}

// writerTestInput is n import lines: every fourth text unlike any other,
// the rest near-duplicates of one another.
func writerTestInput(n int) string {
	s0 := fixture.Stories()[0]
	base := strings.Join(s0.Paragraphs, "\n")
	var in strings.Builder
	for i := range n {
		text := fmt.Sprintf("第%d号：%s", i, base)
		if i%4 == 0 {
			text = randomText(uint64(i), 400)
		}
		fmt.Fprintf(&in, `{"url":"http://x/%d","title":%q,"text":%s}`+"\n", i, s0.Title, quote(text))
	}
	return in.String()
}

// importKillEnv names the store, the writer's step and the batch at which
// TestImportKillHelper kills itself.
const importKillEnv = "NEWSCRAWL_TEST_IMPORT_KILL"

// importKillBatch is the batch size of the kill tests.
const importKillBatch = 40

// TestImportKillHelper is the process TestImportKilled kills: it imports
// writerTestInput into the store named by the environment and sends
// itself SIGKILL when the store's writer reaches the named step of the
// named batch, while the decisions have run ahead of it.
func TestImportKillHelper(t *testing.T) {
	spec := os.Getenv(importKillEnv)
	if spec == "" {
		t.Skip("run by TestImportKilled")
	}
	parts := strings.Split(spec, "|")
	db, step := parts[0], parts[1]
	at, err := strconv.Atoi(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Storage = db
	hook := func(s string, n int) {
		if s == step && n == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	in := writerTestInput(200)
	_, err = Import(context.Background(), &cfg, "in.jsonl", StreamImport(strings.NewReader(in), "in.jsonl", false),
		ImportOptions{batch: importKillBatch, onBatch: hook})
	t.Fatalf("not killed (import: %v)", err)
}

// TestImportKilled kills an import (kill -9) while its store's writer ends
// a batch, before and after the commit: the store holds exactly the
// batches committed before (whole, Check passes), and the next import
// completes it with the verdicts of an import never killed.
func TestImportKilled(t *testing.T) {
	ctx := context.Background()
	const n = 200
	cfg := config.Default()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	imp := func(db string) ImportStats {
		t.Helper()
		cfg.Storage = db
		st, err := Import(ctx, &cfg, "in.jsonl", StreamImport(strings.NewReader(writerTestInput(n)), "in.jsonl", false),
			ImportOptions{Segmenter: seg, batch: importKillBatch})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	want := outcomes(t, filepath.Join(t.TempDir(), "ref.db"), imp, n)
	for _, tc := range []struct {
		step      string
		batch     int
		committed int // pages in the store after the kill
	}{
		{"end", 1, 0},
		{"end", 3, 2 * importKillBatch},
		{"ended", 3, 3 * importKillBatch},
	} {
		t.Run(fmt.Sprintf("%s of batch %d", tc.step, tc.batch), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "news.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestImportKillHelper$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d", importKillEnv, db, tc.step, tc.batch))
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			if pages := countPages(t, db); pages != tc.committed {
				t.Fatalf("%d pages after the kill, want %d", pages, tc.committed)
			}
			got := outcomes(t, db, imp, n)
			for u, o := range want {
				if got[u] != o {
					t.Errorf("%s: %q after the kill and a second import, %q never killed", u, got[u], o)
				}
			}
		})
	}
}

// outcomes imports into db with imp and returns every URL's outcome, its
// article id or the article its duplicate points at.
func outcomes(t *testing.T, db string, imp func(string) ImportStats, n int) map[string]string {
	t.Helper()
	st := imp(db)
	if st.Stored+st.Duplicates+st.AlreadyDecided != n {
		t.Fatalf("import: %+v", st)
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Check(ctx); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = store.Articles(ctx, func(a storage.Article) error {
		out[a.URL] = fmt.Sprintf("article %d", a.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = store.Duplicates(ctx, func(d storage.Duplicate) error {
		out[d.URL] = "duplicate of " + d.DupOfURL
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != n {
		t.Fatalf("%d URLs decided, want %d", len(out), n)
	}
	return out
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
