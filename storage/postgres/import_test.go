package postgres_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// dump is everything the Store interface reads back, for comparisons.
type dump struct {
	Runs     []storage.Run
	Pages    []storage.Page
	Articles []storage.Article
	Dups     []storage.Duplicate
	DF       map[string]int
	Docs     int
}

func dumpStore(t *testing.T, s storage.Store) dump {
	t.Helper()
	ctx := context.Background()
	var d dump
	var err error
	if d.Runs, err = s.Runs(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Pages(ctx, func(p storage.Page) error { d.Pages = append(d.Pages, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Articles(ctx, func(a storage.Article) error { d.Articles = append(d.Articles, a); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Duplicates(ctx, func(x storage.Duplicate) error { d.Dups = append(d.Dups, x); return nil }); err != nil {
		t.Fatal(err)
	}
	d.DF = map[string]int{}
	if d.Docs, err = s.DocFreqs(ctx, func(term string, df int) error { d.DF[term] = df; return nil }); err != nil {
		t.Fatal(err)
	}
	return d
}

// fillSource writes a small corpus with every kind of record: finished and
// running runs, replaced pages, an explicit cluster, a cluster merge.
func fillSource(t *testing.T, s storage.Store) {
	t.Helper()
	ctx := context.Background()
	r, err := s.BeginRun(ctx, "sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r.Status, r.FinishedAt, r.Stats = storage.RunCompleted, r.StartedAt.Add(time.Minute), storage.RunStats{Fetched: 9, Stored: 4}
	if err := s.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginRun(ctx, "other.yaml"); err != nil {
		t.Fatal(err)
	}
	commit := func(c *storage.Commit) {
		t.Helper()
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	errPage := &storage.Commit{Page: storage.Page{URL: "http://i/4", Site: "qq", RunID: 1, Outcome: storage.OutcomeError,
		Status: 503, ErrKind: "http_503", Err: "busy", FetchedAt: when}}
	commit(errPage)
	a1 := storedCommit("http://i/1", "新闻", "北京")
	a1.Raw = &storage.RawResponse{Status: 200, Proto: "HTTP/1.1",
		Header: http.Header{"Content-Type": {"text/html; charset=gbk"}}, Body: []byte("<p>\xd6\xd0</p>")}
	commit(a1)
	a2 := storedCommit("http://i/2", "新闻")
	commit(a2)
	a3 := storedCommit("http://i/3")
	a3.Article.Cluster = 77
	commit(a3)
	commit(dupCommit("http://i/d1", a2.Article.ID))
	bridge := dupCommit("http://i/d2", a1.Article.ID)
	bridge.Duplicate.Cluster, bridge.Duplicate.Merges = a1.Article.ID, []int64{a2.Article.ID}
	commit(bridge)
	commit(storedCommit("http://i/4", "上海")) // replaces the error page
	commit(&storage.Commit{Page: storage.Page{URL: "http://i/list", Site: "qq", RunID: 2, Outcome: storage.OutcomeNotArticle, Status: 200}})
}

func TestImportFromSQLite(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	src, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "news.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fillSource(t, src)
	dst := openStore(t, u)
	st, err := dst.Import(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if want := (postgres.ImportStats{Runs: 2, Pages: 7, Articles: 4, Duplicates: 2, Terms: 3, Docs: 4, Raw: 1}); st != want {
		t.Fatalf("Import stats %+v, want %+v", st, want)
	}
	got, err := dst.Raw(ctx, "http://i/1")
	if want, werr := src.Raw(ctx, "http://i/1"); err != nil || werr != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("imported raw response %+v (%v), want %+v (%v)", got, err, want, werr)
	}
	if got, want := dumpStore(t, dst), dumpStore(t, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("imported store differs:\n got %+v\nwant %+v", got, want)
	}
	if err := dst.Check(ctx); err != nil {
		t.Fatal(err)
	}
	// The store goes on from where the source stopped.
	c := storedCommit("http://i/5", "新闻")
	if err := dst.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if c.Article.ID != 5 {
		t.Fatalf("next article id %d, want 5", c.Article.ID)
	}
	if r, err := dst.BeginRun(ctx, "x"); err != nil || r.ID != 3 {
		t.Fatalf("next run %d, %v; want 3", r.ID, err)
	}
	if err := dst.Commit(ctx, storedCommit("http://i/1")); !errors.Is(err, storage.ErrAlreadyDecided) {
		t.Fatalf("commit of an imported URL = %v, want ErrAlreadyDecided", err)
	}
	if _, err := dst.Import(ctx, src); !errors.Is(err, postgres.ErrNotEmpty) {
		t.Fatalf("second Import = %v, want ErrNotEmpty", err)
	}
}

func TestImportAllOrNothing(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	src := memory.New()
	defer src.Close()
	fillSource(t, src)
	bad := storedCommit("http://i/nul")
	bad.Article.Text = "a\x00b" // the in-memory store takes it, PostgreSQL cannot
	if err := src.Commit(ctx, bad); err != nil {
		t.Fatal(err)
	}
	dst := openStore(t, u)
	if _, err := dst.Import(ctx, src); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Import = %v, want ErrInvalid", err)
	}
	if d := dumpStore(t, dst); len(d.Runs)+len(d.Pages)+len(d.Articles)+len(d.DF) != 0 {
		t.Fatalf("failed import left %+v", d)
	}
}

func TestImportWaitsForCrawls(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	crawl := openStore(t, u)
	release, err := crawl.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	dst, err := postgres.OpenWith(ctx, u, time.Minute, time.Second, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	src := memory.New()
	defer src.Close()
	if _, err := dst.Import(ctx, src); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("Import during a crawl = %v, want ErrLocked", err)
	}
}
