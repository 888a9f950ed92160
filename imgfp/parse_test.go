package imgfp

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	fp := mustFP(t, base.draw(64, 48))
	got, err := Parse(fp.String())
	if err != nil || got != fp {
		t.Fatalf("Parse(String()) = %v, %v; want %v", got, err, fp)
	}
	if z, err := Parse(""); err != nil || !z.IsZero() {
		t.Errorf(`Parse("") = %v, %v; want the zero fingerprint`, z, err)
	}
	for _, tt := range []struct{ name, in string }{
		{"no colon", "8x8"},
		{"no x", "88:KKKK"},
		{"letters in grid", "ax1:K"},
		{"negative grid", "-1x-1:K"},
		{"blocks do not fill the grid", "2x2:KKK"},
		{"unknown colour", "1x2:KZ"},
		{"huge grid", "99999x1:K"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse(tt.in); !errors.Is(err, ErrMalformed) {
				t.Errorf("Parse(%q) error %v, want ErrMalformed", tt.in, err)
			}
		})
	}
}

// FuzzParse: Parse never panics, and what it accepts prints back as its input.
func FuzzParse(f *testing.F) {
	f.Add("8x8:" + "KBGCRMYW" + "KBGCRMYW" + "KBGCRMYW" + "KBGCRMYW" + "KBGCRMYW" + "KBGCRMYW" + "KBGCRMYW" + "KBGCRMYW")
	f.Add("1x1:W")
	f.Add("2x1:KZ")
	f.Fuzz(func(t *testing.T, s string) {
		fp, err := Parse(s)
		if err != nil || s == "" {
			return
		}
		if _, err := Similarity(fp, fp); err != nil {
			t.Fatalf("accepted %q but Similarity fails: %v", s, err)
		}
		if back, err := Parse(fp.String()); err != nil || back != fp {
			t.Fatalf("%q: round trip gave %v, %v", s, back, err)
		}
	})
}
