package imgfp

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"testing"
)

// scene draws a news-photo-like picture on one template: sky, ground, a
// sun and a building, whose places and colours the parameters set.
type scene struct {
	sky, ground, sun, building color.RGBA
	sunX, buildingX            float64 // left edge, share of the width
	horizon                    float64 // share of the height
}

var (
	skyBlue   = color.RGBA{60, 140, 230, 255}
	grass     = color.RGBA{40, 170, 60, 255}
	sunYellow = color.RGBA{250, 220, 40, 255}
	brickRed  = color.RGBA{200, 50, 40, 255}
	night     = color.RGBA{20, 20, 70, 255}
	sand      = color.RGBA{230, 200, 150, 255}
	white     = color.RGBA{250, 250, 250, 255}
)

var base = scene{sky: skyBlue, ground: grass, sun: sunYellow, building: brickRed, sunX: 0.7, buildingX: 0.15, horizon: 0.6}

func (s scene) draw(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	hz := int(s.horizon * float64(h))
	fill(img, image.Rect(0, 0, w, hz), s.sky)
	fill(img, image.Rect(0, hz, w, h), s.ground)
	sx, sy, r := int(s.sunX*float64(w)), h/6, h/8
	for y := sy - r; y <= sy+r; y++ {
		for x := sx - r; x <= sx+r; x++ {
			if (x-sx)*(x-sx)+(y-sy)*(y-sy) <= r*r {
				img.SetRGBA(x, y, s.sun)
			}
		}
	}
	bx := int(s.buildingX * float64(w))
	fill(img, image.Rect(bx, h/3, bx+w/4, hz), s.building)
	// texture: a darker window every 10 pixels, as real photos are not flat
	for y := h / 3; y+6 <= hz; y += 10 {
		for x := bx; x+6 <= bx+w/4; x += 10 {
			fill(img, image.Rect(x+3, y+3, x+6, y+6), color.RGBA{90, 30, 30, 255})
		}
	}
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// resize is a box-filter scale to w×h (the test's own, so the package
// under test does not resize).
func resize(src image.Image, w, h int) *image.RGBA {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			x0, x1 := b.Min.X+x*b.Dx()/w, b.Min.X+(x+1)*b.Dx()/w
			y0, y1 := b.Min.Y+y*b.Dy()/h, b.Min.Y+(y+1)*b.Dy()/h
			x1, y1 = max(x1, x0+1), max(y1, y0+1)
			var r, g, bl, n uint32
			for yy := y0; yy < y1; yy++ {
				for xx := x0; xx < x1; xx++ {
					cr, cg, cb, _ := src.At(xx, yy).RGBA()
					r, g, bl, n = r+cr>>8, g+cg>>8, bl+cb>>8, n+1
				}
			}
			dst.SetRGBA(x, y, color.RGBA{uint8(r / n), uint8(g / n), uint8(bl / n), 255})
		}
	}
	return dst
}

func recompress(t *testing.T, img image.Image, quality int) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func crop(img *image.RGBA, share float64) image.Image {
	b := img.Bounds()
	dx, dy := int(share*float64(b.Dx())), int(share*float64(b.Dy()))
	return img.SubImage(image.Rect(b.Min.X+dx, b.Min.Y+dy, b.Max.X-dx, b.Max.Y-dy))
}

func withLogo(img *image.RGBA) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, image.Point{}, draw.Src)
	b := out.Bounds()
	fill(out, image.Rect(b.Max.X-b.Dx()/10, b.Max.Y-b.Dy()/12, b.Max.X-4, b.Max.Y-4), white)
	return out
}

func mustFP(t *testing.T, img image.Image) Fingerprint {
	t.Helper()
	fp, err := Compute(img, DefaultCols, DefaultRows)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func mustSim(t *testing.T, a, b Fingerprint) float64 {
	t.Helper()
	s, err := Similarity(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVariantsAreSimilar(t *testing.T) {
	orig := base.draw(640, 480)
	fp := mustFP(t, orig)
	tests := []struct {
		name string
		img  image.Image
	}{
		{"identical", orig},
		{"half size", resize(orig, 320, 240)},
		{"thumbnail 160×120", resize(orig, 160, 120)},
		{"other aspect ratio 500×480", resize(orig, 500, 480)},
		{"jpeg quality 75", recompress(t, orig, 75)},
		{"jpeg quality 30", recompress(t, orig, 30)},
		{"border cropped 4 %", crop(orig, 0.04)},
		{"logo in the corner", withLogo(orig)},
		{"resized, recompressed and logo", recompress(t, withLogo(resize(orig, 400, 300)), 50)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s := mustSim(t, fp, mustFP(t, tt.img)); s < DefaultMinSimilarity {
				t.Errorf("similarity %.3f < %.2f", s, DefaultMinSimilarity)
			}
		})
	}
}

func TestDifferentImagesOfOneTemplate(t *testing.T) {
	fp := mustFP(t, base.draw(640, 480))
	moved := base
	moved.sunX, moved.buildingX = 0.2, 0.6
	dusk := base
	dusk.sky, dusk.ground = night, sand
	lowHorizon := base
	lowHorizon.horizon = 0.85
	recoloured := base
	recoloured.building, recoloured.sun, recoloured.buildingX = white, brickRed, 0.5
	tests := []struct {
		name string
		s    scene
	}{
		{"sun and building moved", moved},
		{"night sky and sand", dusk},
		{"horizon lower", lowHorizon},
		{"building recoloured and moved, sun recoloured", recoloured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s := mustSim(t, fp, mustFP(t, tt.s.draw(640, 480))); s >= DefaultMinSimilarity {
				t.Errorf("similarity %.3f >= %.2f for a different picture", s, DefaultMinSimilarity)
			}
		})
	}
}

// A fixed input with its fingerprint.
func TestKnownAnswer(t *testing.T) {
	fp, err := Compute(base.draw(64, 48), 8, 6)
	if err != nil {
		t.Fatal(err)
	}
	// 8×8-pixel blocks. Sky (60,140,230) reduces to cyan; the sun (x 38-50,
	// y 2-14) fills most of column 5 in rows 0-1; the building (x 9-25,
	// y 16-28) wins columns 1-2 of row 2; in row 3 it covers 28 pixels of
	// column 1 against 32 of ground, and ties 32:32 in column 2, where the
	// lower colour index (G before R) wins.
	const want = "8x6:" + "CCCCCYCC" + "CCCCCYCC" + "CRRCCCCC" + "GGGGGGGG" + "GGGGGGGG" + "GGGGGGGG"
	if fp.String() != want {
		t.Errorf("got %s, want %s", fp, want)
	}
	// The same picture read from a PNG gives the same fingerprint.
	var buf bytes.Buffer
	if err := png.Encode(&buf, base.draw(64, 48)); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Compute(img, 8, 6); got != fp {
		t.Errorf("from PNG %s, want %s", got, fp)
	}
}

func TestDominantColourTies(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.SetRGBA(0, 0, color.RGBA{255, 255, 255, 255}) // W
	img.SetRGBA(1, 0, color.RGBA{0, 0, 255, 255})     // B
	fp, err := Compute(img, 1, 1)
	if err != nil || fp.Blocks != "B" {
		t.Errorf("got %v, %v; want B (lower index wins a tie)", fp, err)
	}
}

func TestBadInput(t *testing.T) {
	small := image.NewRGBA(image.Rect(0, 0, 4, 4))
	tests := []struct {
		name       string
		img        image.Image
		cols, rows int
		want       error
	}{
		{"nil image", nil, 8, 8, ErrTooSmall},
		{"image smaller than the grid", small, 8, 8, ErrTooSmall},
		{"empty image", image.NewRGBA(image.Rectangle{}), 1, 1, ErrTooSmall},
		{"zero columns", small, 0, 4, ErrGrid},
		{"negative rows", small, 4, -1, ErrGrid},
		{"too many blocks", small, 4096, 4096, ErrGrid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compute(tt.img, tt.cols, tt.rows); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	ok := Fingerprint{Cols: 2, Rows: 1, Blocks: "KW"}
	for _, tt := range []struct {
		name string
		b    Fingerprint
		want error
	}{
		{"other grid", Fingerprint{Cols: 1, Rows: 2, Blocks: "KW"}, ErrMismatch},
		{"blocks do not fill the grid", Fingerprint{Cols: 2, Rows: 1, Blocks: "K"}, ErrMalformed},
		{"unknown colour letter", Fingerprint{Cols: 2, Rows: 1, Blocks: "KX"}, ErrMalformed},
		{"zero value", Fingerprint{}, ErrMalformed},
	} {
		t.Run("similarity "+tt.name, func(t *testing.T) {
			if _, err := Similarity(ok, tt.b); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// The figures the README and DefaultMinSimilarity quote.
func TestPrintSimilarities(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("prints figures with -v")
	}
	orig := base.draw(640, 480)
	fp := mustFP(t, orig)
	for name, img := range map[string]image.Image{
		"half": resize(orig, 320, 240), "jpeg30": recompress(t, orig, 30), "crop4": crop(orig, 0.04), "logo": withLogo(orig),
		"combo": recompress(t, withLogo(resize(orig, 400, 300)), 50),
	} {
		t.Logf("%s %.4f", name, mustSim(t, fp, mustFP(t, img)))
	}
}

// The fast paths for the decoders' image types give what At gives.
func TestFastPathsMatchAt(t *testing.T) {
	orig := base.draw(96, 72)
	nrgba := image.NewNRGBA(orig.Bounds())
	draw.Draw(nrgba, nrgba.Bounds(), orig, image.Point{}, draw.Src)
	gray := image.NewGray(orig.Bounds())
	draw.Draw(gray, gray.Bounds(), orig, image.Point{}, draw.Src)
	tests := []struct {
		name string
		img  image.Image
	}{
		{"RGBA", orig},
		{"NRGBA", nrgba},
		{"YCbCr (JPEG)", recompress(t, orig, 60)},
		{"Gray", gray},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if got, want := reduce(tt.img, x, y), reduce(onlyAt{tt.img}, x, y); got != want {
						t.Fatalf("(%d,%d): %d, via At %d", x, y, got, want)
					}
				}
			}
		})
	}
}

// onlyAt hides an image's concrete type, so reduce takes the At path.
type onlyAt struct{ image.Image }
