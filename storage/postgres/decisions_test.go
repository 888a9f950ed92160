package postgres_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// TestDecisionLock: one holder at a time across stores (processes); a
// waiter gives up with its context and gets the lock once it is released.
func TestDecisionLock(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	a, b := openStore(t, u), openStore(t, u)
	release, err := a.LockDecisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := b.LockDecisions(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockDecisions while held = %v, want DeadlineExceeded", err)
	}
	got := make(chan error, 1)
	go func() {
		rel, err := b.LockDecisions(ctx)
		if err == nil {
			err = rel()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("LockDecisions returned %v while the lock was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LockDecisions did not return after release")
	}
}

// TestChanges: the feed streams another process's stored articles,
// duplicates and cluster merges after a cursor, in order, and ends at Head.
func TestChanges(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	a, b := openStore(t, u), openStore(t, u)
	start, err := a.Head(ctx)
	if err != nil || start != (postgres.Cursor{}) {
		t.Fatalf("Head of an empty store = %+v, %v", start, err)
	}
	x, y := storedCommit("http://c/x"), storedCommit("http://c/y")
	if err := b.Commit(ctx, x); err != nil {
		t.Fatal(err)
	}
	mid, err := a.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(ctx, y); err != nil {
		t.Fatal(err)
	}
	bridge := dupCommit("http://c/bridge", x.Article.ID)
	bridge.Duplicate.Cluster, bridge.Duplicate.Merges = x.Article.ID, []int64{y.Article.ID}
	if err := b.Commit(ctx, bridge); err != nil {
		t.Fatal(err)
	}
	var got []string
	end, err := a.Changes(ctx, mid, func(c postgres.Change) error {
		switch {
		case c.Article != nil:
			got = append(got, "article "+c.Article.URL)
			if c.Article.Text != "" || c.Article.Cluster != x.Article.ID {
				t.Errorf("article %+v: want no text and the merged cluster", c.Article)
			}
		case c.Duplicate != nil:
			got = append(got, "duplicate "+c.Duplicate.URL)
		case c.Merge != nil:
			if *c.Merge != (postgres.Merge{Into: x.Article.ID, From: y.Article.ID}) {
				t.Errorf("merge %+v", *c.Merge)
			}
			got = append(got, "merge")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"article http://c/y", "duplicate http://c/bridge", "merge"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("changes after the first article = %v, want %v", got, want)
	}
	if head, err := a.Head(ctx); err != nil || head != end {
		t.Fatalf("cursor after the feed %+v, Head %+v (%v)", end, head, err)
	}
	n := 0
	if _, err := a.Changes(ctx, end, func(postgres.Change) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("changes after the head: %d, %v", n, err)
	}
	stop := errors.New("stop")
	if _, err := a.Changes(ctx, start, func(postgres.Change) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error came back as %v", err)
	}
}

// TestCommitDecision: the commit of an optimistic decision re-checks what
// another process committed after the decider's cursor (and only then),
// may be replaced by the re-check, moves the cursor past the tail and its
// own rows, and writes nothing when the URL is decided or the re-check
// fails.
func TestCommitDecision(t *testing.T) {
	ctx := context.Background()
	errRecheck := errors.New("recheck failed")
	tests := []struct {
		name string
		// others commits, as another process, before the decider commits.
		others  []string
		decided bool // the decider's URL is decided already
		// recheck's answer: replace the stored verdict by a duplicate of
		// the tail's first article, or fail.
		replace, fail bool
		wantTail      []string
		wantOutcome   storage.Outcome
		wantErr       error
	}{
		{name: "nothing meanwhile: no recheck", wantOutcome: storage.OutcomeStored},
		{name: "tail kept", others: []string{"http://o/1", "http://o/2"}, wantTail: []string{"http://o/1", "http://o/2"}, wantOutcome: storage.OutcomeStored},
		{name: "tail turns it into a duplicate", others: []string{"http://o/1"}, replace: true, wantTail: []string{"http://o/1"}, wantOutcome: storage.OutcomeDuplicate},
		{name: "recheck fails", others: []string{"http://o/1"}, fail: true, wantTail: []string{"http://o/1"}, wantErr: errRecheck},
		{name: "already decided", others: []string{"http://o/1"}, decided: true, wantErr: storage.ErrAlreadyDecided},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := freshSchema(t)
			a, b := openStore(t, u), openStore(t, u)
			var cur postgres.Cursor // a's index holds nothing yet
			var bc postgres.Cursor
			for _, o := range tc.others {
				if _, err := b.CommitDecision(ctx, &bc, storedCommit(o), nil); err != nil {
					t.Fatal(err)
				}
			}
			if tc.decided {
				if err := b.Commit(ctx, storedCommit("http://a/page")); err != nil {
					t.Fatal(err)
				}
			}
			var tail []string
			var first int64
			c, err := a.CommitDecision(ctx, &cur, storedCommit("http://a/page"), func(ch []postgres.Change) (*storage.Commit, error) {
				for _, x := range ch {
					if x.Article == nil {
						t.Fatalf("change %+v, want an article", x)
					}
					tail = append(tail, x.Article.URL)
				}
				first = ch[0].Article.ID
				switch {
				case tc.fail:
					return nil, errRecheck
				case tc.replace:
					return dupCommit("http://a/page", first), nil
				}
				return storedCommit("http://a/page"), nil
			})
			if !slices.Equal(tail, tc.wantTail) {
				t.Errorf("recheck saw %v, want %v", tail, tc.wantTail)
			}
			outcome, ok, derr := a.Decided(ctx, "http://a/page")
			if derr != nil {
				t.Fatal(derr)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("CommitDecision = %v, want %v", err, tc.wantErr)
				}
				if !tc.decided && ok {
					t.Fatalf("failed CommitDecision wrote %s", outcome)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Page.Outcome != tc.wantOutcome || !ok || outcome != tc.wantOutcome {
				t.Fatalf("written %s, stored %s (%v); want %s", c.Page.Outcome, outcome, ok, tc.wantOutcome)
			}
			if c.Duplicate != nil && (c.Duplicate.DupOfURL != "http://o/1" || c.Duplicate.Cluster != first) {
				t.Errorf("duplicate %+v: want dup_of_url and cluster filled in", c.Duplicate)
			}
			if head, err := a.Head(ctx); err != nil || head != cur {
				t.Fatalf("cursor after the commit %+v, Head %+v (%v)", cur, head, err)
			}
		})
	}
}
