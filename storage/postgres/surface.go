package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Surface implements storage.SurfaceStore.
func (s *Store) Surface(ctx context.Context, key string) (storage.SurfaceState, error) {
	st, err := s.rows.Surface(s.pool.QueryRow(ctx, `SELECT `+sqlcore.SurfaceCols+` FROM surfaces WHERE key = $1`, key))
	return sqlcore.One(st, err, pgx.ErrNoRows, "surface", key)
}

// ClaimSurface implements storage.SurfaceStore in one statement: the
// insert of a new surface or the update of a due one. Of processes
// claiming one surface at once, the row lock lets one update it; the
// others re-check the WHERE against the updated row and claim nothing.
func (s *Store) ClaimSurface(ctx context.Context, key string, now time.Time, hold time.Duration) (bool, error) {
	if err := storable("surface", key); err != nil || key == "" {
		return false, fmt.Errorf("claim surface: %w: key %q", storage.ErrInvalid, key)
	}
	due := now.Add(max(hold, 0))
	if err := storage.ValidTime("surface next_due", due); err != nil {
		return false, fmt.Errorf("claim surface %s: %w", key, err)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO surfaces(key, next_due) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET next_due = $2
		WHERE surfaces.next_due IS NULL OR surfaces.next_due <= $3`, key, due.UnixNano(), now.UnixNano())
	if err != nil {
		return false, fmt.Errorf("claim surface %s: %w", key, err)
	}
	return tag.RowsAffected() > 0, nil
}

// SaveSurface implements storage.SurfaceStore.
func (s *Store) SaveSurface(ctx context.Context, st storage.SurfaceState) error {
	if err := st.Validate(); err != nil {
		return fmt.Errorf("save surface: %w", err)
	}
	if err := storable("surface "+st.Key, st.Key, st.Site, st.ETag, st.LastModified); err != nil {
		return fmt.Errorf("save surface: %w", err)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO surfaces(`+sqlcore.SurfaceCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (key) DO UPDATE SET site = $2, etag = $3, last_modified = $4, fetched_at = $5, status = $6,
			new_urls = $7, empty_runs = $8, next_due = $9, links = $10`,
		sqlcore.SurfaceArgs(&st)...)
	if err != nil {
		return fmt.Errorf("save surface %s: %w", st.Key, err)
	}
	return nil
}
