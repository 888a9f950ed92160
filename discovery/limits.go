package discovery

import "errors"

// Limits bound what one document may make the parser do.
type Limits struct {
	MaxURLs  int   // links per document (sitemaps.org: 50,000)
	MaxBytes int64 // decompressed bytes per document (sitemaps.org: 50 MB = 52,428,800)
	MaxDepth int   // JSON nesting depth
}

// The default limits: the sitemaps.org protocol's per-file limits, and a
// JSON depth far above any list API seen (the portals nest 3-6 levels) yet
// low enough that a nesting bomb is refused before it is decoded.
const (
	DefaultMaxURLs  = 50000
	DefaultMaxBytes = 50 * 1024 * 1024
	DefaultMaxDepth = 64
)

// DefaultLimits returns the sitemaps.org limits and DefaultMaxDepth.
func DefaultLimits() Limits {
	return Limits{MaxURLs: DefaultMaxURLs, MaxBytes: DefaultMaxBytes, MaxDepth: DefaultMaxDepth}
}

// orDefault replaces zero or negative fields with the defaults, so a zero
// Limits is usable and never means "nothing allowed".
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxURLs <= 0 {
		l.MaxURLs = d.MaxURLs
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// Sentinel errors; the returned errors wrap them with detail, so test with
// errors.Is.
var (
	ErrNotJSON    = errors.New("not json")
	ErrTooLarge   = errors.New("document too large")
	ErrTooDeep    = errors.New("json nested too deep")
	ErrNotSitemap = errors.New("not a sitemap")
	ErrNotFeed    = errors.New("not a feed")
	// ErrCharset: the bytes of a feed decode cleanly in no charset that
	// was declared or that the portals use.
	ErrCharset = errors.New("feed charset does not match its bytes")
	// ErrPath: an API's items path does not exist in the answer.
	ErrPath = errors.New("path not found")
)

// excerptLen is how many characters of a refused document an error quotes.
const excerptLen = 80

// excerpt returns the start of b as a short, single-line, printable quote
// for error messages.
func excerpt(b []byte) string {
	var out []rune
	for _, r := range string(b) {
		if len(out) >= excerptLen {
			out = append(out, '…')
			break
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case r < 0x20 || r == 0x7f || r == 0xfffd:
			r = '?'
		}
		out = append(out, r)
	}
	return string(out)
}
