// Package scalecorpus holds the fingerprints of large corpora for the
// scale benchmarks and `eval scale`: a compact binary file of fingerprints
// computed once from the texts of ../shared/bench/scale/gen.py (real
// segmentation and SpotSigs extraction), and synthetic fingerprints for
// sizes no text corpus is generated for (1 M, 10 M).
//
// Synthetic signatures follow a model fitted on real fingerprints: lengths
// are drawn from the real length distribution, headline bigrams from the
// real ones; each spot is, with
// probability pNew(n), a spot never seen before, and otherwise drawn from
// the pool of real spot occurrences (so spot frequencies keep their real,
// Zipf-like shape). pNew follows Heaps' law V(n) = K·n^β fitted on the real
// corpus (vocabulary at half and at all of it): pNew(n) = pNew(n0)·(n/n0)^(β−1),
// so the vocabulary keeps growing, more slowly, as the corpus does. The
// texts of gen.py are unrelated to each other, and so are synthetic
// signatures.
package scalecorpus

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// magic starts a fingerprint file (version 1).
const magic = "NCFP0001"

// maxLen bounds the spot and headline counts of one record, so that a
// corrupt file cannot ask for huge allocations.
const maxLen = 1 << 22

// Writer writes fingerprints to a file.
type Writer struct {
	w   *bufio.Writer
	buf []byte
}

// NewWriter writes the file header and returns a writer.
func NewWriter(w io.Writer) (*Writer, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(magic); err != nil {
		return nil, fmt.Errorf("scalecorpus: %w", err)
	}
	return &Writer{w: bw}, nil
}

// Write appends one fingerprint: Simhash, text hash, word count, signature, headline set.
func (w *Writer) Write(fp *dedup.Fingerprint) error {
	b := w.buf[:0]
	b = binary.LittleEndian.AppendUint64(b, fp.Simhash)
	b = append(b, fp.Hash[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(fp.Words))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(fp.Signature)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(fp.Title)))
	for _, v := range fp.Signature {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	for _, v := range fp.Title {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("scalecorpus: %w", err)
	}
	return nil
}

// Flush writes buffered data.
func (w *Writer) Flush() error {
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("scalecorpus: %w", err)
	}
	return nil
}

// Read calls fn for each fingerprint of a file written by Writer, in order,
// until fn returns false.
func Read(r io.Reader, fn func(fp *dedup.Fingerprint) bool) error {
	br := bufio.NewReaderSize(r, 1<<20)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(br, head); err != nil {
		return fmt.Errorf("scalecorpus: header: %w", err)
	}
	if string(head) != magic {
		return errors.New("scalecorpus: not a fingerprint file (bad magic)")
	}
	var fixed [8 + 16 + 12]byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(br, fixed[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("scalecorpus: record %d: %w", n, err)
		}
		fp := &dedup.Fingerprint{Simhash: binary.LittleEndian.Uint64(fixed[:8])}
		copy(fp.Hash[:], fixed[8:24])
		fp.Words = int(binary.LittleEndian.Uint32(fixed[24:28]))
		ns, nt := binary.LittleEndian.Uint32(fixed[28:32]), binary.LittleEndian.Uint32(fixed[32:36])
		if ns > maxLen || nt > maxLen {
			return fmt.Errorf("scalecorpus: record %d: %d spots, %d headline bigrams: corrupt file", n, ns, nt)
		}
		// Read what is there rather than allocating what the record claims.
		want := 8 * (int(ns) + int(nt))
		body, err := io.ReadAll(io.LimitReader(br, int64(want)))
		if err == nil && len(body) < want {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return fmt.Errorf("scalecorpus: record %d: %w", n, err)
		}
		if ns > 0 {
			fp.Signature = make(spotsigs.Signature, ns)
			for i := range fp.Signature {
				fp.Signature[i] = binary.LittleEndian.Uint64(body[8*i:])
			}
		}
		if nt > 0 {
			fp.Title = make([]uint64, nt)
			for i := range fp.Title {
				fp.Title[i] = binary.LittleEndian.Uint64(body[8*(int(ns)+i):])
			}
		}
		if !fn(fp) {
			return nil
		}
	}
}

// Model generates synthetic fingerprints shaped like real ones (see the
// package comment).
type Model struct {
	pool  []uint64 // real spot occurrences
	tpool []uint64 // real headline bigram occurrences
	lens  []int    // real signature lengths
	tlens []int    // real headline set sizes
	n0    int      // corpus size pNew0 was measured at
	pNew0 float64
	beta  float64
}

// maxPool bounds the occurrence pool kept by Fit.
const maxPool = 4 << 20

// Fit fits a model on real fingerprints (in corpus order; at least 1,000).
func Fit(fps []*dedup.Fingerprint) (*Model, error) {
	if len(fps) < 1000 {
		return nil, fmt.Errorf("scalecorpus: %d fingerprints, need at least 1,000 to fit a model", len(fps))
	}
	m := &Model{n0: len(fps)}
	total := 0
	for _, fp := range fps {
		total += len(fp.Signature)
	}
	step := max(1, total/maxPool)
	k := 0
	half := len(fps) / 2
	seen := map[uint64]struct{}{}
	vHalf, newLate, occLate := 0, 0, 0
	lateFrom := len(fps) - len(fps)/10
	for i, fp := range fps {
		if i == half {
			vHalf = len(seen)
		}
		m.lens = append(m.lens, len(fp.Signature))
		m.tlens = append(m.tlens, len(fp.Title))
		if len(m.tpool) < maxPool {
			m.tpool = append(m.tpool, fp.Title...)
		}
		for _, v := range fp.Signature {
			if k%step == 0 {
				m.pool = append(m.pool, v)
			}
			k++
			if _, ok := seen[v]; !ok {
				seen[v] = struct{}{}
				if i >= lateFrom {
					newLate++
				}
			}
			if i >= lateFrom {
				occLate++
			}
		}
	}
	if vHalf == 0 || occLate == 0 || len(m.tpool) == 0 {
		return nil, errors.New("scalecorpus: fingerprints without spots or headlines")
	}
	m.beta = math.Log(float64(len(seen))/float64(vHalf)) / math.Log(float64(len(fps))/float64(half))
	m.pNew0 = float64(newLate) / float64(occLate)
	return m, nil
}

// String describes the fitted model.
func (m *Model) String() string {
	return fmt.Sprintf("Heaps beta %.3f, new-spot rate %.4f at %d documents, pool of %d spot occurrences", m.beta, m.pNew0, m.n0, len(m.pool))
}

// Synth returns the synthetic fingerprint of document number n (0-based)
// of a synthetic corpus; rng decides everything else.
func (m *Model) Synth(rng *rand.Rand, n int) *dedup.Fingerprint {
	p := m.pNew0
	if n > m.n0 {
		p *= math.Pow(float64(n)/float64(m.n0), m.beta-1)
	}
	l := m.lens[rng.IntN(len(m.lens))]
	sig := make(spotsigs.Signature, l)
	for i := range sig {
		if rng.Float64() < p {
			sig[i] = rng.Uint64()
		} else {
			sig[i] = m.pool[rng.IntN(len(m.pool))]
		}
	}
	slices.Sort(sig)
	fp := &dedup.Fingerprint{Simhash: rng.Uint64(), Signature: sig, Words: 10 * l}
	for i := range fp.Hash {
		fp.Hash[i] = byte(rng.Uint32())
	}
	fp.Title = make([]uint64, m.tlens[rng.IntN(len(m.tlens))])
	for i := range fp.Title {
		fp.Title[i] = m.tpool[rng.IntN(len(m.tpool))]
	}
	slices.Sort(fp.Title)
	fp.Title = slices.Compact(fp.Title)
	return fp
}

// NearDuplicate returns a copy of fp with a share frac of its spots
// replaced by spots from the pool (a reprint with edits).
func (m *Model) NearDuplicate(rng *rand.Rand, fp *dedup.Fingerprint, frac float64) *dedup.Fingerprint {
	out := *fp
	out.Signature = slices.Clone(fp.Signature)
	for i := range out.Signature {
		if rng.Float64() < frac {
			out.Signature[i] = m.pool[rng.IntN(len(m.pool))]
		}
	}
	slices.Sort(out.Signature)
	out.Hash[0] ^= 1
	return &out
}
