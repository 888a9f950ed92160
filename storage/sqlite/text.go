package sqlite

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Duplicate texts are kept compressed (dedup.keep_duplicate_text, on by
// default, keeps them as evidence): a text of at least packMin bytes is
// stored as a blob of textMagic followed by its DEFLATE stream (RFC 1951,
// compress/flate at its default level: 1.83x on the 3.2 KB texts of
// bench/dev/robust.jsonl, 1,770 bytes per text against zstd's 1,887 at
// its default level). Shorter texts, and every text of a store written
// before, are plain TEXT values. SQLite's storage class tells the two
// apart (the driver reads TEXT as a string, a BLOB as bytes); a blob
// without the mark is damage.
const (
	textMagic = "\x00nct1"
	packMin   = 256
	// maxUnpacked bounds a stored text's decompressed size, so that a
	// damaged or planted blob cannot exhaust memory.
	maxUnpacked = 64 << 20
)

// textPacker compresses texts for storage, reusing its compressor (whose
// state is about 600 KB) from text to text. It is not safe for concurrent
// use: the Store's is guarded by writeMu.
type textPacker struct {
	w   *flate.Writer
	buf bytes.Buffer
}

// pack returns the value a text is stored as: s itself when short or
// incompressible, else the marked DEFLATE stream (a copy: the packer's
// buffer is reused).
func (p *textPacker) pack(s string) any {
	if len(s) < packMin {
		return s
	}
	p.buf.Reset()
	p.buf.WriteString(textMagic)
	if p.w == nil {
		p.w, _ = flate.NewWriter(&p.buf, flate.DefaultCompression) // the level is valid
	} else {
		p.w.Reset(&p.buf)
	}
	_, _ = p.w.Write([]byte(s)) // a bytes.Buffer does not fail
	_ = p.w.Close()
	if p.buf.Len() >= len(s) {
		return s
	}
	return bytes.Clone(p.buf.Bytes())
}

// textDest scans a text column written by packText.
type textDest struct{ dst *string }

var errPackedText = errors.New("compressed text is damaged")

// Scan implements sql.Scanner.
func (d textDest) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*d.dst = ""
	case string:
		*d.dst = v
	case []byte:
		if !bytes.HasPrefix(v, []byte(textMagic)) {
			// The driver hands TEXT values over as strings; a blob is
			// always packed.
			return fmt.Errorf("%w: %w: a blob without the compression mark", ErrDamaged, errPackedText)
		}
		r := flate.NewReader(bytes.NewReader(v[len(textMagic):]))
		defer r.Close()
		var sb strings.Builder
		n, err := io.Copy(&sb, io.LimitReader(r, maxUnpacked+1))
		if err != nil {
			return fmt.Errorf("%w: %w: %w", ErrDamaged, errPackedText, err)
		}
		if n > maxUnpacked {
			return fmt.Errorf("%w: %w: over %d bytes decompressed", ErrDamaged, errPackedText, maxUnpacked)
		}
		*d.dst = sb.String()
	default:
		return fmt.Errorf("%w: text column holds a %T", ErrDamaged, v)
	}
	return nil
}
