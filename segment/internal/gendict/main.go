// Command gendict derives the compact dictionary and the stopword list that
// package segment embeds, from the simplified-Chinese dictionary and the
// stopword list compiled into github.com/go-ego/gse (Apache-2.0; its zh
// dictionary comes from jieba, MIT).
//
// It is run by `go generate ./segment` (see segment/gen.go). gse itself is the
// source of truth: the generator loads gse's "zh_s" dictionary exactly as gse
// does (same duplicate handling, same frequency rules, same ASCII lowercasing)
// and serialises the resulting tokens, so that segment.Segmenter reproduces
// gse's shortest-path segmentation with a fraction of the start-up cost.
//
// Dictionary file format (all integers little-endian / uvarint):
//
//	magic   "NDSD" + version byte 2
//	uvarint number of words
//	uvarint number of trie nodes (distinct rune prefixes of the words), for table sizing
//	uvarint total length in bytes of all words, for buffer pre-sizing
//	float64 total frequency of gse's dictionary (bits, 8 bytes LE)
//	uvarint number of part-of-speech tags T (at most 255), then T times:
//	  uvarint length, tag bytes (jieba's tags as gse keeps them: "n", "ns", ...)
//	then a DEFLATE stream of entries sorted by bytes, each:
//	  uvarint shared-prefix length with the previous word (bytes)
//	  uvarint suffix length, suffix bytes
//	  uvarint frequency
//	  uvarint tag: 0 for none, i for the i-th tag of the table (1-based)
package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/go-ego/gse"
)

func main() {
	dictOut := flag.String("dict", "zhdict.bin", "output path of the compact dictionary")
	stopOut := flag.String("stop", "stopwords.txt", "output path of the stopword list")
	flag.Parse()
	if err := run(*dictOut, *stopOut); err != nil {
		fmt.Fprintln(os.Stderr, "gendict:", err)
		os.Exit(1)
	}
}

func run(dictOut, stopOut string) error {
	var seg gse.Segmenter
	seg.SkipLog = true
	seg.NotLoadHMM = true
	if err := seg.LoadDictEmbed("zh_s"); err != nil {
		return fmt.Errorf("load gse zh_s: %w", err)
	}
	dict := seg.Dictionary()
	var (
		entries []entry
		dropped int
	)
	for i := range dict.Tokens {
		t := &dict.Tokens[i]
		w := t.Text()
		f := t.Freq()
		if f != math.Trunc(f) || f < 1 {
			return fmt.Errorf("token %q has non-integer frequency %v", w, f)
		}
		// Words that the segmenter's normalisation would rewrite (upper-case
		// letters, full-width forms, spaces) can never match normalised text:
		// leave them out, but keep their frequency in the total so that every
		// path length equals gse's.
		if normalizedForm(w) != w {
			dropped++
			continue
		}
		entries = append(entries, entry{w, uint64(f), t.Pos()})
	}
	tags, tagIndex, err := posTags(entries)
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].word < entries[j].word })

	keys, wordBytes := trieKeys(entries)

	var body bytes.Buffer
	zw, err := flate.NewWriter(&body, flate.BestCompression)
	if err != nil {
		return err
	}
	var (
		prev string
		tmp  [binary.MaxVarintLen64]byte
	)
	put := func(v uint64) { zw.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	for i, e := range entries {
		if i > 0 && e.word == prev {
			return fmt.Errorf("duplicate word %q", e.word)
		}
		n := 0
		for n < len(prev) && n < len(e.word) && prev[n] == e.word[n] {
			n++
		}
		put(uint64(n))
		put(uint64(len(e.word) - n))
		zw.Write([]byte(e.word[n:]))
		put(e.freq)
		put(tagIndex[e.pos])
		prev = e.word
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var out bytes.Buffer
	out.WriteString("NDSD\x02")
	out.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(entries)))])
	out.Write(tmp[:binary.PutUvarint(tmp[:], uint64(keys))])
	out.Write(tmp[:binary.PutUvarint(tmp[:], uint64(wordBytes))])
	var f8 [8]byte
	binary.LittleEndian.PutUint64(f8[:], math.Float64bits(dict.TotalFreq()))
	out.Write(f8[:])
	out.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(tags)))])
	for _, tag := range tags {
		out.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(tag)))])
		out.WriteString(tag)
	}
	out.Write(body.Bytes())
	if err := os.WriteFile(dictOut, out.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("gendict: %d words (%d dropped as unreachable after normalisation), %d trie nodes, %d part-of-speech tags, total freq %.0f, %d bytes -> %s\n",
		len(entries), dropped, keys, len(tags), dict.TotalFreq(), out.Len(), dictOut)

	return writeStopwords(&seg, stopOut)
}

// entry is one dictionary word with its frequency and part-of-speech tag.
type entry struct {
	word string
	freq uint64
	pos  string
}

// posTags returns the sorted distinct part-of-speech tags of entries and
// each tag's index in the file (1-based; 0 is "no tag").
func posTags(entries []entry) ([]string, map[string]uint64, error) {
	tagSet := map[string]bool{}
	for _, e := range entries {
		if e.pos != "" {
			tagSet[e.pos] = true
		}
	}
	tags := make([]string, 0, len(tagSet))
	for tag := range tagSet {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	if len(tags) > 255 {
		return nil, nil, fmt.Errorf("%d part-of-speech tags, the format holds 255", len(tags))
	}
	tagIndex := map[string]uint64{"": 0}
	for i, tag := range tags {
		tagIndex[tag] = uint64(i + 1)
	}
	return tags, tagIndex, nil
}

// trieKeys counts the trie nodes (every word and every proper prefix, by
// bytes) and the bytes of all words.
func trieKeys(entries []entry) (int, int) {
	keys := map[string]bool{}
	wordBytes := 0
	for _, e := range entries {
		wordBytes += len(e.word)
		for i := range e.word {
			if i > 0 {
				keys[e.word[:i]] = true
			}
		}
		keys[e.word] = true
	}

	return len(keys), wordBytes
}

// writeStopwords derives the embedded stopword list from gse's embedded
// Chinese stopword list: entries are normalised like text, entries without a
// letter or digit (punctuation, which Words drops anyway) are left out.
func writeStopwords(seg *gse.Segmenter, path string) error {
	if err := seg.LoadStopEmbed(); err != nil {
		return fmt.Errorf("load gse stopwords: %w", err)
	}
	set := map[string]bool{}
	total := 0
	for w := range seg.StopWordMap {
		total++
		n := strings.TrimSpace(normalizedForm(strings.TrimSpace(w)))
		if n == "" || strings.ContainsRune(n, ' ') || !hasLetterOrDigit(n) {
			continue
		}
		set[n] = true
	}
	words := make([]string, 0, len(set))
	for w := range set {
		words = append(words, w)
	}
	sort.Strings(words)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	fmt.Fprintf(bw, "# Stopword list embedded by package segment. Generated by `go generate ./segment`\n")
	fmt.Fprintf(bw, "# (segment/internal/gendict) from the Chinese stopword list embedded in\n")
	fmt.Fprintf(bw, "# github.com/go-ego/gse %s (data/dict/zh/stop_tokens.txt, Apache-2.0):\n", gseVersion)
	fmt.Fprintf(bw, "# %d gse entries, normalised (full-width -> ASCII, lower case), entries without a\n", total)
	fmt.Fprintf(bw, "# letter or digit (punctuation) dropped, deduplicated, sorted: %d words.\n", len(words))
	for _, w := range words {
		fmt.Fprintln(bw, w)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("gendict: %d stopwords (from %d gse entries) -> %s\n", len(words), total, path)
	return nil
}

const gseVersion = "v0.80.3"

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// normalizedForm mirrors segment.Normalize for the characters that occur in
// dictionary entries (kept here so that the generator does not import the
// package it generates data for; a test in package segment checks that every
// embedded word is a fixed point of segment.Normalize).
func normalizedForm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == 0x3000:
			r = ' '
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
