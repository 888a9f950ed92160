package dedup

import (
	"crypto/sha256"
	"encoding/binary"
	"iter"
	"math"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/keyfp"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
	"github.com/newsdedup/newscrawl/spotsigs"
	"github.com/newsdedup/newscrawl/winnow"
)

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
	// Time is the page's place in the dedup window (WindowTime of when it
	// was fetched and published), set by the caller before Add; the zero
	// value when unknown (outside every window).
	Time time.Time
}

// PackedPrints are Prints packed as the index keeps them (PackPrints), nil
// when there are none: what a store keeps so that a restored entry
// (Entry.Prints) compares like the one indexed by Add.
func (f *Fingerprint) PackedPrints() []uint64 { return f.packed }

// Empty reports whether the text had no words at all.
func (f *Fingerprint) Empty() bool { return f.Words == 0 }

// Short reports whether the signature is too small to be compared by Jaccard.
func (f *Fingerprint) Short() bool { return len(f.Signature) < MinSpots }

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

// tokenSource is a Segmenter that yields a text's words as tokens, with
// their dictionary ids and stopword flag (*segment.Segmenter): the term
// counts and the word classes then need no string hashing.
type tokenSource interface {
	Tokens(text string) iter.Seq[segment.Token]
	NewWordSet(words ...string) *segment.WordSet
	Counter() *segment.TermCounter
}

// fingerprintStream is Fingerprint from a word stream: the content hash,
// the term counts and the spots are accumulated word by word.
func (e *Engine) fingerprintStream(title, text string) *Fingerprint {
	if e.toks != nil {
		return e.fingerprintTokens(title, text)
	}
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
	e.finishStream(fp, terms, spots, prints)
	return fp
}

// finishStream sets the Terms, Simhash, Signature and Prints of fp from
// the accumulators of a word stream.
func (e *Engine) finishStream(fp *Fingerprint, terms *segment.TermCounter, spots *spotsigs.Spotter, prints *winnow.Stream) {
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
}

// fingerprintTokens is fingerprintStream from the tokens of a tokenSource:
// each word's stopword and antecedent classes are read once, by dictionary
// id, and the content hash is written in blocks of words.
func (e *Engine) fingerprintTokens(title, text string) *Fingerprint {
	fp := &Fingerprint{Title: TitleSet(title)}
	h := sha256.New()
	buf := make([]byte, 0, hashBlock+64)
	terms := e.toks.Counter()
	defer terms.Release()
	// The config was validated by New, so NewSpotter cannot fail here.
	spots, _ := spotsigs.NewSpotter(e.spots)
	var prints *winnow.Stream
	if e.winnows() {
		prints, _ = winnow.NewStream(winnowConfig) // the default config is valid
	}
	for t := range e.toks.Tokens(text) {
		fp.Words++
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(t.Word)))
		buf = append(buf, t.Word...)
		if len(buf) >= hashBlock {
			h.Write(buf)
			buf = buf[:0]
		}
		terms.AddToken(t)
		ante := (t.Stop || !e.anteStop) && e.ante.Contains(t)
		spots.AddClassified(t.Word, ante, t.Stop)
		if prints != nil && !t.Stop {
			prints.Add(t.Word)
		}
	}
	h.Write(buf)
	copy(fp.Hash[:], h.Sum(nil))
	if fp.Words == 0 {
		return fp
	}
	e.finishStream(fp, terms, spots, prints)
	return fp
}

// hashBlock is the size of the blocks in which fingerprintTokens writes
// the length-prefixed words to the content hash (the digest is that of
// their concatenation, whatever the blocks).
const hashBlock = 4 << 10

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
