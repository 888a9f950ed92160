package dedup

import (
	"context"
	"math"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/simhash"
	"github.com/newsdedup/newscrawl/spotsigs"
)

// MinImageSimilarity is the share of equal blocks (imgfp.Similarity, 8×8
// grid: at most 3 of 64 blocks differ) from which the lead images of two
// pages whose text is too short to compare (Fingerprint.Short) count as
// the same picture: the pages are then duplicates (verdict reason
// "image"). Chosen with `newscrawl-lab eval images` on generated pictures:
// every resized, recompressed (JPEG quality down to 15) or logo-stamped
// copy keeps at least 0.95, while different photos of one template reach
// it far less often than imgfp's 0.9 (a false merge loses a story; a
// missed copy only keeps a duplicate). Cropped borders cost blocks along
// the edges and are partly missed. Figures: docs/THRESHOLDS.md.
const MinImageSimilarity = 0.95

// MinImageTitleOverlap is the share of the shorter headline's bigrams two
// photo pages must share (titleOverlap) for their matching lead images to
// count. The colour-block fingerprint alone confuses different photos of
// one template (`eval images`: 58 of 570 generated same-template pairs
// reach MinImageSimilarity), which would drop a gallery's every new photo
// page once it has a few dozen; a reprinted photo page keeps or only
// rewrites its headline (东湖初雪 → 雪后东湖美如画 shares 1 of 3 bigrams),
// while two photo pages of one gallery rarely share a quarter of theirs.
// Lower than MinTitleOverlap because portals rewrite photo headlines
// freely; not measured on real photo pages (none in the shared data).
const MinImageTitleOverlap = 0.25

// imageIndex finds the indexed lead images within MinImageSimilarity of a
// fingerprint, exactly: two fingerprints of n blocks that agree on at
// least a share s of them differ in at most d = ⌊n(1−s)⌋ blocks, so cut
// into d+1 disjoint bands at least one band is equal in both
// (pigeonhole). Each band's block string is a key; a lookup verifies the
// entries sharing any band. Only short-text pages with an image are
// indexed, so the index stays small; the engine keeps it itself, also over
// an injected Options.Index (entries given to Restore, such as another
// process's commits to a shared store, are indexed here too).
type imageIndex struct {
	minSim  float64
	bands   map[bandKey][]int
	entries []imageEntry
	// mark is the number of entries the last snapshot or delta held
	// (Engine.WriteDelta writes those after it).
	mark int
}

type bandKey struct {
	grid   [2]int
	band   int
	blocks string
}

type imageEntry struct {
	id, cluster uint64
	fp          imgfp.Fingerprint
	simhash     uint64
	signature   spotsigs.Signature
	title       []uint64
	at          int64 // TimeKey of the entry's Time
}

func newImageIndex(minSim float64) *imageIndex {
	return &imageIndex{minSim: minSim, bands: map[bandKey][]int{}}
}

// bandsOf returns the band keys of fp.
func (x *imageIndex) bandsOf(fp imgfp.Fingerprint) []bandKey {
	n := len(fp.Blocks)
	d := int(math.Floor(float64(n)*(1-x.minSim) + 1e-9))
	k := min(d+1, n)
	keys := make([]bandKey, k)
	for b := range k {
		keys[b] = bandKey{grid: [2]int{fp.Cols, fp.Rows}, band: b, blocks: fp.Blocks[b*n/k : (b+1)*n/k]}
	}
	return keys
}

func (x *imageIndex) add(en Entry) {
	fp := en.Image
	if fp.IsZero() || len(fp.Blocks) == 0 {
		return
	}
	x.insert(imageEntry{id: en.ID, cluster: en.Cluster, fp: fp, simhash: en.Simhash, signature: en.Signature,
		title: en.Title, at: TimeKey(en.Time)})
}

func (x *imageIndex) insert(en imageEntry) {
	i := len(x.entries)
	x.entries = append(x.entries, en)
	for _, k := range x.bandsOf(en.fp) {
		x.bands[k] = append(x.bands[k], i)
	}
}

// best returns the indexed image most similar to fp (ties: lowest id) with
// its similarity, among the entries that reach minSim and that keep
// (accept) returns true for.
func (x *imageIndex) best(fp imgfp.Fingerprint, keep func(imageEntry) bool) (e imageEntry, sim float64, ok bool) {
	if fp.IsZero() || len(x.entries) == 0 {
		return imageEntry{}, 0, false
	}
	seen := map[int]bool{}
	for _, k := range x.bandsOf(fp) {
		for _, i := range x.bands[k] {
			if seen[i] {
				continue
			}
			seen[i] = true
			c := x.entries[i]
			s, err := imgfp.Similarity(fp, c.fp)
			if err != nil || s < x.minSim || !keep(c) {
				continue
			}
			if !ok || s > sim || (s == sim && c.id < e.id) {
				e, sim, ok = c, s, true
			}
		}
	}
	return e, sim, ok
}

func (x *imageIndex) len() int { return len(x.entries) }

// addImage indexes the lead image of an entry whose text is too short to
// compare.
func (e *Engine) addImage(en Entry) {
	if len(en.Signature) < MinSpots && !en.Image.IsZero() {
		e.images.add(en)
	}
}

// decideImage is the decision for a page whose text is too short to
// compare and that no text rule matched: a duplicate of the short-text
// page whose lead image agrees on at least MinImageSimilarity of its
// blocks and whose headline shares at least MinImageTitleOverlap of its
// bigrams (Combined mode only; the single methods stay text-only).
func (e *Engine) decideImage(ctx context.Context, fp *Fingerprint, candidates int) (Verdict, bool, error) {
	if e.opts.Research.Mode != Combined || !fp.Short() || fp.Image.IsZero() {
		return Verdict{}, false, nil
	}
	since := SinceKey(e.since)
	m, sim, ok := e.images.best(fp.Image, func(c imageEntry) bool {
		return c.at >= since && titleOverlap(fp.Title, c.title) >= MinImageTitleOverlap
	})
	if !ok {
		return Verdict{}, false, nil
	}
	cluster, err := e.ClusterOf(ctx, m.cluster)
	if err != nil {
		return Verdict{}, false, err
	}
	return Verdict{Duplicate: true, DupOf: cluster, Cluster: cluster, Matched: m.id,
		Distance: simhash.Distance(fp.Simhash, m.simhash), Jaccard: spotsigs.Jaccard(fp.Signature, m.signature),
		Reason: "image", Candidates: candidates, ImageSimilarity: sim}, true, nil
}

// Images is the number of lead images indexed (short-text entries with an
// image).
func (e *Engine) Images() int { return e.images.len() }

// imageEvidence reports whether entry c, added to the index after fp's
// verdict was decided, would be decideImage's evidence for fp: both texts
// too short to compare, images within MinImageSimilarity, headlines
// within MinImageTitleOverlap (Engine.Stale).
func (e *Engine) imageEvidence(fp *Fingerprint, c *Entry) bool {
	if e.opts.Research.Mode != Combined || !fp.Short() || fp.Image.IsZero() || len(c.Signature) >= MinSpots || c.Image.IsZero() {
		return false
	}
	s, err := imgfp.Similarity(fp.Image, c.Image)
	return err == nil && s >= MinImageSimilarity && titleOverlap(fp.Title, c.Title) >= MinImageTitleOverlap
}
