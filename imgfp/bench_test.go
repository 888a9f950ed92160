package imgfp

import "testing"

// BenchmarkCompute fingerprints a 640×480 RGBA picture on the 8×8 grid.
func BenchmarkCompute(b *testing.B) {
	img := base.draw(640, 480)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(img, DefaultCols, DefaultRows); err != nil {
			b.Fatal(err)
		}
	}
}
