package evalcrash

import (
	"slices"
	"testing"
)

func TestSortedDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b, onlyA, onlyB []string
	}{
		{nil, nil, nil, nil},
		{[]string{"a", "b"}, []string{"a", "b"}, nil, nil},
		{[]string{"a", "c"}, []string{"b", "c", "d"}, []string{"a"}, []string{"b", "d"}},
		{[]string{"a", "a", "b"}, []string{"a", "b", "b"}, []string{"a"}, []string{"b"}},
		{[]string{"x"}, nil, []string{"x"}, nil},
	} {
		gotA, gotB := sortedDiff(tc.a, tc.b)
		if !slices.Equal(gotA, tc.onlyA) || !slices.Equal(gotB, tc.onlyB) {
			t.Errorf("sortedDiff(%q, %q) = %q, %q; want %q, %q", tc.a, tc.b, gotA, gotB, tc.onlyA, tc.onlyB)
		}
	}
}
