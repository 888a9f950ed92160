package evalimages

import (
	"bytes"
	"image"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/imgfp"
)

// Known answers on the generated pictures (4 photos of each template,
// 320×240):
// resized, recompressed and logo-stamped copies always match their
// original at dedup.MinImageSimilarity; a cropped border costs blocks
// along the edges, and at least two in three cropped copies match;
// photos of different templates never match.
func TestGeneratedVariants(t *testing.T) {
	r, err := MeasureAt(4, 320, 240)
	if err != nil {
		t.Fatal(err)
	}
	th := dedup.MinImageSimilarity
	for _, s := range r.Copies {
		t.Run(s.Name, func(t *testing.T) {
			m := s.Matched(th)
			switch {
			case strings.Contains(s.Name, "cropped"):
				if 3*m < 2*len(s.Sims) {
					t.Errorf("%d of %d copies matched (min similarity %.4f)", m, len(s.Sims), s.Min())
				}
			case m != len(s.Sims):
				t.Errorf("%d of %d copies matched (min similarity %.4f < %.2f)", m, len(s.Sims), s.Min(), th)
			}
		})
	}
	if m := r.OtherTemplate.Matched(th); m != 0 {
		t.Errorf("%d pairs of photos of different templates matched", m)
	}
	var out bytes.Buffer
	Print(&out, r)
	if !bytes.Contains(out.Bytes(), []byte("<- MinImageSimilarity")) {
		t.Errorf("the table does not mark the threshold:\n%s", out.String())
	}
}

// Different photos of one template whose subjects differ in place or
// colour over more than a tenth of the frame do not match, through the
// crawl's decode path (PNG and JPEG bytes).
func TestDifferentPhotosOfOneTemplate(t *testing.T) {
	base := Scene{T: Templates[0], SunX: 0.7, SunY: 0.15, SunR: 0.12, BuildingX: 0.1, BuildW: 0.3, BuildingTop: 0.25,
		TreeX: 0.8, TreeR: 0.12, Building: palette[0], Sun: palette[1], Dot: palette[3], noise: 1}
	moved := base
	moved.SunX, moved.BuildingX, moved.TreeX, moved.noise = 0.15, 0.55, 0.2, 2
	recoloured := base
	recoloured.Building, recoloured.Sun, recoloured.noise = palette[2], palette[4], 3
	taller := base
	taller.BuildingTop, taller.BuildW, taller.noise = 0.05, 0.45, 4
	orig := mustFingerprint(t, base.Draw(width, height), 90)
	for _, tt := range []struct {
		name string
		s    Scene
	}{
		{"subjects moved", moved},
		{"building and sun recoloured", recoloured},
		{"building taller and wider", taller},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if s, _ := imgfp.Similarity(orig, mustFingerprint(t, tt.s.Draw(width, height), 75)); s >= dedup.MinImageSimilarity {
				t.Errorf("similarity %.4f >= %.2f for a different photo", s, dedup.MinImageSimilarity)
			}
		})
	}
}

func mustFingerprint(t *testing.T, img image.Image, quality int) imgfp.Fingerprint {
	t.Helper()
	b, err := JPEG(img, quality)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := fingerprint(nil, func(*image.RGBA) ([]byte, error) { return b, nil })
	if err != nil {
		t.Fatal(err)
	}
	return fp
}
