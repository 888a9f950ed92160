// Package segment turns Chinese (and mixed Latin) news text into the word
// sequences and weighted features that the near-duplicate detectors use.
//
// Segmentation is the maximum-probability ("shortest path") word graph method
// of gse (github.com/go-ego/gse, itself after jieba): every dictionary word w
// costs log2(F/freq(w)) where F is the total dictionary frequency, characters
// not covered by a single-character word cost 32, and the cheapest path through
// the word graph of a text is its segmentation. The dictionary is gse's
// simplified-Chinese dictionary (352,275 words), converted by `go generate`
// (internal/gendict) into a 1.4 MB compact form embedded in this package, and
// the path search is a re-implementation of gse's Segmenter.Segment that gives
// byte-identical segmentations (TestMatchesGse) while loading in a fraction of
// the time and memory gse needs and allocating only the output per call.
//
// Text is normalised before segmentation (Normalize): full-width ASCII forms
// and the ideographic space are folded to ASCII, letters are lower-cased,
// whitespace runs collapse to one space. Words drops whitespace and punctuation
// tokens, maps synonyms (HIT Tongyici Cilin Extended, optional) and keeps
// stopwords, because SpotSigs (Theobald et al., SIGIR 2008; Chinese adaptation
// Li Yan et al. 2017) anchors its signatures on them; IsStop reports them.
//
// Tokens yields the words with what the segmentation found out about them
// anyway: the dictionary id of a dictionary word (its trie node) and its
// stopword flag, so that a caller counting terms (Counter, a pooled
// TermCounter) or testing word sets (WordSet) hashes no strings for
// dictionary words; dedup fingerprints from them.
//
// Features computes TF or TF-IDF term weights with term positions for
// Simhash/P-Simhash, optionally with a documented co-occurrence penalty in
// place of P-Simhash's J-Tidf. Antecedents returns the SpotSigs antecedents:
// the stopwords concentrated in the main text, learned from pages with a
// labelled main text (Li Yan et al. 2017 §3.3) by internal/antecedents
// (`newscrawl-lab learn-antecedents`) and shipped as antecedents.txt. The
// package is runtime only: it neither learns nor decodes pages (package
// decode is the one charset decoder).
//
// Load time, memory and words per second against gse's own loader:
// docs/THRESHOLDS.md (`go test -bench 'Load|Words' ./segment` prints them).
package segment
