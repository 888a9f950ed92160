package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// importWriteAhead is how many decided records the import's decisions may
// run ahead of the store's writer (batchStore): room for the writer's
// slower moments (a batch's end: its titles, its document-frequency fold,
// SQLite's commit) without holding more than a few MB of commits.
const importWriteAhead = 1024

// batchStore is the SQLite store as the import's Processor sees it. Its
// commits go, in decision order, to a writer goroutine that writes them
// size records to a transaction (sqlite.Batch) while the next records are
// decided: the store's writes are off the serial path of decisions. The
// writer is the only one writing articles while the import holds the
// store's lock, and a store gives an article the id after the largest, so
// batchStore assigns the ids itself (the engine indexes an article under
// its id before the writer has written it) and the writer checks that the
// store gave the same. The reads that must see the commits in flight
// (Decided, Article) look at them first. A failed write stops the writer:
// the commits after it are dropped, the batch it ended committed or rolled
// back as sqlite.Batch says, and every later call reports the error.
// Outcomes are counted when their batch has committed, so the import's
// stats are what the store holds.
type batchStore struct {
	*sqlite.Store
	size   int
	nextID int64 // the id the next stored article gets
	in     chan importWrite
	ended  chan struct{}            // closed when the writer has returned
	closed bool                     // in is closed
	hook   func(step string, n int) // ImportOptions.onBatch

	mu        sync.Mutex
	pending   map[string]inFlight // URLs sent, not committed yet
	committed ImportStats         // Stored, Duplicates, NotArticle of committed batches
	err       error               // the writer's first error
}

// importWrite is a commit for the writer, or (flush set) a request to
// commit everything sent before and answer on flush.
type importWrite struct {
	c     *storage.Commit
	flush chan error
}

// newBatchStore starts the writer of a batched import into s.
func newBatchStore(ctx context.Context, s *sqlite.Store, size int, hook func(string, int)) (*batchStore, error) {
	next, err := s.NextArticleID(ctx)
	if err != nil {
		return nil, err
	}
	bs := &batchStore{Store: s, size: size, nextID: next, hook: hook, in: make(chan importWrite, importWriteAhead),
		ended: make(chan struct{}), pending: make(map[string]inFlight)}
	go bs.write(context.WithoutCancel(ctx)) // what was decided is written, even after ctx ends
	return bs, nil
}

// failed is the writer's error, if it stopped on one.
func (s *batchStore) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// stats are the outcomes committed so far.
func (s *batchStore) stats() ImportStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.committed
}

// decidedBefore counts a record whose URL was decided before: at once
// when that decision is in the store, else when the commits in flight for
// the URL have all been committed (a write that fails first leaves it
// uncounted, as the decision it repeats).
func (s *batchStore) decidedBefore(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pending[u]; ok {
		p.repeats++
		s.pending[u] = p
		return
	}
	s.committed.AlreadyDecided++
}

// Commit hands c to the writer: a stored article gets its id (and, as a
// cluster of its own, its cluster) now, a duplicate its dup_of URL when it
// is written. The writer gets a copy, so c is the caller's to read.
func (s *batchStore) Commit(ctx context.Context, c *storage.Commit) error {
	if err := s.failed(); err != nil {
		return err
	}
	if s.closed {
		return errBatchStoreEnded
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if o, ok, _ := s.pendingOutcome(c.Page.URL); ok && o.Final() {
		return fmt.Errorf("commit %s: %w", c.Page.URL, storage.ErrAlreadyDecided)
	}
	w := *c
	if c.Article != nil {
		c.Article.ID, c.Article.Cluster = s.nextID, cmp.Or(c.Article.Cluster, s.nextID)
		s.nextID++
		a := *c.Article
		w.Article = &a
	}
	if c.Duplicate != nil {
		d := *c.Duplicate
		w.Duplicate = &d
	}
	s.mu.Lock()
	p := s.pending[c.Page.URL]
	p.outcome, p.commits = c.Page.Outcome, p.commits+1
	s.pending[c.Page.URL] = p
	s.mu.Unlock()
	select {
	case s.in <- importWrite{c: &w}:
		return nil
	case <-s.ended:
		return cmp.Or(s.failed(), errBatchStoreEnded)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inFlight is what a URL has among the commits sent and not committed
// yet: the outcome of the last one sent, and how many there are (a URL
// repeated in the input, its first record not an article, may be in two
// batches at once).
type inFlight struct {
	outcome storage.Outcome
	commits int
	repeats int // records of the URL decided before by these commits
}

// errBatchStoreEnded is a commit after the writer has ended.
var errBatchStoreEnded = errors.New("import: the store's writer has ended")

// pendingOutcome is the outcome of u among the commits in flight.
func (s *batchStore) pendingOutcome(u string) (storage.Outcome, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[u]
	return p.outcome, ok, s.err
}

// Decided is Store.Decided with the commits in flight: a URL leaves them
// only once its batch has committed, so looking at them first and at the
// store second misses none.
func (s *batchStore) Decided(ctx context.Context, u string) (storage.Outcome, bool, error) {
	o, ok, err := s.pendingOutcome(u)
	switch {
	case err != nil:
		return "", false, err
	case ok && o.Final():
		return o, true, nil
	}
	return s.Store.Decided(ctx, u)
}

// Article is Store.Article once every commit in flight is written.
func (s *batchStore) Article(ctx context.Context, id int64) (storage.Article, error) {
	if err := s.flush(ctx); err != nil {
		return storage.Article{}, err
	}
	return s.Store.Article(ctx, id)
}

// flush waits until the writer has committed everything sent before.
func (s *batchStore) flush(ctx context.Context) error {
	if s.closed {
		return s.failed()
	}
	done := make(chan error, 1)
	select {
	case s.in <- importWrite{flush: done}:
	case <-s.ended:
		return cmp.Or(s.failed(), errBatchStoreEnded)
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-done:
		return err
	case <-s.ended:
		return cmp.Or(s.failed(), errBatchStoreEnded)
	}
}

// ready reports the writer's error, if it stopped on one: the import
// stops there.
func (s *batchStore) ready(context.Context) error { return s.failed() }

// end waits for the writer to commit everything sent and returns its
// error (nothing for a nil batchStore). It may be called more than once.
func (s *batchStore) end() error {
	if s == nil {
		return nil
	}
	if !s.closed {
		s.closed = true
		close(s.in)
	}
	<-s.ended
	return s.failed()
}

// write is the writer: it commits what comes in, size records to a batch,
// until in is closed, and stops writing at the first error (draining in,
// so that Commit never blocks on it).
func (s *batchStore) write(ctx context.Context) {
	defer close(s.ended)
	w := importWriter{s: s}
	for it := range s.in {
		if s.failed() != nil {
			if it.flush != nil {
				it.flush <- s.failed()
			}
			continue
		}
		var err error
		switch {
		case it.flush != nil:
			err = w.end()
			it.flush <- err
		default:
			err = w.commit(ctx, it.c)
		}
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
		}
	}
	if s.failed() == nil {
		if err := w.end(); err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
		}
	}
}

// importWriter is the writer's open batch.
type importWriter struct {
	s    *batchStore
	b    *sqlite.Batch // nil between batches
	urls []string      // the batch's URLs
	n    ImportStats   // the batch's outcomes
	ends int           // batches ended
}

// commit writes c in the open batch (opening one first), and ends the
// batch when it is full. A commit that fails ends the batch: what it
// holds before the failure is committed unless the failure rolled the
// batch back (sqlite.Batch.Commit).
func (w *importWriter) commit(ctx context.Context, c *storage.Commit) error {
	if w.b == nil {
		b, err := w.s.Store.BeginBatch(ctx)
		if err != nil {
			return err
		}
		w.b = b
	}
	var want int64
	if c.Article != nil {
		want = c.Article.ID
	}
	err := w.b.Commit(ctx, c)
	if err == nil && c.Article != nil && c.Article.ID != want {
		// Nothing decided after this article may be committed: the
		// engine indexed them under ids the store did not give.
		err = fmt.Errorf("commit %s: the store gave article id %d, the import expected %d", c.Page.URL, c.Article.ID, want)
		return errors.Join(err, w.rollback())
	}
	if err != nil {
		return errors.Join(err, w.endAfterFailure())
	}
	w.urls = append(w.urls, c.Page.URL)
	w.n.count(c.Page.Outcome, false)
	if len(w.urls) >= w.s.size {
		return w.end()
	}
	return nil
}

// end commits the open batch, if any, and counts its outcomes.
func (w *importWriter) end() error {
	if w.b == nil {
		return nil
	}
	b, s := w.b, w.s
	w.b = nil
	w.ends++
	if s.hook != nil {
		s.hook("end", w.ends)
	}
	if err := b.End(); err != nil {
		w.urls, w.n = w.urls[:0], ImportStats{}
		return err
	}
	if s.hook != nil {
		s.hook("ended", w.ends)
	}
	s.mu.Lock()
	for _, u := range w.urls {
		if p := s.pending[u]; p.commits > 1 {
			p.commits--
			s.pending[u] = p
		} else {
			s.committed.AlreadyDecided += p.repeats
			delete(s.pending, u)
		}
	}
	s.committed.Stored += w.n.Stored
	s.committed.Duplicates += w.n.Duplicates
	s.committed.NotArticle += w.n.NotArticle
	s.mu.Unlock()
	w.urls, w.n = w.urls[:0], ImportStats{}
	return nil
}

// endAfterFailure ends the batch after a failed commit: a commit that
// failed in its checks left the batch as it was, and the records before
// it are committed; one that failed while writing rolled the batch back
// (End then reports that, which the failure already says).
func (w *importWriter) endAfterFailure() error {
	err := w.end()
	if err != nil && w.b == nil && errors.Is(err, sqlite.ErrBatchAborted) {
		return nil
	}
	return err
}

// rollback discards the open batch.
func (w *importWriter) rollback() error {
	b := w.b
	w.b, w.urls, w.n = nil, w.urls[:0], ImportStats{}
	return b.Rollback()
}

// failure is the writer's error (nil for a nil batchStore).
func (s *batchStore) failure() error {
	if s == nil {
		return nil
	}
	return s.failed()
}

// countCommitted sets st's outcomes to those committed (nothing for a nil
// batchStore, whose caller counts them as it commits).
func (s *batchStore) countCommitted(st *ImportStats) {
	if s == nil {
		return
	}
	c := s.stats()
	st.Stored, st.Duplicates, st.NotArticle, st.AlreadyDecided = c.Stored, c.Duplicates, c.NotArticle, c.AlreadyDecided
}
