package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// Surface implements storage.SurfaceStore.
func (s *Store) Surface(ctx context.Context, key string) (storage.SurfaceState, error) {
	st, err := s.rows.Surface(s.db.QueryRowContext(ctx, `SELECT `+sqlcore.SurfaceCols+` FROM surfaces WHERE key = ?`, key))
	return sqlcore.One(st, err, sql.ErrNoRows, "surface", key)
}

// ClaimSurface implements storage.SurfaceStore: one upsert whose update
// applies only when the surface is due, under SQLite's single writer.
func (s *Store) ClaimSurface(ctx context.Context, key string, now time.Time, hold time.Duration) (bool, error) {
	if key == "" {
		return false, fmt.Errorf("claim surface: %w: empty key", storage.ErrInvalid)
	}
	due := now.Add(max(hold, 0))
	if err := storage.ValidTime("surface next_due", due); err != nil {
		return false, fmt.Errorf("claim surface %s: %w", key, err)
	}
	claimed := false
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO surfaces(key, next_due) VALUES (?1, ?2)
			ON CONFLICT(key) DO UPDATE SET next_due = ?2 WHERE next_due IS NULL OR next_due <= ?3`,
			key, due.UnixNano(), now.UnixNano())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		claimed = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("claim surface %s: %w", key, err)
	}
	return claimed, nil
}

// SaveSurface implements storage.SurfaceStore.
func (s *Store) SaveSurface(ctx context.Context, st storage.SurfaceState) error {
	if err := st.Validate(); err != nil {
		return fmt.Errorf("save surface: %w", err)
	}
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO surfaces(`+sqlcore.SurfaceCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sqlcore.SurfaceArgs(&st)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("save surface %s: %w", st.Key, err)
	}
	return nil
}
