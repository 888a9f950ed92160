package redisindex

import (
	"reflect"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
)

func TestRecordRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    dedup.Entry
	}{
		{"empty", dedup.Entry{}},
		{"full", dedup.Entry{Simhash: 1<<63 | 5, Hash: [16]byte{1, 2, 15: 3}, Signature: []uint64{1, 1, 1 << 60},
			Title: []uint64{9, 8}, Prints: []uint64{7}, ContentWords: 300}},
		{"no_prints", dedup.Entry{Signature: []uint64{4}, ContentWords: 3}},
		{"empty_prints", dedup.Entry{Signature: []uint64{4}, Prints: []uint64{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got dedup.Entry
			if err := decodeRecord(appendRecord(nil, &tc.e), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.e) {
				t.Errorf("decoded %+v, want %+v", got, tc.e)
			}
		})
	}
}

func TestRecordRejects(t *testing.T) {
	good := appendRecord(nil, &dedup.Entry{Signature: []uint64{1, 2}, Prints: []uint64{3}, ContentWords: 4})
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"version", append([]byte{9}, good[1:]...)},
		{"truncated", good[:len(good)-3]},
		{"trailing", append(append([]byte{}, good...), 0)},
		{"huge_array", append(append([]byte{}, good[:25]...), 0xff, 0xff, 0xff, 0xff, 0x0f)},
		{"prints_flag", func() []byte {
			b := appendRecord(nil, &dedup.Entry{})
			b[len(b)-2] = 7
			return b
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e dedup.Entry
			if err := decodeRecord(tc.b, &e); err == nil {
				t.Errorf("decoded %x without an error: %+v", tc.b, e)
			}
		})
	}
}

// FuzzRecord: any bytes decode to an error or to a record that encodes
// back to the same bytes; never a panic.
func FuzzRecord(f *testing.F) {
	f.Add(appendRecord(nil, &dedup.Entry{Signature: []uint64{1, 2}, Title: []uint64{3}, Prints: []uint64{4}, ContentWords: 5}))
	f.Add(appendRecord(nil, &dedup.Entry{}))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var e dedup.Entry
		if err := decodeRecord(b, &e); err != nil {
			return
		}
		if again := appendRecord(nil, &e); string(again) != string(b) {
			t.Errorf("%x decodes to %+v, which encodes to %x", b, e, again)
		}
	})
}

func TestRecordNonMinimalVarint(t *testing.T) {
	b := appendRecord(nil, &dedup.Entry{})
	b = append(b[:len(b)-1], 0x80, 0x00) // content words 0, in two bytes
	var e dedup.Entry
	if err := decodeRecord(b, &e); err == nil {
		t.Errorf("a non-minimal varint decoded: %+v", e)
	}
}
