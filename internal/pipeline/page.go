package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
)

// MaxPageBytes bounds a page read from a file or fetched by the extract
// command: a larger page is refused, never truncated (the crawler's own
// limit is fetch.max_body).
const MaxPageBytes = 10 << 20

// ErrTooLarge is a page over the size limit of ReadLimited.
var ErrTooLarge = errors.New("page too large")

// ErrNotRegular is a file found in a directory walk that is not a regular
// file (a named pipe, a device, a socket, or a symlink to one): it is not
// read, since reading a pipe without a writer blocks for ever. (A path the
// user names, such as /dev/stdin for extract, is read whatever it is.)
var ErrNotRegular = errors.New("not a regular file")

// Page is a page's raw bytes and what its origin says about their charset.
type Page struct {
	URL         string // the page's URL ("" or file://… for a local file)
	Body        []byte // raw bytes, any charset
	ContentType string // HTTP Content-Type ("" for a file)
	Charset     string // configured override ("" to detect)
	// FetchedAt is when the page was fetched: relative dates (3小时前)
	// are resolved against it. Zero leaves them unresolved.
	FetchedAt time.Time
}

// DecodeError is a page whose bytes could not be decoded (an unknown
// charset override); bad bytes never fail, they are replaced.
type DecodeError struct{ Err error }

func (e *DecodeError) Error() string { return "decode: " + e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// ExtractPage is the one decode + extract path: it decodes p to UTF-8 with
// package decode (BOM, header, <meta>, sniffing, override) and extracts the
// article with ex. A decoding failure is a *DecodeError; a page without an
// article wraps extract.ErrNoArticle. The decode.Result says which charset
// was used and why.
func ExtractPage(ex *extract.Extractor, p Page) (*extract.Article, decode.Result, error) {
	dec, err := decode.Decode(p.Body, p.ContentType, p.Charset)
	if err != nil {
		return nil, dec, &DecodeError{err}
	}
	art, err := ex.ExtractFetched(p.URL, dec.Body, p.FetchedAt)
	if err != nil {
		return nil, dec, err
	}
	return art, dec, nil
}

// ReadLimited reads a local file of at most limit bytes; a larger file is
// an error naming the limit, never a truncated read.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, path, limit)
	}
	return b, nil
}

// fileKind names the type of a file that is not regular.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// truncatedReason is the not_article reason of a truncated page: the
// canonical variant, when the page names one, is the page to fetch instead.
func truncatedReason(art *extract.Article) string {
	if art.Canonical != "" {
		return "no article: truncated stub (read-the-rest marker); full text at " + art.Canonical
	}
	return "no article: truncated stub (read-the-rest marker), no canonical variant"
}
