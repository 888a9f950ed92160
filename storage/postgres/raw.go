package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

var _ storage.RawStore = (*Store)(nil)

// putRaw writes the raw response of a stored article in tx: the header in
// HTTP wire format (as the SQLite store keeps it), the body as is.
func putRaw(ctx context.Context, tx pgx.Tx, url string, r *storage.RawResponse) error {
	q, args, err := rawInsert(url, r)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, q, args...); err != nil {
		return fmt.Errorf("raw response of %s: %w", url, err)
	}
	return nil
}

// queueRaw queues putRaw's insert in b.
func queueRaw(b *pgx.Batch, url string, r *storage.RawResponse) error {
	q, args, err := rawInsert(url, r)
	if err != nil {
		return err
	}
	b.Queue(q, args...)
	return nil
}

// rawInsert is the statement writing r.
func rawInsert(url string, r *storage.RawResponse) (string, []any, error) {
	proto, hdr, err := sqlcore.RawHeader(url, r)
	if err != nil {
		return "", nil, err
	}
	body := r.Body
	if body == nil {
		body = []byte{} // NOT NULL
	}
	return `INSERT INTO raw(url, status, proto, header, body) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (url) DO UPDATE SET status = excluded.status, proto = excluded.proto,
			header = excluded.header, body = excluded.body`, []any{url, r.Status, proto, hdr, body}, nil
}

// Raw implements storage.RawStore.
func (s *Store) Raw(ctx context.Context, url string) (storage.RawResponse, error) {
	var r storage.RawResponse
	var hdr []byte
	err := s.pool.QueryRow(ctx, `SELECT status, proto, header, body FROM raw WHERE url = $1`, url).Scan(&r.Status, &r.Proto, &hdr, &r.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("raw response of %s: %w", url, storage.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("raw response of %s: %w", url, err)
	}
	r.Header, err = sqlcore.ReadHeader(url, hdr)
	return r, err
}
