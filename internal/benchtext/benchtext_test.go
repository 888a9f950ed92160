package benchtext

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestPseudoWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"spaces only", " \t\u3000\n", nil},
		{"punctuation stands alone", "，。", []string{"，", "。"}},
		{"function characters stand alone", "的了", []string{"的", "了"}},
		{"spaces dropped", "a b", []string{"a", "b"}},
		// Chunk lengths depend only on the first rune, 1 + (r*2654435761
		// mod 2^32 >> 16) % 3 (computed apart in Python): 新 1, 华 3, 京 1.
		{"chunks", "新华社北京", []string{"新", "华社北", "京"}},
		{"function character cuts a chunk", "新的华", []string{"新", "的", "华"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PseudoWords(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("PseudoWords(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPseudoWordsLocal checks the property the benchmarks rely on: an edit
// in the middle leaves the words far before it unchanged.
func TestPseudoWordsLocal(t *testing.T) {
	a := "国务院总理今日在北京会见来访的外国代表团，双方就经贸合作交换了意见。"
	b := a[:len(a)-len("交换了意见。")] + "达成了共识。"
	wa, wb := PseudoWords(a), PseudoWords(b)
	n := len(PseudoWords("国务院总理今日在北京会见来访的外国代表团，"))
	if !slices.Equal(wa[:n], wb[:n]) {
		t.Errorf("prefix words changed by a later edit:\n%q\n%q", wa[:n], wb[:n])
	}
}

func FuzzPseudoWords(f *testing.F) {
	f.Add("新华社北京电　记者张三报道。")
	f.Add("a b\tc")
	f.Add("\xff的")
	f.Fuzz(func(t *testing.T, s string) {
		words := PseudoWords(s)
		// The words are the text without white space, in order.
		var b strings.Builder
		for _, r := range []rune(s) {
			if !unicode.IsSpace(r) {
				b.WriteRune(r)
			}
		}
		if got := strings.Join(words, ""); got != b.String() {
			t.Fatalf("joined words %q, want %q", got, b.String())
		}
		for _, w := range words {
			if n := utf8.RuneCountInString(w); n < 1 || n > 3 {
				t.Fatalf("word %q has %d runes", w, n)
			}
		}
	})
}

// TestRobust loads the real set (skipped without the shared data, a failure
// in CI) and checks its shape: every variant's group has an original.
func TestRobust(t *testing.T) {
	docs := Robust(t)
	origs := map[string]bool{}
	for _, d := range docs {
		if d.Op == "orig" {
			origs[d.Group] = true
		}
	}
	if len(origs) == 0 {
		t.Fatal("no originals in the robustness set")
	}
	for _, d := range docs {
		if d.Text == "" {
			t.Fatalf("doc %s has no text", d.ID)
		}
		if d.Op != "orig" && d.Op != "distinct" && !origs[d.Group] {
			t.Errorf("doc %s (%s) has no original in group %s", d.ID, d.Op, d.Group)
		}
	}
}
