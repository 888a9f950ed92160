package segment

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/benchtext"
)

// tokenTexts are the texts the token tests run on: the real news articles
// of the robustness set, a long text in several pieces, and mixed scripts.
func tokenTexts(t *testing.T) []string {
	t.Helper()
	recs := benchtext.Robust(t)
	texts := []string{"", "，。！", "国家发改委表示，A股上市公司的新能源项目将在2013年投产。",
		"iPhone 15 Pro 和 ＧＰＴ－４ 的 naïve café 价格为 ９９９ 美元", "电脑和微机，计算机是人类的人物"}
	var long strings.Builder
	for _, r := range recs {
		texts = append(texts, r.Text)
		if long.Len() < 3*segmentPiece {
			long.WriteString(r.Text)
			long.WriteByte('\n')
		}
	}
	return append(texts, long.String())
}

// TestTokensMatchWordSeq: Tokens yields the words of WordSeq; a token's ID
// is non-zero exactly for dictionary words (the straightforward lookup),
// one ID always names one word, Stop is IsStop, and a WordSet contains a
// token exactly when its word is in the set's list. With and without
// synonyms (a synonym head's ID is that of the head).
func TestTokensMatchWordSeq(t *testing.T) {
	syn, err := New(Options{SynonymFile: filepath.Join("testdata", "cilin_tiny.txt")})
	if err != nil {
		t.Fatal(err)
	}
	texts := tokenTexts(t)
	for _, tc := range []struct {
		name string
		s    *Segmenter
	}{{"default", sharedSegmenter(t)}, {"synonyms", syn}} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			setWords := append(Antecedents(), "the", "iphone", "2013", "电脑", "不在词典里的词", "a股")
			set := s.NewWordSet(setWords...)
			inSet := make(map[string]bool)
			for _, w := range setWords {
				inSet[w] = true
			}
			byID := make(map[uint32]string)
			n := 0
			for i, text := range texts {
				var want []string
				for w := range s.WordSeq(text) {
					want = append(want, w)
				}
				var got []string
				for tok := range s.Tokens(text) {
					got = append(got, tok.Word)
					n++
					_, _, isWord := s.dict.lookup(tok.Word)
					if isWord != (tok.ID != 0) {
						t.Fatalf("text %d: %q has ID %d, dictionary word %v", i, tok.Word, tok.ID, isWord)
					}
					if w, ok := byID[tok.ID]; tok.ID != 0 && ok && w != tok.Word {
						t.Fatalf("text %d: ID %d is %q and %q", i, tok.ID, w, tok.Word)
					}
					byID[tok.ID] = tok.Word
					if tok.Stop != s.IsStop(tok.Word) {
						t.Fatalf("text %d: %q Stop %v, IsStop %v", i, tok.Word, tok.Stop, !tok.Stop)
					}
					if set.Contains(tok) != inSet[tok.Word] {
						t.Fatalf("text %d: WordSet.Contains(%q) = %v", i, tok.Word, !inSet[tok.Word])
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("text %d: Tokens gave %d words, WordSeq %d (or other words)", i, len(got), len(want))
				}
			}
			if n < 100000 {
				t.Fatalf("only %d tokens checked", n)
			}
		})
	}
}

// TestCounterMatchesTermCounter: a pooled counter fed tokens gives the
// features a TermCounter fed the words gives, document after document
// (each counter released and reused), with TF and TF-IDF weights.
func TestCounterMatchesTermCounter(t *testing.T) {
	s := sharedSegmenter(t)
	df := mapDF{docs: 100, df: map[string]int{"记者": 40, "北京": 7, "2013": 3}}
	for _, tc := range []struct {
		name string
		w    Weighting
	}{{"tf", TF}, {"tf-idf", TFIDF}} {
		t.Run(tc.name, func(t *testing.T) {
			for i, text := range tokenTexts(t) {
				ref := NewTermCounter(s.IsStop)
				for w := range s.WordSeq(text) {
					ref.Add(w)
				}
				want := ref.Features(tc.w, df, 0)
				c := s.Counter()
				for tok := range s.Tokens(text) {
					c.AddToken(tok)
				}
				got := slices.Clone(c.Features(tc.w, df, 0))
				c.Release()
				if len(got) == 0 {
					got = nil
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("text %d: counter gave %d features, TermCounter %d (or others)", i, len(got), len(want))
				}
			}
		})
	}
}

// FuzzTokens: Tokens yields the words of WordSeq, a non-zero ID exactly
// for dictionary words and Stop exactly for stopwords, and a counter fed
// the tokens counts what a TermCounter fed the words counts.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", knownSentence, "ＡＢＣ　１２３ iPhone 的", "\xff\xfe中", "a\u0300b", "𠀀𠀁中国的了"} {
		f.Add(s)
	}
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var want []string
		for w := range s.WordSeq(text) {
			want = append(want, w)
		}
		ref := NewTermCounter(s.IsStop)
		c := s.Counter()
		defer c.Release()
		var got []string
		for tok := range s.Tokens(text) {
			got = append(got, tok.Word)
			if _, _, isWord := s.dict.lookup(tok.Word); isWord != (tok.ID != 0) || tok.Stop != s.IsStop(tok.Word) {
				t.Fatalf("%q: ID %d, Stop %v", tok.Word, tok.ID, tok.Stop)
			}
			ref.Add(tok.Word)
			c.AddToken(tok)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Tokens %q, WordSeq %q", got, want)
		}
		if g, w := c.Features(TF, nil, 0), ref.Features(TF, nil, 0); len(g)+len(w) > 0 && !reflect.DeepEqual(g, w) {
			t.Fatalf("counter %v, TermCounter %v", g, w)
		}
	})
}
