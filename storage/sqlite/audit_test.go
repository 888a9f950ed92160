package sqlite_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestAuditFile reads a store's tables independently of the Store: the
// decided URLs, every page's outcome (with its error kind), the frontier
// and the run statuses in order; and it sees a duplicate verdict planted
// behind the store's back.
func TestAuditFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	if _, err := s.BeginRun(ctx, "sites.yaml"); err != nil {
		t.Fatal(err)
	}
	c := storedCommit("http://a/1")
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, dupCommit("http://b/1", c.Article.ID)); err != nil {
		t.Fatal(err)
	}
	bad := &storage.Commit{Page: storage.Page{URL: "http://a/2", Site: "qq", RunID: 1, Outcome: storage.OutcomeError, ErrKind: "timeout", Err: "slow", FetchedAt: when}}
	if err := s.Commit(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{{URL: "http://a/3", Site: "qq"}}); err != nil {
		t.Fatal(err)
	}
	a, err := sqlite.AuditFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	want := &sqlite.Audit{
		Integrity:  "ok",
		Articles:   []string{"http://a/1"},
		Duplicates: []string{"http://b/1"},
		Pages:      map[string]string{"http://a/1": "stored", "http://b/1": "duplicate", "http://a/2": "error:timeout"},
		Frontier:   1,
		Runs:       []string{storage.RunRunning},
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("audit\n%+v\nwant\n%+v", a, want)
	}

	// A URL recorded as stored and as a duplicate: the audit reports both.
	exec(t, rawDB(t, path), `INSERT INTO duplicates(url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, title, text, published_at, source, author, fetched_at, simhash)
		SELECT url, site, run_id, id, url, cluster, 0, 1, title, '', NULL, '', '', NULL, simhash FROM articles WHERE id = ?`, c.Article.ID)
	if a, err = sqlite.AuditFile(ctx, path); err != nil {
		t.Fatal(err)
	}
	if len(a.Duplicates) != 2 || a.Duplicates[1] != "http://a/1" {
		t.Fatalf("planted duplicate not seen: %q", a.Duplicates)
	}
	if _, err := sqlite.AuditFile(ctx, filepath.Join(t.TempDir(), "none.db")); err == nil {
		t.Error("audit of a missing file: no error")
	}
}
