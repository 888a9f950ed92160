package segment

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

// encodeDict writes the internal/gendict format (for tests).
func encodeDict(t testing.TB, words map[string]uint64, extraTotal float64) []byte {
	t.Helper()
	keys := make([]string, 0, len(words))
	total := extraTotal
	nodes := map[string]bool{}
	for w, f := range words {
		keys = append(keys, w)
		total += float64(f)
		for i := range w {
			if i > 0 {
				nodes[w[:i]] = true
			}
		}
		nodes[w] = true
	}
	sort.Strings(keys)
	var body bytes.Buffer
	zw, _ := flate.NewWriter(&body, flate.BestSpeed)
	put := func(v uint64) { zw.Write(binary.AppendUvarint(nil, v)) }
	prev := ""
	for _, w := range keys {
		n := 0
		for n < len(prev) && n < len(w) && prev[n] == w[n] {
			n++
		}
		put(uint64(n))
		put(uint64(len(w) - n))
		zw.Write([]byte(w[n:]))
		put(words[w])
		put(uint64(slices.Index(testTags, testPOS[w]) + 1)) // 0 when untagged
		prev = w
	}
	zw.Close()
	out := []byte(dictMagic)
	out = binary.AppendUvarint(out, uint64(len(keys)))
	out = binary.AppendUvarint(out, uint64(len(nodes)))
	out = binary.AppendUvarint(out, 0)
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(total))
	out = binary.AppendUvarint(out, uint64(len(testTags)))
	for _, tag := range testTags {
		out = binary.AppendUvarint(out, uint64(len(tag)))
		out = append(out, tag...)
	}
	return append(out, body.Bytes()...)
}

// testTags is the tag table encodeDict writes; testPOS tags some words.
var (
	testTags = []string{"n", "ns", "v"}
	testPOS  = map[string]string{"中国": "ns", "研究": "v", "生命": "n", "起源": "n"}
)

func segmenterWithDict(t testing.TB, words map[string]uint64) *Segmenter {
	t.Helper()
	d, err := loadDict(encodeDict(t, words, 0))
	if err != nil {
		t.Fatal(err)
	}
	return &Segmenter{dict: d, stop: map[string]struct{}{}}
}

// TestShortestPath checks the path search on a hand-computed dictionary.
func TestShortestPath(t *testing.T) {
	// F = 1318. Path lengths log2(F/f): f=100: 3.72, f=10: 7.04, f=2: 9.36,
	// f=1000: 0.40; an uncovered character costs 32.
	s := segmenterWithDict(t, map[string]uint64{
		"研究": 100, "研究生": 10, "生命": 100, "命": 2, "生": 2, "研": 2, "究": 2,
		"的": 1000, "起源": 100, "mp3": 2,
	})
	tests := []struct {
		in   string
		want []string
	}{
		// 研究+生命 = 7.44 beats 研究生+命 = 16.4.
		{"研究生命的起源", []string{"研究", "生命", "的", "起源"}},
		{"研究生", []string{"研究生"}},
		// 起 and 源 alone are not words: pseudo tokens.
		{"源起", []string{"源", "起"}},
		// Alphanumeric runs are one unit: "mp3" matches, "mp34" does not.
		{"MP3的mp34", []string{"mp3", "的", "mp34"}},
	}
	for _, tt := range tests {
		if got := s.Words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPOS(t *testing.T) {
	s := segmenterWithDict(t, map[string]uint64{"中国": 5, "中": 2, "研究": 100, "生命": 100, "的": 1000})
	tests := []struct {
		name, word, want string
		ok               bool
	}{
		{"place name", "中国", "ns", true},
		{"verb", "研究", "v", true},
		{"noun", "生命", "n", true},
		{"untagged word", "的", "", false},
		{"prefix only", "研", "", false},
		{"not in dictionary", "国中", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.POS(tt.word)
			if got != tt.want || ok != tt.ok {
				t.Errorf("POS(%q) = %q, %v, want %q, %v", tt.word, got, ok, tt.want, tt.ok)
			}
		})
	}
	if d, ok := s.InvFreq("的"); !ok || d <= 0 {
		t.Errorf("InvFreq(的) = %v, %v", d, ok)
	}
	if _, ok := s.InvFreq("国中"); ok {
		t.Error("InvFreq of a non-word is ok")
	}
}

// TestEmbeddedPOS checks that the embedded dictionary kept gse's tags.
func TestEmbeddedPOS(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string]string{"北京": "ns", "记者": "n", "发展": "vn"} {
		if got, _ := s.POS(w); got != want {
			t.Errorf("POS(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestLoadDictErrors(t *testing.T) {
	good := encodeDict(t, map[string]uint64{"中国": 5, "中": 2}, 0)
	bad := [][]byte{
		nil,
		[]byte("NDSD\x02"),
		append([]byte("NDSD\x01"), good[len(dictMagic):]...), // version 1 (no tags)
		good[:len(dictMagic)+2],
		good[:len(good)-3],
		append(slices.Clone(good), 1, 2, 3),
		encodeDict(t, map[string]uint64{"中国": 0}, 0),
		encodeDict(t, map[string]uint64{"\xff": 3}, 0),
	}
	for i, b := range bad {
		if _, err := loadDict(b); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	if _, err := loadDict(good); err != nil {
		t.Fatal(err)
	}
}

// FuzzLoadDict: corrupt dictionaries give errors, never panics, and a
// dictionary that loads segments text without panicking.
func FuzzLoadDict(f *testing.F) {
	f.Add(encodeDict(f, map[string]uint64{"中国": 5, "中": 2, "ab": 3}, 0))
	f.Add(zhDict[:64])
	f.Add([]byte(dictMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := loadDict(data)
		if err != nil {
			return
		}
		s := &Segmenter{dict: d, stop: map[string]struct{}{}}
		for _, w := range s.Words("中国ab人 x") {
			if !strings.Contains("中国ab人 x", w) {
				t.Fatalf("word %q not in text", w)
			}
		}
	})
}
