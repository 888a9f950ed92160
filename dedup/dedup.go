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
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"
	"unicode"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/keyfp"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
	"github.com/newsdedup/newscrawl/spotsigs"
	"github.com/newsdedup/newscrawl/winnow"
)

// Thresholds. Each default was chosen on the dev data named in its comment;
// eval prints the figures behind them.
const (
	// DefaultHamming is Manku et al. (2007)'s k = 3 for 64-bit fingerprints.
	DefaultHamming = 3
	// DefaultJaccard is the SpotSigs multiset-Jaccard threshold τ: the
	// lowest value that merges no follow-up story with its source on the
	// reprint web while recalling its reprints, chosen on the dev data with
	// `newscrawl-lab eval` (single-link, learned antecedents). Theobald et al.
	// (2008) found their best τ between 0.4 and 0.5 with English stopword
	// antecedents; the larger Chinese antecedent list lowers the Jaccard of
	// true pairs. Figures for 0.30/0.35/0.40: docs/THRESHOLDS.md.
	DefaultJaccard = 0.35
	// DefaultContainment is the share of the shorter signature that must be
	// found in the longer one for a brief cut from a longer story (Broder
	// 1997's containment). Follow-up stories that re-use 20-35 % of an
	// earlier story's sentences (bench hard negatives) stay well below it.
	DefaultContainment = 0.8
	// MinTitleOverlap: containment alone also merges a short story whose
	// sentences another story quoted (bench/dev: a 200-character story fully
	// inside a 2,000-character one that re-used it); a brief cut from a
	// longer story keeps its headline, so containment also needs the
	// headlines' bigram overlap (shorter one) to reach this share.
	MinTitleOverlap = 0.5
	// MinContainmentJaccard: containment is also trusted without the
	// headline when the pair's Jaccard reaches this share, i.e. the shorter
	// text is at least about a quarter of the longer one; a short story
	// quoted inside a long one stays far below (about 0.1 for the bench/dev
	// case above). Portals and the gold set's sites often replace headlines
	// with their own ("Chandler News"), which the headline test misses.
	// Its effect on the dev sets: docs/THRESHOLDS.md.
	MinContainmentJaccard = 0.2
	// MinContainmentSpots: containment is only trusted when the shorter
	// signature has at least this many spots (with the learned antecedents
	// a text yields about one spot per 15 characters, so 8 spots is a
	// brief of ~120 characters); with fewer, one shared phrase decides too
	// much. Together with MinTitleOverlap it changed nothing on the dev
	// sets' false merges (eval web, eval goldset).
	MinContainmentSpots = 8
	// MinSpots: a text with fewer spots is "short" and compared strictly.
	MinSpots = 6
	// ShortJaccard is the strict threshold for short texts: near-exact only.
	// Many different briefs on one template must stay apart.
	ShortJaccard = 0.9
	// The partial-reprint rule (Options.PartialReprint) weighs what each
	// side of a verified pair adds, by winnowing (Schleimer et al. 2003,
	// k = 4, g = 8 content words, estimated from the fingerprints,
	// winnow.RunsOfPairs): a text's "own" share is the share of its
	// content words outside every passage it shares with the other. A
	// pair verified by Jaccard (not by containment ≥ DefaultContainment:
	// a brief or a shortened copy) is two different articles that share a
	// part, not a copy and its original, when both sides add at least
	// MinMutualOwnShare of their own, one of them at least MinOwnShare,
	// and the new one at least MinOwnWords content words (Own.Keeps),
	// and their headlines differ (MaxFollowUpTitleOverlap):
	// a follow-up that re-used most of a story and the story itself,
	// whichever of them is stored first. Such a pair neither makes the
	// new article a duplicate nor bridges clusters; an article whose
	// every verified match is such a pair is stored (verdict "partial",
	// with the passages it shares with the best of them). A reprint that
	// adds an editor's note or a few sentences adds little, and its
	// original, a copy with sentences deleted, or a brief add nothing
	// against it: they stay duplicates. The values sit in the gaps that
	// eval winnow shows on the dev sets between true copies and follow-up
	// pairs (both orders); figures: docs/THRESHOLDS.md, "Partial reprints".
	MinOwnShare       = 0.4
	MinMutualOwnShare = 0.2
	MinOwnWords       = 40
	// MaxFollowUpTitleOverlap: the partial-reprint rule keeps a pair apart
	// only when both headlines are known and their bigram overlap (shorter
	// headline, TitleSet) is below this share, or below
	// MaxFollowUpTitleOverlapHan when both headlines are Chinese. A
	// follow-up carries a headline of its own; a copy that a site extended
	// with paragraphs of its own keeps the agency's headline, at most
	// shortened or decorated (which TitleSet strips). Chance overlap
	// differs by script: headlines of different stories overlap at p90
	// 0.32 on the English SpotSigs gold set (letter bigrams recur in any
	// English) but at p99 0.11 on the Chinese reprint web, whose copies
	// all overlap 1.0 and whose follow-ups at most 0.10 with the story
	// they re-use. Without the headline test the rule split extended
	// copies of one story on the gold set (F1 0.946 → 0.940); at 0.3 the
	// gold set is unchanged, at 0.4-0.6 it loses 0.0005, at 0.7-0.8 0.0015
	// (eval goldset). A Chinese follow-up often names the story's subject
	// again (江城地铁三号线 in both headlines: 0.46), which 0.7 keeps
	// apart while a reworded copy (三 → 3: 0.85) stays a copy; the dev
	// sets cannot tell values between 0.25 and 1.0 apart for Chinese.
	MaxFollowUpTitleOverlap    = 0.3
	MaxFollowUpTitleOverlapHan = 0.7
)

// EnglishAntecedents are the antecedents for English text, in the spirit
// of Theobald et al. (2008), whose spots start at articles and forms of "to
// be" ("a", "the", "is", "was", "there"). This short list did as well as
// a 40-word function-word list on the SpotSigs gold set
// (docs/THRESHOLDS.md) and keeps signatures small. Chinese text never
// contains them, so they are simply added to the Chinese list.
var EnglishAntecedents = []string{"a", "an", "the", "is", "are", "was", "were", "there"}

// DefaultAntecedents returns the learned Chinese antecedents
// (segment.Antecedents) plus EnglishAntecedents.
func DefaultAntecedents() []string {
	return append(segment.Antecedents(), EnglishAntecedents...)
}

// Segmenter turns text into normalised words; *segment.Segmenter implements it.
type Segmenter interface {
	Words(text string) []string
	IsStop(word string) bool
}

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// Hamming is the Simhash candidate radius of indexes with Hamming
	// tables (MemoryIndex) and of the SimhashOnly method.
	Hamming     int
	Jaccard     float64 // SpotSigs verification threshold τ
	Containment float64 // containment threshold for briefs; < 0 disables containment
	// Antecedents are the SpotSigs antecedent words (default: DefaultAntecedents()).
	Antecedents []string
	Chain       int // SpotSigs chain length n (paper: 1)
	Distance    int // SpotSigs word distance d (paper: 1)
	// CentresOnly compares new articles with cluster centres only (classic
	// Single-Pass, Li Gang et al. 2013). By default duplicates are indexed
	// too, as members of their cluster, so a later article joins a cluster
	// when it matches any member (single-link Single-Pass), which follows a
	// story whose copies drift through several rewrites (figures of both:
	// docs/THRESHOLDS.md; eval goldset --centres-only prints the other side).
	CentresOnly bool
	// NoMerge keeps clusters apart when a new article matches several of
	// them. By default such an article bridges them: the clusters merge
	// into the oldest, so that a story's cluster is the connected component
	// of its verified near-duplicate pairs whatever the crawl order
	// (single-link clustering; Single-Pass alone keeps whichever cluster
	// a story's first rewrite happened to open). Figures with and without
	// merging: docs/THRESHOLDS.md (eval ... --no-merge prints the other side).
	// CentresOnly implies NoMerge.
	NoMerge bool
	// PartialReprint turns on the partial-reprint rule (MinOwnShare,
	// MinMutualOwnShare, MaxFollowUpTitleOverlap): an article that passes
	// verification is kept (verdict "partial") when it and the stored
	// article it matched both add text of their own under headlines of
	// their own, and verdicts carry the passages shared with the matched
	// article. Stores keep the winnowing fingerprints
	// (Fingerprint.PackedPrints, ContentWords) so that an index restored
	// from them decides like the one that wrote them. The zero Options
	// leave it off; the shipped configuration turns it on
	// (config.Dedup.PartialReprints): it keeps every follow-up story of
	// the reprint web and leaves the SpotSigs gold set's F1 (0.9461) and
	// robust.jsonl unchanged; figures: docs/THRESHOLDS.md.
	PartialReprint bool
	// Index is where the engine keeps and looks up the fingerprints of
	// earlier articles (nil: NewIndex's, else a new PrefixIndex; a
	// MemoryIndex when the Research method needs one, see
	// Research.NeedsMemoryIndex). A shared implementation (Redis) lets
	// several processes decide against one corpus; it must answer
	// Candidates for this engine's Jaccard and containment thresholds
	// (and Hamming radius in SimhashOnly mode).
	Index Index
	// NewIndex, when set and Index is nil, builds the engine's own empty
	// index answering the engine's queries (Query: its Hamming radius,
	// Jaccard and containment thresholds); the crawl's factory
	// (internal/pipeline) picks lsh, prefix or exhaustive (MemoryIndex)
	// through it. Unlike Index, one Options value can then build several
	// engines (the evaluations do). Ignored when the Research method
	// needs MemoryIndex.
	NewIndex func(q Query) (Index, error)
	// Research selects the evaluation's method variants; the zero value
	// is the crawler's method, and nothing in the crawler's configuration
	// sets it.
	Research Research
}

// Research holds the decision and fingerprint variants the evaluations
// compare (newscrawl-lab): single methods, Simhash feature options and
// the keyword exact layer. None of them changes a verdict of the default
// method except KeywordExact; the crawler never sets them.
type Research struct {
	// Mode selects the decision method; the single methods exist for the
	// evaluation's comparison tables.
	Mode Mode
	// Simhash feature options: the per-feature hash (default FNV-1a),
	// TF or TF-IDF weights, keeping the m heaviest features (P-Simhash:
	// 20; 0 keeps all), co-occurrence down-weighting (P-Simhash §2.1) and
	// the positional signature mixed in with weight Mu. The Simhash is
	// reported (Verdict.Distance) and proposes candidates only through
	// MemoryIndex's Hamming tables.
	Hash       simhash.HashFunc
	Weighting  segment.Weighting
	TopM       int
	JTidf      bool
	Positional bool
	Mu         float64
	// KeywordExact makes the keyword semantic fingerprint (package keyfp:
	// top 8 TF-IDF keywords with part-of-speech boosts, IDF from the
	// engine's document frequencies, MD5) the exact layer instead of the
	// hash of the whole normalised text: two texts with the same keywords
	// are duplicates without SpotSigs verification (verdict reason
	// "keywords"). Texts with fewer than 8 keywords keep the text hash.
	// `eval keyfp` and the "combined + keyfp exact" rows of eval
	// robust/goldset/web measure it. It needs a segmenter with
	// part-of-speech tags (keyfp.Lexicon, e.g. *segment.Segmenter).
	KeywordExact bool
}

// NeedsMemoryIndex reports whether the method needs MemoryIndex's
// candidates: SimhashOnly its Hamming tables, KeywordExact its lookup of
// every entry by its hash (the other indexes hash only the entries
// without spots).
func (r Research) NeedsMemoryIndex() bool { return r.Mode == SimhashOnly || r.KeywordExact }

// NeedsDocFreqs reports whether fingerprints depend on the document
// frequencies of the articles indexed before (TF-IDF weights, keyword
// IDF): such texts are fingerprinted in order, after the store's
// frequencies are loaded.
func (r Research) NeedsDocFreqs() bool { return r.Weighting == segment.TFIDF || r.KeywordExact }

// Mode is a decision method.
type Mode int

// Decision methods.
const (
	// Combined: SpotSigs candidates (and, with MemoryIndex, Hamming ones)
	// verified by SpotSigs Jaccard or containment (the default).
	Combined Mode = iota
	// SimhashOnly: classic Simhash, a duplicate when the Hamming distance to
	// a centre is at most k (Manku et al. 2007).
	SimhashOnly
	// SpotSigsOnly: SpotSigs index candidates verified by Jaccard ≥ τ
	// (Theobald et al. 2008), no containment.
	SpotSigsOnly
)

func (m Mode) String() string {
	switch m {
	case Combined:
		return "combined"
	case SimhashOnly:
		return "simhash"
	case SpotSigsOnly:
		return "spotsigs"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

func (o *Options) fill() {
	if o.Hamming == 0 {
		o.Hamming = DefaultHamming
	}
	if o.Jaccard == 0 {
		o.Jaccard = DefaultJaccard
	}
	if o.Containment == 0 {
		o.Containment = DefaultContainment
	}
	if o.Antecedents == nil {
		o.Antecedents = DefaultAntecedents()
	}
	if o.Chain == 0 {
		o.Chain = 1
	}
	if o.Distance == 0 {
		o.Distance = 1
	}
	if o.Research.Hash == nil {
		o.Research.Hash = simhash.FNV1a
	}
	if o.Research.Mu == 0 {
		o.Research.Mu = simhash.DefaultMu
	}
}

// Fingerprint is everything the engine derives from one text.
type Fingerprint struct {
	Simhash   uint64
	Signature spotsigs.Signature
	Hash      [16]byte // of the normalised word sequence: exact duplicates
	Terms     []string // distinct non-stopword terms (document frequencies)
	Title     []uint64 // headline bigram set (TitleSet)
	Words     int      // number of words
	// Prints are the winnowing fingerprints of the content words
	// (stopwords dropped), ContentWords their number.
	Prints       []winnow.Print
	ContentWords int
	packed       []uint64 // PackPrints(Prints)
	// Image is the fingerprint of the page's lead image (imgfp), set by
	// the caller that fetched it; the zero value when there is none. It is
	// evidence only for texts too short to compare (Short).
	Image imgfp.Fingerprint
}

// PackedPrints are Prints packed as the index keeps them (PackPrints), nil
// when there are none: what a store keeps so that a restored entry
// (Entry.Prints) compares like the one indexed by Add.
func (f *Fingerprint) PackedPrints() []uint64 { return f.packed }

// Empty reports whether the text had no words at all.
func (f *Fingerprint) Empty() bool { return f.Words == 0 }

// Short reports whether the signature is too small to be compared by Jaccard.
func (f *Fingerprint) Short() bool { return len(f.Signature) < MinSpots }

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
	return &Engine{seg: seg, lex: lex, opts: opts, spots: spots, index: idx, df: newDocFreq(), images: newImageIndex(MinImageSimilarity)}, nil
}

// Options returns the engine's effective options.
func (e *Engine) Options() Options { return e.opts }

// SetDocFreqs loads document frequencies (from the store) for TF-IDF weights.
func (e *Engine) SetDocFreqs(docs int, df map[string]int) { e.df.set(docs, df) }

// Fingerprint computes the fingerprints of an article's headline and main
// text. Safe for concurrent use.
//
// With the default options the words are hashed into the Simhash and
// SpotSigs accumulators as the segmenter yields them (when it can, see
// wordStreamer): a long text's word list (16 bytes per word, about three
// times the text) is never built. The options that need the whole list
// (keyword fingerprint, top-m, JTidf, positional Simhash, partial
// reprints) take it; both paths give the same fingerprint.
func (e *Engine) Fingerprint(title, text string) *Fingerprint {
	if e.streams() {
		return e.fingerprintStream(title, text)
	}
	return e.fingerprintWords(title, text)
}

// wordStreamer is a Segmenter that yields a text's words one at a time
// (*segment.Segmenter).
type wordStreamer interface {
	WordSeq(text string) iter.Seq[string]
}

// streams reports whether Fingerprint can work from a word stream.
func (e *Engine) streams() bool {
	o := e.opts.Research
	return !o.KeywordExact && o.TopM == 0 && !o.JTidf && !o.Positional
}

// fingerprintStream is Fingerprint from a word stream: the content hash,
// the term counts and the spots are accumulated word by word.
func (e *Engine) fingerprintStream(title, text string) *Fingerprint {
	var words iter.Seq[string]
	if s, ok := e.seg.(wordStreamer); ok {
		words = s.WordSeq(text)
	} else {
		words = slices.Values(e.seg.Words(text))
	}
	fp := &Fingerprint{Title: TitleSet(title)}
	h := sha256.New()
	var buf []byte
	terms := segment.NewTermCounter(e.seg.IsStop)
	// The config was validated by New, so NewSpotter cannot fail here.
	spots, _ := spotsigs.NewSpotter(e.spots)
	var prints *winnow.Stream
	if e.winnows() {
		prints, _ = winnow.NewStream(winnowConfig) // the default config is valid
	}
	for w := range words {
		fp.Words++
		buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(len(w)))
		buf = append(buf, w...)
		h.Write(buf)
		terms.Add(w)
		spots.Add(w)
		if prints != nil && !e.seg.IsStop(w) {
			prints.Add(w)
		}
	}
	copy(fp.Hash[:], h.Sum(nil))
	if fp.Words == 0 {
		return fp
	}
	feats := terms.Features(e.opts.Research.Weighting, e.df, 0)
	// The features are exactly the distinct non-stopword terms.
	fp.Terms = make([]string, len(feats))
	sf := make([]simhash.Feature, len(feats))
	for i, f := range feats {
		fp.Terms[i] = f.Term
		sf[i] = simhash.Feature{Term: f.Term, Weight: f.Weight}
	}
	fp.Simhash = simhash.Sum(sf, e.opts.Research.Hash)
	fp.Signature = spots.Signature()
	if prints != nil {
		fp.setPrints(prints.Prints(), prints.Words())
	}
	return fp
}

// winnows reports whether fingerprints carry the winnowing prints (the
// partial-reprint rule).
func (e *Engine) winnows() bool { return e.opts.PartialReprint && e.opts.Research.Mode == Combined }

// setPrints records the winnowing prints of n content words.
func (f *Fingerprint) setPrints(ps []winnow.Print, n int) {
	f.ContentWords = n
	if len(ps) > 0 {
		f.Prints, f.packed = ps, PackPrints(ps)
	}
}

// fingerprintWords is Fingerprint from the whole word list.
func (e *Engine) fingerprintWords(title, text string) *Fingerprint {
	words := e.seg.Words(text)
	fp := &Fingerprint{Words: len(words), Title: TitleSet(title)}
	h := sha256.New()
	// One reused buffer: []byte(w) per word allocated a copy of the whole
	// text in small pieces (garbage that counted on multi-megabyte pages).
	var buf []byte
	for _, w := range words {
		buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(len(w)))
		buf = append(buf, w...)
		h.Write(buf)
	}
	copy(fp.Hash[:], h.Sum(nil))
	if len(words) == 0 {
		return fp
	}
	r := e.opts.Research
	if r.KeywordExact {
		kf := keyfp.Compute(words, keyfp.Config{Lexicon: e.lex, IDF: keyfp.SmoothIDF(e.df.Docs(), e.df.DF)})
		if kf.OK {
			fp.Hash = kf.Sum
		}
	}
	feats := segment.Features(words, e.seg.IsStop, r.Weighting, e.df,
		segment.FeatureOptions{TopM: r.TopM, JTidf: r.JTidf, NoPositions: !r.Positional})
	if r.TopM == 0 {
		// The features are exactly the distinct non-stopword terms.
		fp.Terms = make([]string, len(feats))
		for i, f := range feats {
			fp.Terms[i] = f.Term
		}
	} else {
		fp.Terms = distinctTerms(words, e.seg.IsStop)
	}
	if r.Positional {
		pf := make([]simhash.PosFeature, len(feats))
		for i, f := range feats {
			pf[i] = simhash.PosFeature{Term: f.Term, Weight: f.Weight, Positions: f.Positions}
		}
		fp.Simhash = simhash.SumPositional(pf, len(words), r.Hash, r.Mu)
	} else {
		sf := make([]simhash.Feature, len(feats))
		for i, f := range feats {
			sf[i] = simhash.Feature{Term: f.Term, Weight: f.Weight}
		}
		fp.Simhash = simhash.Sum(sf, r.Hash)
	}
	// The config was validated by New, so Extract cannot fail here.
	fp.Signature, _ = spotsigs.Extract(words, e.spots)
	if e.winnows() {
		content := make([]string, 0, len(words))
		for _, w := range words {
			if !e.seg.IsStop(w) {
				content = append(content, w)
			}
		}
		// The default config is valid, so Fingerprints cannot fail.
		ps, _ := winnow.Fingerprints(content, winnowConfig)
		fp.setPrints(ps, len(content))
	}
	return fp
}

// winnowConfig is the winnowing of the partial-reprint rule.
var winnowConfig = winnow.Config{K: winnow.DefaultK, G: winnow.DefaultG}

// PackPrints packs winnowing fingerprints for an index entry, sorted: the
// high 32 bits of the hash over the position (positions past 2^32−1 are
// dropped). A 32-bit hash matches a foreign fingerprint with probability
// 2^-32 per pair, which at most adds a few words to a passage.
func PackPrints(ps []winnow.Print) []uint64 {
	out := make([]uint64, 0, len(ps))
	for _, p := range ps {
		if p.Pos < 0 || p.Pos > math.MaxUint32 {
			continue
		}
		out = append(out, p.Hash&^(1<<32-1)|uint64(p.Pos))
	}
	slices.Sort(out)
	return out
}

const posMask = 1<<32 - 1

func distinctTerms(words []string, isStop func(string) bool) []string {
	seen := make(map[string]struct{}, len(words))
	out := make([]string, 0, len(words)/2)
	for _, w := range words {
		if isStop(w) {
			continue
		}
		if _, ok := seen[w]; !ok {
			seen[w] = struct{}{}
			out = append(out, w)
		}
	}
	return out
}

// sharedRuns estimates the passages fp shares with e (nil when either has
// no fingerprints): the sorted packed fingerprints are merge-joined on
// their hashes and the pairs chained (winnow.RunsOfPairs).
func sharedRuns(fp *Fingerprint, e *Entry) []winnow.Passage {
	return sharedPrints(fp.packed, fp.ContentWords, e.Prints, e.ContentWords)
}

// sharedPrints is sharedRuns on packed fingerprints of na and nb content
// words.
func sharedPrints(a []uint64, na int, b []uint64, nb int) []winnow.Passage {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	pairs := make([]winnow.Pair, 0, min(len(a), len(b)))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		ha, hb := a[i]&^posMask, b[j]&^posMask
		switch {
		case ha < hb:
			i++
		case ha > hb:
			j++
		default:
			j0 := j
			for ; i < len(a) && a[i]&^posMask == ha; i++ {
				for j = j0; j < len(b) && b[j]&^posMask == ha; j++ {
					pairs = append(pairs, winnow.Pair{A: int(a[i] & posMask), B: int(b[j] & posMask)})
				}
			}
		}
	}
	if len(pairs) == 0 {
		return []winnow.Passage{}
	}
	rs, err := winnow.RunsOfPairs(pairs, na, nb, winnowConfig)
	if err != nil {
		return nil // an entry whose fingerprints do not fit its length: no evidence
	}
	return rs
}

// Decide compares fp with the indexed articles (centres and members) and
// returns the verdict: a duplicate when one passes verification, in the
// oldest of the clusters that passed (Verdict.Merged lists the others), or
// a new cluster. It does not change the index: call Add (or MergeClusters
// and AddMember) once the article is recorded. Decide and Add must not run
// concurrently with each other.
//
// A near-duplicate is a verdict; the error is the index's (a shared index
// that cannot answer), and the verdict is then not to be used.
func (e *Engine) Decide(ctx context.Context, fp *Fingerprint) (Verdict, error) {
	v := Verdict{Distance: -1, Reason: "new"}
	if fp.Empty() {
		v.Reason = "empty"
		return v, nil
	}
	q := Query{Hamming: e.opts.Hamming, Jaccard: e.opts.Jaccard, Containment: e.opts.Containment}
	switch e.opts.Research.Mode {
	case SimhashOnly:
		q.NoSpotSigs, q.Containment = true, 0
		cands, err := e.index.Candidates(ctx, fp, q)
		if err != nil {
			return Verdict{}, fmt.Errorf("dedup: candidates: %w", err)
		}
		return e.decideSimhash(fp, cands), nil
	case SpotSigsOnly:
		q.NoSimhash, q.Containment = true, 0
	}
	cands, err := e.index.Candidates(ctx, fp, q)
	if err != nil {
		return Verdict{}, fmt.Errorf("dedup: candidates: %w", err)
	}
	return e.decideAmong(ctx, fp, cands)
}

// decideAmong is Decide's verdict from the candidates the index proposed.
func (e *Engine) decideAmong(ctx context.Context, fp *Fingerprint, cands []*Entry) (Verdict, error) {
	v := Verdict{Distance: -1, Reason: "new"}
	v.Candidates = len(cands)
	var best, partial match
	var clusters []uint64 // distinct clusters of the matched candidates
	for _, c := range cands {
		m := match{entry: c}
		m.j, m.cont, m.reason = e.verify(fp, c)
		if m.reason == "" {
			continue
		}
		if e.partialPair(fp, &m) {
			// A different article that shares a part with fp: not a
			// match, and no bridge between clusters either.
			if m.better(partial) {
				partial = m
			}
			continue
		}
		if !slices.Contains(clusters, c.Cluster) {
			clusters = append(clusters, c.Cluster)
		}
		if m.better(best) {
			best = m
		}
	}
	if best.entry == nil {
		if partial.entry != nil {
			c := partial.entry
			return Verdict{Distance: -1, Reason: "partial", Candidates: len(cands), Jaccard: partial.j, Containment: partial.cont,
				Matched: c.ID, PartialOf: c.ID, PartialOfCluster: c.Cluster, Passages: partial.passages,
				OwnShare: partial.own.New, StoredOwnShare: partial.own.Stored}, nil
		}
		// (A partial pair needs a Jaccard verdict, which a text too short
		// to compare never gets: the image rule below and the partial
		// rule above never both apply.)
		iv, ok, err := e.decideImage(ctx, fp, len(cands))
		if err != nil {
			return Verdict{}, err
		}
		if ok {
			return iv, nil
		}
		return v, nil
	}
	passages := best.passages
	if passages == nil {
		passages = sharedRuns(fp, best.entry)
	}
	into := best.entry.Cluster
	var merged []uint64
	if len(clusters) > 1 && !e.opts.NoMerge && !e.opts.CentresOnly {
		slices.Sort(clusters)
		into, merged = clusters[0], clusters[1:]
	}
	return Verdict{
		Duplicate: true, DupOf: into, Cluster: into, Matched: best.entry.ID,
		Distance: simhash.Distance(fp.Simhash, best.entry.Simhash),
		Jaccard:  best.j, Containment: best.cont, Reason: best.reason, Candidates: len(cands),
		Merged: merged, Passages: passages,
	}, nil
}

// match is a candidate that passed verification, with the winnowing
// evidence when the partial-reprint rule looked at it.
type match struct {
	entry    *Entry
	j, cont  float64
	reason   string
	passages []winnow.Passage
	own      Own
}

// better reports whether m beats o (the higher of Jaccard and
// containment, then the lower id).
func (m match) better(o match) bool {
	if o.entry == nil {
		return true
	}
	ms, obest := max(m.j, m.cont), max(o.j, o.cont)
	return ms > obest || (ms == obest && m.entry.ID < o.entry.ID)
}

// partialPair reports whether the partial-reprint rule (Own.Keeps) makes
// the verified pair of fp and m's entry two different articles: only
// pairs verified by Jaccard, and not a brief by containment
// (DefaultContainment), both with winnowing fingerprints. It records the
// passages and own shares it computed in m.
func (e *Engine) partialPair(fp *Fingerprint, m *match) bool {
	if !e.opts.PartialReprint || m.reason != "jaccard" || m.cont >= DefaultContainment || !distinctHeadlines(fp.Title, m.entry.Title) {
		return false
	}
	m.passages = sharedRuns(fp, m.entry)
	if m.passages == nil || fp.ContentWords == 0 || m.entry.ContentWords == 0 {
		return false
	}
	m.own = OwnOf(fp.ContentWords, m.entry.ContentWords, m.passages)
	return m.own.Keeps()
}

// distinctHeadlines reports whether two headlines (TitleSet) are both
// known and overlap below MaxFollowUpTitleOverlap (Han: ...Han): a
// follow-up's own headline, not the shared one of an extended copy.
func distinctHeadlines(a, b []uint64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	limit := MaxFollowUpTitleOverlap
	if hanHeadline(a) && hanHeadline(b) {
		limit = MaxFollowUpTitleOverlapHan
	}
	return titleOverlap(a, b) < limit
}

// hanHeadline reports whether most bigrams of a TitleSet start with a
// Chinese character.
func hanHeadline(t []uint64) bool {
	n := 0
	for _, bg := range t {
		if unicode.Is(unicode.Han, rune(bg>>32)) {
			n++
		}
	}
	return 2*n > len(t)
}

// verify is the judge: the SpotSigs Jaccard and containment of fp with an
// indexed entry, and the reason it is a near-duplicate ("" when it is not).
func (e *Engine) verify(fp *Fingerprint, c *Entry) (j, cont float64, reason string) {
	switch {
	case c.Hash == fp.Hash && e.opts.Research.KeywordExact:
		// fp.Hash is the keyword fingerprint when the text has enough
		// keywords (Options.KeywordExact).
		return spotsigs.Jaccard(fp.Signature, c.Signature), spotsigs.Containment(fp.Signature, c.Signature), "keywords"
	case c.Hash == fp.Hash:
		return 1, 1, "exact"
	case fp.Short() || len(c.Signature) < MinSpots:
		// Too few spots for Jaccard to mean much: near-exact only.
		j = spotsigs.Jaccard(fp.Signature, c.Signature)
		if j >= ShortJaccard && len(fp.Signature) > 0 {
			reason = "short"
		}
	default:
		j = spotsigs.Jaccard(fp.Signature, c.Signature)
		cont = spotsigs.Containment(fp.Signature, c.Signature)
		switch {
		case j >= e.opts.Jaccard:
			reason = "jaccard"
		case e.opts.Research.Mode == Combined && e.opts.Containment > 0 && cont >= e.opts.Containment &&
			min(len(fp.Signature), len(c.Signature)) >= MinContainmentSpots &&
			(j >= MinContainmentJaccard || titleOverlap(fp.Title, c.Title) >= MinTitleOverlap):
			reason = "containment"
		}
	}
	return j, cont, reason
}

// Own is what each side of a verified pair adds (the partial-reprint
// rule): New is the share of the new article's content words outside
// every passage it shares with the verified articles, NewWords their
// number, and Stored the smallest share of a verified article's content
// words outside the passages it shares with the new one.
type Own struct {
	New      float64
	NewWords int
	Stored   float64
}

// Keeps reports whether the partial-reprint rule keeps the new article:
// both sides add at least MinMutualOwnShare, one at least MinOwnShare,
// and the new one at least MinOwnWords words. (The engine also requires
// that the pair is not a brief by containment.)
func (o Own) Keeps() bool {
	return o.NewWords >= MinOwnWords && min(o.New, o.Stored) >= MinMutualOwnShare && max(o.New, o.Stored) >= MinOwnShare
}

// OwnOf is Own for one pair from its shared passages (StartA in the new
// text of na content words, StartB in the stored one of nb).
func OwnOf(na, nb int, ps []winnow.Passage) Own {
	if na <= 0 {
		return Own{}
	}
	covA := winnow.Covered(na, ps)
	o := Own{New: float64(na-covA) / float64(na), NewWords: na - covA}
	if nb > 0 {
		o.Stored = float64(nb-coveredB(nb, ps)) / float64(nb)
	}
	return o
}

// coveredB is winnow.Covered on the passages' other side.
func coveredB(n int, ps []winnow.Passage) int {
	rev := make([]winnow.Passage, len(ps))
	for i, p := range ps {
		rev[i] = winnow.Passage{StartA: p.StartB, StartB: p.StartA, Len: p.Len}
	}
	return winnow.Covered(n, rev)
}

// decideSimhash is classic Simhash: the nearest centre within k.
func (e *Engine) decideSimhash(fp *Fingerprint, cands []*Entry) Verdict {
	v := Verdict{Distance: -1, Reason: "new", Candidates: len(cands)}
	var best *Entry
	bestD := 65
	for _, c := range cands {
		d := simhash.Distance(fp.Simhash, c.Simhash)
		if d <= e.opts.Hamming && (d < bestD || (d == bestD && c.ID < best.ID)) {
			best, bestD = c, d
		}
	}
	if best == nil {
		return v
	}
	return Verdict{Duplicate: true, DupOf: best.Cluster, Cluster: best.Cluster, Matched: best.ID, Distance: bestD,
		Jaccard: spotsigs.Jaccard(fp.Signature, best.Signature), Reason: "hamming", Candidates: len(cands)}
}

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
	en := Entry{ID: id, Cluster: cluster, Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash, Title: fp.Title, Image: fp.Image}
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
