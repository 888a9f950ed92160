package sqlite

import (
	"reflect"
	"testing"
)

// FuzzDecodeTerms feeds arbitrary blobs to the docfreq_pending decoder: it
// must never panic, and whatever it accepts must survive encoding and
// decoding again unchanged.
func FuzzDecodeTerms(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{5, 'a'})
	f.Add([]byte{0x80})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add(appendTerms(nil, []string{"新闻", "", "北京", "\xff\x00"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var terms []string
		if err := decodeTerms(b, func(term []byte) { terms = append(terms, string(term)) }); err != nil {
			return
		}
		var again []string
		if err := decodeTerms(appendTerms(nil, terms), func(term []byte) { again = append(again, string(term)) }); err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", terms, err)
		}
		if !reflect.DeepEqual(again, terms) {
			t.Fatalf("round trip changed %q to %q", terms, again)
		}
	})
}

func TestDecodeTerms(t *testing.T) {
	tests := []struct {
		name string
		blob []byte
		want []string // nil with ok=false: rejected
		ok   bool
	}{
		{"empty", nil, nil, true},
		{"one empty term", []byte{0}, []string{""}, true},
		{"terms", appendTerms(nil, []string{"新闻", "a", "\xff"}), []string{"新闻", "a", "\xff"}, true},
		{"long term", appendTerms(nil, []string{string(make([]byte, 300))}), []string{string(make([]byte, 300))}, true},
		{"length overruns", []byte{3, 'a', 'b'}, nil, false},
		{"truncated length", []byte{1, 'a', 0x80}, nil, false},
		{"length overflows", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := decodeTerms(tc.blob, func(term []byte) { got = append(got, string(term)) })
			if (err == nil) != tc.ok {
				t.Fatalf("decodeTerms(%x) error %v, want ok=%v", tc.blob, err, tc.ok)
			}
			if tc.ok && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("decodeTerms(%x) = %q, want %q", tc.blob, got, tc.want)
			}
		})
	}
}
