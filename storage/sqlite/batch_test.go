package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

func TestSQLiteBatch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		end  bool // End (else Rollback)
		// want: URLs decided after the batch, as seen by a second handle.
		want map[string]bool
		// titles: title search hits after the batch, for an article title
		// and a duplicate title (End indexes the batch's titles at once).
		titles, dupTitles int
	}{
		{name: "end makes every commit visible", end: true, want: map[string]bool{"http://b/1": true, "http://b/2": true, "http://b/dup": true, "http://b/bad": false},
			titles: 2, dupTitles: 1},
		{name: "rollback writes nothing", end: false, want: map[string]bool{"http://b/1": false, "http://b/2": false, "http://b/dup": false, "http://b/bad": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			s, other := openTemp(t, path), openTemp(t, path)
			if _, err := s.BeginRun(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			b, err := s.BeginBatch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Rollback()
			first := storedCommit("http://b/1", "甲")
			if err := b.Commit(ctx, first); err != nil {
				t.Fatal(err)
			}
			if first.Article.ID == 0 {
				t.Fatal("no article id assigned inside the batch")
			}
			if err := b.Commit(ctx, storedCommit("http://b/2", "乙")); err != nil {
				t.Fatal(err)
			}
			// Read-your-writes inside the batch; invisible outside it.
			if o, ok, err := b.Decided(ctx, "http://b/1"); err != nil || !ok || o != storage.OutcomeStored {
				t.Fatalf("batch Decided = %q %v %v", o, ok, err)
			}
			if a, err := b.Article(ctx, first.Article.ID); err != nil || a.URL != "http://b/1" {
				t.Fatalf("batch Article = %+v, %v", a, err)
			}
			if _, ok, err := other.Decided(ctx, "http://b/1"); err != nil || ok {
				t.Fatalf("another handle sees an open batch's commit: %v %v", ok, err)
			}
			// A duplicate of an article committed earlier in the batch.
			dup := dupCommit("http://b/dup", first.Article.ID)
			if err := b.Commit(ctx, dup); err != nil {
				t.Fatal(err)
			}
			if dup.Duplicate.DupOfURL != "http://b/1" {
				t.Fatalf("DupOfURL = %q", dup.Duplicate.DupOfURL)
			}
			// Exactly once: a URL decided earlier in the batch.
			if err := b.Commit(ctx, storedCommit("http://b/1")); !errors.Is(err, storage.ErrAlreadyDecided) {
				t.Fatalf("second commit of a URL in the batch = %v, want ErrAlreadyDecided", err)
			}
			// A failing commit (a missing dup_of, found before anything is
			// written) leaves nothing of itself; the batch goes on.
			if err := b.Commit(ctx, dupCommit("http://b/bad", 999)); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("duplicate of a missing article = %v, want ErrNotFound", err)
			}
			if _, ok, err := b.Decided(ctx, "http://b/bad"); err != nil || ok {
				t.Fatalf("failed commit left its page: %v %v", ok, err)
			}
			if tt.end {
				if err := b.End(); err != nil {
					t.Fatal(err)
				}
			} else if err := b.Rollback(); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(ctx, storedCommit("http://b/late")); err == nil {
				t.Fatal("commit after the batch ended succeeded")
			}
			for u, want := range tt.want {
				if _, ok, err := other.Decided(ctx, u); err != nil || ok != want {
					t.Errorf("%s decided = %v (%v), want %v", u, ok, err, want)
				}
			}
			// The batch writes the titles as the triggers do: the last
			// two characters and the last one of a title, and a title of
			// one character, are found by the index of short queries.
			for q, want := range map[string]int{"经贸文化": tt.titles, "开幕": tt.titles, "幕": tt.titles, "转": tt.dupTitles} {
				if hits, _, err := other.SearchTitles(ctx, q, 10); err != nil || len(hits) != want {
					t.Errorf("search %q after the batch: %d hits (%v), want %d", q, len(hits), err, want)
				}
			}
			// The store's own writes work again after the batch, and the
			// title triggers index them again.
			if err := s.Commit(ctx, storedCommit("http://b/after")); err != nil {
				t.Fatal(err)
			}
			if hits, _, err := other.SearchTitles(ctx, "经贸文化", 10); err != nil || len(hits) != tt.titles+1 {
				t.Errorf("search after a commit that followed the batch: %d hits (%v), want %d", len(hits), err, tt.titles+1)
			}
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSQLiteQuickCheckRecord: the time of the last sound QuickCheck is kept
// in the store; QuickCheckSmall passes on a sound store, and the full Check
// accepts the recorded key.
func TestSQLiteQuickCheckRecord(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	if last, err := s.LastQuickCheck(ctx); err != nil || !last.IsZero() {
		t.Fatalf("fresh store: last check %v, %v", last, err)
	}
	at := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	for _, when := range []time.Time{at, at.Add(time.Hour)} {
		if err := s.RecordQuickCheck(ctx, when); err != nil {
			t.Fatal(err)
		}
		if last, err := s.LastQuickCheck(ctx); err != nil || !last.Equal(when) {
			t.Fatalf("last check %v, %v; want %v", last, err, when)
		}
	}
	if err := s.QuickCheckSmall(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check after recording: %v", err)
	}
}

// TestSQLiteBatchDocFreqs: a batch counts its articles' document
// frequencies in memory and folds them at End; the store must end with the
// same counts and docs counter as when every article is committed on its
// own, whatever lies in the docfreq_pending log before the batch, and a
// failed commit inside the batch counts nothing.
func TestSQLiteBatchDocFreqs(t *testing.T) {
	ctx := context.Background()
	const n = 300 // more than one fold of the per-commit path
	vocab := []string{"北京", "新闻", "经济", "两岸", "论坛", "开幕", "记者", "a", ""}
	termsOf := func(i int) []string {
		var ts []string
		for j, v := range vocab {
			if (i+1)%(j+2) == 0 || j == i%len(vocab) {
				ts = append(ts, v, v) // a term twice counts once
			}
		}
		return ts
	}
	url := func(i int) string { return fmt.Sprintf("http://df/%d", i) }
	tests := []struct {
		name string
		// batches: [from, to) ranges committed in a batch; the rest one by one.
		batches [][2]int
	}{
		{name: "one by one"},
		{name: "one batch of everything", batches: [][2]int{{0, n}}},
		{name: "batches around single commits", batches: [][2]int{{10, 210}, {211, 250}, {251, n}}},
		{name: "batches of one", batches: [][2]int{{0, 1}, {1, 2}, {257, 258}}},
	}
	var want map[string]int
	var wantDocs int
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTemp(t, filepath.Join(t.TempDir(), "store.db"))
			if _, err := s.BeginRun(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; {
				if len(tt.batches) > 0 && tt.batches[0][0] == i {
					b, err := s.BeginBatch(ctx)
					if err != nil {
						t.Fatal(err)
					}
					for ; i < tt.batches[0][1]; i++ {
						if err := b.Commit(ctx, storedCommit(url(i), termsOf(i)...)); err != nil {
							t.Fatal(err)
						}
						// A commit that fails inside the batch counts nothing.
						if err := b.Commit(ctx, storedCommit(url(i), "失败")); !errors.Is(err, storage.ErrAlreadyDecided) {
							t.Fatalf("second commit of %s = %v, want ErrAlreadyDecided", url(i), err)
						}
					}
					if err := b.End(); err != nil {
						t.Fatal(err)
					}
					tt.batches = tt.batches[1:]
					continue
				}
				if err := s.Commit(ctx, storedCommit(url(i), termsOf(i)...)); err != nil {
					t.Fatal(err)
				}
				i++
			}
			got := map[string]int{}
			docs, err := s.DocFreqs(ctx, func(term string, df int) error { got[term] = df; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want, wantDocs = got, docs
				if docs != n || len(got) != len(vocab) {
					t.Fatalf("one by one: %d docs, %d terms; want %d, %d", docs, len(got), n, len(vocab))
				}
				return
			}
			if docs != wantDocs || !reflect.DeepEqual(got, want) {
				t.Fatalf("docs %d, frequencies %v; want %d, %v", docs, got, wantDocs, want)
			}
		})
	}
}

// TestSQLiteBatchWriteFailure: a commit that fails while writing (here a
// trigger planted to abort an article's insert, after its page row is
// written) rolls the whole batch back: nothing of it is stored, End
// reports the failure, and the store takes writes again.
func TestSQLiteBatchWriteFailure(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTemp(t, path)
	raw := rawDB(t, path)
	if _, err := raw.Exec(`CREATE TRIGGER boom BEFORE INSERT ON articles WHEN new.url = 'http://b/boom'
		BEGIN SELECT RAISE(ABORT, 'planted failure'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginRun(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		end  bool // End after the failure (else Rollback)
	}{
		{name: "end reports the failure", end: true},
		{name: "rollback is a no-op", end: false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := s.BeginBatch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			kept := fmt.Sprintf("http://b/kept%d", i)
			if err := b.Commit(ctx, storedCommit(kept, "北京")); err != nil {
				t.Fatal(err)
			}
			err = b.Commit(ctx, storedCommit("http://b/boom", "北京"))
			if err == nil || !strings.Contains(err.Error(), "planted failure") || !strings.Contains(err.Error(), "rolled back") {
				t.Fatalf("commit through the planted trigger = %v", err)
			}
			if err := b.Commit(ctx, storedCommit(kept+"-late")); err == nil {
				t.Fatal("commit after the batch was rolled back succeeded")
			}
			if tt.end {
				if err := b.End(); err == nil || !strings.Contains(err.Error(), "planted failure") {
					t.Fatalf("End after a rolled-back commit = %v", err)
				}
			} else if err := b.Rollback(); err != nil {
				t.Fatal(err)
			}
			for _, u := range []string{kept, "http://b/boom"} {
				if _, ok, err := s.Decided(ctx, u); err != nil || ok {
					t.Errorf("%s decided after the rolled-back batch: %v %v", u, ok, err)
				}
			}
			if err := s.Commit(ctx, storedCommit(fmt.Sprintf("http://b/after%d", i), "北京")); err != nil {
				t.Fatal(err)
			}
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
