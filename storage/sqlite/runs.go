package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

// BeginRun records a new run with status RunRunning.
func (s *Store) BeginRun(ctx context.Context, config string) (storage.Run, error) {
	r := storage.Run{StartedAt: time.Now().UTC(), Status: storage.RunRunning, Config: config}
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO runs(started_at, status, config, stats)
			VALUES (?, ?, ?, '{}') RETURNING id`, sqlcore.NullTime(r.StartedAt), r.Status, r.Config).Scan(&r.ID)
	})
	if err != nil {
		return storage.Run{}, fmt.Errorf("begin run: %w", err)
	}
	return r, nil
}

// FinishRun stores r's finish time, status and stats; ErrNotFound for an
// unknown run.
func (s *Store) FinishRun(ctx context.Context, r storage.Run) error {
	if err := storage.ValidTime("run finished_at", r.FinishedAt); err != nil {
		return err
	}
	stats, err := sqlcore.Stats(r.Stats)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET finished_at = ?, status = ?, stats = ? WHERE id = ?`,
			sqlcore.NullTime(r.FinishedAt), r.Status, stats, r.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return storage.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish run %d: %w", r.ID, err)
	}
	return nil
}

// Runs returns every run in id order.
func (s *Store) Runs(ctx context.Context) ([]storage.Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sqlcore.RunCols+` FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	out, err := s.rows.Runs(rows)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}
