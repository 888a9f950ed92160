package lshindex

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/newsdedup/newscrawl/dedup"
)

// Deltas (dedup.DeltaSnapshotter). A run over a mapped snapshot changes a
// few entries of a large index; instead of the whole state, WriteDelta
// writes the operations since the last MarkDelta (a load marks it), in
// order: the entries added (id, cluster, Simhash, text hash, window time,
// signature, headline, winnowing prints), the ids removed and the cluster
// merges.
// ReadDelta applies them to an index holding the state they followed
// (the caller's to ensure: the pipeline names the base and the store
// position in each record), which gives the state WriteDelta saw: Add,
// Remove and MergeClusters are deterministic. A delta is checksummed
// (CRC-32C) and names the options of the index; a torn, corrupt or
// other-options delta is refused before anything is applied.

const (
	deltaMagic = "NCLSHDL\n"
	// maxDeltaOps bounds the operations a delta can hold (a corrupt count
	// fails instead of allocating).
	maxDeltaOps = 1 << 28
)

// The kinds of operation in a delta.
const (
	opAdd = iota + 1
	opRemove
	opMerge
)

type deltaOp struct {
	kind uint8
	a, b uint64 // opAdd: slot; opRemove: id; opMerge: into, from
}

// MarkDelta makes the index's present state the one the next WriteDelta
// starts from, and starts logging the operations (an index built entry by
// entry logs nothing until then; a loaded one from its load).
func (x *Index) MarkDelta() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ops, x.logging = nil, true
}

// logOp records op for the next delta (x.mu held).
func (x *Index) logOp(op deltaOp) {
	if x.logging {
		x.ops = append(x.ops, op)
	}
}

// DeltaOps is the number of operations the next WriteDelta writes.
func (x *Index) DeltaOps() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ops)
}

// WriteDelta writes the operations since the last MarkDelta (or load).
func (x *Index) WriteDelta(w io.Writer) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var b []byte
	b = append(b, deltaMagic...)
	b, _ = binary.Append(b, binary.LittleEndian, x.header())
	b = binary.LittleEndian.AppendUint64(b, uint64(len(x.ops)))
	for _, op := range x.ops {
		b = append(b, op.kind)
		switch op.kind {
		case opAdd:
			var err error
			if b, err = x.appendEntry(b, uint32(op.a)); err != nil {
				return fmt.Errorf("lshindex: write delta: %w", err)
			}
		case opRemove:
			b = binary.LittleEndian.AppendUint64(b, op.a)
		case opMerge:
			b = binary.LittleEndian.AppendUint64(b, op.a)
			b = binary.LittleEndian.AppendUint64(b, op.b)
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	bw := bufio.NewWriter(w)
	bw.Write(b)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("lshindex: write delta: %w", err)
	}
	return nil
}

func appendU64s(b []byte, vs []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// appendEntry appends the entry in slot s as Add received it (a removed
// one without its prints).
func (x *Index) appendEntry(b []byte, s uint32) ([]byte, error) {
	sig, title, err := x.entryCodes(s)
	if err != nil {
		return b, err
	}
	b = binary.LittleEndian.AppendUint64(b, x.ids[s])
	b = binary.LittleEndian.AppendUint64(b, x.clusters[s])
	b = binary.LittleEndian.AppendUint64(b, x.sims[s])
	b = append(b, x.hashes[s][:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(x.times[s]))
	b = appendU64s(b, decodeCodes(sig, x.spots.vals))
	// The headline in code order: adding it again gives its new bigrams
	// the codes they have here.
	b = appendU64s(b, decodeInCodeOrder(title, x.bigrams.vals))
	if !x.keep(s) {
		return append(b, 0), nil
	}
	prints, words, ok, err := x.cold.get(s)
	if err != nil || !ok {
		return append(b, 0), err
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(words))
	return appendU64s(b, prints), nil
}

// deltaReader decodes a delta held in memory; the first error sticks.
type deltaReader struct {
	b   []byte
	err error
}

func (r *deltaReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		if r.err == nil {
			r.err = errors.New("truncated delta")
		}
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *deltaReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *deltaReader) u64s() []uint64 {
	n, k := binary.Uvarint(r.b)
	if r.err != nil || k <= 0 || n > uint64(len(r.b))/8 {
		if r.err == nil {
			r.err = errors.New("bad array length in delta")
		}
		return nil
	}
	r.b = r.b[k:]
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.u64()
	}
	return out
}

func (r *deltaReader) entry() dedup.Entry {
	e := dedup.Entry{ID: r.u64(), Cluster: r.u64(), Simhash: r.u64()}
	copy(e.Hash[:], r.take(16))
	e.Time = timeOf(int64(r.u64()))
	e.Signature = r.u64s()
	e.Title = r.u64s()
	if w := r.take(1); w != nil && w[0] == 1 {
		words, k := binary.Uvarint(r.b)
		if k <= 0 {
			r.err = errors.New("bad winnowing entry in delta")
			return e
		}
		r.b = r.b[k:]
		e.ContentWords, e.Prints = int(words), r.u64s()
	}
	if r.err == nil && !slices.IsSorted(e.Signature) {
		r.err = errors.New("unsorted signature in delta")
	}
	return e
}

// ReadDelta applies a delta written by WriteDelta (all of r) to x. The
// whole delta is decoded and checked first: on an error nothing is
// applied. The operations applied are logged again, so the next
// WriteDelta (without a MarkDelta) holds them too.
func (x *Index) ReadDelta(ctx context.Context, in io.Reader) error {
	b, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("lshindex: read delta: %w", err)
	}
	if len(b) < len(deltaMagic)+4 || string(b[:len(deltaMagic)]) != deltaMagic {
		return errors.New("lshindex: read delta: not an lshindex delta")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return errors.New("lshindex: read delta: checksum mismatch (torn or corrupt)")
	}
	r := &deltaReader{b: body[len(deltaMagic):]}
	var h header
	if _, err := binary.Decode(r.take(binary.Size(h)), binary.LittleEndian, &h); err != nil || h != x.header() {
		return fmt.Errorf("lshindex: read delta: written with other options (%+v), this index has %+v", h, x.header())
	}
	n := r.u64()
	if n > maxDeltaOps || n > uint64(len(r.b)) {
		return fmt.Errorf("lshindex: read delta: %d operations", n)
	}
	type op struct {
		kind uint8
		e    dedup.Entry
		a, b uint64
	}
	ops := make([]op, 0, n)
	for range n {
		k := r.take(1)
		if r.err != nil {
			break
		}
		o := op{kind: k[0]}
		switch o.kind {
		case opAdd:
			o.e = r.entry()
		case opRemove:
			o.a = r.u64()
		case opMerge:
			o.a, o.b = r.u64(), r.u64()
		default:
			r.err = fmt.Errorf("unknown operation %d", o.kind)
		}
		ops = append(ops, o)
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errors.New("bytes after the operations")
	}
	if r.err != nil {
		return fmt.Errorf("lshindex: read delta: %w", r.err)
	}
	for _, o := range ops {
		switch o.kind {
		case opAdd:
			err = x.Add(ctx, o.e)
		case opRemove:
			err = x.Remove(ctx, o.a)
		case opMerge:
			err = x.MergeClusters(ctx, o.a, []uint64{o.b})
		}
		if err != nil {
			return fmt.Errorf("lshindex: read delta: %w", err)
		}
	}
	return nil
}
