package sqlite

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestPackText: texts round-trip through packText and textDest; short or
// incompressible ones stay plain strings; damaged blobs are ErrDamaged.
func TestPackText(t *testing.T) {
	var pk textPacker
	long := strings.Repeat("新华社北京11月27日电 记者从国家统计局获悉，前十个月规模以上工业增加值同比增长。", 20)
	for _, tc := range []struct {
		name   string
		text   string
		packed bool
	}{
		{"empty", "", false},
		{"short", "一句话的简讯。", false},
		{"long chinese", long, true},
		{"starts like the mark", textMagic + strings.Repeat("x", 10), false},
		{"long text starting like the mark", textMagic + long, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := pk.pack(tc.text)
			if b, ok := v.([]byte); ok {
				v = bytes.Clone(b) // what the driver hands back is its own copy
			}
			b, isBlob := v.([]byte)
			if isBlob != tc.packed {
				t.Fatalf("packed %v, want %v", isBlob, tc.packed)
			}
			if isBlob && len(b) >= len(tc.text) {
				t.Errorf("packed %d bytes into %d", len(tc.text), len(b))
			}
			var got string
			if err := (textDest{&got}).Scan(v); err != nil {
				t.Fatal(err)
			}
			if got != tc.text {
				t.Errorf("round trip changed the text")
			}
		})
	}
	packed := pk.pack(long).([]byte)
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"blob without the mark", []byte("plain bytes")},
		{"truncated stream", packed[:len(packed)/2]},
		{"garbage after the mark", append([]byte(textMagic), bytes.Repeat([]byte{0xff}, 40)...)},
		{"a number", int64(7)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if err := (textDest{&got}).Scan(tc.v); !errors.Is(err, ErrDamaged) {
				t.Errorf("Scan = %v, want ErrDamaged", err)
			}
		})
	}
}

// FuzzTextDest: no blob makes Scan panic or return more than maxUnpacked
// bytes; what it accepts is what packText would have written.
func FuzzTextDest(f *testing.F) {
	var pk textPacker
	f.Add(pk.pack(strings.Repeat("中文文本", 100)).([]byte))
	f.Add([]byte(textMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got string
		if err := (textDest{&got}).Scan(b); err == nil && len(got) > maxUnpacked {
			t.Fatalf("%d bytes unpacked", len(got))
		}
	})
}
