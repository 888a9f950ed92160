package segment

import (
	"bytes"
	"compress/flate"
	_ "embed" // zhdict.bin
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// zhDict is gse v0.80.3's simplified-Chinese dictionary ("zh_s", from jieba)
// in the compact form written by internal/gendict; see that command for the
// format.
//
//go:embed zhdict.bin
var zhDict []byte

const (
	dictMagic = "NDSD\x02"

	// unknownDistance is the path length of a character that no
	// single-character dictionary word covers (gse's pseudo token, distance 32).
	unknownDistance float32 = 32

	// maxDictWords bounds the header counts of a dictionary file so that a
	// corrupt header cannot make the loader allocate without limit.
	maxDictWords = 1 << 24
	maxDictBody  = 64 << 20
	// maxDictTags bounds the part-of-speech tag table (jieba uses about 60
	// tags; indexes are stored per trie node in one byte, 0 = untagged).
	maxDictTags = 255
	maxTagLen   = 16
)

// The dictionary is a rune trie. Node 0 is the root. Transitions out of the
// root for runes in the Basic Multilingual Plane are a direct array (256 KB,
// it stays in cache); all others live in one open-addressing hash table of
// packed 8-byte slots:
//
//	bits  0-20  rune
//	bits 21-40  parent node
//	bits 41-60  child node
//	bit  61     the child is a dictionary word
//	bit  62     the child has children (a longer key exists)
//
// A lookup is one multiply and, mostly, one cache line. Words are only
// checked at unit boundaries, so a multi-rune alphanumeric unit ("iphone") is
// walked rune by rune and tested once at its end, exactly like gse's trie of
// units.
const (
	nodeBits = 20
	maxNodes = 1<<nodeBits - 1
	keyBits  = 21 + nodeBits
	keyMask  = 1<<keyBits - 1
	wordBit  = 1 << 61
	extBit   = 1 << 62

	rootWord = 1 << 30 // flags in rootNext entries (low bits: child node)
	rootExt  = 1 << 31
	rootMask = 1<<nodeBits - 1

	hashMul = 0x9E3779B97F4A7C15 // 2^64 / golden ratio (Fibonacci hashing)
)

type dictionary struct {
	rootNext []uint32  // BMP rune -> child of the root | rootWord | rootExt; 0: none
	slots    []uint64  // hash table of the other transitions
	shift    uint      // 64 - log2(len(slots))
	dist     []float32 // node -> word path length log2(F/freq) (gse Token.distance)
	pos      []uint8   // node -> index into tags of the word's part of speech (0: none)
	tags     []string  // part-of-speech tags; tags[0] is ""
	nodes    int
	words    int
}

// step follows the transition of node by rune r. It returns the child, its
// word and ext flags, and ok=false when there is no such transition.
func (d *dictionary) step(node uint32, r rune) (child uint32, word, ext, ok bool) {
	if node == 0 && r < 0x10000 && r >= 0 {
		v := d.rootNext[r]
		return v & rootMask, v&rootWord != 0, v&rootExt != 0, v != 0
	}
	key := uint64(r)&(1<<21-1) | uint64(node)<<21
	mask := uint64(len(d.slots) - 1)
	for i := (key * hashMul) >> d.shift; ; i = (i + 1) & mask {
		v := d.slots[i]
		if v == 0 {
			return 0, false, false, false
		}
		if v&keyMask == key {
			return uint32(v>>keyBits) & maxNodes, v&wordBit != 0, v&extBit != 0, true
		}
	}
}

// builder inserts words into a dictionary under construction.
type builder struct {
	d *dictionary
}

// slot returns the table index of transition node -r->, or of the empty
// slot where it belongs.
func (d *dictionary) slot(node uint32, r rune) (int, uint64) {
	key := uint64(r)&(1<<21-1) | uint64(node)<<21
	mask := uint64(len(d.slots) - 1)
	i := (key * hashMul) >> d.shift
	for d.slots[i] != 0 && d.slots[i]&keyMask != key {
		i = (i + 1) & mask
	}
	return int(i), key
}

// ref locates a transition: a rootNext index (root >= 0) or a slots index.
type ref struct {
	root int
	slot int
}

// child returns the child of node by r, creating it if needed, and where the
// transition is stored.
func (b *builder) child(node uint32, r rune) (uint32, ref, error) {
	d := b.d
	if node == 0 && r < 0x10000 {
		at := ref{root: int(r)}
		if v := d.rootNext[r]; v != 0 {
			return v & rootMask, at, nil
		}
		id, err := b.newNode()
		if err != nil {
			return 0, at, err
		}
		d.rootNext[r] = id
		return id, at, nil
	}
	i, key := d.slot(node, r)
	at := ref{root: -1, slot: i}
	if d.slots[i] != 0 {
		return uint32(d.slots[i]>>keyBits) & maxNodes, at, nil
	}
	id, err := b.newNode()
	if err != nil {
		return 0, at, err
	}
	if 2*d.nodes > len(d.slots) {
		return 0, at, errors.New("segment: dictionary hash table over half full")
	}
	d.slots[i] = key | uint64(id)<<keyBits
	return id, at, nil
}

func (b *builder) newNode() (uint32, error) {
	if b.d.nodes >= maxNodes {
		return 0, fmt.Errorf("segment: dictionary has more than %d trie nodes", maxNodes)
	}
	b.d.nodes++
	b.d.dist = append(b.d.dist, 0)
	b.d.pos = append(b.d.pos, 0)
	return uint32(b.d.nodes), nil
}

// setFlags sets flags on the transition at.
func (b *builder) setFlags(at ref, word, ext bool) {
	d := b.d
	if at.root >= 0 {
		if word {
			d.rootNext[at.root] |= rootWord
		}
		if ext {
			d.rootNext[at.root] |= rootExt
		}
		return
	}
	if word {
		d.slots[at.slot] |= wordBit
	}
	if ext {
		d.slots[at.slot] |= extBit
	}
}

// insert adds word w with path length dist and part-of-speech tag index tag.
func (b *builder) insert(w []byte, dist float32, tag uint8) error {
	var node uint32
	var at ref
	for i, r := range string(w) {
		if i > 0 {
			b.setFlags(at, false, true)
		}
		next, nextAt, err := b.child(node, r)
		if err != nil {
			return err
		}
		node, at = next, nextAt
	}
	if node == 0 {
		return errors.New("segment: empty dictionary word")
	}
	b.setFlags(at, true, false)
	b.d.dist[node] = dist
	b.d.pos[node] = tag
	return nil
}

// lookup returns the part-of-speech tag and path length of dictionary word
// w, and whether w is a dictionary word at all.
func (d *dictionary) lookup(w string) (tag string, dist float32, ok bool) {
	var node uint32
	word := false
	for _, r := range w {
		next, isWord, _, found := d.step(node, r)
		if !found {
			return "", 0, false
		}
		node, word = next, isWord
	}
	if !word || node == 0 {
		return "", 0, false
	}
	return d.tags[d.pos[node]], d.dist[node], true
}

type dictHeader struct {
	words, nodes uint64
	total        float64  // total dictionary frequency F
	tags         []string // part-of-speech tags; tags[0] is "" (untagged)
}

// openDict checks a dictionary written by internal/gendict and returns its
// header and decompressed entries.
func openDict(data []byte) (dictHeader, []byte, error) {
	var h dictHeader
	if !bytes.HasPrefix(data, []byte(dictMagic)) {
		return h, nil, errors.New("segment: dictionary: bad magic")
	}
	rd := bytes.NewReader(data[len(dictMagic):])
	var err error
	if h.words, err = binary.ReadUvarint(rd); err != nil {
		return h, nil, fmt.Errorf("segment: dictionary header: %w", err)
	}
	if h.nodes, err = binary.ReadUvarint(rd); err != nil {
		return h, nil, fmt.Errorf("segment: dictionary header: %w", err)
	}
	if _, err = binary.ReadUvarint(rd); err != nil { // total word bytes (unused)
		return h, nil, fmt.Errorf("segment: dictionary header: %w", err)
	}
	var f8 [8]byte
	if _, err := io.ReadFull(rd, f8[:]); err != nil {
		return h, nil, fmt.Errorf("segment: dictionary header: %w", err)
	}
	h.total = math.Float64frombits(binary.LittleEndian.Uint64(f8[:]))
	if h.words > maxDictWords || h.nodes > maxNodes || !(h.total >= 1 && h.total < math.MaxFloat32) {
		return h, nil, errors.New("segment: dictionary header out of range")
	}
	ntags, err := binary.ReadUvarint(rd)
	if err != nil {
		return h, nil, fmt.Errorf("segment: dictionary header: %w", err)
	}
	if ntags > maxDictTags {
		return h, nil, fmt.Errorf("segment: dictionary has %d part-of-speech tags (limit %d)", ntags, maxDictTags)
	}
	h.tags = make([]string, 1, ntags+1)
	for range ntags {
		n, err := binary.ReadUvarint(rd)
		if err != nil {
			return h, nil, fmt.Errorf("segment: dictionary tags: %w", err)
		}
		if n == 0 || n > maxTagLen {
			return h, nil, errors.New("segment: dictionary tag length out of range")
		}
		tag := make([]byte, n)
		if _, err := io.ReadFull(rd, tag); err != nil {
			return h, nil, fmt.Errorf("segment: dictionary tags: %w", err)
		}
		if !utf8.Valid(tag) {
			return h, nil, errors.New("segment: dictionary tag is not UTF-8")
		}
		h.tags = append(h.tags, string(tag))
	}
	zr := flate.NewReader(rd)
	defer zr.Close()
	body, err := io.ReadAll(io.LimitReader(zr, maxDictBody+1))
	if err != nil {
		return h, nil, fmt.Errorf("segment: dictionary body: %w", err)
	}
	if len(body) > maxDictBody {
		return h, nil, errors.New("segment: dictionary body too large")
	}
	if rd.Len() != 0 {
		return h, nil, errors.New("segment: dictionary has data after its body")
	}
	return h, body, nil
}

// eachDictWord calls fn for every entry of body in order, with the index of
// its part-of-speech tag in h.tags. The word slice is reused between calls.
func eachDictWord(h dictHeader, body []byte, fn func(word []byte, freq uint64, tag uint8) error) error {
	uvarint := func() uint64 {
		v, n := binary.Uvarint(body)
		if n <= 0 {
			body = nil
			return math.MaxUint64
		}
		body = body[n:]
		return v
	}
	var word []byte
	for i := uint64(0); i < h.words; i++ {
		shared, suffix := uvarint(), uvarint()
		if shared > uint64(len(word)) || suffix == 0 || suffix > uint64(len(body)) {
			return fmt.Errorf("segment: dictionary entry %d: bad lengths", i)
		}
		word = append(word[:shared], body[:suffix]...)
		body = body[suffix:]
		freq := uvarint()
		if freq == 0 || freq > math.MaxUint32 || !utf8.Valid(word) {
			return fmt.Errorf("segment: dictionary entry %d: bad word or frequency", i)
		}
		tag := uvarint()
		if tag >= uint64(len(h.tags)) {
			return fmt.Errorf("segment: dictionary entry %d: tag index %d out of range", i, tag)
		}
		if err := fn(word, freq, uint8(tag)); err != nil {
			return err
		}
	}
	if len(body) != 0 {
		return errors.New("segment: dictionary has trailing data")
	}
	return nil
}

// loadDict builds the trie of a dictionary written by internal/gendict.
func loadDict(data []byte) (*dictionary, error) {
	h, body, err := openDict(data)
	if err != nil {
		return nil, err
	}
	// Path lengths exactly as gse computes them (float32 arithmetic,
	// gse CalcToken): distance = float32(log2 F) - float32(log2 freq).
	logTotal := float32(math.Log2(h.total))
	size := 1 << 10
	for size < int(2*h.nodes) { // load factor at most 1/2
		size <<= 1
	}
	d := &dictionary{
		rootNext: make([]uint32, 0x10000),
		slots:    make([]uint64, size),
		shift:    uint(64 - bits.TrailingZeros(uint(size))),
		dist:     make([]float32, 1, h.nodes+1),
		pos:      make([]uint8, 1, h.nodes+1),
		tags:     h.tags,
		words:    int(h.words),
	}
	b := builder{d}
	err = eachDictWord(h, body, func(word []byte, freq uint64, tag uint8) error {
		return b.insert(word, logTotal-float32(math.Log2(float64(freq))), tag)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// isAlnumUnit reports whether r (encoded in size bytes) belongs to a run of
// letters and digits that gse treats as one unit: letters and digits encoded
// in at most two UTF-8 bytes (Latin, Greek, Cyrillic, ...). Every other rune,
// Han characters included, is a unit by itself.
func isAlnumUnit(r rune, size int) bool {
	if size == 1 {
		return (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || (r >= 'A' && r <= 'Z')
	}
	return size == 2 && (unicode.IsLetter(r) || unicode.IsNumber(r))
}
