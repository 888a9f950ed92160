package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/indextest"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// fakeDecisions is a decisionStore in memory: Changes feeds changes,
// CommitDecision hands tail to the recheck (after calling before) and
// counts the commits it would write.
type fakeDecisions struct {
	changes, tail []storage.Change
	before        func()
	commits       int
}

func (f *fakeDecisions) Head(context.Context) (storage.Cursor, error) { return storage.Cursor{}, nil }

func (f *fakeDecisions) Changes(_ context.Context, after storage.Cursor, fn func(storage.Change) error) (storage.Cursor, error) {
	for _, c := range f.changes {
		if err := fn(c); err != nil {
			return after, err
		}
	}
	f.changes = nil
	return after, nil
}

func (f *fakeDecisions) LockDecisions(context.Context) (func() error, error) {
	return func() error { return nil }, nil
}

func (f *fakeDecisions) CommitDecision(_ context.Context, _ *storage.Cursor, c *storage.Commit, recheck postgres.Recheck) (*storage.Commit, error) {
	if f.before != nil {
		f.before()
	}
	if len(f.tail) > 0 {
		var err error
		if c, err = recheck(f.tail); err != nil {
			return nil, err
		}
	}
	f.commits++
	return c, nil
}

// spaceWords is a segmenter of space-separated English words.
type spaceWords struct{}

func (spaceWords) Words(text string) []string { return strings.Fields(text) }
func (spaceWords) IsStop(w string) bool       { return w == "the" || w == "a" || w == "and" || w == "of" }

// TestSharedDecisionIndexErrors: an index error anywhere in a shared
// decision (catching up, deciding, replaying the tail under the decision
// lock) fails the decision and writes nothing.
func TestSharedDecisionIndexErrors(t *testing.T) {
	const text = "the river bridge opened on monday after four years of work and the city said traffic would be lighter"
	other := storage.Change{Article: &storage.Article{ID: 7, Title: "harbour",
		Fingerprint: storage.Fingerprint{Signature: []uint64{1, 2, 3, 4, 5, 6, 7, 8}}}}
	for _, tc := range []struct {
		name    string
		fail    func(f *fakeDecisions, x *indextest.Failing) // sets up when the index fails
		wantErr bool
	}{
		{"no_failure", func(f *fakeDecisions, x *indextest.Failing) { f.tail = []storage.Change{other} }, false},
		{"catch_up", func(f *fakeDecisions, x *indextest.Failing) { f.changes = []storage.Change{other}; x.Fail = true }, true},
		{"decide", func(f *fakeDecisions, x *indextest.Failing) { x.Fail = true }, true},
		{"recheck_tail", func(f *fakeDecisions, x *indextest.Failing) {
			f.tail = []storage.Change{other}
			f.before = func() { x.Fail = true }
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := dedup.NewMemoryIndex(dedup.DefaultHamming, dedup.DefaultJaccard)
			if err != nil {
				t.Fatal(err)
			}
			x := &indextest.Failing{Index: mem}
			eng, err := dedup.New(spaceWords{}, dedup.Options{Index: x})
			if err != nil {
				t.Fatal(err)
			}
			f := &fakeDecisions{}
			tc.fail(f, x)
			s := &sharedDecisions{store: f}
			fp := eng.Fingerprint("bridge", text)
			commitOf := func(v dedup.Verdict) *storage.Commit {
				return &storage.Commit{Page: storage.Page{URL: "http://a/1"}, Article: &storage.Article{Title: "bridge"}}
			}
			_, c, err := s.decide(t.Context(), eng, fp, commitOf)
			switch {
			case tc.wantErr && !errors.Is(err, indextest.ErrInjected):
				t.Errorf("error %v, want the index's", err)
			case tc.wantErr && f.commits != 0:
				t.Errorf("%d commits written after the index failed", f.commits)
			case !tc.wantErr && (err != nil || c == nil || f.commits != 1):
				t.Errorf("commit %v, error %v, %d commits; want one", c, err, f.commits)
			}
		})
	}
}
