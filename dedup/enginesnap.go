package dedup

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"time"

	"github.com/newsdedup/newscrawl/imgfp"
)

// ErrNoSnapshot: the engine's index cannot be persisted (it is not a
// Snapshotter, e.g. MemoryIndex).
var ErrNoSnapshot = errors.New("the dedup index has no snapshot")

// WriteSnapshot writes the engine's state for a later ReadSnapshot: its
// lead-image index (the engine's own, see addImage), then its index
// (Snapshotter); document frequencies are not part of it. It returns
// ErrNoSnapshot when the index is not a Snapshotter.
func (e *Engine) WriteSnapshot(w io.Writer) error {
	s, ok := e.index.(Snapshotter)
	if !ok {
		return fmt.Errorf("dedup: %T: %w", e.index, ErrNoSnapshot)
	}
	n, err := e.writeImages(w)
	if err != nil {
		return err
	}
	if _, err := w.Write(make([]byte, imagesPad(n))); err != nil {
		return fmt.Errorf("dedup: write snapshot: %w", err)
	}
	return s.WriteSnapshot(w)
}

// SnapshotAlign is the alignment of the index part of an engine's
// snapshot relative to the snapshot's start: the lead images are padded
// to it, so that a snapshot written at a multiple of it in a file can be
// mapped (Mapper).
const SnapshotAlign = 1 << 16

// imagesPad is the padding after an image section of n bytes.
func imagesPad(n int) int { return (SnapshotAlign - n%SnapshotAlign) % SnapshotAlign }

// Mapper is a Snapshotter that can use a snapshot in place from a file
// (a memory mapping) instead of reading it: verify false checks only what
// can be checked in time independent of the snapshot's size (header,
// options, structure), true checks all of it as ReadSnapshot does.
type Mapper interface {
	MapSnapshot(f *os.File, off, size int64, verify bool) error
}

// MapSnapshot loads what WriteSnapshot wrote at f's bytes [off, off+size)
// (off a multiple of SnapshotAlign), mapping the index when it is a
// Mapper and reading it otherwise.
func (e *Engine) MapSnapshot(f *os.File, off, size int64, verify bool) error {
	s, ok := e.index.(Snapshotter)
	if !ok {
		return fmt.Errorf("dedup: %T: %w", e.index, ErrNoSnapshot)
	}
	r := &io.LimitedReader{R: io.NewSectionReader(f, off, size), N: size}
	imgs, err := readImages(r)
	if err != nil {
		return err
	}
	skip := int64(imagesPad(int(size - r.N)))
	if _, err := io.CopyN(io.Discard, r, skip); err != nil {
		return fmt.Errorf("dedup: read snapshot: %w: truncated", ErrSnapshot)
	}
	if m, ok := e.index.(Mapper); ok {
		err = m.MapSnapshot(f, off+size-r.N, r.N, verify)
	} else {
		err = s.ReadSnapshot(r)
	}
	if err != nil {
		return err
	}
	for _, en := range imgs {
		e.images.add(en)
	}
	e.images.mark = len(e.images.entries)
	return nil
}

// ReadSnapshot loads what WriteSnapshot wrote into an engine whose index
// is still empty; it returns ErrNoSnapshot when the index is not a
// Snapshotter. An *io.LimitedReader tells the index its exact length.
func (e *Engine) ReadSnapshot(r io.Reader) error {
	s, ok := e.index.(Snapshotter)
	if !ok {
		return fmt.Errorf("dedup: %T: %w", e.index, ErrNoSnapshot)
	}
	cr := &countingReader{r: r}
	imgs, err := readImages(cr)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(io.Discard, r, int64(imagesPad(int(cr.n)))); err != nil {
		return fmt.Errorf("dedup: read snapshot: %w: truncated", ErrSnapshot)
	}
	if l, ok := r.(*io.LimitedReader); ok {
		r = l // its N now tells the index its exact length
	}
	if err := s.ReadSnapshot(r); err != nil {
		return err
	}
	for _, en := range imgs {
		e.images.add(en)
	}
	e.images.mark = len(e.images.entries)
	return nil
}

// snapImage is an entry of the lead-image index in a snapshot.
type snapImage struct {
	ID, Cluster, Simhash uint64
	Signature, Title     []uint64
	Image                string // imgfp form
	// At is the entry's TimeKey; absent (zero) in snapshots without
	// times, whose indexes are refused with a window.
	At int64 `json:"at,omitempty"`
}

// maxImageSection bounds the image section of a snapshot (its entries
// are short-text pages with a lead image: a few hundred bytes each).
const maxImageSection = 1 << 30

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// writeImages writes the lead-image index: its length, its JSON and a
// CRC-32C of the JSON; it returns the bytes written.
func (e *Engine) writeImages(w io.Writer) (int, error) { return writeImages(w, e.images.entries) }

func writeImages(w io.Writer, entries []imageEntry) (int, error) {
	imgs := make([]snapImage, 0, len(entries))
	for _, x := range entries {
		imgs = append(imgs, snapImage{ID: x.id, Cluster: x.cluster, Simhash: x.simhash, Signature: x.signature, Title: x.title, Image: x.fp.String(), At: x.at})
	}
	b, err := json.Marshal(imgs)
	if err != nil {
		return 0, fmt.Errorf("dedup: write snapshot: %w", err)
	}
	if len(b) > maxImageSection {
		return 0, fmt.Errorf("dedup: write snapshot: %d bytes of lead images", len(b))
	}
	buf := binary.LittleEndian.AppendUint32(nil, uint32(len(b)))
	buf = append(buf, b...)
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(b, castagnoli))
	if _, err := w.Write(buf); err != nil {
		return 0, fmt.Errorf("dedup: write snapshot: %w", err)
	}
	return len(buf), nil
}

// readImages reads the section writeImages wrote; it reads exactly its
// bytes (no buffering), so r goes on with the index.
func readImages(r io.Reader) ([]Entry, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, fmt.Errorf("dedup: read snapshot: %w: lead images: truncated", ErrSnapshot)
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > maxImageSection {
		return nil, fmt.Errorf("dedup: read snapshot: %w: %d bytes of lead images", ErrSnapshot, size)
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(size)))
	if err != nil {
		return nil, fmt.Errorf("dedup: read snapshot: %w", err)
	}
	if _, err := io.ReadFull(r, n[:]); uint32(len(b)) != size || err != nil {
		return nil, fmt.Errorf("dedup: read snapshot: %w: lead images: truncated", ErrSnapshot)
	}
	if binary.LittleEndian.Uint32(n[:]) != crc32.Checksum(b, castagnoli) {
		return nil, fmt.Errorf("dedup: read snapshot: %w: lead images: checksum mismatch", ErrSnapshot)
	}
	var imgs []snapImage
	if err := json.Unmarshal(b, &imgs); err != nil {
		return nil, fmt.Errorf("dedup: read snapshot: %w: lead images: %w", ErrSnapshot, err)
	}
	out := make([]Entry, 0, len(imgs))
	for _, x := range imgs {
		fp, err := imgfp.Parse(x.Image)
		if err != nil {
			return nil, fmt.Errorf("dedup: read snapshot: %w: lead image of %d: %w", ErrSnapshot, x.ID, err)
		}
		en := Entry{ID: x.ID, Cluster: x.Cluster, Simhash: x.Simhash, Signature: x.Signature, Title: x.Title, Image: fp}
		if x.At != 0 && x.At != math.MinInt64 {
			en.Time = time.Unix(0, x.At)
		}
		out = append(out, en)
	}
	return out, nil
}

// DeltaSnapshotter is a Snapshotter that can also save what changed since
// a point (MarkDelta, or the load of a snapshot) and apply such a delta to
// the state it followed, so that a run over a large index saves in
// proportion to its changes.
type DeltaSnapshotter interface {
	Snapshotter
	MarkDelta()
	WriteDelta(w io.Writer) error
	ReadDelta(ctx context.Context, r io.Reader) error
}

// MarkDelta makes the engine's present state the one the next WriteDelta
// starts from. It returns ErrNoSnapshot when the index keeps no deltas.
func (e *Engine) MarkDelta() error {
	d, ok := e.index.(DeltaSnapshotter)
	if !ok {
		return fmt.Errorf("dedup: %T: %w", e.index, ErrNoSnapshot)
	}
	d.MarkDelta()
	e.images.mark = len(e.images.entries)
	return nil
}

// WriteDelta writes what changed since MarkDelta: the lead images indexed
// since, then the index's delta (DeltaSnapshotter).
func (e *Engine) WriteDelta(w io.Writer) error {
	d, ok := e.index.(DeltaSnapshotter)
	if !ok {
		return fmt.Errorf("dedup: %T: %w", e.index, ErrNoSnapshot)
	}
	if _, err := writeImages(w, e.images.entries[min(e.images.mark, len(e.images.entries)):]); err != nil {
		return err
	}
	return d.WriteDelta(w)
}

// ReadDelta applies a delta written by WriteDelta (all of r) to an engine
// holding the state it followed. A delta whose index part is refused
// (torn, corrupt, other options) leaves the index unchanged and returns
// the error.
func (e *Engine) ReadDelta(ctx context.Context, r io.Reader) error {
	d, ok := e.index.(DeltaSnapshotter)
	if !ok {
		return fmt.Errorf("dedup: %T: %w", e.index, ErrNoSnapshot)
	}
	imgs, err := readImages(r)
	if err != nil {
		return err
	}
	if err := d.ReadDelta(ctx, r); err != nil {
		return err
	}
	for _, en := range imgs {
		e.images.add(en)
	}
	return nil
}
