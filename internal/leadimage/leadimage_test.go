package leadimage_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"testing"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/internal/evalimages"
	"github.com/newsdedup/newscrawl/internal/leadimage"
)

func photo() *image.RGBA {
	return evalimages.Scene{T: evalimages.Templates[0], SunX: 0.7, SunY: 0.15, SunR: 0.12, BuildingX: 0.1, BuildW: 0.3,
		BuildingTop: 0.25, TreeX: 0.8, TreeR: 0.1, Building: color.RGBA{200, 50, 40, 255}, Sun: color.RGBA{250, 220, 40, 255},
		Dot: color.RGBA{30, 30, 30, 255}}.Draw(320, 240)
}

func gifOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hugePNG is a valid PNG header declaring w×h pixels, with no pixel data.
func hugePNG(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, 13)
	out = append(out, chunk...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
}

// A 1×1 lossless WebP (VP8L), from the WebP container specification's
// smallest valid file.
var tinyWebP = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

func TestFingerprint(t *testing.T) {
	want, err := imgfp.Compute(photo(), imgfp.DefaultCols, imgfp.DefaultRows)
	if err != nil {
		t.Fatal(err)
	}
	png, err := evalimages.PNG(photo())
	if err != nil {
		t.Fatal(err)
	}
	jpg, err := evalimages.JPEG(photo(), 85)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		body    []byte
		format  string
		minSim  float64
		wantErr error
	}{
		{"png", png, "png", 1, nil},
		{"jpeg", jpg, "jpeg", 0.95, nil},
		{"gif", gifOf(t, photo()), "gif", 0.95, nil},
		{"empty", nil, "", 0, leadimage.ErrFormat},
		{"html error page", []byte("<html><body>404</body></html>"), "", 0, leadimage.ErrFormat},
		{"truncated jpeg", jpg[:len(jpg)/2], "", 0, leadimage.ErrDecode},
		{"png header only", png[:40], "", 0, leadimage.ErrDecode},
		{"decompression bomb (png declaring 100000×100000)", hugePNG(100000, 100000), "", 0, leadimage.ErrTooLarge},
		{"tracking pixel (1×1 webp)", tinyWebP, "", 0, leadimage.ErrDecode},
		{"1×1 gif", gifOf(t, image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Black})), "", 0, leadimage.ErrDecode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := leadimage.Fingerprint(tt.body)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != tt.format || r.Width != 320 || r.Height != 240 {
				t.Errorf("read %s %d×%d, want %s 320×240", r.Format, r.Width, r.Height, tt.format)
			}
			if s, err := imgfp.Similarity(want, r.FP); err != nil || s < tt.minSim {
				t.Errorf("similarity with the original %.4f (%v), want >= %.2f", s, err, tt.minSim)
			}
		})
	}
}

// The WebP decoder is wired: the 1×1 picture is read (and refused only
// because it is smaller than the grid).
func TestWebPIsDecoded(t *testing.T) {
	_, err := leadimage.Fingerprint(tinyWebP)
	if !errors.Is(err, imgfp.ErrTooSmall) {
		t.Fatalf("error %v, want the grid's ErrTooSmall (the WebP was decoded)", err)
	}
}

// FuzzImage: decoding and fingerprinting hostile bytes never panics, and
// an accepted picture has a valid fingerprint of the default grid.
func FuzzImage(f *testing.F) {
	png, _ := evalimages.PNG(evalimages.Resize(photo(), 32, 24))
	jpg, _ := evalimages.JPEG(evalimages.Resize(photo(), 32, 24), 50)
	var g bytes.Buffer
	_ = gif.Encode(&g, evalimages.Resize(photo(), 16, 16), nil)
	for _, seed := range [][]byte{png, jpg, g.Bytes(), tinyWebP, hugePNG(9, 9), []byte("GIF89a"), []byte("RIFF\x00\x00\x00\x00WEBPVP8 ")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := leadimage.Fingerprint(b)
		if err != nil {
			if !errors.Is(err, leadimage.ErrFormat) && !errors.Is(err, leadimage.ErrDecode) && !errors.Is(err, leadimage.ErrTooLarge) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if _, err := imgfp.Similarity(r.FP, r.FP); err != nil || r.FP.Cols != imgfp.DefaultCols {
			t.Fatalf("accepted picture with fingerprint %v: %v", r.FP, err)
		}
		if int64(r.Width)*int64(r.Height) > leadimage.MaxPixels {
			t.Fatalf("accepted %d×%d pixels", r.Width, r.Height)
		}
	})
}

// BenchmarkFingerprint decodes a 640×480 JPEG (quality 85) and
// fingerprints it: the cost of one lead image after its fetch.
func BenchmarkFingerprint(b *testing.B) {
	jpg, err := evalimages.JPEG(evalimages.Resize(photo(), 640, 480), 85)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(jpg)))
	for b.Loop() {
		if _, err := leadimage.Fingerprint(jpg); err != nil {
			b.Fatal(err)
		}
	}
}
