package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// Surface implements storage.SurfaceStore.
func (m *Store) Surface(ctx context.Context, key string) (storage.SurfaceState, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.check(ctx); err != nil {
		return storage.SurfaceState{}, err
	}
	s, ok := m.surfaces[key]
	if !ok {
		return storage.SurfaceState{}, fmt.Errorf("surface %s: %w", key, storage.ErrNotFound)
	}
	s.Links = slices.Clone(s.Links)
	return s, nil
}

// ClaimSurface implements storage.SurfaceStore.
func (m *Store) ClaimSurface(ctx context.Context, key string, now time.Time, hold time.Duration) (bool, error) {
	if key == "" {
		return false, fmt.Errorf("claim surface: %w: empty key", storage.ErrInvalid)
	}
	due := now.Add(max(hold, 0))
	if err := storage.ValidTime("surface next_due", due); err != nil {
		return false, fmt.Errorf("claim surface %s: %w", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return false, err
	}
	s, ok := m.surfaces[key]
	if ok && s.NextDue.After(now) {
		return false, nil
	}
	s.Key, s.NextDue = key, utc(due)
	m.surfaces[key] = s
	return true, nil
}

// SaveSurface implements storage.SurfaceStore.
func (m *Store) SaveSurface(ctx context.Context, s storage.SurfaceState) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("save surface: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(ctx); err != nil {
		return err
	}
	s.FetchedAt, s.NextDue = utc(s.FetchedAt), utc(s.NextDue)
	s.Links = slices.Clone(s.Links)
	if len(s.Links) == 0 {
		s.Links = nil
	}
	m.surfaces[s.Key] = s
	return nil
}
