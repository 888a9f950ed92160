package redisindex

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/newsdedup/newscrawl/dedup"
)

// recordVersion is the first byte of a record.
const recordVersion = 1

// appendRecord encodes what verification needs of e (everything but ID
// and Cluster, which the record's key and field hold): version, Simhash,
// text hash, then counted arrays of 64-bit values (signature, headline
// set, winnowing prints with a presence flag) and the content word count.
func appendRecord(dst []byte, e *dedup.Entry) []byte {
	dst = append(dst, recordVersion)
	dst = binary.LittleEndian.AppendUint64(dst, e.Simhash)
	dst = append(dst, e.Hash[:]...)
	dst = appendWords(dst, e.Signature)
	dst = appendWords(dst, e.Title)
	if e.Prints == nil {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = appendWords(dst, e.Prints)
	}
	return binary.AppendUvarint(dst, uint64(e.ContentWords))
}

func appendWords(dst []byte, ws []uint64) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ws)))
	for _, w := range ws {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

var errRecord = errors.New("redisindex: malformed entry record")

// decodeRecord reverses appendRecord into e (ID and Cluster untouched).
func decodeRecord(b []byte, e *dedup.Entry) error {
	if len(b) < 1+8+16 || b[0] != recordVersion {
		return fmt.Errorf("%w: %d bytes, version %v", errRecord, len(b), b[:min(len(b), 1)])
	}
	e.Simhash = binary.LittleEndian.Uint64(b[1:])
	copy(e.Hash[:], b[9:25])
	r := b[25:]
	var err error
	if e.Signature, r, err = words(r); err != nil {
		return err
	}
	if e.Title, r, err = words(r); err != nil {
		return err
	}
	if len(r) == 0 || r[0] > 1 {
		return fmt.Errorf("%w: prints flag", errRecord)
	}
	e.Prints = nil
	if r[0] == 1 {
		if e.Prints, r, err = words(r[1:]); err != nil {
			return err
		}
		if e.Prints == nil {
			e.Prints = []uint64{}
		}
	} else {
		r = r[1:]
	}
	n, k := uvarint(r)
	if k <= 0 || k != len(r) || n > 1<<31 {
		return fmt.Errorf("%w: content words", errRecord)
	}
	e.ContentWords = int(n)
	return nil
}

func words(b []byte) ([]uint64, []byte, error) {
	n, k := uvarint(b)
	if k <= 0 || n > uint64(len(b)-k)/8 {
		return nil, nil, fmt.Errorf("%w: array length", errRecord)
	}
	b = b[k:]
	if n == 0 {
		return nil, b, nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out, b[8*n:], nil
}

// uvarint is binary.Uvarint refusing non-minimal encodings (k = 0), so
// that a record has one encoding.
func uvarint(b []byte) (uint64, int) {
	n, k := binary.Uvarint(b)
	if k > 0 && k != len(binary.AppendUvarint(nil, n)) {
		return 0, 0
	}
	return n, k
}
