package postgres_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

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
