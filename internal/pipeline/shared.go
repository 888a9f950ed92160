package pipeline

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/redisindex"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// sharedDecisions keeps one process's engine in step with the decisions of
// every process writing a shared store (storage/postgres): each decision
// runs under the store's fleet-wide decision lock, after the engine has
// indexed what other processes committed since its cursor. Without it two
// processes that fetch a story and its reprint at the same moment would
// both store them.
type sharedDecisions struct {
	store  *postgres.Store
	cursor postgres.Cursor
	// index, when set, is the engine's index shared in Redis
	// (dedup.index: redis): current by construction, so there is no
	// catch-up, and its errors fail the decision (indexErr).
	index *redisindex.Index
}

// indexErr is the error of the shared index, if any: checked after the
// decision and after indexing the verdict, so that a Redis failure fails
// the page instead of deciding "new" on no candidates.
func (s *sharedDecisions) indexErr() error {
	if s == nil || s.index == nil {
		return nil
	}
	return s.index.Err()
}

// articleEntry is the index entry of a stored article.
func articleEntry(a storage.Article) dedup.Entry {
	var h [16]byte
	if b, err := hex.DecodeString(a.ContentHash); err == nil && len(b) == len(h) {
		copy(h[:], b)
	}
	return dedup.Entry{ID: uint64(a.ID), Cluster: uint64(a.Cluster), Simhash: a.Fingerprint.Simhash,
		Signature: a.Fingerprint.Signature, Hash: h, Title: dedup.TitleSet(a.Title)}
}

// memberEntry is the index entry of a duplicate (a cluster member).
func memberEntry(d storage.Duplicate) dedup.Entry {
	return dedup.Entry{ID: MemberID(d.URL), Cluster: uint64(d.Cluster), Simhash: d.Simhash, Signature: d.Signature,
		Title: dedup.TitleSet(d.Title)}
}

// newEngineShared builds the engine like NewEngine; for a shared store it
// rebuilds under the decision lock, so that the rebuild holds exactly the
// decisions up to the returned cursor (nil for other stores).
func newEngineShared(ctx context.Context, build func() (*dedup.Engine, int, error), store storage.Store) (*dedup.Engine, int, *sharedDecisions, error) {
	pg, ok := store.(*postgres.Store)
	if !ok {
		eng, n, err := build()
		return eng, n, nil, err
	}
	release, err := pg.LockDecisions(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	defer release()
	head, err := pg.Head(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	eng, n, err := build()
	if err != nil {
		return nil, 0, nil, err
	}
	return eng, n, &sharedDecisions{store: pg, cursor: head}, nil
}

// begin takes the decision lock and indexes the other processes' commits
// since the cursor; the caller decides, commits, then calls end.
func (s *sharedDecisions) begin(ctx context.Context, eng *dedup.Engine) (release func() error, err error) {
	release, err = s.store.LockDecisions(ctx)
	if err != nil || s.index != nil {
		return release, err
	}
	members := !eng.Options().CentresOnly
	s.cursor, err = s.store.Changes(ctx, s.cursor, func(c postgres.Change) error {
		switch {
		case c.Article != nil:
			eng.Restore(articleEntry(*c.Article))
		case c.Duplicate != nil && members:
			eng.Restore(memberEntry(*c.Duplicate))
		case c.Merge != nil:
			eng.MergeClusters(uint64(c.Merge.Into), []uint64{uint64(c.Merge.From)})
		}
		return nil
	})
	if err != nil {
		release()
		return nil, fmt.Errorf("catch up with other processes' decisions: %w", err)
	}
	return release, nil
}

// end moves the cursor past this process's own commit (already in its
// engine); nothing else commits while the decision lock is held.
func (s *sharedDecisions) end(ctx context.Context) error {
	if s.index != nil {
		return s.indexErr()
	}
	head, err := s.store.Head(ctx)
	if err != nil {
		return err
	}
	s.cursor = head
	return nil
}
