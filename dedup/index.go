package dedup

import (
	"context"
	"fmt"
	"sync"

	"github.com/newsdedup/newscrawl/simhash"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// MemoryIndex is the in-process Index: a Manku et al. Hamming index over the
// Simhashes, a SpotSigs inverted index over the signatures, and an exact
// hash table for identical texts. It is safe for concurrent use.
type MemoryIndex struct {
	mu      sync.RWMutex
	sim     *simhash.Index
	spots   *spotsigs.Index
	exact   map[[16]byte]uint64
	entries map[uint64]*Entry
	merges  ClusterMerges
}

var _ Index = (*MemoryIndex)(nil)

// NewMemoryIndex returns an empty index whose Hamming tables answer radius
// k and whose SpotSigs length partitions are cut for threshold tau.
func NewMemoryIndex(k int, tau float64) (*MemoryIndex, error) {
	sim, err := simhash.NewIndex(k)
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	spots, err := spotsigs.NewIndex(min(tau, 0.99))
	if err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	return &MemoryIndex{sim: sim, spots: spots, exact: map[[16]byte]uint64{}, entries: map[uint64]*Entry{},
		merges: NewClusterMerges()}, nil
}

// NewExhaustiveIndex is an Options.NewIndex building a MemoryIndex for
// the query's Hamming radius and Jaccard threshold.
func NewExhaustiveIndex(q Query) (Index, error) {
	m, err := NewMemoryIndex(q.Hamming, q.Jaccard)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Add implements Index.
func (m *MemoryIndex) Add(_ context.Context, e Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.entries[e.ID]; ok {
		return nil
	}
	en := e
	m.entries[e.ID] = &en
	m.sim.Add(e.ID, e.Simhash)
	// Add fails only past 2^32-1 signatures; the Hamming and exact tables
	// still find such an entry.
	_ = m.spots.Add(e.ID, e.Signature)
	if _, ok := m.exact[e.Hash]; !ok && e.Hash != ([16]byte{}) {
		m.exact[e.Hash] = e.ID
	}
	return nil
}

// Remove implements Index.
func (m *MemoryIndex) Remove(_ context.Context, id uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[id]
	if !ok {
		return nil
	}
	delete(m.entries, id)
	m.sim.Remove(id)
	m.spots.Remove(id)
	if m.exact[e.Hash] == id {
		delete(m.exact, e.Hash)
	}
	return nil
}

// Len implements Index.
func (m *MemoryIndex) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.entries)
}

// MergeClusters implements Index.
func (m *MemoryIndex) MergeClusters(_ context.Context, into uint64, from []uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.merges.Merge(into, from)
	return nil
}

// ClusterOf implements Index.
func (m *MemoryIndex) ClusterOf(_ context.Context, cluster uint64) (uint64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.merges.Of(cluster), nil
}

// Candidates implements Index.
func (m *MemoryIndex) Candidates(_ context.Context, fp *Fingerprint, q Query) ([]*Entry, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []*Entry
	seen := map[uint64]bool{}
	add := func(id uint64) {
		if seen[id] {
			return
		}
		if e, ok := m.entries[id]; ok {
			seen[id] = true
			if into := m.merges.Of(e.Cluster); into != e.Cluster {
				c := *e
				c.Cluster = into
				e = &c
			}
			out = append(out, e)
		}
	}
	if id, ok := m.exact[fp.Hash]; ok {
		add(id)
	}
	if !q.NoSimhash {
		for _, mt := range m.sim.Query(fp.Simhash) {
			if mt.Distance <= q.Hamming {
				add(mt.ID)
			}
		}
	}
	if !q.NoSpotSigs && len(fp.Signature) > 0 {
		jm := m.spots.Query(fp.Signature, q.Jaccard)
		for _, mt := range jm {
			add(mt.ID)
		}
		// Containment candidates are looked for only when no signature
		// reaches the Jaccard threshold: a second index pass is the most
		// expensive part of a lookup, and a Jaccard match is preferred.
		if q.Containment > 0 && len(jm) == 0 {
			for _, mt := range m.spots.ContainmentQuery(fp.Signature, q.Containment) {
				add(mt.ID)
			}
		}
	}
	return out, nil
}
