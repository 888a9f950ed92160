package textfmt

import "testing"

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]int
		want string
	}{
		{"empty", nil, "none"},
		{"one", map[string]int{"timeout": 2}, "timeout 2"},
		{"sorted by kind", map[string]int{"too_large": 6, "decode": 1}, "decode 1, too_large 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Kinds(tc.in); got != tc.want {
				t.Errorf("Kinds(%v) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
