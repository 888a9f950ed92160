// Package dedup decides, for each new article, whether it is a near-duplicate
// of an article already stored, and keeps the clusters that decision builds.
//
// The method combines three published pieces:
//
//   - SpotSigs signatures (Theobald, Siddharth, Paepcke 2008; Chinese
//     antecedents after Li Yan et al. 2017), whose candidates come from
//     prefix filtering over a frozen global spot order with positional and
//     bitmap filters (PrefixIndex: AllPairs/PPJoin, Xiao et al. 2008;
//     Sandes et al. 2020), exact for the Jaccard threshold; or, as the
//     crawl's default (config dedup.index: lsh), from MinHash-LSH banding
//     with a bounded head index for briefs (package dedup/lshindex),
//     injected through Options.NewIndex. A 64-bit
//     Simhash (Charikar 2002) is computed and reported; Manku, Jain and
//     Das Sarma (2007)'s Hamming index (MemoryIndex) serves the
//     simhash-only evaluation method and the exhaustive reference.
//   - Verification of every candidate by the multiset Jaccard similarity of
//     the SpotSigs signatures, and by their containment for briefs cut from a
//     longer story (Broder 1997's resemblance vs containment).
//   - Single-Pass clustering (Li Gang et al. 2013, §3.3): a new article joins
//     the most similar cluster centre that passes verification, or opens a new
//     cluster. Centres are the stored articles; members are the duplicates,
//     which are indexed too (single-link), and an article that matches
//     several clusters merges them into the oldest, so that a story's
//     cluster does not depend on which of its rewrites came first.
//
// Engine is the only stateful piece; Fingerprint is pure and may be called
// from many goroutines, while Decide and Add must be serialised by the
// caller (they are in the crawl pipeline and in offline dedup).
package dedup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/keyfp"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/spotsigs"
	"github.com/newsdedup/newscrawl/winnow"
)

// Verdict is the decision for one article. A near-duplicate is a verdict,
// not an error.
type Verdict struct {
	Duplicate   bool
	DupOf       uint64  // id of the stored article (cluster centre) it duplicates
	Cluster     uint64  // cluster of DupOf; 0 when the article opens a new cluster
	Matched     uint64  // the indexed document that matched: DupOf, or a member of its cluster
	Distance    int     // Hamming distance to DupOf (-1 when not a duplicate)
	Jaccard     float64 // SpotSigs Jaccard with DupOf
	Containment float64 // SpotSigs containment with DupOf
	Reason      string  // "exact", "keywords", "jaccard", "containment", "short", or why it was kept: "new", "empty", "partial"
	Candidates  int     // candidates verified
	// Merged are the other clusters the article also matched: it bridges
	// them, and they join Cluster (the oldest of all) once the article is
	// recorded (Engine.MergeClusters). Empty unless clusters merge.
	Merged []uint64
	// Passages are the word runs (content words) the article shares with
	// Matched (a duplicate) or PartialOf (a partial reprint), estimated
	// from winnowing fingerprints: StartA in the article, StartB in the
	// other one. Empty when either has no fingerprints (the rule is off,
	// or the other was stored before stores kept them).
	Passages []winnow.Passage
	// PartialOf is the indexed article a partial reprint shares its
	// passages with (Reason "partial": the article is kept; the best of
	// its verified matches, all of them partial pairs), and OwnShare the
	// share of its content words outside the passages it shares with it.
	PartialOf uint64
	OwnShare  float64
	// PartialOfCluster is PartialOf's cluster (an article id, when
	// PartialOf is a cluster member rather than a stored article).
	PartialOfCluster uint64
	// StoredOwnShare is the smallest share of a verified stored article's
	// content words outside the passages it shares with this one (what
	// the stored side adds; Own.Stored).
	StoredOwnShare float64
	// ImageSimilarity is the share of equal blocks of the article's lead
	// image and Matched's (Reason "image": both texts too short to
	// compare, the images agree on at least MinImageSimilarity of their
	// blocks); 0 otherwise.
	ImageSimilarity float64
}

// Entry is an indexed article: a cluster centre.
type Entry struct {
	ID        uint64
	Cluster   uint64
	Simhash   uint64
	Signature spotsigs.Signature
	Hash      [16]byte
	Title     []uint64 // TitleSet of the headline
	// Prints are the winnowing fingerprints (Fingerprint.Prints), packed
	// (PackPrints); nil when unknown. ContentWords is the text's number
	// of content words.
	Prints       []uint64
	ContentWords int
	// Image is the lead image's fingerprint (zero: none); only entries
	// whose text is too short to compare (fewer than MinSpots spots) are
	// compared by it.
	Image imgfp.Fingerprint
	// Time is the entry's place in the dedup window (WindowTime); zero
	// when unknown. An index that keeps it (Windowed) proposes no entry
	// before Query.Since.
	Time time.Time
}

// Index finds candidate near-duplicates among indexed entries. PrefixIndex,
// MemoryIndex and dedup/lshindex (the crawl's default) are in-process
// implementations; a shared index (dedup/redisindex) implements the same
// interface. Every call that may do I/O takes a context and returns its
// error: an index that cannot answer fails the decision, it never answers
// "no candidates".
type Index interface {
	// Add indexes e; an id already indexed is ignored.
	Add(ctx context.Context, e Entry) error
	Remove(ctx context.Context, id uint64) error
	// Candidates returns entries whose signature may reach Jaccard tau,
	// entries that share enough spots for containment, and (indexes with
	// a Hamming table, unless disabled) entries whose Simhash is within k
	// of fp's, each at most once.
	// Candidates report each entry's current cluster (after merges).
	Candidates(ctx context.Context, fp *Fingerprint, q Query) ([]*Entry, error)
	// MergeClusters makes every entry of the clusters in from a member of
	// into. A shared index applies it for every process using it.
	MergeClusters(ctx context.Context, into uint64, from []uint64) error
	// ClusterOf returns the cluster a (possibly merged) cluster is now part of.
	ClusterOf(ctx context.Context, cluster uint64) (uint64, error)
	// Len is the number of indexed entries (a shared index: as of its
	// last call).
	Len() int
}

// Query says which candidates Index.Candidates must return.
type Query struct {
	Hamming     int
	Jaccard     float64
	Containment float64 // <= 0: no containment candidates
	NoSimhash   bool
	NoSpotSigs  bool
	// Since, when set, is the start of the dedup window: a Windowed index
	// proposes no entry whose Time is before it (the others hold only
	// entries within the window).
	Since time.Time
}

// Engine decides near-duplicates with Single-Pass clustering.
type Engine struct {
	seg   Segmenter
	lex   keyfp.Lexicon // KeywordExact only
	opts  Options
	spots spotsigs.Config
	index Index
	df    *docFreq
	// images indexes the lead images of short-text entries (reason
	// "image"); it is the engine's own, also over a shared Index.
	images *imageIndex
	// toks is seg when it yields tokens (fingerprintTokens), ante the
	// antecedents as its WordSet; anteStop says that every antecedent is
	// a stopword (the default lists), so only stopwords need the test.
	toks     tokenSource
	ante     *segment.WordSet
	anteStop bool
	// since is the start of the dedup window (SetWindow); zero: none.
	since time.Time
}

// New returns an engine over opts.Index, or, when opts.Index is nil, over
// an empty index from opts.NewIndex, else an empty PrefixIndex
// (MemoryIndex when opts.Research needs it).
func New(seg Segmenter, opts Options) (*Engine, error) {
	if seg == nil {
		return nil, errors.New("dedup: nil segmenter")
	}
	opts.fill()
	if opts.Jaccard <= 0 || opts.Jaccard > 1 {
		return nil, fmt.Errorf("dedup: jaccard threshold %g outside (0, 1]", opts.Jaccard)
	}
	if opts.Hamming < 0 || opts.Hamming > 16 {
		return nil, fmt.Errorf("dedup: hamming radius %d outside [0, 16]", opts.Hamming)
	}
	spots := spotsigs.Config{IsAntecedent: spotsigs.WordSet(opts.Antecedents...), IsStop: seg.IsStop, Chain: opts.Chain, Distance: opts.Distance}
	if _, err := spotsigs.Extract(nil, spots); err != nil {
		return nil, fmt.Errorf("dedup: %w", err)
	}
	var lex keyfp.Lexicon
	if opts.Research.KeywordExact {
		l, ok := seg.(keyfp.Lexicon)
		if !ok {
			return nil, errors.New("dedup: the keyword exact layer needs a segmenter with part-of-speech tags")
		}
		lex = l
	}
	idx := opts.Index
	if idx == nil {
		var err error
		switch {
		case opts.Research.NeedsMemoryIndex():
			idx, err = NewMemoryIndex(opts.Hamming, opts.Jaccard)
		case opts.NewIndex != nil:
			idx, err = opts.NewIndex(Query{Hamming: opts.Hamming, Jaccard: opts.Jaccard, Containment: opts.Containment})
		default:
			idx, err = NewPrefixIndex(opts.Jaccard, opts.Containment)
		}
		if err != nil {
			return nil, err
		}
	}
	e := &Engine{seg: seg, lex: lex, opts: opts, spots: spots, index: idx, df: newDocFreq(), images: newImageIndex(MinImageSimilarity)}
	if ts, ok := seg.(tokenSource); ok {
		e.toks, e.ante = ts, ts.NewWordSet(opts.Antecedents...)
		e.anteStop = !slices.ContainsFunc(opts.Antecedents, func(w string) bool { return !seg.IsStop(w) })
	}
	return e, nil
}

// Options returns the engine's effective options.
func (e *Engine) Options() Options { return e.opts }

// SetDocFreqs loads document frequencies (from the store) for TF-IDF weights.
func (e *Engine) SetDocFreqs(docs int, df map[string]int) { e.df.set(docs, df) }

// Add indexes a stored article as a cluster centre and counts its terms in
// the document frequencies when the fingerprints use them
// (Research.NeedsDocFreqs: TF weights read none, and counting every term
// of every article cost a map of the corpus's vocabulary and a tenth of an
// import's serial time). cluster 0 means the article's own id. On an index
// error nothing else is recorded.
func (e *Engine) Add(ctx context.Context, id, cluster uint64, fp *Fingerprint) error {
	if cluster == 0 {
		cluster = id
	}
	if fp.Empty() {
		return nil // an empty text never joins or opens a cluster others can join
	}
	en := e.entry(id, cluster, fp)
	if err := e.index.Add(ctx, en); err != nil {
		return fmt.Errorf("dedup: add %d: %w", id, err)
	}
	e.addImage(en)
	if e.opts.Research.NeedsDocFreqs() {
		e.df.add(fp.Terms)
	}
	return nil
}

// AddMember indexes a duplicate as a member of its cluster (unless
// Options.CentresOnly).
func (e *Engine) AddMember(ctx context.Context, id, cluster uint64, fp *Fingerprint) error {
	if fp.Empty() || e.opts.CentresOnly {
		return nil
	}
	en := e.entry(id, cluster, fp)
	if err := e.index.Add(ctx, en); err != nil {
		return fmt.Errorf("dedup: add member %d: %w", id, err)
	}
	e.addImage(en)
	return nil
}

func (e *Engine) entry(id, cluster uint64, fp *Fingerprint) Entry {
	en := Entry{ID: id, Cluster: cluster, Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash, Title: fp.Title, Image: fp.Image,
		Time: fp.Time}
	if fp.packed != nil {
		en.Prints, en.ContentWords = fp.packed, fp.ContentWords
	}
	return en
}

// MergeClusters joins the clusters a verdict bridged (Verdict.Merged) into
// its cluster; call it once the verdict is recorded.
func (e *Engine) MergeClusters(ctx context.Context, into uint64, from []uint64) error {
	if len(from) == 0 {
		return nil
	}
	if err := e.index.MergeClusters(ctx, into, from); err != nil {
		return fmt.Errorf("dedup: merge clusters into %d: %w", into, err)
	}
	return nil
}

// ClusterOf returns the cluster that cluster has been merged into (itself
// when it was not): a verdict's Cluster is final only at the end of a batch.
func (e *Engine) ClusterOf(ctx context.Context, cluster uint64) (uint64, error) {
	c, err := e.index.ClusterOf(ctx, cluster)
	if err != nil {
		return 0, fmt.Errorf("dedup: cluster of %d: %w", cluster, err)
	}
	return c, nil
}

// Restore indexes an article loaded from the store (start-up rebuild).
// Document frequencies come separately through SetDocFreqs.
func (e *Engine) Restore(ctx context.Context, en Entry) error {
	if en.Cluster == 0 {
		en.Cluster = en.ID
	}
	if err := e.index.Add(ctx, en); err != nil {
		return fmt.Errorf("dedup: restore %d: %w", en.ID, err)
	}
	e.addImage(en)
	return nil
}

// Len is the number of indexed cluster centres.
func (e *Engine) Len() int { return e.index.Len() }

// Overflow is the number of entries the index refused because it was full
// (0 for an index that never refuses one): new pages are not compared with
// them, so the caller should say so (a smaller dedup.window bounds it).
func (e *Engine) Overflow() int {
	if o, ok := e.index.(interface{ Overflow() int }); ok {
		return o.Overflow()
	}
	return 0
}

// docFreq is the engine's document-frequency table for TF-IDF weights.
type docFreq struct {
	mu   sync.RWMutex
	docs int
	df   map[string]int
}

func newDocFreq() *docFreq { return &docFreq{df: map[string]int{}} }

func (d *docFreq) set(docs int, df map[string]int) {
	d.mu.Lock()
	d.docs, d.df = docs, df
	d.mu.Unlock()
}

func (d *docFreq) add(terms []string) {
	d.mu.Lock()
	d.docs++
	for _, t := range terms {
		d.df[t]++
	}
	d.mu.Unlock()
}

// DF implements segment.DocFreq.
func (d *docFreq) DF(term string) int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.df[term]
}

// Docs implements segment.DocFreq.
func (d *docFreq) Docs() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.docs
}
