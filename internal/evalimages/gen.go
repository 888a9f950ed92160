// Package evalimages generates the test pictures of the lead-image
// fingerprint (the crawler book chapter's colour-histogram method, package
// imgfp) and measures it on them (`newscrawl-lab eval images`): news-photo-like
// scenes drawn from a few templates (one palette and layout each), copies
// of each scene as portals re-publish them (resized, recompressed as JPEG
// at several qualities, a border cropped, a logo stamped in a corner, all
// of these at once), and other scenes of the same template (same layout
// and palette, different photo), which must not match.
//
// Everything is drawn from a fixed seed: the figures it prints are the same
// on every machine.
package evalimages

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
)

// Template is a photo template: a palette and a layout that many different
// photos share (a portal's daily "city view" picture).
type Template struct {
	Sky, Ground, Accent color.RGBA
	Horizon             float64 // share of the height
}

// Scene is one photo of a template: where its objects stand.
type Scene struct {
	T                  Template
	SunX, SunY, SunR   float64 // shares of the width / height
	BuildingX, BuildW  float64 // left edge and width, shares of the width
	BuildingTop        float64 // share of the height
	TreeX, TreeR       float64
	Building, Sun, Dot color.RGBA
	noise              uint64 // seed of the pixel noise
}

// Templates are the generator's templates: a day scene, a dusk scene and
// a harbour scene.
var Templates = []Template{
	{Sky: color.RGBA{60, 140, 230, 255}, Ground: color.RGBA{40, 170, 60, 255}, Accent: color.RGBA{200, 50, 40, 255}, Horizon: 0.6},
	{Sky: color.RGBA{20, 20, 70, 255}, Ground: color.RGBA{230, 200, 150, 255}, Accent: color.RGBA{250, 220, 40, 255}, Horizon: 0.7},
	{Sky: color.RGBA{150, 200, 240, 255}, Ground: color.RGBA{30, 60, 160, 255}, Accent: color.RGBA{240, 240, 240, 255}, Horizon: 0.5},
}

// palette are the object colours scenes pick from.
var palette = []color.RGBA{
	{200, 50, 40, 255}, {250, 220, 40, 255}, {240, 240, 240, 255}, {30, 30, 30, 255}, {160, 60, 200, 255}, {40, 200, 200, 255},
}

// NewScene draws a random photo of template t from rng.
func NewScene(t Template, rng *rand.Rand) Scene {
	pick := func() color.RGBA { return palette[rng.IntN(len(palette))] }
	return Scene{
		T: t, SunX: 0.05 + 0.8*rng.Float64(), SunY: 0.08 + 0.2*rng.Float64(), SunR: 0.06 + 0.08*rng.Float64(),
		BuildingX: 0.8 * rng.Float64(), BuildW: 0.15 + 0.2*rng.Float64(), BuildingTop: 0.15 + 0.3*rng.Float64(),
		TreeX: rng.Float64(), TreeR: 0.05 + 0.1*rng.Float64(),
		Building: pick(), Sun: pick(), Dot: pick(), noise: rng.Uint64(),
	}
}

// Draw renders the scene at w×h pixels, with a little pixel noise (a
// photo is not flat colour).
func (s Scene) Draw(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	hz := int(s.T.Horizon * float64(h))
	fill(img, image.Rect(0, 0, w, hz), s.T.Sky)
	fill(img, image.Rect(0, hz, w, h), s.T.Ground)
	disc(img, int(s.SunX*float64(w)), int(s.SunY*float64(h)), int(s.SunR*float64(h)), s.Sun)
	bx, bw := int(s.BuildingX*float64(w)), int(s.BuildW*float64(w))
	fill(img, image.Rect(bx, int(s.BuildingTop*float64(h)), bx+bw, hz), s.Building)
	for y := int(s.BuildingTop*float64(h)) + 3; y+6 <= hz; y += 10 {
		for x := bx; x+6 <= bx+bw; x += 10 {
			fill(img, image.Rect(x+3, y+3, x+6, y+6), s.Dot)
		}
	}
	disc(img, int(s.TreeX*float64(w)), hz, int(s.TreeR*float64(h)), s.T.Accent)
	rng := rand.New(rand.NewPCG(s.noise, 1))
	for i := 0; i < len(img.Pix); i += 4 {
		for c := range 3 {
			v := int(img.Pix[i+c]) + rng.IntN(21) - 10
			img.Pix[i+c] = uint8(min(max(v, 0), 255))
		}
	}
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

func disc(img *image.RGBA, cx, cy, r int, c color.RGBA) {
	b := img.Bounds()
	for y := max(cy-r, b.Min.Y); y <= min(cy+r, b.Max.Y-1); y++ {
		for x := max(cx-r, b.Min.X); x <= min(cx+r, b.Max.X-1); x++ {
			if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

// Resize is a box-filter scale of src to w×h.
func Resize(src image.Image, w, h int) *image.RGBA {
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

// JPEG encodes img at the quality.
func JPEG(img image.Image, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// PNG encodes img.
func PNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	return buf.Bytes(), nil
}

// Recompress returns img after a JPEG round trip at the quality.
func Recompress(img image.Image, quality int) (image.Image, error) {
	b, err := JPEG(img, quality)
	if err != nil {
		return nil, err
	}
	return jpeg.Decode(bytes.NewReader(b))
}

// Crop cuts a border of the share of each side.
func Crop(img *image.RGBA, share float64) image.Image {
	b := img.Bounds()
	dx, dy := int(share*float64(b.Dx())), int(share*float64(b.Dy()))
	return img.SubImage(image.Rect(b.Min.X+dx, b.Min.Y+dy, b.Max.X-dx, b.Max.Y-dy))
}

// WithLogo stamps a white logo (a tenth of the width, a twelfth of the
// height) with a dark mark in the bottom-right corner.
func WithLogo(img *image.RGBA) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	b := out.Bounds()
	logo := image.Rect(b.Max.X-b.Dx()/10, b.Max.Y-b.Dy()/12, b.Max.X-4, b.Max.Y-4)
	fill(out, logo, color.RGBA{250, 250, 250, 255})
	fill(out, logo.Inset(logo.Dy()/4), color.RGBA{200, 20, 20, 255})
	return out
}
