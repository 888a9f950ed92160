// Package bloomset is the existence check of the keyword semantic
// fingerprint (package keyfp), as the book chapter on crawler
// near-duplicate removal (《网络爬虫全解析》, semantic fingerprints) places it
// in front of the store: a Bloom filter (B. H. Bloom, "Space/time
// trade-offs in hash coding with allowable errors", CACM 1970), here
// github.com/bits-and-blooms/bloom/v3, sized for an expected number of
// fingerprints n at a false-positive rate p (m = −n·ln p / (ln 2)² bits,
// k = (m/n)·ln 2 hash functions), and persisted in a file.
//
// A "no" from the filter is certain: the fingerprint was never added. A
// "maybe" must be confirmed by the store, so a false positive costs one
// store lookup, never a wrong verdict. Past its capacity the filter's
// false-positive rate grows; Set.Full and Set.FalsePositiveRate report it,
// and a filter is never silently resized: build a larger one from the store.
package bloomset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/bits-and-blooms/bloom/v3"
)

// DefaultFPRate is the false-positive rate a filter is sized for unless
// told otherwise: one store lookup in a thousand new pages is wasted.
const DefaultFPRate = 0.001

// MaxCapacity bounds the capacity of a filter (about 1.8 GB of bits at
// p = 0.001), so that a corrupt file or a typo cannot allocate without limit.
const MaxCapacity = 1 << 30

const magic = "NCBLOOM1"

// Set is a Bloom filter of fixed-size keys with the parameters it was sized
// for and the number of keys added. It is not safe for concurrent use.
type Set struct {
	f        *bloom.BloomFilter
	capacity uint64
	fpRate   float64
	added    uint64
}

// New returns an empty set sized for capacity keys at false-positive rate p.
func New(capacity uint64, p float64) (*Set, error) {
	if capacity == 0 || capacity > MaxCapacity {
		return nil, fmt.Errorf("bloomset: capacity %d outside [1, %d]", capacity, MaxCapacity)
	}
	if !(p > 0 && p < 1) {
		return nil, fmt.Errorf("bloomset: false-positive rate %g outside (0, 1)", p)
	}
	return &Set{f: bloom.NewWithEstimates(uint(capacity), p), capacity: capacity, fpRate: p}, nil
}

// Add adds key and reports whether it may have been present already.
func (s *Set) Add(key []byte) (maybePresent bool) {
	present := s.f.TestAndAdd(key)
	if !present {
		s.added++
	}
	return present
}

// Test reports whether key may have been added (false: certainly not).
func (s *Set) Test(key []byte) bool { return s.f.Test(key) }

// Len is the number of keys added (a key the filter already answered
// "maybe" for is not counted again).
func (s *Set) Len() uint64 { return s.added }

// Capacity and FPRate are the parameters the set was sized for.
func (s *Set) Capacity() uint64 { return s.capacity }

// FPRate is the false-positive rate the set was sized for.
func (s *Set) FPRate() float64 { return s.fpRate }

// Bits is the size of the bit array m; K the number of hash functions.
func (s *Set) Bits() uint { return s.f.Cap() }

// K is the number of hash functions.
func (s *Set) K() uint { return s.f.K() }

// Full reports whether more keys were added than the set was sized for.
func (s *Set) Full() bool { return s.added > s.capacity }

// FalsePositiveRate is the expected false-positive rate now,
// (1 − e^(−k·n/m))^k with n = Len().
func (s *Set) FalsePositiveRate() float64 {
	k, m := float64(s.f.K()), float64(s.f.Cap())
	return math.Pow(1-math.Exp(-k*float64(s.added)/m), k)
}

// WriteTo writes the set: a header (magic, capacity, rate, count) and the
// filter in bloom's binary form.
func (s *Set) WriteTo(w io.Writer) (int64, error) {
	hdr := make([]byte, 0, len(magic)+24)
	hdr = append(hdr, magic...)
	hdr = binary.BigEndian.AppendUint64(hdr, s.capacity)
	hdr = binary.BigEndian.AppendUint64(hdr, math.Float64bits(s.fpRate))
	hdr = binary.BigEndian.AppendUint64(hdr, s.added)
	n, err := w.Write(hdr)
	if err != nil {
		return int64(n), fmt.Errorf("bloomset: %w", err)
	}
	m, err := s.f.WriteTo(w)
	if err != nil {
		return int64(n) + m, fmt.Errorf("bloomset: %w", err)
	}
	return int64(n) + m, nil
}

// ErrCorrupt is returned for a file that is not a set written by WriteTo.
var ErrCorrupt = errors.New("bloomset: corrupt filter")

// Read reads a set written by WriteTo. The filter's size must be the one
// its header's capacity and rate give, so a truncated or altered file is
// an error, not a filter that answers wrongly.
func Read(r io.Reader) (*Set, error) {
	hdr := make([]byte, len(magic)+24)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrCorrupt, err)
	}
	if string(hdr[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	h := hdr[len(magic):]
	capacity := binary.BigEndian.Uint64(h)
	p := math.Float64frombits(binary.BigEndian.Uint64(h[8:]))
	added := binary.BigEndian.Uint64(h[16:])
	if capacity == 0 || capacity > MaxCapacity || !(p > 0 && p < 1) {
		return nil, fmt.Errorf("%w: parameters out of range", ErrCorrupt)
	}
	m, k := bloom.EstimateParameters(uint(capacity), p)
	// Check the sizes (m, k, the bit set's length) before bloom allocates
	// what the stream announces.
	var mk [24]byte
	if _, err := io.ReadFull(r, mk[:]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if binary.BigEndian.Uint64(mk[:]) != uint64(m) || binary.BigEndian.Uint64(mk[8:]) != uint64(k) ||
		binary.BigEndian.Uint64(mk[16:]) != uint64(m) {
		return nil, fmt.Errorf("%w: filter size does not match its capacity and rate", ErrCorrupt)
	}
	f := &bloom.BloomFilter{}
	if _, err := f.ReadFrom(io.MultiReader(bytes.NewReader(mk[:]), r)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if f.Cap() != m || f.K() != k || f.BitSet().Len() != m {
		return nil, fmt.Errorf("%w: filter size does not match its capacity and rate", ErrCorrupt)
	}
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n != 0 {
		return nil, fmt.Errorf("%w: data after the filter", ErrCorrupt)
	}
	return &Set{f: f, capacity: capacity, fpRate: p, added: added}, nil
}

// Load reads the set in file path. A missing file gives a new, empty set
// sized for capacity and p (created reports it: the caller fills it from
// the store). A file sized for other parameters is an error: the caller
// rebuilds the filter from the store rather than silently changing the
// rate it runs at.
func Load(path string, capacity uint64, p float64) (s *Set, created bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		s, err := New(capacity, p)
		return s, true, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("bloomset: %w", err)
	}
	defer f.Close()
	s, err = Read(bufio.NewReader(f))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if s.capacity != capacity || s.fpRate != p {
		return nil, false, fmt.Errorf("bloomset: %s was sized for %d keys at p=%g, not %d at p=%g: rebuild it from the store",
			path, s.capacity, s.fpRate, capacity, p)
	}
	return s, false, nil
}

// Save writes the set to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func (s *Set) Save(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("bloomset: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	w := bufio.NewWriter(tmp)
	if _, err := s.WriteTo(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("bloomset: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("bloomset: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("bloomset: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("bloomset: %w", err)
	}
	return nil
}
