package evalweb

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
)

// TestStores: eval web's store steps on both backends, against the test
// PostgreSQL server. --db must hold no store yet (an empty schema or a
// missing file passes and stays empty; a store is refused, never
// replaced), and the crawled texts read back in commit order are the same
// from a PostgreSQL store as from a SQLite one.
func TestStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sqliteDB := filepath.Join(dir, "sample.db")
	pgDB, _ := pgtest.Schema(t, "nc_evalweb_")
	emptyPG, emptySchema := pgtest.Schema(t, "nc_evalweb_")
	for _, db := range []string{sqliteDB, pgDB} {
		s, err := pipeline.OpenStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if err := sample.Fill(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("no store yet", func(t *testing.T) {
		for _, db := range []string{emptyPG, filepath.Join(dir, "missing.db")} {
			if err := checkNoStore(ctx, db); err != nil {
				t.Errorf("%s: %v", pipeline.StoreName(db), err)
			}
		}
		if _, err := pipeline.OpenExisting(ctx, emptyPG); !errors.Is(err, storage.ErrNoStore) {
			t.Errorf("schema %s after the check: %v, want still no store", emptySchema, err)
		}
	})
	t.Run("a store is refused", func(t *testing.T) {
		for _, db := range []string{sqliteDB, pgDB} {
			if err := checkNoStore(ctx, db); !errors.Is(err, storage.ErrInvalid) {
				t.Errorf("%s: %v, want ErrInvalid", pipeline.StoreName(db), err)
			}
		}
	})
	t.Run("crawled pages", func(t *testing.T) {
		var got [][]crawledPage
		for _, db := range []string{sqliteDB, pgDB} {
			s, err := pipeline.OpenExisting(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			order, err := crawledPages(ctx, s)
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, order)
		}
		if len(got[0]) == 0 || !slices.Equal(got[0], got[1]) {
			t.Fatalf("sqlite pages %v\npostgres pages %v", got[0], got[1])
		}
	})
}
