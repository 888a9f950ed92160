package dedup

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/benchtext"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/simhash"
)

// TestFingerprintStreamEqualsWords: the word-stream fingerprint (the
// default options) equals the one computed from the word list, for short
// and long texts, with TF-IDF weights and another hash, from tokens (the
// Segmenter), from words (a segmenter without tokens) and with a
// segmenter that cannot stream.
func TestFingerprintStreamEqualsWords(t *testing.T) {
	var texts []string
	for _, s := range []string{"s1", "s2", "s3"} {
		texts = append(texts, join(story(t, s).Paragraphs))
	}
	recs := benchtext.Robust(t)
	var long []string
	for _, r := range recs[:min(len(recs), 400)] {
		long = append(long, r.Text)
	}
	texts = append(texts, "", "，。！", strings.Join(long, "\n"), strings.Join(long, ""))
	texts = append(texts, long...)
	for _, tc := range []struct {
		name     string
		opts     Options
		noTokens bool // a segmenter with WordSeq but not Tokens
		plain    bool // a segmenter with neither
	}{
		{"defaults", Options{}, false, false},
		{"tf-idf", Options{Research: Research{Weighting: segment.TFIDF}}, false, false},
		{"sdbm", Options{Research: Research{Hash: simhash.SDBM}}, false, false},
		{"chain 2 distance 2", Options{Chain: 2, Distance: 2}, false, false},
		{"antecedents that are no stopwords", Options{Antecedents: append(DefaultAntecedents(), "北京", "公司", "2013")}, false, false},
		{"partial reprints (winnowing prints)", Options{PartialReprint: true}, false, false},
		{"partial reprints, segmenter without Tokens", Options{PartialReprint: true}, true, false},
		{"segmenter without Tokens", Options{}, true, false},
		{"segmenter without WordSeq", Options{}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, tc.opts)
			if e.toks == nil {
				t.Fatal("an engine over the Segmenter does not use its tokens")
			}
			if e.anteStop != (tc.opts.Antecedents == nil) {
				t.Fatalf("anteStop %v with antecedents %q", e.anteStop, tc.opts.Antecedents)
			}
			if tc.noTokens {
				e.toks, e.ante = nil, nil
			}
			if tc.plain {
				e.seg = plainSeg{seg}
			}
			if !e.streams() {
				t.Fatal("options do not stream")
			}
			e.SetDocFreqs(100, map[string]int{"记者": 40, "北京": 7})
			for i, text := range texts {
				got, want := e.fingerprintStream("标题", text), e.fingerprintWords("标题", text)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("text %d (%d bytes): stream %+v\nwords %+v", i, len(text), summary(got), summary(want))
				}
			}
		})
	}
}

func summary(fp *Fingerprint) []any {
	return []any{fp.Simhash, len(fp.Signature), fp.Hash, len(fp.Terms), fp.Words}
}

func TestFingerprintStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want bool
	}{
		{"defaults", Options{}, true},
		{"keyword exact", Options{Research: Research{KeywordExact: true}}, false},
		{"top m", Options{Research: Research{TopM: 64}}, false},
		{"jtidf", Options{Research: Research{JTidf: true}}, false},
		{"positional", Options{Research: Research{Positional: true}}, false},
		{"partial reprints", Options{PartialReprint: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := testEngine(t, tc.opts).streams(); got != tc.want {
				t.Errorf("streams() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFingerprintLongTextMemory: fingerprinting a long text from the word
// stream allocates less than the word-list path does besides the list
// itself (16 bytes a word, about three times the text): no list, no
// SpotSigs marks over it. What remains is the signature, the distinct
// terms and each piece's normalised text.
func TestFingerprintLongTextMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation figures are not comparable under the race detector (sync.Pool drops buffers at random)")
	}
	recs := benchtext.Robust(t)
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		b.WriteString(recs[i%len(recs)].Text)
		b.WriteByte('\n')
	}
	text := b.String()
	e := testEngine(t, Options{})
	e.Fingerprint("", text[:100000]) // warm the segmenter's buffer pool
	alloc := func(f func(title, text string) *Fingerprint) float64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if fp := f("", text); fp.Words == 0 {
			t.Fatal("no words")
		}
		runtime.ReadMemStats(&m1)
		return float64(m1.TotalAlloc - m0.TotalAlloc)
	}
	stream, words := alloc(e.Fingerprint), alloc(e.fingerprintWords)
	list := float64(16 * e.Fingerprint("", text).Words)
	t.Logf("%d bytes of text: %.2f bytes allocated per byte from the stream, %.2f from the word list (the list itself %.2f)",
		len(text), stream/float64(len(text)), words/float64(len(text)), list/float64(len(text)))
	if stream >= words-list {
		t.Errorf("the stream allocates %.0f bytes, the word-list path %.0f besides its list of %.0f", stream, words-list, list)
	}
}

// listlessSeg streams words and fails the test when a word list is asked
// for.
type listlessSeg struct {
	t *testing.T
	*segment.Segmenter
}

func (s listlessSeg) Words(string) []string {
	s.t.Error("Fingerprint built the word list")
	return nil
}

// TestFingerprintBuildsNoWordList: with the default options Fingerprint
// takes the words from WordSeq, never the list from Words.
func TestFingerprintBuildsNoWordList(t *testing.T) {
	e := testEngine(t, Options{})
	e.seg = listlessSeg{t, seg}
	if fp := e.Fingerprint("标题", join(story(t, "s1").Paragraphs)); fp.Empty() || len(fp.Signature) == 0 {
		t.Errorf("fingerprint of %d words, %d spots", fp.Words, len(fp.Signature))
	}
}

// TestAddCountsDocFreqsWhenUsed: Add counts an article's terms in the
// engine's document frequencies only when the fingerprints read them
// (TF-IDF weights, the keyword rule); TF weights keep none.
func TestAddCountsDocFreqsWhenUsed(t *testing.T) {
	text := join(story(t, "s1").Paragraphs)
	for _, tc := range []struct {
		name     string
		opts     Options
		wantDocs int
	}{
		{"tf: none kept", Options{}, 0},
		{"tf-idf: counted", Options{Research: Research{Weighting: segment.TFIDF}}, 1},
		{"keyword rule: counted", Options{Research: Research{KeywordExact: true}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, tc.opts)
			fp := e.Fingerprint("标题", text)
			if len(fp.Terms) == 0 {
				t.Fatal("no terms")
			}
			if err := e.Add(t.Context(), 1, 0, fp); err != nil {
				t.Fatal(err)
			}
			if got := e.df.Docs(); got != tc.wantDocs {
				t.Fatalf("document frequencies count %d documents, want %d", got, tc.wantDocs)
			}
			if got := e.df.DF(fp.Terms[0]) > 0; got != (tc.wantDocs > 0) {
				t.Fatalf("term %q counted = %v", fp.Terms[0], got)
			}
		})
	}
}
