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
// Features computes TF or TF-IDF term weights with term positions for
// Simhash/P-Simhash, optionally with a documented co-occurrence penalty in
// place of P-Simhash's J-Tidf. LearnAntecedents learns SpotSigs antecedents
// (stopwords concentrated in the main text) from pages with labelled main text
// (Li Yan et al. 2017 §3.3); the learned list ships as antecedents.txt.
//
// Measured on the 2-core development machine (shared, so ranges; Go 1.26):
// New takes 0.14-0.24 s and holds 10.7 MB of heap (peak RSS of a process that
// only loads it: 21 MB), where gse needs 1.8 s / 205 MB RSS for "zh_s" and
// 3.8 s / 370 MB for its default dictionary. Words handles 7,500-8,800 real
// news texts per second on one goroutine (1,100 characters, 3.3 KB each;
// 24-29 MB/s; 2 allocations per call) and up to 17,500 per second on both
// cores; gse's Cut does 2,300-2,900 and its Segment 3,700 per second on the
// same texts (`go test -bench 'Load|Words' ./segment`).
package segment
