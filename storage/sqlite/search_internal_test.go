package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/storage"
)

// TestTokenizerFoldsAsIndexedForm checks what the short queries rely on,
// for every character of the Basic Multilingual Plane that a title may
// hold: when strings.ToLower makes it a character that a query of the
// index may hold (storage.StableFold), the trigram tokenizer folds the
// character as the title tables hold it (indexedTitle) to the indexed form
// of that lower-case character (indexedForm). A SQLite that folds
// otherwise fails here.
func TestTokenizerFoldsAsIndexedForm(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // nothing to keep
	// One row a character, its rowid the character, indexed as a title
	// is: the row's first trigram begins with the folded character.
	ins, err := tx.PrepareContext(ctx, `INSERT INTO article_titles(rowid, title) VALUES (?1, `+strings.ReplaceAll(indexedTitle, "title", "?2")+`)`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[rune]string{}
	for r := rune(1); r <= 0xFFFF; r++ {
		lower := strings.ToLower(string(r))
		if !utf8.ValidRune(r) || !storage.StableFold(lower) {
			continue
		}
		want[r] = indexedForm(strings.ReplaceAll(lower, "İ", "i"))
		if _, err := ins.ExecContext(ctx, int64(r), string(r)); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT term, doc FROM article_title_instances WHERE offset = 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen, bad := 0, 0
	for rows.Next() {
		var term string
		var doc int64
		if err := rows.Scan(&term, &doc); err != nil {
			t.Fatal(err)
		}
		seen++
		r := rune(doc)
		if !strings.HasPrefix(term, want[r]) && bad < 20 {
			bad++
			t.Errorf("U+%04X %q: the tokenizer indexes %+q, want a trigram beginning with %+q", r, string(r), term, want[r])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != len(want) || len(want) < 60_000 {
		t.Fatalf("%d first trigrams for %d characters", seen, len(want))
	}
}
