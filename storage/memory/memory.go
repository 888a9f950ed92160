// Package memory is an in-memory storage.Store for tests; it passes the
// same conformance suite (storage/storagetest) as storage/sqlite.
package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Store is an in-memory storage.Store for tests. It is safe for concurrent use; its
// run lock is an in-process lock. Iteration callbacks run on a snapshot taken
// under the lock, so they may call back into the store.
type Store struct {
	mu sync.RWMutex

	runs []storage.Run

	pages    map[string]*memPage // by URL
	pageSeq  int64               // commit order counter
	articles []storage.Article   // index i holds id i+1
	artByURL map[string]int64
	dups     map[string]*memDup // by URL
	dupSeq   int64
	merges   []storage.Merge // the change feed's merge log; seq i+1 is merges[i]
	docfreq  map[string]int
	docs     int
	raw      map[string]storage.RawResponse // by URL, bodies copied

	frontier    map[string]*memItem
	frontierSeq int64

	surfaces map[string]storage.SurfaceState // by key

	lock   chan struct{} // capacity 1: holding a token is holding the run lock
	closed bool
}

type memPage struct {
	storage.Page
	seq int64
}

type memDup struct {
	storage.Duplicate
	seq int64
}

type memItem struct {
	storage.FrontierItem
	seq      int64
	inflight bool
}

var (
	_ storage.Store    = (*Store)(nil)
	_ storage.RawStore = (*Store)(nil)
)

// Raw implements storage.RawStore.
func (m *Store) Raw(ctx context.Context, url string) (storage.RawResponse, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return storage.RawResponse{}, err
	}
	r, ok := m.raw[url]
	if !ok {
		return storage.RawResponse{}, fmt.Errorf("raw response of %s: %w", url, storage.ErrNotFound)
	}
	return storage.RawResponse{Status: r.Status, Proto: r.Proto, Header: r.Header.Clone(), Body: append([]byte(nil), r.Body...)}, nil
}

// New returns an empty in-memory store.
func New() *Store {
	return &Store{
		pages:    make(map[string]*memPage),
		artByURL: make(map[string]int64),
		dups:     make(map[string]*memDup),
		docfreq:  make(map[string]int),
		raw:      make(map[string]storage.RawResponse),
		frontier: make(map[string]*memItem),
		surfaces: make(map[string]storage.SurfaceState),
		lock:     make(chan struct{}, 1),
	}
}

var errClosed = errors.New("store is closed")

// utc normalises a time as the SQLite store does: UTC, no monotonic reading.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

func (m *Store) check(ctx context.Context) error {
	if m.closed {
		return errClosed
	}
	return ctx.Err()
}

// BeginRun records a new run with status "running".
func (m *Store) BeginRun(ctx context.Context, config string) (storage.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return storage.Run{}, err
	}
	r := storage.Run{ID: int64(len(m.runs)) + 1, StartedAt: time.Now().UTC(), Status: storage.RunRunning, Config: config}
	m.runs = append(m.runs, r)
	return r, nil
}

// FinishRun stores r's finish time, status and stats.
func (m *Store) FinishRun(ctx context.Context, r storage.Run) error {
	if err := storage.ValidTime("run finished_at", r.FinishedAt); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	if r.ID < 1 || r.ID > int64(len(m.runs)) {
		return fmt.Errorf("finish run %d: %w", r.ID, storage.ErrNotFound)
	}
	old := &m.runs[r.ID-1]
	old.FinishedAt = utc(r.FinishedAt)
	old.Status = r.Status
	old.Stats = r.Stats
	return nil
}

// Runs returns every run in id order.
func (m *Store) Runs(ctx context.Context) ([]storage.Run, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	return append([]storage.Run(nil), m.runs...), nil
}

// Commit writes one page outcome atomically; see Store.Commit.
func (m *Store) Commit(ctx context.Context, c *storage.Commit) error {
	if err := c.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	url := c.Page.URL
	if old, ok := m.pages[url]; ok {
		if _, err := sqlcore.Replace(string(old.Outcome)); err != nil {
			return fmt.Errorf("commit %s: %w", url, err)
		}
	}
	// Everything that can fail is checked before anything is written.
	var dupOf *storage.Article
	if c.Duplicate != nil {
		if c.Duplicate.DupOf > int64(len(m.articles)) {
			return fmt.Errorf("commit %s: %w", url, sqlcore.MissingDupOf(c.Duplicate.DupOf))
		}
		dupOf = &m.articles[c.Duplicate.DupOf-1]
	}
	if c.Article != nil && c.Article.PartialOf > int64(len(m.articles)) {
		return fmt.Errorf("commit %s: %w", url, sqlcore.MissingPartialOf(c.Article.PartialOf))
	}

	m.pageSeq++
	p := c.Page
	p.FetchedAt, p.RetryAt = utc(p.FetchedAt), utc(p.RetryAt)
	m.pages[url] = &memPage{Page: p, seq: m.pageSeq}
	m.commitParts(c)

	switch {
	case c.Article != nil:
		a := cloneArticle(*c.Article)
		a.ID = int64(len(m.articles)) + 1
		a.URL = url
		if a.Cluster == 0 {
			a.Cluster = a.ID
		}
		a.PublishedAt = utc(a.PublishedAt)
		a.FetchedAt = utc(a.FetchedAt)
		m.articles = append(m.articles, a)
		m.artByURL[url] = a.ID
		for _, t := range storage.DistinctTerms(c.Terms) {
			m.docfreq[t]++
		}
		m.docs++
		if c.Raw != nil {
			m.raw[url] = storage.RawResponse{Status: c.Raw.Status, Proto: c.Raw.Proto, Header: c.Raw.Header.Clone(),
				Body: append([]byte(nil), c.Raw.Body...)}
		}
		sqlcore.Assigned{ArticleID: a.ID, ArticleCluster: a.Cluster}.Fill(c)
	case c.Duplicate != nil:
		d := cloneDuplicate(*c.Duplicate)
		d.URL = url
		d.DupOfURL, d.Cluster = sqlcore.DupTarget(&d, dupOf.URL, dupOf.Cluster)
		d.PublishedAt = utc(d.PublishedAt)
		d.FetchedAt = utc(d.FetchedAt)
		d.Merges = nil
		for _, from := range sqlcore.Merges(c.Duplicate) {
			for i := range m.articles {
				if m.articles[i].Cluster == from {
					m.articles[i].Cluster = d.Cluster
				}
			}
			for _, o := range m.dups {
				if o.Cluster == from {
					o.Cluster = d.Cluster
				}
			}
			m.merges = append(m.merges, storage.Merge{Into: d.Cluster, From: from})
		}
		m.dupSeq++
		m.dups[url] = &memDup{Duplicate: d, seq: m.dupSeq}
		sqlcore.Assigned{DupOfURL: d.DupOfURL, DupCluster: d.Cluster}.Fill(c)
	}
	return nil
}

// commitParts records the later pages of a multi-page article
// (Commit.Parts) as pages of Outcome Part; a URL already decided keeps its
// record.
func (m *Store) commitParts(c *storage.Commit) {
	for _, u := range c.Parts {
		if old, ok := m.pages[u]; ok && old.Outcome.Final() {
			continue
		}
		m.pageSeq++
		p := sqlcore.PartPage(c, u)
		p.FetchedAt = utc(p.FetchedAt)
		m.pages[u] = &memPage{Page: p, seq: m.pageSeq}
	}
}

func cloneArticle(a storage.Article) storage.Article {
	a.Pages = cloneStrings(a.Pages)
	a.PagesMissing = cloneStrings(a.PagesMissing)
	a.Fingerprint.Signature = cloneUints(a.Fingerprint.Signature)
	a.Fingerprint.Prints = cloneUints(a.Fingerprint.Prints)
	if len(a.Passages) == 0 {
		a.Passages = nil
	} else {
		a.Passages = append([]storage.Passage(nil), a.Passages...)
	}
	return a
}

func cloneDuplicate(d storage.Duplicate) storage.Duplicate {
	d.Signature = cloneUints(d.Signature)
	d.Prints = cloneUints(d.Prints)
	return d
}

// cloneStrings copies a URL list, nil when empty (as the other stores
// read them back).
func cloneStrings(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return append([]string(nil), xs...)
}

// cloneUints copies a signature or prints, nil when empty (as the other
// stores read them back).
func cloneUints(xs []uint64) []uint64 {
	if len(xs) == 0 {
		return nil
	}
	return append([]uint64(nil), xs...)
}

// Decided reports the final outcome of a URL.
func (m *Store) Decided(ctx context.Context, url string) (storage.Outcome, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return "", false, err
	}
	if p, ok := m.pages[url]; ok && p.Outcome.Final() {
		return p.Outcome, true, nil
	}
	return "", false, nil
}

// PageOf returns the page record of url, or ErrNotFound.
func (m *Store) PageOf(ctx context.Context, url string) (storage.Page, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return storage.Page{}, err
	}
	p, ok := m.pages[url]
	if !ok {
		return storage.Page{}, fmt.Errorf("page %s: %w", url, storage.ErrNotFound)
	}
	return p.Page, nil
}

// Article returns the article with that id, or ErrNotFound.
func (m *Store) Article(ctx context.Context, id int64) (storage.Article, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return storage.Article{}, err
	}
	if id < 1 || id > int64(len(m.articles)) {
		return storage.Article{}, fmt.Errorf("article %d: %w", id, storage.ErrNotFound)
	}
	return cloneArticle(m.articles[id-1]), nil
}

// ArticleByURL returns the article stored for url, or ErrNotFound.
func (m *Store) ArticleByURL(ctx context.Context, url string) (storage.Article, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return storage.Article{}, err
	}
	id, ok := m.artByURL[url]
	if !ok {
		return storage.Article{}, fmt.Errorf("article %s: %w", url, storage.ErrNotFound)
	}
	return cloneArticle(m.articles[id-1]), nil
}

// Articles calls fn for every stored article in id order.
func (m *Store) Articles(ctx context.Context, fn func(storage.Article) error) error {
	return m.eachArticle(ctx, func(storage.Article) bool { return true }, false, fn)
}

// Fingerprints calls fn for every article fetched or published at or after
// since (zero: all), in id order, with Text empty.
func (m *Store) Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error {
	keep := func(a storage.Article) bool {
		return since.IsZero() || (!a.FetchedAt.IsZero() && !a.FetchedAt.Before(since)) ||
			(!a.PublishedAt.IsZero() && !a.PublishedAt.Before(since))
	}
	return m.eachArticle(ctx, keep, true, fn)
}

func (m *Store) eachArticle(ctx context.Context, keep func(storage.Article) bool, noText bool, fn func(storage.Article) error) error {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return err
	}
	var snap []storage.Article
	for _, a := range m.articles {
		if keep(a) {
			snap = append(snap, a)
		}
	}
	m.mu.RUnlock()
	for _, a := range snap {
		if err := ctx.Err(); err != nil {
			return err
		}
		a = cloneArticle(a)
		if noText {
			a.Text = ""
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

// Duplicates calls fn for every duplicate verdict in commit order.
func (m *Store) Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error {
	return m.eachDuplicate(ctx, func(storage.Duplicate) bool { return true }, false, fn)
}

// DuplicateFingerprints calls fn, in commit order, for every duplicate
// verdict fetched or published at or after since (zero: all), with Text
// empty.
func (m *Store) DuplicateFingerprints(ctx context.Context, since time.Time, fn func(storage.Duplicate) error) error {
	keep := func(d storage.Duplicate) bool {
		return since.IsZero() || (!d.FetchedAt.IsZero() && !d.FetchedAt.Before(since)) ||
			(!d.PublishedAt.IsZero() && !d.PublishedAt.Before(since))
	}
	return m.eachDuplicate(ctx, keep, true, fn)
}

func (m *Store) eachDuplicate(ctx context.Context, keep func(storage.Duplicate) bool, noText bool, fn func(storage.Duplicate) error) error {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return err
	}
	snap := make([]*memDup, 0, len(m.dups))
	for _, d := range m.dups {
		if keep(d.Duplicate) {
			snap = append(snap, d)
		}
	}
	m.mu.RUnlock()
	sort.Slice(snap, func(i, j int) bool { return snap[i].seq < snap[j].seq })
	for _, d := range snap {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Stored verdicts are never modified, so reading one outside the
		// lock is safe; the copy keeps fn from changing the store.
		dup := cloneDuplicate(d.Duplicate)
		if noText {
			dup.Text = ""
		}
		if err := fn(dup); err != nil {
			return err
		}
	}
	return nil
}

// Pages calls fn for every page record in commit order.
func (m *Store) Pages(ctx context.Context, fn func(storage.Page) error) error {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return err
	}
	snap := make([]*memPage, 0, len(m.pages))
	for _, p := range m.pages {
		snap = append(snap, p)
	}
	m.mu.RUnlock()
	sort.Slice(snap, func(i, j int) bool { return snap[i].seq < snap[j].seq })
	for _, p := range snap {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(p.Page); err != nil {
			return err
		}
	}
	return nil
}

// DocFreqs calls fn for every term in byte order and returns the number of
// stored articles.
func (m *Store) DocFreqs(ctx context.Context, fn func(term string, df int) error) (int, error) {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return 0, err
	}
	type tf struct {
		term string
		df   int
	}
	snap := make([]tf, 0, len(m.docfreq))
	for t, n := range m.docfreq {
		snap = append(snap, tf{t, n})
	}
	docs := m.docs
	m.mu.RUnlock()
	sort.Slice(snap, func(i, j int) bool { return snap[i].term < snap[j].term })
	for _, x := range snap {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := fn(x.term, x.df); err != nil {
			return 0, err
		}
	}
	return docs, nil
}

// Lock takes the in-process run lock.
func (m *Store) Lock(ctx context.Context, wait bool) (func() error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if wait {
		select {
		case m.lock <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	} else {
		select {
		case m.lock <- struct{}{}:
		default:
			return nil, storage.ErrLocked
		}
	}
	var once sync.Once
	return func() error {
		once.Do(func() { <-m.lock })
		return nil
	}, nil
}

// Check verifies the same cross-table invariants as the SQLite store.
func (m *Store) Check(ctx context.Context) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	var bad []string
	for i, a := range m.articles {
		if a.ID != int64(i)+1 {
			bad = append(bad, fmt.Sprintf("article at %d has id %d", i+1, a.ID))
		}
		if p, ok := m.pages[a.URL]; !ok || p.Outcome != storage.OutcomeStored {
			bad = append(bad, fmt.Sprintf("article %d (%s) has no stored page", a.ID, a.URL))
		}
		if _, ok := m.dups[a.URL]; ok {
			bad = append(bad, fmt.Sprintf("url %s is both article and duplicate", a.URL))
		}
	}
	for url, d := range m.dups {
		if d.DupOf < 1 || d.DupOf > int64(len(m.articles)) {
			bad = append(bad, fmt.Sprintf("duplicate %s: dup_of %d missing", url, d.DupOf))
		}
		if p, ok := m.pages[url]; !ok || p.Outcome != storage.OutcomeDuplicate {
			bad = append(bad, fmt.Sprintf("duplicate %s has no duplicate page", url))
		}
	}
	for url, p := range m.pages {
		_, isArt := m.artByURL[url]
		_, isDup := m.dups[url]
		if p.Outcome == storage.OutcomeStored && !isArt {
			bad = append(bad, fmt.Sprintf("page %s stored without article", url))
		}
		if p.Outcome == storage.OutcomeDuplicate && !isDup {
			bad = append(bad, fmt.Sprintf("page %s duplicate without verdict", url))
		}
	}
	if m.docs != len(m.articles) {
		bad = append(bad, fmt.Sprintf("docs counter %d but %d articles", m.docs, len(m.articles)))
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return storage.CheckFailed(bad)
	}
	return nil
}

// Close marks the store closed; later calls fail.
func (m *Store) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// Push queues items not yet queued and not decided, and lowers the depth
// of pending ones pushed again at a smaller depth; see Frontier.
func (m *Store) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	for _, it := range items {
		if it.URL == "" {
			return 0, fmt.Errorf("%w: frontier item with empty url", storage.ErrInvalid)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return 0, err
	}
	added := 0
	now := time.Now()
	for _, it := range items {
		if q, ok := m.frontier[it.URL]; ok {
			// A shorter path to a queued URL lowers its depth (several
			// processes do not pop in breadth-first order).
			if !q.inflight && it.Depth < q.Depth {
				q.Depth, q.Referer = it.Depth, it.Referer
			}
			continue
		}
		if p, ok := m.pages[it.URL]; ok && p.Skipped(now) {
			continue
		}
		m.frontierSeq++
		m.frontier[it.URL] = &memItem{FrontierItem: it, seq: m.frontierSeq}
		added++
	}
	return added, nil
}

// Pop leases up to n pending items of site (all when empty), oldest first.
func (m *Store) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	var cand []*memItem
	for _, it := range m.frontier {
		if !it.inflight && (site == "" || it.Site == site) {
			cand = append(cand, it)
		}
	}
	sort.Slice(cand, func(i, j int) bool { return cand[i].seq < cand[j].seq })
	if len(cand) > n {
		cand = cand[:n]
	}
	out := make([]storage.FrontierItem, len(cand))
	for i, it := range cand {
		it.inflight = true
		out[i] = it.FrontierItem
	}
	return out, nil
}

// Done removes url from the frontier (no-op when absent).
func (m *Store) Done(ctx context.Context, url string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	delete(m.frontier, url)
	return nil
}

// Requeue makes every in-flight item pending again.
func (m *Store) Requeue(ctx context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return 0, err
	}
	n := 0
	for _, it := range m.frontier {
		if it.inflight {
			it.inflight = false
			n++
		}
	}
	return n, nil
}

// Pending counts queued items (pending or in flight) of site (all when empty).
func (m *Store) Pending(ctx context.Context, site string) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return 0, err
	}
	if site == "" {
		return len(m.frontier), nil
	}
	n := 0
	for _, it := range m.frontier {
		if it.Site == site {
			n++
		}
	}
	return n, nil
}

// Reset forgets every frontier item.
func (m *Store) Reset(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	clear(m.frontier)
	return nil
}

// Head returns the cursor after everything committed so far.
func (m *Store) Head(ctx context.Context) (storage.Cursor, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return storage.Cursor{}, err
	}
	return storage.Cursor{Article: int64(len(m.articles)), Duplicate: m.dupSeq, Merge: int64(len(m.merges))}, nil
}

// Changes calls fn for what was committed after the cursor, from one
// snapshot taken under the lock: stored articles in id order, then
// duplicates in commit order, then cluster merges in order (articles and
// duplicates carry their current cluster). It returns the cursor after the
// changes fn accepted; fn may call the store.
func (m *Store) Changes(ctx context.Context, after storage.Cursor, fn func(storage.Change) error) (storage.Cursor, error) {
	m.mu.RLock()
	if err := m.check(ctx); err != nil {
		m.mu.RUnlock()
		return after, err
	}
	var arts []storage.Article
	for i := max(after.Article, 0); i < int64(len(m.articles)); i++ {
		a := cloneArticle(m.articles[i])
		a.Text = ""
		arts = append(arts, a)
	}
	var dups []memDup
	for _, d := range m.dups {
		if d.seq > after.Duplicate {
			x := memDup{Duplicate: cloneDuplicate(d.Duplicate), seq: d.seq}
			x.Text = ""
			dups = append(dups, x)
		}
	}
	var merges []storage.Merge
	if after.Merge < int64(len(m.merges)) {
		merges = append(merges, m.merges[max(after.Merge, 0):]...)
	}
	m.mu.RUnlock()
	sort.Slice(dups, func(i, j int) bool { return dups[i].seq < dups[j].seq })
	next := after
	for i := range arts {
		if err := fn(storage.Change{Article: &arts[i]}); err != nil {
			return next, err
		}
		next.Article = arts[i].ID
	}
	for i := range dups {
		if err := fn(storage.Change{Duplicate: &dups[i].Duplicate}); err != nil {
			return next, err
		}
		next.Duplicate = dups[i].seq
	}
	for i := range merges {
		if err := fn(storage.Change{Merge: &merges[i]}); err != nil {
			return next, err
		}
		next.Merge = max(after.Merge, 0) + int64(i) + 1
	}
	return next, nil
}
