package sqlcore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// NullTime encodes t as Unix nanoseconds, or NULL for the zero time.
func NullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// SinceNanos encodes a non-zero since bound as Unix nanoseconds. UnixNano
// is undefined outside the storable range, so the bound is clamped there,
// keeping the comparison's meaning (before all stored times, after all).
func SinceNanos(since time.Time) int64 {
	lo, hi := storage.TimeBounds()
	switch {
	case since.Before(lo):
		return math.MinInt64
	case !since.Before(hi):
		return math.MaxInt64
	}
	return since.UnixNano()
}

// nanos scans a NullTime column into a time (zero for NULL).
type nanos struct{ dst *time.Time }

// Scan implements sql.Scanner.
func (n nanos) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*n.dst = time.Time{}
	case int64:
		*n.dst = time.Unix(0, v).UTC()
	default:
		return fmt.Errorf("time column holds a %T, not an integer", src)
	}
	return nil
}

// PackSignature encodes a signature (or prints) as little-endian uint64s.
// The result is never nil (drivers bind a nil []byte as NULL, which the
// NOT NULL blob columns reject).
func PackSignature(sig []uint64) []byte {
	b := make([]byte, 8*len(sig))
	for i, v := range sig {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// UnpackSignature decodes PackSignature, rejecting a blob whose length is
// not a multiple of 8.
func UnpackSignature(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("blob of %d bytes is not a multiple of 8", len(b))
	}
	if len(b) == 0 {
		return nil, nil
	}
	sig := make([]uint64, len(b)/8)
	for i := range sig {
		sig[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return sig, nil
}

// packPassages encodes shared passages as PackSignature does, three
// uint64s (start, other start, length) per passage.
func packPassages(ps []storage.Passage) []byte {
	vs := make([]uint64, 0, 3*len(ps))
	for _, p := range ps {
		vs = append(vs, uint64(p.Start), uint64(p.OtherStart), uint64(p.Len))
	}
	return PackSignature(vs)
}

// unpackPassages reverses packPassages on the decoded uint64s.
func unpackPassages(vs []uint64) ([]storage.Passage, error) {
	if len(vs)%3 != 0 {
		return nil, fmt.Errorf("passages of %d values, not triples", len(vs))
	}
	var out []storage.Passage
	for i := 0; i < len(vs); i += 3 {
		if vs[i] > math.MaxInt32 || vs[i+1] > math.MaxInt32 || vs[i+2] > math.MaxInt32 {
			return nil, fmt.Errorf("passage %v out of range", vs[i:i+3])
		}
		out = append(out, storage.Passage{Start: int(vs[i]), OtherStart: int(vs[i+1]), Len: int(vs[i+2])})
	}
	return out, nil
}

// uint64s is a sql.Scanner that decodes a PackSignature column (named
// what in errors) straight from the driver's buffer (a *[]byte destination
// would copy the blob once more). A malformed blob is kept in err rather
// than failing Scan, so that the caller can name the row in its error.
type uint64s struct {
	what string
	dst  *[]uint64
	err  error
}

// Scan implements sql.Scanner.
func (d *uint64s) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*d.dst, d.err = UnpackSignature(v)
		if d.err != nil {
			d.err = fmt.Errorf("%s %w", d.what, d.err)
		}
	case nil:
		*d.dst, d.err = nil, fmt.Errorf("%s is NULL", d.what)
	default:
		*d.dst, d.err = nil, fmt.Errorf("%s column holds a %T, not a blob", d.what, src)
	}
	return nil
}

// joinLines encodes a list of URLs one a line.
func joinLines(ss []string) string { return strings.Join(ss, "\n") }

// splitLines reads a list of URLs kept one a line (nil for "").
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Stats encodes a run's stats as the stats column keeps them (JSON).
func Stats(s storage.RunStats) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// RawHeader is how a raw response's header and protocol are kept: the
// header in HTTP wire format, the protocol HTTP/1.1 when unknown.
func RawHeader(url string, r *storage.RawResponse) (proto string, header []byte, err error) {
	var hdr bytes.Buffer
	if err := r.Header.Write(&hdr); err != nil {
		return "", nil, fmt.Errorf("raw header of %s: %w", url, err)
	}
	proto = r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	return proto, hdr.Bytes(), nil
}

// ReadHeader reads a header kept by RawHeader.
func ReadHeader(url string, hdr []byte) (http.Header, error) {
	mh, err := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader([]byte("\r\n"))))).ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("raw response of %s: header: %w", url, err)
	}
	return http.Header(mh), nil
}
