package sqlite

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"

	"github.com/newsdedup/newscrawl/storage"
)

var _ storage.RawStore = (*Store)(nil)

// maxRawBody bounds a raw body read back (the crawler's fetch.max_body
// bounds what is written; this only guards against a damaged row).
const maxRawBody = 1 << 30

// putRaw writes the raw response of url in tx: header in HTTP wire format,
// body gzip-compressed.
func putRaw(ctx context.Context, tx *sql.Tx, url string, r *storage.RawResponse) error {
	var hdr bytes.Buffer
	if err := r.Header.Write(&hdr); err != nil {
		return fmt.Errorf("raw header of %s: %w", url, err)
	}
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	if _, err := zw.Write(r.Body); err != nil {
		return fmt.Errorf("raw body of %s: %w", url, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("raw body of %s: %w", url, err)
	}
	proto := r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO raw(url, status, proto, header, body) VALUES (?, ?, ?, ?, ?)`,
		url, r.Status, proto, hdr.Bytes(), body.Bytes())
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
	mh, err := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader([]byte("\r\n"))))).ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return r, fmt.Errorf("raw response of %s: header: %w", url, err)
	}
	r.Header = http.Header(mh)
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
