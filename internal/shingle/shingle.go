// Package shingle provides the classic near-duplicate baselines used to
// evaluate SimHash and SpotSigs: w-shingling with exact Jaccard
// resemblance, MinHash signatures, and LSH banding over them. The crawler
// does not use it by default.
//
// Sources:
//
//   - A. Z. Broder, S. C. Glassman, M. S. Manasse and G. Zweig, "Syntactic
//     clustering of the Web", WWW 1997; A. Z. Broder, "On the resemblance and
//     containment of documents", SEQUENCES 1997: a document is the set of its
//     w-shingles (contiguous runs of w words) and the resemblance of two
//     documents is the Jaccard coefficient of those sets.
//   - A. Z. Broder, M. Charikar, A. M. Frieze and M. Mitzenmacher, "Min-wise
//     independent permutations", STOC 1998: the probability that two sets
//     have the same minimum under a random hash function equals their
//     Jaccard coefficient. Here the hash functions are h_i(x) = (a_i·x + b_i)
//     mod (2^61 − 1) over the 64-bit shingle hashes.
//   - LSH banding (A. Rajaraman and J. D. Ullman, Mining of Massive Datasets,
//     ch. 3): the signature is cut into l bands of k rows; two sets become
//     candidates when they agree on all rows of at least one band, which
//     happens with probability 1 − (1 − J^k)^l. The SpotSigs-zh paper (Li Yan
//     et al. 2017) used k = 6, l = 32, read here as 32 bands of 6 rows
//     (192 hash functions): DefaultRows and DefaultBands.
//
// The package is pure: words in, values out. It does no I/O and no logging.
package shingle

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Shingles returns the set of w-shingles of words as sorted, distinct
// 64-bit hashes. Each word is hashed once with xxHash and a shingle's hash
// folds its w word hashes in order through the SplitMix64 finaliser, so
// order matters and every word costs one xxHash. A text shorter than w
// words (but not empty) is one shingle of all its words. For w < 1 or no
// words it returns an empty set.
func Shingles(words []string, w int) []uint64 {
	if w < 1 || len(words) == 0 {
		return []uint64{}
	}
	if len(words) < w {
		w = len(words)
	}
	wh := make([]uint64, len(words))
	for i, s := range words {
		wh[i] = xxhash.Sum64String(s)
	}
	out := wh[:0] // shingle i only reads word hashes ≥ i, so reuse wh
	for i := 0; i+w <= len(words); i++ {
		h := uint64(w)
		for _, x := range wh[i : i+w] {
			h ^= x
			h = splitmix64(&h)
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Jaccard returns |a ∩ b| / |a ∪ b| of two sorted sets of distinct values;
// it is 0 when both are empty.
func Jaccard(a, b []uint64) float64 {
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// mersenne61 is the prime 2^61 − 1 of the hash family.
const mersenne61 = 1<<61 - 1

// Empty is the value of every MinHash component of an empty set: larger
// than any hash value (which are < 2^61 − 1).
const Empty = math.MaxUint64

// MaxHashes bounds the number of hash functions of a MinHasher (and k·l of an LSH).
const MaxHashes = 1 << 16

// MinHasher computes MinHash signatures with n hash functions.
type MinHasher struct {
	a, b []uint64
}

// NewMinHasher returns a MinHasher with n hash functions (1 ≤ n ≤ MaxHashes)
// whose coefficients are drawn deterministically from seed.
func NewMinHasher(n int, seed uint64) (*MinHasher, error) {
	if n < 1 || n > MaxHashes {
		return nil, fmt.Errorf("shingle: %d hash functions outside [1, %d]", n, MaxHashes)
	}
	m := &MinHasher{a: make([]uint64, n), b: make([]uint64, n)}
	s := seed
	for i := 0; i < n; i++ {
		for m.a[i] == 0 { // a_i in [1, p)
			m.a[i] = splitmix64(&s) % mersenne61
		}
		m.b[i] = splitmix64(&s) % mersenne61
	}
	return m, nil
}

// Size returns the number of hash functions.
func (m *MinHasher) Size() int { return len(m.a) }

// Signature returns the MinHash signature of set: component i is
// min_x (a_i·x + b_i) mod (2^61 − 1) over x in set (after reducing x mod
// 2^61 − 1), or Empty for an empty set.
func (m *MinHasher) Signature(set []uint64) []uint64 {
	sig := make([]uint64, len(m.a))
	for i := range sig {
		sig[i] = Empty
	}
	for _, v := range set {
		x := mod61(v)
		for i, a := range m.a {
			if h := mulAddMod61(a, x, m.b[i]); h < sig[i] {
				sig[i] = h
			}
		}
	}
	return sig
}

// EstimateJaccard returns the fraction of components on which two MinHash
// signatures of the same MinHasher agree, ignoring components where both are
// Empty; it is 0 for signatures of different lengths or of empty sets.
func EstimateJaccard(s, t []uint64) float64 {
	if len(s) != len(t) || len(s) == 0 {
		return 0
	}
	eq, n := 0, 0
	for i := range s {
		if s[i] == Empty && t[i] == Empty {
			continue
		}
		n++
		if s[i] == t[i] {
			eq++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(eq) / float64(n)
}

func mod61(x uint64) uint64 {
	x = (x & mersenne61) + (x >> 61)
	if x >= mersenne61 {
		x -= mersenne61
	}
	return x
}

// mulAddMod61 returns (a·x + b) mod 2^61−1 for a, x, b < 2^61−1.
func mulAddMod61(a, x, b uint64) uint64 {
	hi, lo := bits.Mul64(a, x)
	// a·x = hi·2^64 + lo = (hi<<3 | lo>>61)·2^61 + (lo & p), and 2^61 ≡ 1.
	r := (lo & mersenne61) + (lo>>61 | hi<<3)
	r = (r & mersenne61) + (r >> 61)
	r += b
	r = (r & mersenne61) + (r >> 61)
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

func splitmix64(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// LSH parameters of the SpotSigs-zh paper (Li Yan et al. 2017): 32 bands of 6 rows.
const (
	DefaultRows  = 6
	DefaultBands = 32
)

// lshSeed fixes the hash functions of every LSH, so signatures from
// different LSH values with the same k and l are comparable.
const lshSeed = 0x5EED_5EED_5EED_5EED

// LSH indexes sets by MinHash banding and returns candidate near-duplicates.
// It is safe for concurrent use.
type LSH struct {
	k, l  int
	mh    *MinHasher
	mu    sync.RWMutex
	bands []map[uint64][]uint64 // band key → ids
}

// NewLSH returns an LSH index with l bands of k rows (k·l hash functions,
// at most MaxHashes).
func NewLSH(k, l int) (*LSH, error) {
	if k < 1 || l < 1 || k > MaxHashes/l {
		return nil, fmt.Errorf("shingle: LSH with %d rows x %d bands: need k, l >= 1 and k*l <= %d", k, l, MaxHashes)
	}
	mh, err := NewMinHasher(k*l, lshSeed)
	if err != nil {
		return nil, err
	}
	x := &LSH{k: k, l: l, mh: mh, bands: make([]map[uint64][]uint64, l)}
	for i := range x.bands {
		x.bands[i] = make(map[uint64][]uint64)
	}
	return x, nil
}

// ErrEmptySet is returned by Add for an empty set, which has no MinHash.
var ErrEmptySet = errors.New("shingle: empty set cannot be indexed")

// Add indexes set (sorted or not; duplicates are harmless) under id.
func (x *LSH) Add(id uint64, set []uint64) error {
	if len(set) == 0 {
		return ErrEmptySet
	}
	sig := x.mh.Signature(set)
	x.mu.Lock()
	defer x.mu.Unlock()
	for b := range x.bands {
		key := bandKey(sig[b*x.k : (b+1)*x.k])
		x.bands[b][key] = append(x.bands[b][key], id)
	}
	return nil
}

// Query returns the ids of indexed sets that agree with set on all rows of
// at least one band, sorted and distinct. An empty set has no candidates.
func (x *LSH) Query(set []uint64) []uint64 {
	if len(set) == 0 {
		return nil
	}
	sig := x.mh.Signature(set)
	x.mu.RLock()
	var out []uint64
	for b := range x.bands {
		out = append(out, x.bands[b][bandKey(sig[b*x.k:(b+1)*x.k])]...)
	}
	x.mu.RUnlock()
	slices.Sort(out)
	return slices.Compact(out)
}

// bandKey hashes the rows of one band.
func bandKey(rows []uint64) uint64 {
	h := uint64(len(rows))
	for _, r := range rows {
		h ^= r
		h = splitmix64(&h)
	}
	return h
}
