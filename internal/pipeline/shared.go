package pipeline

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
)

// decisionStore is what deciding against a store that several processes
// write needs of it (*postgres.Store implements it): its change feed, the
// fleet's decision lock, and the commit that re-checks a verdict under
// that lock.
type decisionStore interface {
	changeFeed
	LockDecisions(ctx context.Context) (release func() error, err error)
	CommitDecision(ctx context.Context, cur *storage.Cursor, c *storage.Commit, recheck postgres.Recheck) (*storage.Commit, error)
}

// sharedStore is a store that several processes write: the store and its
// decision protocol.
type sharedStore interface {
	storage.Store
	decisionStore
}

var _ sharedStore = (*postgres.Store)(nil)

// sharedDecisions keeps one process's engine in step with the decisions of
// every process writing a shared store (storage/postgres). Decisions are
// optimistic: the engine indexes what other processes committed since its
// cursor and decides without any fleet lock; the commit then takes the
// fleet's decision lock, reads what others committed meanwhile (usually
// nothing or a few entries), re-checks the verdict against only those
// (dedup.Engine.Stale), decides again in the rare case they change it, and
// writes (postgres.Store.CommitDecision). Without the re-check two
// processes that fetch a story and its reprint at the same moment would
// both store them.
type sharedDecisions struct {
	store  decisionStore
	cursor storage.Cursor
	// decided, when set (tests), is called after each optimistic decision,
	// before its commit takes the decision lock.
	decided func()
}

// articleEntry is the index entry of a stored article.
func articleEntry(a storage.Article) dedup.Entry {
	var h [16]byte
	if b, err := hex.DecodeString(a.ContentHash); err == nil && len(b) == len(h) {
		copy(h[:], b)
	}
	return dedup.Entry{ID: uint64(a.ID), Cluster: uint64(a.Cluster), Simhash: a.Fingerprint.Simhash,
		Signature: a.Fingerprint.Signature, Hash: h, Title: dedup.TitleSet(a.Title), Image: storedImage(a.Fingerprint.Image),
		Prints: a.Fingerprint.Prints, ContentWords: a.Fingerprint.ContentWords, Time: dedup.WindowTime(a.FetchedAt, a.PublishedAt)}
}

// storedImage is a lead-image fingerprint read from the store (which
// checks it on every read, so a malformed one never gets here).
func storedImage(s string) imgfp.Fingerprint {
	fp, _ := imgfp.Parse(s)
	return fp
}

// memberEntry is the index entry of a duplicate (a cluster member).
func memberEntry(d storage.Duplicate) dedup.Entry {
	return dedup.Entry{ID: MemberID(d.URL), Cluster: uint64(d.Cluster), Simhash: d.Simhash, Signature: d.Signature,
		Title: dedup.TitleSet(d.Title), Image: storedImage(d.Image), Prints: d.Prints, ContentWords: d.ContentWords,
		Time: dedup.WindowTime(d.FetchedAt, d.PublishedAt)}
}

// newEngineShared builds the engine like NewEngine; for a shared store it
// builds under the decision lock, so that the index holds exactly the
// decisions up to the cursor it reports (nil for other stores).
func newEngineShared(ctx context.Context, build func() (*dedup.Engine, IndexLoad, error), store storage.Store) (*dedup.Engine, IndexLoad, *sharedDecisions, error) {
	pg, ok := store.(decisionStore)
	if !ok {
		eng, load, err := build()
		return eng, load, nil, err
	}
	release, err := pg.LockDecisions(ctx)
	if err != nil {
		return nil, IndexLoad{}, nil, err
	}
	defer release()
	eng, load, err := build()
	if err != nil {
		return nil, load, nil, err
	}
	return eng, load, &sharedDecisions{store: pg, cursor: load.Cursor}, nil
}

// catchUp indexes what other processes committed since the cursor,
// without the decision lock (a snapshot sees a prefix of the decisions).
func (s *sharedDecisions) catchUp(ctx context.Context, eng *dedup.Engine) error {
	var err error
	s.cursor, err = s.store.Changes(ctx, s.cursor, func(c storage.Change) error {
		_, _, err := applyChange(ctx, eng, c)
		return err
	})
	if err != nil {
		return fmt.Errorf("catch up with other processes' decisions: %w", err)
	}
	return nil
}

// applyChange indexes one change of the feed in eng and returns the entry
// it added, if any.
func applyChange(ctx context.Context, eng *dedup.Engine, c storage.Change) (dedup.Entry, bool, error) {
	switch {
	case c.Article != nil:
		en := articleEntry(*c.Article)
		return en, true, eng.Restore(ctx, en)
	case c.Duplicate != nil && !eng.Options().CentresOnly:
		en := memberEntry(*c.Duplicate)
		return en, true, eng.Restore(ctx, en)
	case c.Merge != nil:
		return dedup.Entry{}, false, eng.MergeClusters(ctx, uint64(c.Merge.Into), []uint64{uint64(c.Merge.From)})
	}
	return dedup.Entry{}, false, nil
}

// decide decides fp against the engine brought up to date, commits the
// commit of its verdict (commitOf) through CommitDecision, re-checking it
// against what others committed meanwhile, and returns the verdict and
// commit written. The caller holds the processor's lock.
func (s *sharedDecisions) decide(ctx context.Context, eng *dedup.Engine, fp *dedup.Fingerprint, commitOf func(dedup.Verdict) *storage.Commit) (dedup.Verdict, *storage.Commit, error) {
	if err := s.catchUp(ctx, eng); err != nil {
		return dedup.Verdict{}, nil, err
	}
	v, err := eng.Decide(ctx, fp)
	if err != nil {
		return dedup.Verdict{}, nil, err
	}
	c := commitOf(v)
	if s.decided != nil {
		s.decided()
	}
	written, err := s.store.CommitDecision(ctx, &s.cursor, c, func(tail []storage.Change) (*storage.Commit, error) {
		var added []dedup.Entry
		merges := 0
		for _, ch := range tail {
			en, ok, err := applyChange(ctx, eng, ch)
			if err != nil {
				return nil, err
			}
			if ok {
				added = append(added, en)
			}
			if ch.Merge != nil {
				merges++
			}
		}
		if !eng.Stale(fp, v, added, merges) {
			return c, nil
		}
		if v, err = eng.Decide(ctx, fp); err != nil {
			return nil, err
		}
		c = commitOf(v)
		return c, nil
	})
	return v, written, err
}
