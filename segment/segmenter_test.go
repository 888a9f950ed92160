package segment

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
)

func TestWords(t *testing.T) {
	s := sharedSegmenter(t)
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"，。！？ ……", nil},
		{"中华人民共和国成立了", []string{"中华人民共和国", "成立", "了"}},
		{"他说：“这是我们的责任。”", []string{"他", "说", "这", "是", "我们", "的", "责任"}},
		{knownSentence, knownWords},
		{"ＮＢＡ常规赛　湖人队108比102战胜凯尔特人", []string{"nba", "常规赛", "湖人队", "108", "比", "102", "战胜", "凯尔特人"}},
		{"价格下降了3.5%", []string{"价格下降", "了", "3", "5"}},
		{"iPhone 5s发布", []string{"iphone", "5s", "发布"}},
	}
	for _, tt := range tests {
		if got := s.Words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsStop(t *testing.T) {
	s := sharedSegmenter(t)
	for _, w := range []string{"的", "是", "在", "了", "我们", "因为"} {
		if !s.IsStop(w) {
			t.Errorf("IsStop(%q) = false", w)
		}
	}
	for _, w := range []string{"中国", "新闻", "发改委", "，", ""} {
		if s.IsStop(w) {
			t.Errorf("IsStop(%q) = true", w)
		}
	}
}

// TestEmbeddedStopwords checks the embedded list: normalised, no
// punctuation, no duplicates, and the size its header states.
func TestEmbeddedStopwords(t *testing.T) {
	seen := map[string]bool{}
	for _, line := range strings.Split(embeddedStopwords, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if Normalize(line) != line || !isWordToken(line) || seen[line] {
			t.Errorf("bad stopword line %q", line)
		}
		seen[line] = true
	}
	if !strings.Contains(embeddedStopwords, " sorted: "+strconv.Itoa(len(seen))+" words.") {
		t.Errorf("header does not state the %d words", len(seen))
	}
}

// TestEmbeddedDictionaryNormalised checks that every dictionary word is a
// fixed point of Normalize (otherwise it could never match) and that the
// header counts are right.
func TestEmbeddedDictionaryNormalised(t *testing.T) {
	h, body, err := openDict(zhDict)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	nodes := map[string]bool{}
	err = eachDictWord(h, body, func(w []byte, _ uint64, _ uint8) error {
		n++
		if Normalize(string(w)) != string(w) {
			t.Errorf("dictionary word %q is not normalised", w)
		}
		for i := range string(w) {
			if i > 0 {
				nodes[string(w[:i])] = true
			}
		}
		nodes[string(w)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(n) != h.words || uint64(len(nodes)) != h.nodes {
		t.Errorf("header says %d words, %d nodes; found %d, %d", h.words, h.nodes, n, len(nodes))
	}
}

func TestOptions(t *testing.T) {
	s, err := New(Options{
		Stopwords:    []string{"ＸＹＺ"},
		StopwordFile: filepath.Join("testdata", "extra_stop.txt"),
		SynonymFile:  filepath.Join("testdata", "cilin_tiny.txt"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"xyz", "记者", "nba", "的"} {
		if !s.IsStop(w) {
			t.Errorf("IsStop(%q) = false", w)
		}
	}
	if got, want := s.Words("电脑和微机"), []string{"电脑", "和", "电脑"}; !slices.Equal(got, want) {
		t.Errorf("synonyms: Words = %q, want %q", got, want)
	}

	for _, opts := range []Options{
		{StopwordFile: filepath.Join("testdata", "missing.txt")},
		{SynonymFile: filepath.Join("testdata", "missing.txt")},
		{SynonymFile: filepath.Join("testdata", "sentences.txt")}, // not Cilin
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v): no error", opts)
		}
	}
}

func TestLoadCilin(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "cilin_tiny.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stop := map[string]bool{"的": true, "之": true, "是": true, "为": true}
	syn, err := LoadCilin(f, func(w string) bool { return stop[w] })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		word, want string // want "" means: not mapped
	}{
		{"士", "人"},     // '=' row: to the row's first word
		{"人士", "人"},    //
		{"人物", ""},     // heads a row (Ca01A01): canonical
		{"角色", "人物"},   // no chain through 人物
		{"人", ""},      // a head maps to nothing
		{"全人类", "人类"},  //
		{"女人", ""},     // '#' rows are related words, not synonyms
		{"男人", ""},     //
		{"独行侠", ""},    // '@' rows
		{"微机", "电脑"},   //
		{"计算机", ""},    // heads Ba01A02
		{"计算器", "计算机"}, //
		{"电脑", ""},     //
		{"底", ""},      // row headed by a stopword: nothing maps
		{"系", ""},      // same (head 是)
		{"是", ""},      // stopwords never map
		{"没错", "正确"},   //
		{"对", "正确"},    //
		{"正确", ""},     //
		{"不存在的词", ""},  //
		{"", ""},       //
	}
	for _, tt := range tests {
		got, ok := syn[tt.word]
		if tt.want == "" && ok {
			t.Errorf("%q maps to %q, want unmapped", tt.word, got)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("%q maps to %q, want %q", tt.word, got, tt.want)
		}
	}

	// The full Cilin Extended, UTF-8 and GBK, when the shared data is present.
	sharedDir, ok := devdatatest.Lookup(t)
	if !ok {
		t.Log("shared data absent: full Cilin not checked")
		return
	}
	dir := filepath.Join(sharedDir, "data", "lexicon", "cilin-hit-extended")
	var maps []map[string]string
	for _, name := range []string{"cilin_ex.utf8.txt", "cilin_ex.gbk.txt"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		m, err := LoadCilin(f, sharedSegmenter(t).IsStop)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		maps = append(maps, m)
	}
	if len(maps[0]) < 30000 || len(maps[0]) != len(maps[1]) {
		t.Errorf("full Cilin: %d and %d mappings", len(maps[0]), len(maps[1]))
	}
	for w, h := range maps[0] {
		if maps[1][w] != h {
			t.Errorf("UTF-8 and GBK files disagree on %q", w)
			break
		}
		if _, chained := maps[0][h]; chained {
			t.Errorf("%q maps to %q, which is mapped again", w, h)
			break
		}
		if sharedSegmenter(t).IsStop(w) || sharedSegmenter(t).IsStop(h) {
			t.Errorf("stopword in mapping %q -> %q", w, h)
			break
		}
	}
}

func TestLoadCilinErrors(t *testing.T) {
	for _, in := range []string{"Aa01A0= 人 士\n", "aa01A01= 人\n", "Aa01A01* 人 士\n", "人 士\n"} {
		if _, err := LoadCilin(strings.NewReader(in), nil); err == nil {
			t.Errorf("LoadCilin(%q): no error", in)
		}
	}
	if m, err := LoadCilin(strings.NewReader("\n\nAa01A01= 人\n"), nil); err != nil || len(m) != 0 {
		t.Errorf("single-word row: %v, %v", m, err)
	}
}

// TestConcurrentWords runs one Segmenter from several goroutines (run with
// -race) and checks every result against a sequential run.
func TestConcurrentWords(t *testing.T) {
	s := sharedSegmenter(t)
	texts := readLines(t, filepath.Join("testdata", "sentences.txt"))
	want := make([][]string, len(texts))
	for i, text := range texts {
		want[i] = s.Words(text)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for round := 0; round < 50; round++ {
				i := (g + round) % len(texts)
				if got := s.Words(texts[i]); !slices.Equal(got, want[i]) {
					t.Errorf("goroutine %d: Words(%q) = %q, want %q", g, texts[i], got, want[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// FuzzWords: no panic; every word is non-empty, valid UTF-8, free of white
// space and holds a letter or digit; words appear in the normalised text in
// order.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"", knownSentence, "ＡＢＣ　１２３ iPhone", "\xff\xfe中", "  ", "a\u0300b", "𠀀𠀁中国"} {
		f.Add(s)
	}
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		norm := Normalize(text)
		at := 0
		for _, w := range s.Words(text) {
			if w == "" || !utf8.ValidString(w) || strings.IndexFunc(w, unicode.IsSpace) >= 0 || !isWordToken(w) {
				t.Fatalf("bad word %q from %q", w, text)
			}
			i := strings.Index(norm[at:], w)
			if i < 0 {
				t.Fatalf("word %q not found in order in %q", w, norm)
			}
			at += i + len(w)
		}
	})
}
