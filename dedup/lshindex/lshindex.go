// Package lshindex is a dedup.Index whose cost per decision does not grow
// with the number of indexed articles: MinHash locality-sensitive hashing
// (Broder 1997; banding as in Leskovec, Rajaraman, Ullman, "Mining of
// Massive Datasets", ch. 3) over the SpotSigs token sets, with
// one-permutation hashing and densification per band (Li, Owen, Zhang
// 2012; Shrivastava and Li 2014), tuned so that a pair at Jaccard 0.35 is
// a candidate with probability 0.995 (Rows, Bands), plus a bounded head
// index for briefs contained in longer stories (head.go), and the exact
// 1,024-bit parity-bitmap filter of Sandes, Teodoro and Melo (2020) in
// front of the caller's verification, which drops the background
// collisions of the banding before any signature is decoded; a 64-byte
// sketch per entry (its length and the bitmap folded to 480 bits,
// sketch.go) runs first and drops most of them from one cache line,
// never one the bitmap keeps.
//
// Unlike dedup.PrefixIndex it is approximate: a pair at Jaccard 0.35 is
// missed with probability 0.005 (less above it), and a brief querying a
// longer story is found only through the story's head. eval prints the
// recall against exhaustive search on every dev set.
package lshindex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// The paths that meet a candidate (flags).
const fromLSH, fromHead = 1, 2

// bitmapWords is the size of an entry's parity bitmap: 1,024 bits.
const bitmapWords = 16

// An entry's sketch is its first filter: one 64-byte record (sketchWords
// words, one cache line) holding its token count in the low 32 bits and,
// above them, its parity bitmap folded to foldBits bits (bit j of the
// bitmap XORed into fold bit j mod foldBits). A query reads the sketch of
// every slot it meets and the bitmap, the length array and the window
// time only of the few slots the sketch keeps: one cache line per band
// hit instead of a length read and the bitmap's two lines.
const (
	sketchWords = 8
	foldBits    = 64*sketchWords - 32
)

// deadBit marks a removed slot in Index.lens.
const deadBit = 1 << 31

// Config sets the thresholds the index proposes candidates for.
type Config struct {
	// Jaccard is the verification threshold τ in (0, 1]; the bitmap
	// filter drops entries that cannot reach it. The banding itself is
	// fixed (DesignJaccard): a τ below it is refused.
	Jaccard float64
	// Containment is the containment threshold θ in [0, 1] (0: none),
	// for entries of at least MinContainment tokens.
	Containment    float64
	MinContainment int
}

// Index is the LSH candidate index. It is safe for concurrent use.
type Index struct {
	mu  sync.RWMutex
	cfg Config
	// Per slot: id, cluster, Simhash, text hash, token count (deadBit when
	// removed), bitmap, signature and headline codes (appendCodes) in
	// arenas: slot s's signature is sigs[sigOff[s]:sigOff[s+1]] (for an
	// entry added to a spilling index, in cold.sigs: entryCodes).
	ids      []uint64
	clusters []uint64
	sims     []uint64
	hashes   [][16]byte
	lens     []uint32
	times    []int64 // dedup.TimeKey of each entry's Time (the window)
	bits     []uint64
	sketch   []uint64 // sketchWords per slot: token count and folded bitmap
	sigOff   []uint64
	sigs     []byte
	titleOff []uint64
	titles   []byte
	spots    dict
	bigrams  dict
	df       []uint32 // entries containing each spot code (head order)
	live     int
	overflow int
	byID     map[uint64]uint32
	empty    map[[16]byte]uint32 // entries without spots, by text hash
	cold     coldStore           // winnowing prints (cold.go)
	merges   dedup.ClusterMerges
	bands    bands
	head     headLists
	classes  [32]int // entries with a head, by length class
	// last caches the band keys of the last signature hashed (a copy of
	// it and its keys): the engine adds the signature it just queried.
	lastMu   sync.Mutex
	lastSig  spotsigs.Signature
	lastKeys [Bands]uint32
	// metPool holds the queries' slot tables for reuse (met.go).
	metPool metPool
	// ops are the operations since the last MarkDelta or load, in order,
	// logged only from then on (delta.go).
	ops     []deltaOp
	logging bool
	// idKeys are the ids of a loaded snapshot's live entries, ascending,
	// idSlots their slots (used in place; byID holds the others).
	idKeys  []uint64
	idSlots []uint32
}

var _ dedup.Index = (*Index)(nil)
var _ dedup.Snapshotter = (*Index)(nil)
var _ dedup.Windowed = (*Index)(nil)

// dict gives each distinct 64-bit value a dense 32-bit code. The codes
// of a loaded snapshot are found through order (its codes by ascending
// value, used in place from a mapped file); code holds the others.
type dict struct {
	code  map[uint64]uint32
	vals  []uint64
	order []uint32
}

// baseCode looks v up among the snapshot's codes.
func (d *dict) baseCode(v uint64) (uint32, bool) {
	i, ok := slices.BinarySearchFunc(d.order, v, func(c uint32, v uint64) int {
		if int(c) >= len(d.vals) {
			return 1 // a damaged mapped snapshot (check finds it)
		}
		return cmpU64(d.vals[c], v)
	})
	if !ok {
		return 0, false
	}
	return d.order[i], true
}

func (d *dict) codes(dst []uint32, vs []uint64) []uint32 {
	if d.code == nil {
		d.code = map[uint64]uint32{}
	}
	for _, v := range vs {
		c, ok := d.code[v]
		if !ok {
			c, ok = d.baseCode(v)
		}
		if !ok {
			c = uint32(len(d.vals))
			d.code[v] = c
			d.vals = append(d.vals, v)
		}
		dst = append(dst, c)
	}
	return dst
}

// New returns an empty index for cfg.
func New(cfg Config) (*Index, error) {
	if !(cfg.Jaccard > 0 && cfg.Jaccard <= 1) {
		return nil, fmt.Errorf("lshindex: jaccard %v outside (0, 1]", cfg.Jaccard)
	}
	if cfg.Jaccard < DesignJaccard {
		return nil, fmt.Errorf("lshindex: jaccard %v below the banding's design point %v", cfg.Jaccard, DesignJaccard)
	}
	if !(cfg.Containment >= 0 && cfg.Containment <= 1) {
		return nil, fmt.Errorf("lshindex: containment %v outside [0, 1]", cfg.Containment)
	}
	cfg.MinContainment = max(cfg.MinContainment, 1)
	return &Index{cfg: cfg, sigOff: []uint64{0}, titleOff: []uint64{0}, byID: map[uint64]uint32{},
		empty: map[[16]byte]uint32{}, cold: newColdStore(0), merges: dedup.NewClusterMerges(),
		bands: newBands(), head: newHeadLists()}, nil
}

// keysOf returns the band keys of sig, from the cache when sig is the
// signature queried last.
func (x *Index) keysOf(sig spotsigs.Signature, toks []spotsigs.Token) [Bands]uint32 {
	x.lastMu.Lock()
	if len(sig) > 0 && slices.Equal(x.lastSig, sig) {
		k := x.lastKeys
		x.lastMu.Unlock()
		return k
	}
	x.lastMu.Unlock()
	var k [Bands]uint32
	bandKeys(toks, &k)
	x.lastMu.Lock()
	x.lastSig, x.lastKeys = append(x.lastSig[:0], sig...), k
	x.lastMu.Unlock()
	return k
}

func appendBitmap(dst []uint64, toks []spotsigs.Token) []uint64 {
	n := len(dst)
	dst = append(dst, make([]uint64, bitmapWords)...)
	b := dst[n:]
	for _, t := range toks {
		h := mix64(t.Key()) % (64 * bitmapWords)
		b[h/64] ^= 1 << (h % 64)
	}
	return dst
}

// Add implements dedup.Index. An entry past the index's limits (MaxSlots
// entries) is not indexed and is counted (Overflow).
func (x *Index) Add(_ context.Context, e dedup.Entry) error {
	toks := tokenKeys(e.Signature, nil)
	var keys [Bands]uint32
	if len(toks) > 0 {
		keys = x.keysOf(e.Signature, toks)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.slotOf(e.ID); ok {
		return nil
	}
	if len(x.ids) >= MaxSlots || len(toks) >= deadBit {
		x.overflow++
		return nil
	}
	slot := uint32(len(x.ids))
	if err := x.cold.add(slot, e.Prints, e.ContentWords, e.Prints != nil); err != nil {
		return fmt.Errorf("lshindex: add %d: %w", e.ID, err)
	}
	x.ids = append(x.ids, e.ID)
	x.clusters = append(x.clusters, e.Cluster)
	x.sims = append(x.sims, e.Simhash)
	x.hashes = append(x.hashes, e.Hash)
	x.lens = append(x.lens, uint32(len(toks)))
	x.times = append(x.times, dedup.TimeKey(e.Time))
	x.bits = appendBitmap(x.bits, toks)
	x.sketch = appendSketch(x.sketch, x.bits[len(x.bits)-bitmapWords:], len(toks))
	codes := x.spots.codes(nil, e.Signature)
	var end uint64
	x.sigs, end = x.cold.putCodes(x.sigs, &x.cold.sigs, slices.Clone(codes))
	x.sigOff = append(x.sigOff, end)
	x.titles, end = x.cold.putCodes(x.titles, &x.cold.titles, x.bigrams.codes(nil, e.Title))
	x.titleOff = append(x.titleOff, end)
	x.byID[e.ID] = slot
	x.live++
	x.logOp(deltaOp{kind: opAdd, a: uint64(slot)})
	if len(toks) == 0 {
		if _, ok := x.empty[e.Hash]; !ok && e.Hash != ([16]byte{}) {
			x.empty[e.Hash] = slot
		}
		return nil
	}
	x.addHead(slot, e.Signature, codes, toks)
	x.bands.add(slot, &keys, x.keep)
	return nil
}

// addHead indexes the rarest tokens of the entry in slot (see head.go) and
// counts its spots' document frequencies. codes are the dictionary codes
// of sig, in sig's order.
func (x *Index) addHead(slot uint32, sig spotsigs.Signature, codes []uint32, toks []spotsigs.Token) {
	for len(x.df) < len(x.spots.vals) {
		x.df = append(x.df, 0)
	}
	n := len(toks)
	if h := x.cfg.headSize(n); h > 0 {
		x.classes[lengthClass(n)]++
		c := lengthClass(n)
		for _, k := range headTokens(sig, h, func(i int) uint32 { return x.df[codes[i]] }) {
			x.head.add(headKey(k, c), slot)
		}
	}
	for i, c := range codes {
		if i == 0 || sig[i] != sig[i-1] {
			x.df[c]++
		}
	}
}

// headSize is the number of head tokens of an entry of n tokens (0 when
// it has no head).
func (cfg Config) headSize(n int) int {
	if cfg.Containment <= 0 || n < cfg.MinContainment {
		return 0
	}
	return min(n, max(n-leastOverlap(cfg.Containment, n)+1, int(math.Ceil(HeadShare*float64(n)))))
}

// headTokens returns the keys of the h rarest tokens of sig: by document
// frequency (df(i) of the spot sig[i]; a repeat is rarer than the spot
// itself), then by key.
func headTokens(sig spotsigs.Signature, h int, df func(i int) uint32) []uint64 {
	type rt struct {
		df  uint32
		key uint64
	}
	rs := make([]rt, 0, len(sig))
	for i := 0; i < len(sig); {
		j := i + 1
		for j < len(sig) && sig[j] == sig[i] {
			j++
		}
		for k := 1; k <= j-i; k++ {
			t := spotsigs.Token{Occ: uint32(k), Spot: sig[i]}
			rs = append(rs, rt{df: df(i) >> min(k-1, 31), key: t.Key()})
		}
		i = j
	}
	slices.SortFunc(rs, func(a, b rt) int {
		if a.df != b.df {
			return int(a.df) - int(b.df)
		}
		if a.key < b.key {
			return -1
		}
		if a.key > b.key {
			return 1
		}
		return 0
	})
	out := make([]uint64, 0, min(h, len(rs)))
	for _, r := range rs[:min(h, len(rs))] {
		out = append(out, r.key)
	}
	return out
}

// headHits is the least number of an indexed entry's head tokens (ly
// tokens) a query of lx tokens must contain to reach the containment
// threshold: when the entry is the shorter side, all but its
// ly − ⌈θ·ly⌉ missing tokens of its head (pigeonhole); when it is the
// longer side, one.
func (cfg Config) headHits(lx, ly int) int {
	if ly > lx {
		return 1
	}
	return max(cfg.headSize(ly)-(ly-leastOverlap(cfg.Containment, ly)), 1)
}

// pathOK reports whether an entry of ly tokens met by a query of lx tokens
// through the paths in flags (hits head tokens shared) is one its paths
// are responsible for: a pair met only through the head index must be a
// brief pair sharing enough head tokens.
func (cfg Config) pathOK(lx, ly int, flags uint64, hits int) bool {
	return flags != fromHead || (briefPair(lx, ly, cfg.MinContainment) && hits >= cfg.headHits(lx, ly))
}

// bitmapOK is the exact parity-bitmap filter: whether the overlap bound
// of a query (lx tokens, bitmap qb) and an entry (ly tokens, bitmap eb)
// can reach the Jaccard (or, with cont, containment) threshold of q.
func (cfg Config) bitmapOK(q dedup.Query, cont bool, lx, ly int, qb, eb []uint64) bool {
	return (lx+ly-xorCount(qb, eb))/2 >= cfg.need(q, cont, lx, ly)
}

// keep reports whether slot is live (merges drop removed slots).
// A slot past the entries (only a damaged snapshot holds one, see
// checkShape) is dropped.
func (x *Index) keep(slot uint32) bool { return int(slot) < len(x.lens) && x.lens[slot]&deadBit == 0 }

// leastOverlap is the least a with a/m ≥ t (as the judge computes it).
func leastOverlap(t float64, m int) int {
	a := int(math.Ceil(t * float64(m)))
	for a > 0 && float64(a-1)/float64(m) >= t {
		a--
	}
	for a <= m && float64(a)/float64(m) < t {
		a++
	}
	return max(a, 1)
}

// needJaccard is the least overlap a with a/(lx+ly−a) ≥ t.
func needJaccard(t float64, lx, ly int) int {
	a := int(math.Ceil(t * float64(lx+ly) / (1 + t)))
	a = min(max(a, 1), min(lx, ly)+1)
	for a > 1 && float64(a-1)/float64(lx+ly-a+1) >= t {
		a--
	}
	for a <= min(lx, ly) && float64(a)/float64(lx+ly-a) < t {
		a++
	}
	return a
}

// slotOf returns the slot of the live entry id (x.mu held).
func (x *Index) slotOf(id uint64) (uint32, bool) {
	if s, ok := x.byID[id]; ok {
		return s, true
	}
	i, ok := slices.BinarySearch(x.idKeys, id)
	if !ok || i >= len(x.idSlots) {
		return 0, false
	}
	s := x.idSlots[i]
	if int(s) >= len(x.ids) || x.ids[s] != id || x.lens[s]&deadBit != 0 {
		return 0, false // removed since the load (or a damaged snapshot)
	}
	return s, true
}

// Remove implements dedup.Index: the entry is hidden at once; its keys
// are dropped when its runs merge.
func (x *Index) Remove(_ context.Context, id uint64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.slotOf(id)
	if !ok {
		return nil
	}
	delete(x.byID, id)
	x.logOp(deltaOp{kind: opRemove, a: id})
	x.lens[s] |= deadBit
	x.live--
	if x.empty[x.hashes[s]] == s && x.sigOff[s] == x.sigOff[s+1] {
		delete(x.empty, x.hashes[s])
	}
	return nil
}

// HeadDropped is the number of head postings the lists' HeadListCap has
// taken out of reach since the index was built or loaded, dropped or
// hidden behind a list's newest HeadListCap (printed by the evals'
// candidate-recall line): briefs indexed only there are no longer found
// through them.
func (x *Index) HeadDropped() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.head.beyond()
}

// Len implements dedup.Index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Overflow is the number of entries Add refused (MaxSlots).
func (x *Index) Overflow() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.overflow
}

// MergeClusters implements dedup.Index.
func (x *Index) MergeClusters(_ context.Context, into uint64, from []uint64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.merges.Merge(into, from)
	for _, f := range from {
		x.logOp(deltaOp{kind: opMerge, a: into, b: f})
	}
	return nil
}

// ClusterOf implements dedup.Index.
func (x *Index) ClusterOf(_ context.Context, cluster uint64) (uint64, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.merges.Of(cluster), nil
}

// Probe is the work of one query (benchmarks and eval).
type Probe struct {
	LSH      int // slots met through the bands (with repeats)
	Head     int // head postings read
	Met      int // distinct slots past the sketch (band hits) or met (head) that pass the path rule
	HeadLong int // head postings read from the lists of longer entries
	Checked  int // distinct slots past the sketch (band hits) or met (head) whose path was checked
	Sketch   int // band hits (with repeats) and distinct slots met through the head that the sketch dropped
	Bitmap   int // slots past the sketch filter the bitmap filter dropped
	Expired  int // slots past the bitmap filter outside the window (Query.Since)
	Proposed int // candidates returned
	// FromLSH and FromHead are the proposed candidates each path met
	// (a candidate met by both counts in both).
	FromLSH, FromHead int
	// touched sums the values read to bring memory into the cache ahead
	// of use (software prefetches), so that the loads are not dropped.
	touched uint64
}

// Candidates implements dedup.Index.
func (x *Index) Candidates(_ context.Context, fp *dedup.Fingerprint, q dedup.Query) ([]*dedup.Entry, error) {
	slots, _, _ := x.candidates(fp, q)
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]*dedup.Entry, 0, len(slots))
	for _, s := range slots {
		prints, words, _, err := x.cold.get(s)
		var sig, title []byte
		if err == nil {
			sig, title, err = x.entryCodes(s)
		}
		if err != nil {
			return nil, fmt.Errorf("lshindex: candidates: entry %d: %w", x.ids[s], err)
		}
		out = append(out, &dedup.Entry{ID: x.ids[s], Cluster: x.merges.Of(x.clusters[s]), Simhash: x.sims[s],
			Signature: decodeCodes(sig, x.spots.vals), Hash: x.hashes[s],
			Title: decodeCodes(title, x.bigrams.vals), Prints: prints, ContentWords: words,
			Time: timeOf(x.times[s])})
	}
	return out, nil
}

// ProbeStats returns the work of a query for fp (benchmarks and eval).
func (x *Index) ProbeStats(fp *dedup.Fingerprint) Probe {
	_, _, st := x.candidates(fp, dedup.Query{Jaccard: x.cfg.Jaccard, Containment: x.cfg.Containment})
	return st
}

// CandidatePaths returns, for each candidate of fp, the paths that
// proposed it: "lsh", "head" or "both" (eval's per-path counts).
func (x *Index) CandidatePaths(fp *dedup.Fingerprint, q dedup.Query) map[uint64]string {
	slots, flags, _ := x.candidates(fp, q)
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make(map[uint64]string, len(slots))
	for i, s := range slots {
		out[x.ids[s]] = [4]string{"hash", "lsh", "head", "both"}[flags[i]]
	}
	return out
}

// candidates returns the candidate slots, the paths that met each (1:
// the bands, 2: the head index, 0: the text hash) and the work done.
func (x *Index) candidates(fp *dedup.Fingerprint, q dedup.Query) ([]uint32, []uint8, Probe) {
	var st Probe
	if len(fp.Signature) == 0 {
		x.mu.RLock()
		defer x.mu.RUnlock()
		if s, ok := x.empty[fp.Hash]; ok && x.lens[s]&deadBit == 0 && x.times[s] >= dedup.SinceKey(q.Since) {
			return []uint32{s}, []uint8{0}, st
		}
		return nil, nil, st
	}
	if q.NoSpotSigs {
		return nil, nil, st
	}
	toks := tokenKeys(fp.Signature, nil)
	keys := x.keysOf(fp.Signature, toks)
	lx := len(toks)
	x.mu.RLock()
	defer x.mu.RUnlock()
	met := x.metPool.get() // per slot: the paths that met it | head hits<<2
	defer x.metPool.put(met)
	n := uint32(len(x.ids))
	hits := met.hits[:0]
	st.touched = x.bands.lookupAll(&keys, func(s uint32) {
		if s < n { // a mapped snapshot's runs are not trusted (checkShape)
			hits = append(hits, s)
		}
	})
	st.LSH = len(hits)
	cont := q.Containment > 0 && x.cfg.Containment > 0 && lx >= x.cfg.MinContainment
	qb := appendBitmap(nil, toks)
	sf := newSketchFilter(x.cfg, q, cont, lx, qb)
	x.filterHits(met, hits, sf, &st)
	met.hits = hits
	if cont {
		x.headCandidates(met, toks, lx, &st)
	}
	out := x.filterMet(met, q, cont, lx, qb, sf, &st)
	slices.Sort(out) // slot order, as the callers' verification expects
	slots, paths := make([]uint32, len(out)), make([]uint8, len(out))
	for i, o := range out {
		slots[i], paths[i] = uint32(o>>2), uint8(o&3)
	}
	return slots, paths, st
}

// filterHits adds to met (fromLSH) the band hits the sketch keeps. The
// sketch drops a slot whatever path met it (its bound does not depend on
// the path), so a band hit it drops needs no entry in met: most band hits
// are background collisions, and this leaves them one cache line each and
// no table probe. It touches the sketches of all hits first, then checks
// them: loads that do not depend on each other, so that their cache
// misses overlap (a software prefetch).
func (x *Index) filterHits(met *metTable, hits []uint32, sf *sketchFilter, st *Probe) {
	var sink uint64
	for _, s := range hits {
		sink += x.sketch[int(s)*sketchWords]
	}
	for _, s := range hits {
		if !sf.keeps(x.sketch[int(s)*sketchWords : int(s+1)*sketchWords]) {
			st.Sketch++
			continue
		}
		met.add(s, fromLSH, 0)
	}
	st.touched += sink
}

// filterMet returns the slots of met (slot<<2 | paths) that pass the
// path rule and the sketch filter, are live, pass the bitmap filter and
// are within the window (q.Since). It touches the sketches of all slots
// first, and the lengths and bitmaps of the sketch's survivors before
// checking them: loads that do not depend on each other, so that their
// cache misses overlap (a software prefetch). The sketch drops only slots
// the bitmap filter drops (sketch.go), so the candidates are the bitmap
// filter's. (The band hits in met passed the sketch in filterHits: checked
// again here, from the cache, with the slots the head index met.)
func (x *Index) filterMet(met *metTable, q dedup.Query, cont bool, lx int, qb []uint64, sf *sketchFilter, st *Probe) []uint64 {
	var sink uint64
	for _, s := range met.slots {
		sink += x.sketch[int(s)*sketchWords]
	}
	st.Checked += len(met.slots)
	pass := make([]uint64, 0, 64) // slot<<2 | paths
	for _, s := range met.slots {
		e := x.sketch[int(s)*sketchWords : int(s+1)*sketchWords]
		v := met.get(s)
		flags, hits := uint64(v&3), int(v>>2)
		if !x.cfg.pathOK(lx, sketchLen(e), flags, hits) {
			continue // a pair LSH is responsible for, or too few head tokens shared
		}
		st.Met++
		if !sf.keeps(e) {
			st.Sketch++
			continue
		}
		pass = append(pass, uint64(s)<<2|flags)
		sink += uint64(x.lens[s]) + x.bits[int(s)*bitmapWords] + x.bits[int(s)*bitmapWords+bitmapWords/2]
	}
	since := dedup.SinceKey(q.Since)
	var out []uint64
	for _, p := range pass {
		s := uint32(p >> 2)
		ln := x.lens[s]
		if ln&deadBit != 0 {
			continue // removed
		}
		if int(ln) != sketchLen(x.sketch[int(s)*sketchWords:int(s+1)*sketchWords]) {
			continue // a damaged mapping: a slot whose lengths disagree is dropped, never proposed by a wrong path rule
		}
		if !x.cfg.bitmapOK(q, cont, lx, int(ln), qb, x.bits[int(s)*bitmapWords:]) {
			st.Bitmap++
			continue
		}
		if x.times[s] < since {
			st.Expired++
			continue
		}
		out = append(out, p)
		st.Proposed++
		if p&fromLSH != 0 {
			st.FromLSH++
		}
		if p&fromHead != 0 {
			st.FromHead++
		}
	}
	st.touched += sink
	return out
}

// arenaOf is slot s's codes in arena (offsets off); empty when the offsets
// are out of order (a damaged mapped snapshot: checkShape does not read
// them all, check does).
func arenaOf(arena []byte, off []uint64, s uint32) []byte {
	lo, hi := off[s], off[s+1]
	if lo > hi || hi > uint64(len(arena)) {
		return nil
	}
	return arena[lo:hi]
}

func xorCount(a, b []uint64) int {
	n := 0
	for i := range bitmapWords {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

// Stats are the index's sizes (memory figures).
type Stats struct {
	Entries, Live  int
	BandKeys       int // stored (key, slot) pairs
	Levels         int // sorted-run levels
	HeadPostings   int
	HeadDropped    int // postings the head lists' cap dropped
	SignatureBytes int // encoded signature arena
	Spots          int // distinct spots
}

// Stats returns the index's sizes.
func (x *Index) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return Stats{Entries: len(x.ids), Live: x.live, BandKeys: x.bands.keys(), Levels: len(x.bands.levels),
		HeadPostings: x.head.postings(), HeadDropped: x.head.dropped, SignatureBytes: int(x.sigOff[len(x.sigOff)-1]), Spots: len(x.spots.vals)}
}

// timeOf is the time of a dedup.TimeKey (zero for the unknown time).
func timeOf(k int64) time.Time {
	if k == math.MinInt64 {
		return time.Time{}
	}
	return time.Unix(0, k)
}

// Expire implements dedup.Windowed: it removes the live entries whose
// Time is before since (as Remove does; the removals go into the next
// delta). When the removed entries then outnumber the live ones, it
// rebuilds the index from the live entries (compact), so that the arrays
// and the snapshot of a windowed index do not grow with every entry it
// ever held: an Add per live entry, at most once per doubling.
func (x *Index) Expire(ctx context.Context, since time.Time) (int, error) {
	key := dedup.SinceKey(since)
	x.mu.RLock()
	var ids []uint64
	for s, t := range x.times {
		if t < key && x.lens[s]&deadBit == 0 {
			ids = append(ids, x.ids[s])
		}
	}
	x.mu.RUnlock()
	for _, id := range ids {
		if err := x.Remove(ctx, id); err != nil {
			return 0, err
		}
	}
	x.mu.RLock()
	dead := len(x.ids) - x.live
	x.mu.RUnlock()
	if dead > x.Len() {
		if err := x.compact(ctx); err != nil {
			return len(ids), err
		}
	}
	return len(ids), nil
}

// compact rebuilds x from its live entries, in slot order, keeping its
// cluster merges and counts. The slots change, so the delta log restarts
// (as after MarkDelta): only a whole snapshot describes what came before.
func (x *Index) compact(ctx context.Context) error {
	y, err := New(x.cfg)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.cold.spilled() {
		if err := y.SpillCold(x.cold.dir); err != nil {
			return fmt.Errorf("lshindex: compact: %w", err)
		}
	}
	for s := range x.ids {
		if x.lens[s]&deadBit != 0 {
			continue
		}
		b, err := x.appendEntry(nil, uint32(s))
		r := &deltaReader{b: b}
		var e dedup.Entry
		if err == nil {
			e = r.entry()
		}
		if err == nil && r.err == nil {
			err = y.Add(ctx, e)
		}
		if err = errors.Join(r.err, err); err != nil {
			y.Close()
			return fmt.Errorf("lshindex: compact: entry %d: %w", x.ids[s], err)
		}
	}
	x.cold.close() // y's files replace them
	for _, p := range x.merges.Pairs() {
		y.merges.Merge(p[1], []uint64{p[0]})
	}
	y.overflow, y.head.dropped = x.overflow, x.head.dropped
	x.adopt(y)
	x.ops = nil
	return nil
}
