package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestSQLiteTitleSearch(t *testing.T) {
	storagetest.TitleSearch(t, func(t *testing.T) storagetest.TitleSearcher {
		return openTemp(t, filepath.Join(t.TempDir(), "store.db"))
	})
}

// TestSQLiteTitleSearchFolds: the characters that SQLite's trigram
// tokenizer folds otherwise than strings.ToLower (İ, which Go lower-cases
// to i and the tokenizer keeps; U+FFFE and U+FFFF, which it reads as
// U+FFFD) are found as storage.TitleMatches finds them, by queries of
// every length.
func TestSQLiteTitleSearchFolds(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t, filepath.Join(t.TempDir(), "store.db"))
	titles := []string{"İstanbul 快讯", "ISTANBUL 快讯", "istanbul", "快讯 Kİ", "标记\uFFFE", "标记\uFFFD", "\uFFFF"}
	for i, title := range titles {
		c := storedCommit(fmt.Sprintf("http://f/%d", i))
		c.Article.Title = title
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"is", "İs", "İ", "i", "stanbul", "İstanbul", "Kİ", "kı", "\uFFFE", "记\uFFFE", "标记\uFFFE", "\uFFFD", "\uFFFF"} {
		t.Run(fmt.Sprintf("%+q", q), func(t *testing.T) {
			var want, got []string
			for _, title := range titles {
				if storage.TitleMatches(title, q) {
					want = append(want, title)
				}
			}
			hits, _, err := s.SearchTitles(ctx, q, 50)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				got = append(got, h.Title)
			}
			if !slices.Equal(got, want) {
				t.Errorf("SearchTitles(%+q) = %+q, want %+q", q, got, want)
			}
		})
	}
}

// TestSQLiteMigratesTitleSearch opens a file of schema 9 (no title
// tables) and one of schema 12 (titles indexed without titleEnd), each
// holding articles and a duplicate: the migrations index their titles so
// that short queries find a title's last characters, and the triggers
// follow later commits, title changes and deletions.
func TestSQLiteMigratesTitleSearch(t *testing.T) {
	for _, from := range []int{9, 12} {
		t.Run(fmt.Sprintf("from schema %d", from), func(t *testing.T) {
			migrateTitleSearch(t, from)
		})
	}
}

// migrateTitleSearch is TestSQLiteMigratesTitleSearch from schema from.
func migrateTitleSearch(t *testing.T, from int) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	db := rawDB(t, path)
	for i := range from {
		exec(t, db, sqlite.Migrations[i])
	}
	exec(t, db, fmt.Sprintf("PRAGMA user_version = %d", from))
	for i, title := range []string{"稳经济一揽子政策", "经济日报评论"} {
		u := fmt.Sprintf("http://a/%d", i+1)
		exec(t, db, fmt.Sprintf(`INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('%s', 'qq', 1, 'stored', 200, '', '', 0)`, u))
		exec(t, db, fmt.Sprintf(`INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
		VALUES (%d, '%s', 'qq', 1, '%s', 'x', '', '', '', 'h', %d, 0, x'', 0)`, i+1, u, title, i+1))
	}
	exec(t, db, `INSERT INTO duplicates(url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, title, text, source, author, simhash)
		VALUES ('http://b/1', 'sohu', 1, 1, 'http://a/1', 1, 0, 0.9, '转载稳经济', '', '', '', 0)`)
	exec(t, db, `UPDATE meta SET value = 2 WHERE key = 'docs'`)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	urls := func(q string) []string {
		t.Helper()
		hits, _, err := s.SearchTitles(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		var u []string
		for _, h := range hits {
			u = append(u, h.URL)
		}
		return u
	}
	steps := []struct {
		name, sql, q string
		want         []string
	}{
		{"migrated rows, indexed query", "", "稳经济", []string{"http://a/1", "http://b/1"}},
		{"migrated rows, short query", "", "经济", []string{"http://a/1", "http://a/2", "http://b/1"}},
		{"migrated rows, two characters ending a title", "", "政策", []string{"http://a/1"}},
		{"migrated rows, one character ending a title", "", "论", []string{"http://a/2"}},
		{"title changed", `UPDATE articles SET title = '社会新闻' WHERE id = 1`, "稳经济", []string{"http://b/1"}},
		{"old title gone from a short query", "", "经济", []string{"http://a/2", "http://b/1"}},
		{"duplicate deleted", `DELETE FROM duplicates WHERE url = 'http://b/1'`, "经济", []string{"http://a/2"}},
		{"new title's last characters", `UPDATE articles SET title = '社会新闻' WHERE id = 2`, "新闻", []string{"http://a/1", "http://a/2"}},
		{"new title's last character", "", "闻", []string{"http://a/1", "http://a/2"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.sql != "" {
				db := rawDB(t, path)
				exec(t, db, st.sql)
				db.Close()
			}
			if got := urls(st.q); fmt.Sprint(got) != fmt.Sprint(st.want) {
				t.Errorf("search %q = %v, want %v", st.q, got, st.want)
			}
		})
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
