package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestSQLiteConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		// A nested path also checks that missing parent directories are made.
		return openTemp(t, filepath.Join(t.TempDir(), "a", "b", "store.db"))
	})
}

func openTemp(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens the store's file behind its back, to plant states the store
// itself never writes.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

var when = time.Date(2023, 11, 2, 9, 41, 0, 987654321, time.UTC)

func storedCommit(url string, terms ...string) *storage.Commit {
	return &storage.Commit{
		Page: storage.Page{URL: url, Site: "qq", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: when},
		Article: &storage.Article{
			URL: url, Site: "qq", RunID: 1, Title: "两岸经贸文化论坛开幕", Text: "中新网7月11日电 第五届两岸经贸文化论坛11日上午在长沙开幕。",
			PublishedAt: when.Add(-time.Hour), Source: "中新网", Author: "记者", Editor: "编辑", FetchedAt: when,
			ContentHash: "ab12", Fingerprint: storage.Fingerprint{Simhash: 1<<64 - 1, Signature: []uint64{1, 1, 1 << 63}, Length: 9},
		},
		Terms: terms,
	}
}

func dupCommit(url string, of int64) *storage.Commit {
	return &storage.Commit{
		Page: storage.Page{URL: url, Site: "sohu", RunID: 1, Outcome: storage.OutcomeDuplicate, Status: 200, FetchedAt: when},
		Duplicate: &storage.Duplicate{URL: url, Site: "sohu", RunID: 1, DupOf: of, Distance: 2, Jaccard: 0.9, Title: "转", FetchedAt: when, Simhash: 7,
			Signature: []uint64{4, 4, 9}},
	}
}

type contents struct {
	Runs     []storage.Run
	Pages    []storage.Page
	Articles []storage.Article
	Dups     []storage.Duplicate
	DF       map[string]int
	Docs     int
	Pending  map[string]int
}

func dump(t *testing.T, s storage.Store) contents {
	t.Helper()
	ctx := context.Background()
	var c contents
	var err error
	if c.Runs, err = s.Runs(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Pages(ctx, func(p storage.Page) error { c.Pages = append(c.Pages, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Articles(ctx, func(a storage.Article) error { c.Articles = append(c.Articles, a); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error { c.Dups = append(c.Dups, d); return nil }); err != nil {
		t.Fatal(err)
	}
	c.DF = map[string]int{}
	if c.Docs, err = s.DocFreqs(ctx, func(term string, df int) error { c.DF[term] = df; return nil }); err != nil {
		t.Fatal(err)
	}
	c.Pending = map[string]int{}
	for _, site := range []string{"", "qq", "sohu"} {
		if c.Pending[site], err = s.Pending(ctx, site); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// populate writes one of everything and leaves two frontier items, one in flight.
func populate(t *testing.T, s storage.Store) {
	t.Helper()
	ctx := context.Background()
	r, err := s.BeginRun(ctx, "sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := storedCommit("http://qq/1", "两岸", "论坛")
	for _, c := range []*storage.Commit{
		a,
		dupCommit("http://sohu/1", 1),
		{Page: storage.Page{URL: "http://qq/list", Site: "qq", Outcome: storage.OutcomeNotArticle, Status: 200}},
		{Page: storage.Page{URL: "http://qq/404", Site: "qq", Outcome: storage.OutcomeError, Status: 404, ErrKind: "http_404", Err: "not found", Permanent: true}},
	} {
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if a.Article.ID != 1 {
		t.Fatalf("first article id %d", a.Article.ID)
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{{URL: "http://qq/2", Site: "qq", Depth: 1, Referer: "http://qq/"}, {URL: "http://sohu/2", Site: "sohu"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pop(ctx, "qq", 1); err != nil {
		t.Fatal(err)
	}
	r.Status, r.FinishedAt, r.Stats = storage.RunInterrupted, when, storage.RunStats{Fetched: 4, Stored: 1}
	if err := s.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteReopenPersists(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	populate(t, s)
	before := dump(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openTemp(t, path)
	after := dump(t, s2)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("reopened store differs:\nbefore %+v\nafter  %+v", before, after)
	}
	if len(after.Articles) != 1 || len(after.Dups) != 1 || len(after.Pages) != 4 || after.Pending[""] != 2 {
		t.Fatalf("unexpected contents %+v", after)
	}
	// The in-flight lease survived and is recovered by Requeue.
	if n, err := s2.Requeue(ctx); err != nil || n != 1 {
		t.Fatalf("Requeue after reopen = %d, %v; want 1", n, err)
	}
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, sqlite.SchemaVersion)
	}
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestSQLiteSchemaTooNew(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := rawDB(t, path)
	exec(t, db, fmt.Sprintf("PRAGMA user_version = %d", sqlite.SchemaVersion+1))
	db.Close()
	if s, err := sqlite.Open(ctx, path); !errors.Is(err, storage.ErrSchemaTooNew) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
}

func TestSQLiteOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		invalid bool
	}{
		{"empty", "", true},
		{"memory", ":memory:", true},
		{"uri", "file:x.db", true},
		{"parent is a file", filepath.Join(notDir, "store.db"), false},
		{"not a database", garbage, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlite.Open(ctx, tc.path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if errors.Is(err, storage.ErrInvalid) != tc.invalid {
				t.Fatalf("Open = %v; ErrInvalid expected: %v", err, tc.invalid)
			}
		})
	}
}

func TestSQLiteOddPathCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir with space?#%", "新闻 store.db")
	s := openTemp(t, path)
	populate(t, s)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the given path: %v", err)
	}
}

// TestSQLiteReadOnly opens the file with SQLite's mode=ro, which refuses
// writes even for root (chmod 0444 does not stop root, and tests may run as
// root): every write must fail with an error and leave the store unchanged.
func TestSQLiteReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	populate(t, s)
	before := dump(t, s)
	s.Close()

	ro, err := sqlite.OpenWith(ctx, path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	writes := []struct {
		name string
		fn   func() error
	}{
		{"commit stored", func() error { return ro.Commit(ctx, storedCommit("http://qq/new", "x")) }},
		{"replace error page", func() error { return ro.Commit(ctx, storedCommit("http://qq/404", "x")) }},
		{"push", func() error {
			_, err := ro.Push(ctx, []storage.FrontierItem{{URL: "http://qq/3", Site: "qq"}})
			return err
		}},
		{"done", func() error { return ro.Done(ctx, "http://sohu/2") }},
		{"begin run", func() error { _, err := ro.BeginRun(ctx, "x"); return err }},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := w.fn()
			var se *msqlite.Error
			if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_READONLY {
				t.Fatalf("write on a read-only store = %v, want a wrapped SQLITE_READONLY error", err)
			}
		})
	}
	c := storedCommit("http://qq/new2")
	if err := ro.Commit(ctx, c); err == nil || c.Article.ID != 0 {
		t.Fatalf("read-only commit: err %v, id %d", err, c.Article.ID)
	}
	if after := dump(t, ro); !reflect.DeepEqual(before, after) {
		t.Fatalf("read-only store changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if err := ro.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteFullDisk simulates a full disk with PRAGMA max_page_count: the
// commit that does not fit fails with SQLITE_FULL and writes nothing.
func TestSQLiteFullDisk(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := sqlite.OpenWith(ctx, path, false, "max_page_count(60)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("新闻正文内容。", 300) // ~6 KB: more than one page per article
	var before contents
	var failed error
	for i := range 100 {
		before = dump(t, s)
		c := storedCommit(fmt.Sprintf("http://full/%d", i), fmt.Sprintf("term%d", i), "common")
		c.Article.Text = big
		if err := s.Commit(ctx, c); err != nil {
			failed = err
			break
		}
	}
	var se *msqlite.Error
	if failed == nil || !errors.As(failed, &se) || se.Code()&0xff != sqlite3.SQLITE_FULL {
		t.Fatalf("commit on a full store = %v, want a wrapped SQLITE_FULL error", failed)
	}
	if !strings.Contains(failed.Error(), "commit http://full/") {
		t.Fatalf("error %q does not name the URL", failed)
	}
	if after := dump(t, s); !reflect.DeepEqual(before, after) {
		t.Fatalf("failed commit left a partial write: %d -> %d articles, %d -> %d pages",
			len(before.Articles), len(after.Articles), len(before.Pages), len(after.Pages))
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteCorruptSignature(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	populate(t, s)
	exec(t, rawDB(t, path), `UPDATE articles SET signature = x'01020304050607080910' WHERE id = 1`)
	if _, err := s.Article(ctx, 1); err == nil || !strings.Contains(err.Error(), "not a multiple of 8") {
		t.Fatalf("Article = %v, want a signature error", err)
	}
	if _, err := s.ArticleByURL(ctx, "http://qq/1"); err == nil {
		t.Fatal("ArticleByURL read a corrupt signature")
	}
	if err := s.Articles(ctx, func(storage.Article) error { return nil }); err == nil {
		t.Fatal("Articles read a corrupt signature")
	}
	if err := s.Fingerprints(ctx, time.Time{}, func(storage.Article) error { return nil }); err == nil {
		t.Fatal("Fingerprints read a corrupt signature")
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "signature of 10 bytes") {
		t.Fatalf("Check = %v, want the bad signature reported", err)
	}
}

func TestSQLiteCorruptDuplicateSignature(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	populate(t, s)
	exec(t, rawDB(t, path), `UPDATE duplicates SET signature = x'0102030405' WHERE url = 'http://sohu/1'`)
	if err := s.Duplicates(ctx, func(storage.Duplicate) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "duplicate http://sohu/1: signature blob of 5 bytes is not a multiple of 8") {
		t.Fatalf("Duplicates = %v, want a signature error naming the URL", err)
	}
	if err := s.DuplicateFingerprints(ctx, time.Time{}, func(storage.Duplicate) error { return nil }); err == nil {
		t.Fatal("DuplicateFingerprints read a corrupt signature")
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "duplicate http://sohu/1 signature of 5 bytes") {
		t.Fatalf("Check = %v, want the bad signature reported", err)
	}
}

func TestSQLiteCheckDetects(t *testing.T) {
	tests := []struct {
		name  string
		plant []string
		want  string
	}{
		{"page of article deleted", []string{`DELETE FROM pages WHERE url = 'http://qq/1'`},
			"article 1 (http://qq/1) has no stored page"},
		{"page of duplicate changed", []string{`UPDATE pages SET outcome = 'error' WHERE url = 'http://sohu/1'`},
			"duplicate http://sohu/1 has no duplicate page"},
		{"duplicate of missing article", []string{`PRAGMA foreign_keys = OFF`, `UPDATE duplicates SET dup_of = 42`},
			"dup_of 42 missing"},
		{"foreign key", []string{`PRAGMA foreign_keys = OFF`, `UPDATE duplicates SET dup_of = 43`},
			"foreign key: duplicates"},
		{"article and duplicate", []string{`UPDATE duplicates SET url = 'http://qq/1'`},
			"url http://qq/1 is both article and duplicate"},
		{"stored page without article", []string{`UPDATE pages SET outcome = 'stored' WHERE url = 'http://qq/list'`},
			"page http://qq/list stored without article"},
		{"docs counter", []string{`UPDATE meta SET value = 5 WHERE key = 'docs'`},
			"docs counter 5 but 1 articles"},
		{"docs counter missing", []string{`DELETE FROM meta`}, "docs counter missing"},
		{"duplicate signature length", []string{`UPDATE duplicates SET signature = x'01'`},
			"duplicate http://sohu/1 signature of 1 bytes is not a multiple of 8"},
		{"signature not a blob", []string{`UPDATE duplicates SET signature = 'abcdefgh'`},
			"duplicate http://sohu/1 signature is text, not a blob"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "store.db")
			s := openTemp(t, path)
			populate(t, s)
			if err := s.Check(ctx); err != nil {
				t.Fatalf("before planting: %v", err)
			}
			db := rawDB(t, path)
			db.SetMaxOpenConns(1) // PRAGMA foreign_keys is per connection
			for _, q := range tc.plant {
				exec(t, db, q)
			}
			err := s.Check(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// TestSQLiteTwoHandles uses two handles on one file, as two processes would:
// the file lock excludes the second, and commits from both (without the lock)
// serialise through SQLite's busy timeout without losing any.
func TestSQLiteTwoHandles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	a, b := openTemp(t, path), openTemp(t, path)
	release, err := a.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx, false)
	if !errors.Is(err, storage.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second handle's Lock = %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	rb, err := b.Lock(ctx, false)
	if err != nil {
		t.Fatalf("Lock after the other handle released: %v", err)
	}
	if err := rb(); err != nil {
		t.Fatal(err)
	}

	const per = 30
	var wg sync.WaitGroup
	errs := make(chan error, 2*per)
	for h, s := range []*sqlite.Store{a, b} {
		wg.Go(func() {
			for i := range per {
				if err := s.Commit(ctx, storedCommit(fmt.Sprintf("http://h%d/%d", h, i), "共享")); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := map[string]int{}
	docs, err := a.DocFreqs(ctx, func(term string, df int) error { got[term] = df; return nil })
	if err != nil || docs != 2*per || got["共享"] != 2*per {
		t.Fatalf("docs %d df %d err %v; want %d", docs, got["共享"], err, 2*per)
	}
	if err := b.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteOutOfRangeRunTime(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "store.db"))
	ctx := context.Background()
	r, err := s.BeginRun(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	r.FinishedAt = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.FinishRun(ctx, r); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("FinishRun(year 9999) = %v, want ErrInvalid", err)
	}
}

// TestSQLiteConcurrentOpen opens one new file from several goroutines at once:
// the schema is created exactly once and every handle works.
func TestSQLiteConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	const n = 4
	stores := make([]*sqlite.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = sqlite.Open(ctx, path) })
	}
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Commit(ctx, storedCommit(fmt.Sprintf("http://open/%d", i), "x")); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := stores[0].DocFreqs(ctx, func(string, int) error { return nil })
	if err != nil || docs != n {
		t.Fatalf("docs %d, %v; want %d", docs, err, n)
	}
}

// TestSQLiteEmptyFile opens an existing zero-byte file, as left by a crash
// between creating and initialising it: the schema is created.
func TestSQLiteEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openTemp(t, path)
	populate(t, s)
	if err := s.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteMissingDocsCounter: a commit that cannot count its document
// fails whole instead of leaving the counter behind the articles.
func TestSQLiteMissingDocsCounter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	populate(t, s)
	exec(t, rawDB(t, path), `DELETE FROM meta`)
	if err := s.Commit(ctx, storedCommit("http://qq/after", "x")); err == nil || !strings.Contains(err.Error(), "docs counter") {
		t.Fatalf("Commit = %v, want a docs counter error", err)
	}
	if _, err := s.ArticleByURL(ctx, "http://qq/after"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("failed commit stored its article: %v", err)
	}
}

// foldTerms are the terms of the i-th document of the fold tests: a few
// shared ones with different periods and one of its own.
func foldTerms(i int) []string {
	return []string{fmt.Sprintf("a%d", i%3), fmt.Sprintf("b%d", i%7), "共同", fmt.Sprintf("own%d", i), "共同"}
}

// TestSQLiteDocFreqFold commits documents across several folds of the
// docfreq_pending log and checks the document frequencies, the log's size
// and Check around each fold, and after reopening.
func TestSQLiteDocFreqFold(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	raw := rawDB(t, path)
	want := map[string]int{}
	wantDocs, wantLogged := 0, 0
	checkDF := func(t *testing.T, s storage.Store) {
		t.Helper()
		got := map[string]int{}
		docs, err := s.DocFreqs(ctx, func(term string, df int) error { got[term] = df; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if docs != wantDocs || !reflect.DeepEqual(got, want) {
			t.Fatalf("after %d documents: DocFreqs = %d docs, %d terms; want %d docs, %d terms", wantDocs, docs, len(got), wantDocs, len(want))
		}
	}
	n := 2*sqlite.FoldEvery + 3
	for i := range n {
		c := storedCommit(fmt.Sprintf("http://fold/%d", i), foldTerms(i)...)
		if i%10 == 9 {
			c.Terms = nil // a document without terms still counts, but logs nothing
		} else {
			for _, term := range storage.DistinctTerms(c.Terms) {
				want[term]++
			}
			wantLogged++
		}
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
		wantDocs++
		if wantDocs%sqlite.FoldEvery == 0 {
			wantLogged = 0
		}
		if k := wantDocs % sqlite.FoldEvery; k <= 1 || k == sqlite.FoldEvery-1 || wantDocs == n {
			checkDF(t, s)
			var logged int
			if err := raw.QueryRow(`SELECT count(*) FROM docfreq_pending`).Scan(&logged); err != nil {
				t.Fatal(err)
			}
			if logged != wantLogged {
				t.Fatalf("after %d documents the log holds %d rows, want %d", wantDocs, logged, wantLogged)
			}
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	var folded int
	if err := raw.QueryRow(`SELECT count(*) FROM docfreq WHERE term = '共同'`).Scan(&folded); err != nil || folded != 1 {
		t.Fatalf("common term folded into docfreq: %d rows, %v", folded, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkDF(t, openTemp(t, path))
}

// TestSQLiteFoldFailureWritesNothing: the commit whose document triggers a
// fold fails whole when the fold fails (here on a malformed log row, which
// Check and DocFreqs also report).
func TestSQLiteFoldFailureWritesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	for i := range sqlite.FoldEvery - 1 {
		if err := s.Commit(ctx, storedCommit(fmt.Sprintf("http://ff/%d", i), foldTerms(i)...)); err != nil {
			t.Fatal(err)
		}
	}
	raw := rawDB(t, path)
	exec(t, raw, `UPDATE docfreq_pending SET terms = x'05616263' WHERE seq = (SELECT min(seq) FROM docfreq_pending)`)
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "malformed docfreq_pending row") {
		t.Fatalf("Check = %v, want the malformed log row reported", err)
	}
	if _, err := s.DocFreqs(ctx, func(string, int) error { return nil }); err == nil || !strings.Contains(err.Error(), "overruns") {
		t.Fatalf("DocFreqs = %v, want the malformed log row reported", err)
	}
	counts := func() []int64 {
		t.Helper()
		var a, p, d, f, l int64
		if err := raw.QueryRow(`SELECT (SELECT count(*) FROM articles), (SELECT count(*) FROM pages),
			(SELECT value FROM meta WHERE key = 'docs'), (SELECT coalesce(sum(df), 0) FROM docfreq),
			(SELECT count(*) FROM docfreq_pending)`).Scan(&a, &p, &d, &f, &l); err != nil {
			t.Fatal(err)
		}
		return []int64{a, p, d, f, l}
	}
	before := counts()
	if err := s.Commit(ctx, storedCommit("http://ff/last", "x")); err == nil || !strings.Contains(err.Error(), "fold document frequencies") {
		t.Fatalf("Commit = %v, want a fold error", err)
	}
	if _, err := s.ArticleByURL(ctx, "http://ff/last"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the failed commit stored its article: %v", err)
	}
	if after := counts(); !reflect.DeepEqual(before, after) {
		t.Fatalf("the failed commit changed the store: articles, pages, docs, sum(df), log rows %v -> %v", before, after)
	}
}

// TestSQLiteMigratesVersion1 opens a file written with schema 1 (no cluster
// indexes): the store migrates it, keeps its rows, and merges clusters.
func TestSQLiteMigratesVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	exec(t, db, sqlite.Migrations[0])
	exec(t, db, "PRAGMA user_version = 1")
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/1', 'qq', 1, 'stored', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
		VALUES (1, 'http://a/1', 'qq', 1, 't', 'x', '', '', '', 'h', 1, 0, x'', 0)`)
	exec(t, db, `UPDATE meta SET value = 1 WHERE key = 'docs'`)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, sqlite.SchemaVersion)
	}
	var n int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('articles_cluster', 'duplicates_cluster')`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("cluster indexes after migration: %d, %v", n, err)
	}
	a, err := s.Article(ctx, 1)
	if err != nil || a.URL != "http://a/1" || a.Cluster != 1 {
		t.Fatalf("article 1 after migration: %+v, %v", a, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteMigratesToPartialReprints opens a file written with the schema
// before the partial-reprint columns (lead images and the merge log, but no
// winnowing fingerprints, no partial-reprint records): the
// store migrates it, reads its rows with empty prints and no partial_of,
// and then keeps both for new rows.
func TestSQLiteMigratesToPartialReprints(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	// The schema just before the migration that adds the prints (found by
	// its text, so that the test follows a renumbering); the lead-image
	// migration comes before it.
	before := slices.IndexFunc(sqlite.Migrations[:], func(m string) bool { return strings.Contains(m, "ADD COLUMN prints") })
	image := slices.IndexFunc(sqlite.Migrations[:], func(m string) bool { return strings.Contains(m, "ADD COLUMN image ") })
	if before < 0 || image < 0 || image > before {
		t.Fatalf("migration adding prints is %d, adding images %d; want images first", before, image)
	}
	for v := range before {
		exec(t, db, sqlite.Migrations[v])
	}
	exec(t, db, fmt.Sprintf("PRAGMA user_version = %d", before))
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/1', 'qq', 1, 'stored', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
		VALUES (1, 'http://a/1', 'qq', 1, 't', 'x', '', '', '', 'h', 1, 0, x'0100000000000000', 1)`)
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/2', 'qq', 1, 'duplicate', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO duplicates(url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, title, text, source, author, simhash, reason)
		VALUES ('http://a/2', 'qq', 1, 1, 'http://a/1', 1, 0, 1, 't', '', '', '', 0, 'exact')`)
	exec(t, db, `UPDATE meta SET value = 1 WHERE key = 'docs'`)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, sqlite.SchemaVersion)
	}
	a, err := s.Article(ctx, 1)
	if err != nil || a.URL != "http://a/1" || a.Fingerprint.Prints != nil || a.Fingerprint.ContentWords != 0 || a.PartialOf != 0 || a.Passages != nil {
		t.Fatalf("article 1 after migration: %+v, %v", a, err)
	}
	var dups []storage.Duplicate
	if err := s.DuplicateFingerprints(ctx, time.Time{}, func(d storage.Duplicate) error { dups = append(dups, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(dups) != 1 || dups[0].Prints != nil || dups[0].ContentWords != 0 {
		t.Fatalf("duplicates after migration: %+v", dups)
	}
	c := &storage.Commit{
		Page: storage.Page{URL: "http://a/3", Site: "qq", RunID: 1, Outcome: storage.OutcomeStored},
		Article: &storage.Article{Site: "qq", RunID: 1, Title: "t", Text: "y", ContentHash: "h3",
			Fingerprint: storage.Fingerprint{Prints: []uint64{7<<32 | 2}, ContentWords: 9},
			PartialOf:   1, OwnShare: 0.25, Passages: []storage.Passage{{Start: 0, OtherStart: 3, Len: 6}}},
	}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.ArticleByURL(ctx, "http://a/3")
	if err != nil || got.PartialOf != 1 || got.OwnShare != 0.25 || !reflect.DeepEqual(got.Passages, c.Article.Passages) ||
		!reflect.DeepEqual(got.Fingerprint.Prints, c.Article.Fingerprint.Prints) || got.Fingerprint.ContentWords != 9 {
		t.Fatalf("article written after migration: %+v, %v", got, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteCheckPartialReprints: Check reports a partial_of that names no
// article and prints or passages that are not whole values.
func TestSQLiteCheckPartialReprints(t *testing.T) {
	for _, tc := range []struct {
		name, update, want string
	}{
		{"missing partial_of", `UPDATE articles SET partial_of = 99 WHERE id = 2`, "partial_of 99 missing"},
		{"torn prints", `UPDATE articles SET prints = x'0102' WHERE id = 1`, "prints or passages"},
		{"torn passages", `UPDATE articles SET passages = x'0000000000000000' WHERE id = 2`, "prints or passages"},
		{"duplicate prints not a blob", `UPDATE duplicates SET prints = 'x'`, "prints are not a blob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "store.db")
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			a := &storage.Commit{Page: storage.Page{URL: "http://a/1", Outcome: storage.OutcomeStored},
				Article: &storage.Article{Title: "t", Text: "x", ContentHash: "h1"}}
			b := &storage.Commit{Page: storage.Page{URL: "http://a/2", Outcome: storage.OutcomeStored},
				Article: &storage.Article{Title: "t", Text: "y", ContentHash: "h2", PartialOf: 1, OwnShare: 0.5,
					Passages: []storage.Passage{{Start: 0, OtherStart: 0, Len: 8}}}}
			d := &storage.Commit{Page: storage.Page{URL: "http://a/3", Outcome: storage.OutcomeDuplicate},
				Duplicate: &storage.Duplicate{DupOf: 1, Reason: "exact"}}
			for _, c := range []*storage.Commit{a, b, d} {
				if err := s.Commit(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Check(ctx); err != nil {
				t.Fatalf("good store: %v", err)
			}
			exec(t, rawDB(t, path), tc.update)
			if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSQLiteMigratesVersion4 opens a file written with schema 4 (before
// lead images and partial-reprint records): the store adds the image and
// partial-reprint columns, reads the old rows with no image and no prints,
// and stores images afterwards.
func TestSQLiteMigratesVersion4(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	for _, m := range sqlite.Migrations[:4] {
		exec(t, db, m)
	}
	exec(t, db, "PRAGMA user_version = 4")
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/1', 'qq', 1, 'stored', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/2', 'qq', 1, 'duplicate', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
		VALUES (1, 'http://a/1', 'qq', 1, 't', 'x', '', '', '', 'h', 1, 0, x'', 0)`)
	exec(t, db, `INSERT INTO duplicates(url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, title, text, source, author, simhash, reason)
		VALUES ('http://a/2', 'qq', 1, 1, 'http://a/1', 1, 0, 1, 't', '', '', '', 0, 'exact')`)
	exec(t, db, `UPDATE meta SET value = 1 WHERE key = 'docs'`)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, sqlite.SchemaVersion)
	}
	if a, err := s.Article(ctx, 1); err != nil || a.URL != "http://a/1" || a.Fingerprint.Image != "" || a.Fingerprint.Prints != nil || a.PartialOf != 0 {
		t.Fatalf("article 1 after migration: %+v, %v", a, err)
	}
	err = s.Duplicates(ctx, func(d storage.Duplicate) error {
		if d.URL != "http://a/2" || d.Image != "" || d.ImageSimilarity != 0 || d.Reason != "exact" {
			return fmt.Errorf("duplicate after migration: %+v", d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := storedCommit("http://a/3")
	c.Article.Fingerprint.Image = "1x1:W"
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if a, err := s.ArticleByURL(ctx, "http://a/3"); err != nil || a.Fingerprint.Image != "1x1:W" {
		t.Fatalf("image after migration: %q, %v", a.Fingerprint.Image, err)
	}
	// A damaged image column is reported, not read as "no image".
	exec(t, rawDB(t, path), `UPDATE articles SET image = '1x1:Q' WHERE url = 'http://a/3'`)
	if _, err := s.ArticleByURL(ctx, "http://a/3"); !errors.Is(err, sqlite.ErrDamaged) {
		t.Fatalf("damaged image: %v, want ErrDamaged", err)
	}
}

// TestSQLiteMigratesVersion5 opens a file written with schema 5 (no
// cluster_merges log): the store migrates it, keeps its rows, its change
// feed starts at the old rows' head, and a merge after the migration is
// logged and reported.
func TestSQLiteMigratesVersion5(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	for i := range 5 {
		exec(t, db, sqlite.Migrations[i])
	}
	exec(t, db, "PRAGMA user_version = 5")
	for i, u := range []string{"http://a/1", "http://a/2"} {
		exec(t, db, fmt.Sprintf(`INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('%s', 'qq', 1, 'stored', 200, '', '', 0)`, u))
		exec(t, db, fmt.Sprintf(`INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
		VALUES (%d, '%s', 'qq', 1, 't', 'x', '', '', '', 'h', %d, 0, x'', 0)`, i+1, u, i+1))
	}
	exec(t, db, `UPDATE meta SET value = 2 WHERE key = 'docs'`)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != sqlite.SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, sqlite.SchemaVersion)
	}
	h, err := s.Head(ctx)
	if err != nil || h != (storage.Cursor{Article: 2}) {
		t.Fatalf("Head after migration = %+v, %v; want {Article: 2}", h, err)
	}
	bridge := &storage.Commit{Page: storage.Page{URL: "http://b/1", Site: "qq", RunID: 1, Outcome: storage.OutcomeDuplicate},
		Duplicate: &storage.Duplicate{DupOf: 1, Cluster: 1, Merges: []int64{2}, Signature: []uint64{1}}}
	if err := s.Commit(ctx, bridge); err != nil {
		t.Fatal(err)
	}
	var merges []storage.Merge
	next, err := s.Changes(ctx, h, func(c storage.Change) error {
		if c.Merge != nil {
			merges = append(merges, *c.Merge)
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(merges, []storage.Merge{{Into: 1, From: 2}}) || next != (storage.Cursor{Article: 2, Duplicate: 1, Merge: 1}) {
		t.Fatalf("Changes after migration: merges %v, cursor %+v, %v", merges, next, err)
	}
	if a, err := s.Article(ctx, 2); err != nil || a.Cluster != 1 {
		t.Fatalf("article 2 after the merge: %+v, %v", a, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteMigratesVersion7 opens a file written with schema 7 (no
// outcome part, no page lists): the pages table is rebuilt with its rows
// and commit order kept, old pages read with no part_of and old articles
// with no pages, and a multi-page article commits after the migration.
func TestSQLiteMigratesVersion7(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	for i := range 7 {
		exec(t, db, sqlite.Migrations[i])
	}
	exec(t, db, "PRAGMA user_version = 7")
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/1', 'qq', 1, 'stored', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/e', 'qq', 1, 'error', 404, 'http_404', 'not found', 1)`)
	exec(t, db, `INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/l', 'qq', 1, 'not_article', 200, '', '', 0)`)
	exec(t, db, `INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
		VALUES (1, 'http://a/1', 'qq', 1, 't', 'x', '', '', '', 'h', 1, 0, x'', 0)`)
	exec(t, db, `UPDATE meta SET value = 1 WHERE key = 'docs'`)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	err = s.Pages(ctx, func(p storage.Page) error {
		got = append(got, fmt.Sprintf("%s %s %s %v %q", p.URL, p.Outcome, p.ErrKind, p.Permanent, p.PartOf))
		return nil
	})
	want := []string{`http://a/1 stored  false ""`, `http://a/e error http_404 true ""`, `http://a/l not_article  false ""`}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("pages after migration %q, %v; want %q", got, err, want)
	}
	if a, err := s.Article(ctx, 1); err != nil || a.Pages != nil || a.PagesMissing != nil {
		t.Fatalf("article 1 after migration: %+v, %v", a, err)
	}
	c := storedCommit("http://a/2.html")
	c.Article.Pages = []string{"http://a/2.html", "http://a/2-2.html"}
	c.Parts = []string{"http://a/2-2.html"}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if p, err := s.PageOf(ctx, "http://a/2-2.html"); err != nil || p.Outcome != storage.OutcomePart || p.PartOf != "http://a/2.html" {
		t.Fatalf("part after migration: %+v, %v", p, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("check after migration: %v", err)
	}
}
