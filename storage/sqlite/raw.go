package sqlite

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/internal/sqlcore"
)

var _ storage.RawStore = (*Store)(nil)

// maxRawBody bounds a raw body read back (the crawler's fetch.max_body
// bounds what is written; this only guards against a damaged row).
const maxRawBody = 1 << 30

// putRaw writes the raw response of url in tx: header in HTTP wire format,
// body gzip-compressed.
func putRaw(ctx context.Context, tx *sql.Tx, url string, r *storage.RawResponse) error {
	proto, hdr, err := sqlcore.RawHeader(url, r)
	if err != nil {
		return err
	}
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	if _, err := zw.Write(r.Body); err != nil {
		return fmt.Errorf("raw body of %s: %w", url, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("raw body of %s: %w", url, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO raw(url, status, proto, header, body) VALUES (?, ?, ?, ?, ?)`,
		url, r.Status, proto, hdr, body.Bytes())
	return err
}

// Raw implements storage.RawStore.
func (s *Store) Raw(ctx context.Context, url string) (storage.RawResponse, error) {
	var r storage.RawResponse
	var hdr, body []byte
	err := s.db.QueryRowContext(ctx, `SELECT status, proto, header, body FROM raw WHERE url = ?`, url).Scan(&r.Status, &r.Proto, &hdr, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("raw response of %s: %w", url, storage.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("raw response of %s: %w", url, err)
	}
	if r.Header, err = sqlcore.ReadHeader(url, hdr); err != nil {
		return r, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return r, fmt.Errorf("raw response of %s: body: %w", url, err)
	}
	r.Body, err = io.ReadAll(io.LimitReader(zr, maxRawBody))
	if err != nil {
		return r, fmt.Errorf("raw response of %s: body: %w", url, err)
	}
	return r, nil
}
