package segment

import (
	"bufio"
	_ "embed" // stopwords.txt
	"fmt"
	"iter"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:embed stopwords.txt
var embeddedStopwords string

//go:embed stopwords_en.txt
var embeddedStopwordsEn string

// Options configures New. The zero value gives the embedded dictionary and
// stopword list and no synonyms.
type Options struct {
	// Stopwords are added to the embedded stopword list.
	Stopwords []string
	// StopwordFile, if set, names a UTF-8 file with one extra stopword per
	// line ('#' starts a comment line).
	StopwordFile string
	// SynonymFile, if set, names a HIT Tongyici Cilin (Extended) file, UTF-8
	// or GB18030, with rows "Aa01A01= 人 士 人物 ...". See LoadCilin.
	SynonymFile string
}

// Segmenter segments text into words. It is immutable after New and safe for
// concurrent use; build one per process and share it.
type Segmenter struct {
	dict     *dictionary
	stop     map[string]struct{}
	synonyms map[string]string
	bufs     sync.Pool // *cutBuffers
	stopSet  *WordSet  // stop by token (Tokens)
	counters sync.Pool // *TermCounter of Counter
}

// New loads the embedded dictionary and stopword list and the optional files
// named in opts.
func New(opts Options) (*Segmenter, error) {
	d, err := loadDict(zhDict)
	if err != nil {
		return nil, err
	}
	s := &Segmenter{dict: d, stop: make(map[string]struct{}, 1200)}
	addStopwords(s.stop, embeddedStopwords)
	addStopwords(s.stop, embeddedStopwordsEn)
	for _, w := range opts.Stopwords {
		if n := Normalize(w); n != "" {
			s.stop[n] = struct{}{}
		}
	}
	if opts.StopwordFile != "" {
		b, err := os.ReadFile(opts.StopwordFile)
		if err != nil {
			return nil, fmt.Errorf("segment: stopword file: %w", err)
		}
		if !utf8.Valid(b) {
			return nil, fmt.Errorf("segment: stopword file %s: not UTF-8", opts.StopwordFile)
		}
		addStopwords(s.stop, string(b))
	}
	if opts.SynonymFile != "" {
		f, err := os.Open(opts.SynonymFile)
		if err != nil {
			return nil, fmt.Errorf("segment: synonym file: %w", err)
		}
		syn, err := LoadCilin(f, s.IsStop)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("segment: synonym file %s: %w", opts.SynonymFile, err)
		}
		s.synonyms = syn
	}
	s.stopSet = s.wordSetOf(s.stop)
	return s, nil
}

func addStopwords(set map[string]struct{}, list string) {
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if n := Normalize(line); n != "" {
			set[n] = struct{}{}
		}
	}
}

// IsStop reports whether w (a word as returned by Words) is a stopword.
func (s *Segmenter) IsStop(w string) bool {
	_, ok := s.stop[w]
	return ok
}

// POS returns the part-of-speech tag that the dictionary gives word w (a
// word as returned by Words), in jieba's tag set as kept by gse ("n" noun,
// "ns" place name, "nr" person name, "nt" organisation, "nz" other proper
// noun, "v" verb, ...), and false when w is not a dictionary word or has no
// tag.
func (s *Segmenter) POS(w string) (string, bool) {
	tag, _, ok := s.dict.lookup(w)
	return tag, ok && tag != ""
}

// InvFreq returns log2(F/freq(w)) of dictionary word w, F being the
// dictionary's total frequency (the path length gse's segmentation uses):
// an inverse-frequency weight that depends on no corpus. ok is false when
// w is not a dictionary word.
func (s *Segmenter) InvFreq(w string) (float64, bool) {
	_, d, ok := s.dict.lookup(w)
	return float64(d), ok
}

// DictionaryWords returns the number of words in the loaded dictionary.
func (s *Segmenter) DictionaryWords() int { return s.dict.words }

// Words normalises text (Normalize), segments it, maps synonyms and returns
// the words in text order without whitespace and punctuation tokens: a token
// is kept if it contains a letter (Han characters included) or a digit.
// Stopwords are kept.
//
// Texts over segmentPiece bytes are segmented line by line (a line longer
// than a piece is cut after a sentence end or a space), so that the segmenter's per-character buffers
// (16 bytes per character) stay bounded whatever the text length: a 9 MB
// text needed 180 MB in one piece. Words do not span those cuts (the
// dictionary has no word across a line break or a 。), so a long text gives
// the words of its paragraphs segmented one by one
// (TestWordsPiecesEqualSeparate); in one piece it did not, as float32 path
// lengths over megabytes lose the precision that decides ties.
func (s *Segmenter) Words(text string) []string {
	if len(text) <= segmentPiece {
		return s.appendWords(nil, text)
	}
	// Chinese news text has 5.6 bytes per word (punctuation dropped): one
	// allocation, no regrowth copy of a multi-megabyte slice.
	out := make([]string, 0, len(text)/5)
	eachPiece(text, func(piece string) bool {
		out = s.appendWords(out, piece)
		return true
	})
	return out
}

// WordSeq yields the words of text, the same as Words, one piece of text
// at a time: a long text is segmented without its word list (16 bytes per
// word, about three times the text), only one piece's working memory is
// held. A word shares memory with its piece's normalised text (at most
// segmentPiece bytes): a caller keeping many words of a long text should
// copy them (strings.Clone).
func (s *Segmenter) WordSeq(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		eachPiece(text, func(piece string) bool {
			b := s.getBuffers()
			defer s.putBuffers(b)
			norm, spans := s.segmentText(piece, b)
			for i := 0; i < len(spans); i += 2 {
				if tok, ok := s.word(norm[spans[i]:spans[i+1]]); ok && !yield(tok) {
					return false
				}
			}
			return true
		})
	}
}

// eachPiece calls fn with the pieces Words segments text in, in text
// order, until fn returns false: text itself when it is at most
// segmentPiece bytes, else its lines, a line longer than a piece cut by
// pieceEnd.
func eachPiece(text string, fn func(piece string) bool) {
	if len(text) <= segmentPiece {
		fn(text)
		return
	}
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		for len(line) > 0 {
			n := pieceEnd(line, segmentPiece)
			if !fn(line[:n]) {
				return
			}
			line = line[n:]
		}
	}
}

// pieceEnd returns where the first piece of text of at most max bytes ends:
// after its last line break, else after its last 。 or space, else at a rune
// boundary.
func pieceEnd(text string, max int) int {
	if len(text) <= max {
		return len(text)
	}
	w := text[:max]
	if i := strings.LastIndexByte(w, '\n'); i > 0 {
		return i + 1
	}
	if i := strings.LastIndex(w, "。"); i > 0 {
		return i + len("。")
	}
	if i := strings.LastIndexByte(w, ' '); i > 0 {
		return i + 1
	}
	n := max
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	if n == 0 {
		n = max // not UTF-8: any cut
	}
	return n
}

// appendWords appends the words of one piece of text to out.
func (s *Segmenter) appendWords(out []string, text string) []string {
	b := s.getBuffers()
	defer s.putBuffers(b)
	norm, spans := s.segmentText(text, b)
	if len(spans) == 0 {
		return out
	}
	if out == nil {
		out = make([]string, 0, len(spans)/2)
	}
	for i := 0; i < len(spans); i += 2 {
		if tok, ok := s.word(norm[spans[i]:spans[i+1]]); ok {
			out = append(out, tok)
		}
	}
	return out
}

// word maps a token to the word Words returns for it (its synonym head),
// or reports false for whitespace and punctuation.
func (s *Segmenter) word(tok string) (string, bool) {
	// Tokens starting with a CJK unified ideograph (lead byte E5..E9:
	// U+5000..U+9FFF) are words; others are checked rune by rune.
	if c := tok[0]; (c < 0xE5 || c > 0xE9) && !isWordToken(tok) {
		return "", false
	}
	if s.synonyms != nil {
		if head, ok := s.synonyms[tok]; ok {
			return head, true
		}
	}
	return tok, true
}

// isWordToken reports whether tok contains a letter or a digit.
func isWordToken(tok string) bool {
	for i := 0; i < len(tok); {
		c := tok[i]
		if c < utf8.RuneSelf {
			if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(tok[i:])
		if (r >= 0x4E00 && r <= 0x9FFF) || unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
		i += size
	}
	return false
}

// cutBuffers holds the per-call working memory of cut, reused through a
// sync.Pool.
type cutBuffers struct {
	units []int32   // byte offset of each unit start (normalizeUnits)
	runes []rune    // rune of each one-rune unit, -1 for alphanumeric runs
	dist  []float32 // shortest path length to the end of unit i (0: unreached)
	back  []int32   // number of units of the last token on that path
	node  []uint32  // trie node of that token when it is a dictionary word, else 0
	spans []int32   // output: start, end byte offsets of each token
	ids   []uint32  // output: the node of each token of spans (0: not a dictionary word)
}

const (
	// maxPooledUnits keeps one huge text from pinning huge buffers in the pool.
	maxPooledUnits = 1 << 20
	// segmentPiece is the largest text segmented in one piece (Words);
	// news articles are 1-30 KB, so they are one piece.
	segmentPiece = 64 << 10
)

func (s *Segmenter) getBuffers() *cutBuffers {
	if b, ok := s.bufs.Get().(*cutBuffers); ok {
		return b
	}
	return &cutBuffers{}
}

func (s *Segmenter) putBuffers(b *cutBuffers) {
	if cap(b.units) <= maxPooledUnits {
		s.bufs.Put(b)
	}
}

// segmentText normalises text and segments it; the token spans (flat list
// of byte offsets start0, end0, start1, end1, ...) index the returned
// normalised string and live in b.
func (s *Segmenter) segmentText(text string, b *cutBuffers) (string, []int32) {
	norm := normalizeUnits(text, b)
	return norm, s.cut(norm, b)
}

// cut segments normalised text whose units are in b.units and b.runes
// (normalizeUnits) and returns the token spans held in b.
//
// It is gse's Segmenter.Segment (shortest path, non-search mode) over the
// same dictionary: for each unit in order, every dictionary word starting
// there relaxes the path ending at its last unit (a path is replaced only by
// a strictly shorter one; the first found wins ties), and a unit that starts
// no single-unit word gets a pseudo word of length unknownDistance.
func (s *Segmenter) cut(text string, b *cutBuffers) []int32 {
	units, runes := b.units, b.runes
	n := len(units)
	if cap(b.dist) < n {
		b.dist = make([]float32, n)
		b.back = make([]int32, n)
		b.node = make([]uint32, n)
	}
	dist, back, nodes := b.dist[:n], b.back[:n], b.node[:n]
	clear(dist)

	d := s.dict
	for cur := 0; cur < n; cur++ {
		var base float32
		if cur > 0 {
			base = dist[cur-1]
		}
		single := false
		node := uint32(0)
	extend:
		for end := cur; end < n; end++ {
			// Walk the unit's runes.
			var word, ext, ok bool
			if r := runes[end]; r >= 0 {
				node, word, ext, ok = d.step(node, r)
				if !ok {
					break
				}
			} else {
				stop := len(text)
				if end+1 < n {
					stop = int(units[end+1])
				}
				for _, r := range text[units[end]:stop] {
					node, word, ext, ok = d.step(node, r)
					if !ok {
						break extend
					}
				}
			}
			if word {
				if nd := base + d.dist[node]; dist[end] == 0 || dist[end] > nd {
					dist[end] = nd
					back[end] = int32(end - cur + 1)
					nodes[end] = node
				}
				if end == cur {
					single = true
				}
			}
			if !ext {
				break
			}
		}
		if !single {
			if nd := base + unknownDistance; dist[cur] == 0 || dist[cur] > nd {
				dist[cur] = nd
				back[cur] = 1
				nodes[cur] = 0
			}
		}
	}

	// Walk back from the last unit, then reverse.
	spans, ids := b.spans[:0], b.ids[:0]
	end := n
	endByte := int32(len(text))
	for end > 0 {
		start := end - int(back[end-1])
		spans = append(spans, endByte, units[start])
		ids = append(ids, nodes[end-1])
		end, endByte = start, units[start]
	}
	slices.Reverse(spans)
	slices.Reverse(ids)
	b.spans, b.ids = spans, ids
	return spans
}
