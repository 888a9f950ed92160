// Package leadimage turns the bytes of an article's lead image into its
// colour-histogram fingerprint: the crawler book chapter's method
// (《网络爬虫全解析》, semantic fingerprints: M×N blocks, each block's
// dominant colour among 8, compared block by block), computed by package
// imgfp. This package is the untrusted-input side: it recognises the
// format by its magic bytes (JPEG, PNG, GIF with the standard library,
// WebP with golang.org/x/image/webp), refuses pictures whose declared size
// would take more than MaxPixels pixels before decoding them, and turns a
// decoder's failure into an error. The fetch (politeness, robots.txt, the
// byte limit) is the crawler's.
package leadimage

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"github.com/newsdedup/newscrawl/imgfp"
)

// MaxPixels bounds the pixels of a picture that is decoded: 16 million (a
// 4,000×4,000 photo; news photos are at most about 12 million) take at most
// 64 MB as 8-bit RGBA. A small file can declare a huge picture (a
// decompression bomb), so the declared size is checked before decoding.
const MaxPixels = 16 << 20

// Errors of Fingerprint; every failure wraps one of them.
var (
	// ErrFormat: the bytes are not a JPEG, PNG, GIF or WebP picture.
	ErrFormat = errors.New("leadimage: not a JPEG, PNG, GIF or WebP image")
	// ErrTooLarge: the picture declares more than MaxPixels pixels.
	ErrTooLarge = errors.New("leadimage: image has too many pixels")
	// ErrDecode: the picture is damaged, or too small for the grid.
	ErrDecode = errors.New("leadimage: cannot decode image")
)

// Result is a lead image's fingerprint with what was read of it.
type Result struct {
	FP            imgfp.Fingerprint
	Format        string // "jpeg", "png", "gif" or "webp"
	Width, Height int
}

type codec struct {
	name   string
	magic  func([]byte) bool
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// codecs are dispatched by magic bytes, not through image.RegisterFormat's
// process-wide registry.
var codecs = []codec{
	{"jpeg", func(b []byte) bool { return bytes.HasPrefix(b, []byte{0xff, 0xd8}) }, jpeg.DecodeConfig, jpeg.Decode},
	{"png", func(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) }, png.DecodeConfig, png.Decode},
	{"gif", func(b []byte) bool {
		return bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a"))
	}, gif.DecodeConfig, gif.Decode},
	{"webp", func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" }, webp.DecodeConfig, webp.Decode},
}

// Fingerprint decodes body and returns its fingerprint on the default
// imgfp grid (8×8). It never panics on bad input: a picture in no known
// format, declaring more than MaxPixels pixels, damaged, or smaller than
// the grid is an error.
func Fingerprint(body []byte) (res Result, err error) {
	var c *codec
	for i := range codecs {
		if codecs[i].magic(body) {
			c = &codecs[i]
			break
		}
	}
	if c == nil {
		return Result{}, ErrFormat
	}
	res.Format = c.name
	// The decoders are third-party code reading hostile bytes; a panic in
	// one of them is this picture's failure, not the crawl's.
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("%w: %s decoder failed: %v", ErrDecode, c.name, p)
		}
	}()
	cfg, err := c.config(bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %s header: %w", ErrDecode, c.name, err)
	}
	res.Width, res.Height = cfg.Width, cfg.Height
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Result{}, fmt.Errorf("%w: %s of %d×%d pixels", ErrDecode, c.name, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return Result{}, fmt.Errorf("%w: %s of %d×%d pixels (limit %d)", ErrTooLarge, c.name, cfg.Width, cfg.Height, MaxPixels)
	}
	img, err := c.decode(bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %s: %w", ErrDecode, c.name, err)
	}
	fp, err := imgfp.Compute(img, imgfp.DefaultCols, imgfp.DefaultRows)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	res.FP = fp
	return res, nil
}
