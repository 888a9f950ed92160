package dedup

import (
	"fmt"

	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
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
