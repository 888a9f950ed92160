package evalimages

import (
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/internal/leadimage"
)

// Photo size of the generated originals of `eval images`.
const width, height = 640, 480

// Variant is one way a portal re-publishes a photo, as the bytes it serves.
type Variant struct {
	Name string
	Make func(orig *image.RGBA) ([]byte, error)
}

// Variants are the copies that must match their original.
func Variants() []Variant {
	png := func(f func(*image.RGBA) image.Image) func(*image.RGBA) ([]byte, error) {
		return func(o *image.RGBA) ([]byte, error) { return PNG(f(o)) }
	}
	jpg := func(q int) func(*image.RGBA) ([]byte, error) {
		return func(o *image.RGBA) ([]byte, error) { return JPEG(o, q) }
	}
	vs := []Variant{
		{"identical (PNG)", png(func(o *image.RGBA) image.Image { return o })},
		{"half size", png(func(o *image.RGBA) image.Image { return Resize(o, dx(o)/2, dy(o)/2) })},
		{"quarter size (thumbnail)", png(func(o *image.RGBA) image.Image { return Resize(o, dx(o)/4, dy(o)/4) })},
		{"other aspect (width ×25/32)", png(func(o *image.RGBA) image.Image { return Resize(o, dx(o)*25/32, dy(o)) })},
	}
	for _, q := range []int{90, 75, 50, 30, 15} {
		vs = append(vs, Variant{fmt.Sprintf("JPEG quality %d", q), jpg(q)})
	}
	for _, c := range []float64{0.02, 0.04, 0.06} {
		vs = append(vs, Variant{fmt.Sprintf("border cropped %.0f %%", c*100), png(func(o *image.RGBA) image.Image { return Crop(o, c) })})
	}
	vs = append(vs,
		Variant{"logo in a corner", png(func(o *image.RGBA) image.Image { return WithLogo(o) })},
		Variant{"5/8 size + logo + JPEG 50", func(o *image.RGBA) ([]byte, error) {
			return JPEG(WithLogo(Resize(o, dx(o)*5/8, dy(o)*5/8)), 50)
		}},
	)
	return vs
}

func dx(img image.Image) int { return img.Bounds().Dx() }
func dy(img image.Image) int { return img.Bounds().Dy() }

// Stats are the similarities of one group of pairs.
type Stats struct {
	Name string
	Sims []float64
}

// Matched counts the pairs at or above t.
func (s Stats) Matched(t float64) int {
	n := 0
	for _, v := range s.Sims {
		if v >= t {
			n++
		}
	}
	return n
}

// Min, Max and Mean of the similarities.
func (s Stats) Min() float64 { return slices.Min(s.Sims) }
func (s Stats) Max() float64 { return slices.Max(s.Sims) }
func (s Stats) Mean() float64 {
	t := 0.0
	for _, v := range s.Sims {
		t += v
	}
	return t / float64(len(s.Sims))
}

// Result is what Measure found.
type Result struct {
	Photos        int
	Width, Height int     // of the originals
	Copies        []Stats // one per Variant
	SameTemplate  Stats   // different photos of one template
	OtherTemplate Stats   // photos of different templates
}

// Measure draws photos photos per template (seeded) at 640×480,
// fingerprints each original and each variant through
// leadimage.Fingerprint (the crawl's decode path) and compares them with
// imgfp.Similarity.
func Measure(photos int) (Result, error) { return MeasureAt(photos, width, height) }

// MeasureAt is Measure with originals of w×h pixels (tests draw smaller
// pictures: the race detector slows the pixel loops tenfold).
func MeasureAt(photos, w, h int) (Result, error) {
	rng := rand.New(rand.NewPCG(2026, 11))
	res := Result{Photos: photos * len(Templates), Width: w, Height: h, SameTemplate: Stats{Name: "different photos, same template"},
		OtherTemplate: Stats{Name: "photos of different templates"}}
	vs := Variants()
	res.Copies = make([]Stats, len(vs))
	for i, v := range vs {
		res.Copies[i].Name = v.Name
	}
	var fps [][]imgfp.Fingerprint // by template
	for _, t := range Templates {
		var row []imgfp.Fingerprint
		for range photos {
			orig := NewScene(t, rng).Draw(w, h)
			fp, err := fingerprint(orig, vs[0].Make)
			if err != nil {
				return res, err
			}
			row = append(row, fp)
			for i, v := range vs {
				vf, err := fingerprint(orig, v.Make)
				if err != nil {
					return res, fmt.Errorf("%s: %w", v.Name, err)
				}
				res.Copies[i].Sims = append(res.Copies[i].Sims, similarity(fp, vf))
			}
		}
		fps = append(fps, row)
	}
	for ti, row := range fps {
		for i, a := range row {
			for _, b := range row[i+1:] {
				res.SameTemplate.Sims = append(res.SameTemplate.Sims, similarity(a, b))
			}
			for _, other := range fps[ti+1:] {
				for _, b := range other {
					res.OtherTemplate.Sims = append(res.OtherTemplate.Sims, similarity(a, b))
				}
			}
		}
	}
	return res, nil
}

func fingerprint(orig *image.RGBA, make func(*image.RGBA) ([]byte, error)) (imgfp.Fingerprint, error) {
	b, err := make(orig)
	if err != nil {
		return imgfp.Fingerprint{}, err
	}
	r, err := leadimage.Fingerprint(b)
	if err != nil {
		return imgfp.Fingerprint{}, err
	}
	return r.FP, nil
}

// similarity of two fingerprints of the default grid (never an error).
func similarity(a, b imgfp.Fingerprint) float64 {
	s, _ := imgfp.Similarity(a, b)
	return s
}

// Print writes the tables of `newscrawl-lab eval images`.
func Print(w io.Writer, r Result) {
	t := dedup.MinImageSimilarity
	fmt.Fprintf(w, "Lead-image fingerprint (imgfp: %d×%d blocks, dominant colour of 8): %d generated photos of %d templates, %d×%d\n",
		imgfp.DefaultCols, imgfp.DefaultRows, r.Photos, len(Templates), r.Width, r.Height)
	fmt.Fprintf(w, "threshold dedup.MinImageSimilarity = %.2f (share of equal blocks)\n\n", t)
	fmt.Fprintf(w, "%-34s %9s %8s %8s %8s\n", "copies (must match)", "matched", "min", "mean", "max")
	for _, s := range r.Copies {
		fmt.Fprintf(w, "%-34s %4d/%-4d %8.4f %8.4f %8.4f\n", s.Name, s.Matched(t), len(s.Sims), s.Min(), s.Mean(), s.Max())
	}
	fmt.Fprintf(w, "\n%-34s %9s %8s %8s %8s\n", "different pictures (must not match)", "matched", "min", "mean", "max")
	for _, s := range []Stats{r.SameTemplate, r.OtherTemplate} {
		fmt.Fprintf(w, "%-34s %4d/%-4d %8.4f %8.4f %8.4f\n", s.Name, s.Matched(t), len(s.Sims), s.Min(), s.Mean(), s.Max())
	}
	fmt.Fprintf(w, "\n%-10s %16s %22s\n", "threshold", "copies matched", "same template matched")
	for _, th := range []float64{0.75, 0.80, 0.85, 0.875, 0.90, 0.925, 0.95, 0.975, 1} {
		got, n := 0, 0
		for _, s := range r.Copies {
			got, n = got+s.Matched(th), n+len(s.Sims)
		}
		mark := ""
		if th == t {
			mark = "  <- MinImageSimilarity"
		}
		fmt.Fprintf(w, "%-10.3f %9d/%-6d %15d/%-6d%s\n", th, got, n, r.SameTemplate.Matched(th), len(r.SameTemplate.Sims), mark)
	}
}
