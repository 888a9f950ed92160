// Package keyfp computes the keyword semantic fingerprint of a text, the
// method of the semantic-fingerprint section of the book chapter on
// near-duplicate removal for crawlers (《网络爬虫全解析》, "语义指纹"):
//
//  1. weight every term of the segmented text by TF-IDF, with extra weight
//     for nouns, place names and other proper nouns (the part of speech
//     comes from the segmenter's dictionary, jieba's tag set as kept by gse);
//  2. keep the top n terms (the chapter: 8 keywords identify a page
//     precisely but recall fewer copies);
//  3. re-sort those keywords by their characters, so that the order of the
//     weights does not matter, join them and hash the joined string (MD5
//     as published; the chapter names MurmurHash and Lookup3 as faster
//     alternatives: Config.Hash takes any HashFunc);
//  4. two pages with the same fingerprint are the same page; whether a
//     fingerprint was seen before is answered by a Bloom filter in front of
//     the store (package bloomset).
//
// Choices the chapter leaves open, made here and named as constants: the
// keywords are joined with U+001F (a bare concatenation would give "ab"+"c"
// and "a"+"bc" the same string); terms without a letter (numbers, dates) are
// not keywords, since they change between reprints of one story (times,
// counts) more than they identify it; a text with fewer than n candidate
// keywords has no fingerprint (Fingerprint.OK is false), because a handful
// of keywords collides across short texts.
//
// The package is pure: tokens in, values out; no I/O, no logging.
package keyfp

import (
	"cmp"
	"crypto/md5"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// DefaultN is the number of keywords, the chapter's 8.
const DefaultN = 8

// Part-of-speech boosts: factors on the TF-IDF weight. The chapter gives
// nouns, place names and proper nouns extra weight without numbers; these
// are ours: a proper noun (person, place, organisation, other proper noun)
// names what a story is about and doubles, a common noun counts half again.
const (
	ProperNounBoost = 2.0
	NounBoost       = 1.5
)

// Separator joins the sorted keywords before hashing.
const Separator = "\x1f"

// Lexicon says which words are stopwords and gives a word's part of speech
// (jieba tags: "n", "ns", "nr", "nt", "nz", ...); *segment.Segmenter
// implements it.
type Lexicon interface {
	IsStop(w string) bool
	POS(w string) (string, bool)
}

// HashFunc hashes the joined keywords into a 16-byte fingerprint.
type HashFunc func(joined string) [16]byte

// MD5 is the chapter's hash.
func MD5(joined string) [16]byte { return md5.Sum([]byte(joined)) }

// Config configures Compute. IDF is required; the zero N means DefaultN
// and a nil Hash means MD5.
type Config struct {
	N       int
	Lexicon Lexicon
	// IDF gives a term's inverse document frequency (for instance the
	// smoothed corpus idf, or the dictionary's log inverse frequency).
	IDF  func(term string) float64
	Hash HashFunc
	// NoBoost turns the part-of-speech boosts off (for the evaluation).
	NoBoost bool
	// Freqs hashes every keyword with its number of occurrences in the
	// text, as the chapter's figure assumes: "选取8个关键词及其词频作为其指纹"
	// (semantic-fingerprint-chapter-book.txt, line 90). Off, only the
	// keywords are hashed.
	Freqs bool
}

// FreqSeparator joins a keyword and its count when Config.Freqs is set.
const FreqSeparator = "\x1e"

// Keyword is a selected term with its weight.
type Keyword struct {
	Term   string
	Weight float64
}

// Fingerprint is the keyword fingerprint of one text.
type Fingerprint struct {
	Sum [16]byte
	// Keywords are the top n terms, sorted by their characters.
	Keywords []string
	// OK is false when the text had fewer than n candidate keywords: it
	// then has no fingerprint (Sum is zero).
	OK bool
}

// Boost returns the part-of-speech factor of tag.
func Boost(tag string) float64 {
	switch {
	case strings.HasPrefix(tag, "nr"), strings.HasPrefix(tag, "ns"), tag == "nt", tag == "nz":
		return ProperNounBoost
	case tag == "n", tag == "ng":
		return NounBoost
	}
	return 1
}

// TopKeywords returns the n heaviest keywords of words (heaviest first, ties
// by term): TF × IDF × the part-of-speech boost, over the words that are not
// stopwords and contain a letter. Non-finite or negative IDF values count
// as 0.
func TopKeywords(words []string, c Config) []Keyword {
	n := c.N
	if n <= 0 {
		n = DefaultN
	}
	tf := make(map[string]int, len(words)/2)
	var terms []string
	for _, w := range words {
		if w == "" || !hasLetter(w) || (c.Lexicon != nil && c.Lexicon.IsStop(w)) {
			continue
		}
		if tf[w] == 0 {
			terms = append(terms, w)
		}
		tf[w]++
	}
	kws := make([]Keyword, len(terms))
	for i, t := range terms {
		idf := 1.0
		if c.IDF != nil {
			idf = c.IDF(t)
			if math.IsNaN(idf) || math.IsInf(idf, 0) || idf < 0 {
				idf = 0
			}
		}
		w := float64(tf[t]) * idf
		if !c.NoBoost && c.Lexicon != nil {
			if tag, ok := c.Lexicon.POS(t); ok {
				w *= Boost(tag)
			}
		}
		kws[i] = Keyword{t, w}
	}
	slices.SortFunc(kws, func(a, b Keyword) int {
		if a.Weight != b.Weight {
			return cmp.Compare(b.Weight, a.Weight)
		}
		return strings.Compare(a.Term, b.Term)
	})
	return kws[:min(n, len(kws))]
}

// Compute returns the keyword fingerprint of a segmented text (words in
// text order, as segment.Segmenter.Words returns them).
func Compute(words []string, c Config) Fingerprint {
	n := c.N
	if n <= 0 {
		n = DefaultN
	}
	top := TopKeywords(words, c)
	if len(top) < n {
		return Fingerprint{}
	}
	kw := make([]string, len(top))
	for i, k := range top {
		kw[i] = k.Term
	}
	slices.Sort(kw) // by characters (byte order of UTF-8 = code point order)
	h := c.Hash
	if h == nil {
		h = MD5
	}
	joined := strings.Join(kw, Separator)
	if c.Freqs {
		parts := make([]string, len(kw))
		for i, k := range kw {
			parts[i] = k + FreqSeparator + strconv.Itoa(count(words, k))
		}
		joined = strings.Join(parts, Separator)
	}
	return Fingerprint{Sum: h(joined), Keywords: kw, OK: true}
}

// count is the number of occurrences of w in words.
func count(words []string, w string) int {
	n := 0
	for _, x := range words {
		if x == w {
			n++
		}
	}
	return n
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// SmoothIDF returns idf(t) = ln((N+1)/(df(t)+1)) + 1 over document
// frequencies df of a corpus of docs documents (segment.TFIDF's formula).
func SmoothIDF(docs int, df func(term string) int) func(string) float64 {
	return func(t string) float64 {
		d := min(max(df(t), 0), max(docs, 0))
		return math.Log(float64(docs+1)/float64(d+1)) + 1
	}
}
