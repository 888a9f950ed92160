package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// TestReadOnly: a read-only open of an empty schema fails with ErrNoStore
// and creates nothing; of a store, it reads, the server refuses its
// writes, and it registers no frontier owner.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	u, schema := freshSchema(t)
	admin := adminConn(t, u)
	tables := func() int {
		t.Helper()
		var n int
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := postgres.Open(ctx, u, postgres.ReadOnly()); !errors.Is(err, storage.ErrNoStore) {
		t.Fatalf("read-only open of an empty schema = %v, want ErrNoStore", err)
	}
	if n := tables(); n != 0 {
		t.Fatalf("read-only open left %d tables", n)
	}
	w := openStore(t, u)
	if err := w.Commit(ctx, storedCommit("http://ro/1")); err != nil {
		t.Fatal(err)
	}
	r, err := postgres.Open(ctx, u, postgres.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.ArticleByURL(ctx, "http://ro/1"); err != nil || a.URL != "http://ro/1" {
		t.Fatalf("read %+v, %v", a, err)
	}
	if err := r.Commit(ctx, storedCommit("http://ro/2")); err == nil {
		t.Fatal("a read-only store committed")
	}
	var owners int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM owners`).Scan(&owners); err != nil || owners != 1 {
		t.Fatalf("%d owners (%v), want the writer's only", owners, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
