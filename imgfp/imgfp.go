// Package imgfp computes the colour-histogram image fingerprint of the
// crawler book chapter on semantic fingerprints (《网络爬虫全解析》): the
// image is cut into M×N blocks, each block's pixels are reduced to 8
// colours (one bit per RGB channel), the block's dominant colour is kept,
// and the string of block colours is the fingerprint. Two fingerprints are
// compared block by block: their similarity is the share of blocks with the
// same dominant colour.
//
// Because every block is a fixed share of the image, the fingerprint does
// not depend on the image's size (a resized copy has the same blocks), and
// recompression, a logo or a thin cropped border change few blocks.
//
// The package is pure: an image in, a value out. It does no I/O and no
// logging; decoding (and its size limits) is the caller's job.
package imgfp

import (
	"errors"
	"fmt"
	"image"
	"strconv"
	"strings"
)

const (
	// DefaultCols and DefaultRows are the grid M×N: 8×8 blocks, so a logo
	// in one corner changes about one block in 64.
	DefaultCols = 8
	DefaultRows = 8
	// MaxBlocks bounds the grid (a fingerprint is one byte per block).
	MaxBlocks = 4096
	// DefaultMinSimilarity is the share of equal blocks from which two
	// images count as the same picture: the generated variants in the tests
	// (resize, JPEG quality 30, 4 % border crop, logo) keep at least 0.92,
	// different pictures of one template at most 0.8.
	DefaultMinSimilarity = 0.9
	// channelSplit is the 8-bit level at or above which a channel counts as
	// "on" when a pixel is reduced to 8 colours.
	channelSplit = 128
)

// Colour names of the 8 reduced colours, indexed by r<<2 | g<<1 | b.
const colourNames = "KBGCRMYW" // black, blue, green, cyan, red, magenta, yellow, white

// Fingerprint is an image's block string: one reduced colour (a letter of
// "KBGCRMYW") per block, row by row.
type Fingerprint struct {
	Cols, Rows int
	Blocks     string
}

// String is "COLSxROWS:BLOCKS".
func (f Fingerprint) String() string {
	return fmt.Sprintf("%dx%d:%s", f.Cols, f.Rows, f.Blocks)
}

// Errors of Compute and Similarity.
var (
	ErrGrid      = errors.New("imgfp: invalid grid")
	ErrTooSmall  = errors.New("imgfp: image smaller than the grid")
	ErrMismatch  = errors.New("imgfp: fingerprints of different grids")
	ErrMalformed = errors.New("imgfp: malformed fingerprint")
)

// Compute returns the fingerprint of img on a cols×rows grid. Block (i, j)
// covers the pixels from ⌊i·W/cols⌋ to ⌊(i+1)·W/cols⌋ (and likewise for
// rows); its dominant colour is the reduced colour most of its pixels have,
// ties going to the lower index of "KBGCRMYW". Transparent pixels count with
// their premultiplied colour (as image.Image returns it). An image narrower
// or lower than the grid is an error, as is a grid outside 1..MaxBlocks.
func Compute(img image.Image, cols, rows int) (Fingerprint, error) {
	if img == nil {
		return Fingerprint{}, fmt.Errorf("%w: nil image", ErrTooSmall)
	}
	if cols < 1 || rows < 1 || cols > MaxBlocks || rows > MaxBlocks || cols*rows > MaxBlocks {
		return Fingerprint{}, fmt.Errorf("%w: %d×%d (want 1..%d blocks)", ErrGrid, cols, rows, MaxBlocks)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < cols || h < rows {
		return Fingerprint{}, fmt.Errorf("%w: %d×%d pixels for %d×%d blocks", ErrTooSmall, w, h, cols, rows)
	}
	blocks := make([]byte, cols*rows)
	for j := range rows {
		y0, y1 := b.Min.Y+j*h/rows, b.Min.Y+(j+1)*h/rows
		for i := range cols {
			x0, x1 := b.Min.X+i*w/cols, b.Min.X+(i+1)*w/cols
			var hist [8]int
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					hist[reduce(img, x, y)]++
				}
			}
			best := 0
			for c := 1; c < 8; c++ {
				if hist[c] > hist[best] {
					best = c
				}
			}
			blocks[j*cols+i] = colourNames[best]
		}
	}
	return Fingerprint{Cols: cols, Rows: rows, Blocks: string(blocks)}, nil
}

// reduce maps the pixel at (x, y) to one of 8 colours, r<<2 | g<<1 | b.
// The decoders' usual types are read without boxing a color.Color per
// pixel; the result is the same as through At.
func reduce(img image.Image, x, y int) int {
	var r, g, bl uint32
	switch m := img.(type) {
	case *image.RGBA:
		r, g, bl, _ = m.RGBAAt(x, y).RGBA()
	case *image.NRGBA:
		r, g, bl, _ = m.NRGBAAt(x, y).RGBA()
	case *image.YCbCr:
		r, g, bl, _ = m.YCbCrAt(x, y).RGBA()
	case *image.Gray:
		r, g, bl, _ = m.GrayAt(x, y).RGBA()
	default:
		r, g, bl, _ = img.At(x, y).RGBA() // 16-bit
	}
	c := 0
	if r>>8 >= channelSplit {
		c |= 4
	}
	if g>>8 >= channelSplit {
		c |= 2
	}
	if bl>>8 >= channelSplit {
		c |= 1
	}
	return c
}

// Similarity returns the share of blocks of a and b with the same dominant
// colour, in [0, 1]. Fingerprints of different grids, or whose block
// string does not match the grid or holds other letters, are an error.
func Similarity(a, b Fingerprint) (float64, error) {
	if err := a.validate(); err != nil {
		return 0, err
	}
	if err := b.validate(); err != nil {
		return 0, err
	}
	if a.Cols != b.Cols || a.Rows != b.Rows {
		return 0, fmt.Errorf("%w: %d×%d and %d×%d", ErrMismatch, a.Cols, a.Rows, b.Cols, b.Rows)
	}
	same := 0
	for i := range len(a.Blocks) {
		if a.Blocks[i] == b.Blocks[i] {
			same++
		}
	}
	return float64(same) / float64(len(a.Blocks)), nil
}

func (f Fingerprint) validate() error {
	if f.Cols < 1 || f.Rows < 1 || f.Cols*f.Rows > MaxBlocks || len(f.Blocks) != f.Cols*f.Rows {
		return fmt.Errorf("%w: %d×%d grid with %d blocks", ErrMalformed, f.Cols, f.Rows, len(f.Blocks))
	}
	for i := range len(f.Blocks) {
		if strings.IndexByte(colourNames, f.Blocks[i]) < 0 {
			return fmt.Errorf("%w: block %d is %q", ErrMalformed, i, f.Blocks[i])
		}
	}
	return nil
}

// Parse reads a fingerprint written by String ("COLSxROWS:BLOCKS") and
// checks it; "" parses as the zero Fingerprint (no image).
func Parse(s string) (Fingerprint, error) {
	if s == "" {
		return Fingerprint{}, nil
	}
	var f Fingerprint
	grid, blocks, ok := strings.Cut(s, ":")
	if !ok {
		return Fingerprint{}, fmt.Errorf("%w: %q has no ':'", ErrMalformed, s)
	}
	cols, rows, ok := strings.Cut(grid, "x")
	if !ok {
		return Fingerprint{}, fmt.Errorf("%w: grid %q", ErrMalformed, grid)
	}
	var err1, err2 error
	f.Cols, err1 = strconv.Atoi(cols)
	f.Rows, err2 = strconv.Atoi(rows)
	if err1 != nil || err2 != nil || f.Cols > MaxBlocks || f.Rows > MaxBlocks {
		return Fingerprint{}, fmt.Errorf("%w: grid %q", ErrMalformed, grid)
	}
	f.Blocks = blocks
	if err := f.validate(); err != nil {
		return Fingerprint{}, err
	}
	return f, nil
}

// IsZero reports whether f is the zero Fingerprint (no image).
func (f Fingerprint) IsZero() bool { return f.Cols == 0 && f.Rows == 0 && f.Blocks == "" }
