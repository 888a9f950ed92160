package crawler

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadBlocks(t *testing.T) {
	payload := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		return b
	}
	tests := []struct {
		name string
		n    int
		hint int64
		slow bool // one byte per Read
	}{
		{"empty", 0, 0, false},
		{"small", 100, 0, false},
		{"one block exactly", readBlockMin, 0, false},
		{"across blocks", readBlockMin*3 + 17, 0, false},
		{"large", 5*readBlockMax + 3, 0, false},
		{"content-length", 200_000, 200_000, false},
		{"content-length too small", 200_000, 1000, false},
		{"one byte per read", readBlockMin + 5, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := payload(tc.n)
			var r io.Reader = bytes.NewReader(want)
			if tc.slow {
				r = iotest.OneByteReader(r)
			}
			got, err := readBlocks(r, tc.hint)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, want %d", len(got), len(want))
			}
			// The body is kept in an array of its own size (plus the one
			// byte that shows the end when the length was announced).
			if limit := len(want) + 1; tc.n > readBlockMin && cap(got) > limit {
				t.Errorf("cap %d for %d bytes", cap(got), len(got))
			}
		})
	}
	t.Run("error mid-body", func(t *testing.T) {
		boom := errors.New("connection reset")
		r := io.MultiReader(bytes.NewReader(payload(readBlockMin*2)), iotest.ErrReader(boom))
		if _, err := readBlocks(r, 0); !errors.Is(err, boom) {
			t.Errorf("err %v, want %v", err, boom)
		}
	})
	t.Run("unexpected EOF is an error", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(payload(10)), iotest.ErrReader(io.ErrUnexpectedEOF))
		if _, err := readBlocks(r, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("err %v, want unexpected EOF", err)
		}
	})
}
