package bloomset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func key(i uint64) []byte { return binary.LittleEndian.AppendUint64(nil, i*0x9E3779B97F4A7C15) }

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		n    uint64
		p    float64
	}{
		{"zero capacity", 0, 0.01},
		{"capacity over the limit", MaxCapacity + 1, 0.01},
		{"rate 0", 10, 0},
		{"rate 1", 10, 1},
		{"negative rate", 10, -0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.n, tt.p); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestRates: no false negatives, and the measured false-positive rate at
// capacity stays near the rate the set was sized for.
func TestRates(t *testing.T) {
	const n, p = 20000, 0.01
	s, err := New(n, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(n) {
		s.Add(key(i))
	}
	for i := range uint64(n) {
		if !s.Test(key(i)) {
			t.Fatalf("false negative for key %d", i)
		}
	}
	fp := 0
	const probes = 100000
	for i := range uint64(probes) {
		if s.Test(key(n + i)) {
			fp++
		}
	}
	rate := float64(fp) / probes
	if rate > 2*p {
		t.Errorf("measured false-positive rate %.4f, sized for %.4f", rate, p)
	}
	if est := s.FalsePositiveRate(); est < p/2 || est > 2*p {
		t.Errorf("expected rate %.4f at capacity, sized for %.4f", est, p)
	}
	if s.Full() {
		t.Error("full at capacity")
	}
	for i := range uint64(n / 10) {
		s.Add(key(10*n + i))
	}
	if !s.Full() {
		t.Error("not full past capacity")
	}
}

func TestAddReportsPresence(t *testing.T) {
	s, _ := New(100, 0.001)
	if s.Add([]byte("a")) {
		t.Error("first add reported present")
	}
	if !s.Add([]byte("a")) {
		t.Error("second add not reported present")
	}
	if s.Len() != 1 {
		t.Errorf("Len = %d, want 1", s.Len())
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keyfp.bloom")
	s, created, err := Load(path, 1000, 0.001)
	if err != nil || !created || s.Len() != 0 {
		t.Fatalf("Load of a missing file: %v, created %v", err, created)
	}
	for i := range uint64(500) {
		s.Add(key(i))
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	got, created, err := Load(path, 1000, 0.001)
	if err != nil || created {
		t.Fatalf("Load: %v, created %v", err, created)
	}
	if got.Len() != 500 || got.Bits() != s.Bits() || got.K() != s.K() {
		t.Errorf("loaded Len %d Bits %d K %d, want 500 %d %d", got.Len(), got.Bits(), got.K(), s.Bits(), s.K())
	}
	for i := range uint64(500) {
		if !got.Test(key(i)) {
			t.Fatalf("key %d lost in the round trip", i)
		}
	}
	t.Run("other parameters", func(t *testing.T) {
		_, _, err := Load(path, 2000, 0.001)
		if err == nil || !strings.Contains(err.Error(), "rebuild") {
			t.Errorf("err = %v, want a rebuild error", err)
		}
	})
	t.Run("no temporary files left", func(t *testing.T) {
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("%d files in the directory", len(ents))
		}
	})
}

func TestReadCorrupt(t *testing.T) {
	s, _ := New(1000, 0.01)
	s.Add([]byte("x"))
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	altered := func(at int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.BigEndian.PutUint64(b[at:], v)
		return b
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad magic", append([]byte("XXBLOOM1"), good[8:]...)},
		{"truncated header", good[:20]},
		{"truncated bits", good[:len(good)-8]},
		{"trailing data", append(bytes.Clone(good), 0)},
		{"capacity changed", altered(8, 999)},
		{"capacity zero", altered(8, 0)},
		{"huge capacity", altered(8, 1<<62)},
		{"rate out of range", altered(16, 0)},
		{"m changed", altered(32, 64)},
		{"bit set length huge", altered(48, 1<<60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Read(bytes.NewReader(tt.data)); !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
		})
	}
	if _, err := Read(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
}

func FuzzRead(f *testing.F) {
	s, _ := New(64, 0.01)
	s.Add([]byte("seed"))
	var buf bytes.Buffer
	s.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := s.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatal("a filter that reads does not write back the same bytes")
		}
	})
}
