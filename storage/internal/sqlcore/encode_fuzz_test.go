package sqlcore

import (
	"bytes"
	"testing"
)

// FuzzUnpackSignature feeds arbitrary blobs to the signature decoder: it must
// never panic, must reject lengths that are not a multiple of 8, and must
// round-trip every blob it accepts.
func FuzzUnpackSignature(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3})
	f.Add(PackSignature([]uint64{0, 1, 1 << 63, ^uint64(0)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		sig, err := UnpackSignature(b)
		if len(b)%8 != 0 {
			if err == nil {
				t.Fatalf("accepted a %d-byte blob", len(b))
			}
			return
		}
		if err != nil {
			t.Fatalf("rejected a %d-byte blob: %v", len(b), err)
		}
		if len(sig) != len(b)/8 {
			t.Fatalf("%d bytes decoded to %d values", len(b), len(sig))
		}
		if got := PackSignature(sig); !bytes.Equal(got, b) {
			t.Fatalf("round trip changed the blob: %x -> %x", b, got)
		}
	})
}
