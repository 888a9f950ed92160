package segment

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/width"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"chinese unchanged", "中华人民共和国", "中华人民共和国"},
		{"full-width letters and digits", "ＡＢＣ１２３ｘｙｚ", "abc123xyz"},
		{"full-width punctuation", "你好，世界！（测试）", "你好,世界!(测试)"},
		{"ideographic space collapses", "北京\u3000\u3000上海", "北京 上海"},
		{"whitespace runs", "  a \t\n b\r\n\u00a0c  ", "a b c"},
		{"latin lower-cased", "iPhone MP3 Ünïcödé ДОМ", "iphone mp3 ünïcödé дом"},
		{"zero-width removed", "新\u200b闻\ufeff", "新闻"},
		{"invalid utf-8 removed", "新\xff闻", "新闻"},
		{"control characters are space", "a\x00\x01b", "a b"},
		{"half-width katakana kept", "ｶﾀｶﾅ", "ｶﾀｶﾅ"},
		{"full-width yen kept (not ASCII)", "￥100", "￥100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestNormalizeMatchesWidthFold checks the full-width folding against
// golang.org/x/text/width for the whole full-width ASCII block.
func TestNormalizeMatchesWidthFold(t *testing.T) {
	for r := rune(0xFF01); r <= 0xFF5E; r++ {
		want := strings.ToLower(width.Fold.String(string(r)))
		if got := Normalize(string(r)); got != want {
			t.Errorf("Normalize(%U) = %q, width.Fold gives %q", r, got, want)
		}
	}
	if got, want := Normalize("a\u3000b"), "a b"; got != want {
		t.Errorf("ideographic space: got %q, want %q", got, want)
	}
}

// TestNormalizeUnits checks the unit boundaries recorded alongside the
// normalised text.
func TestNormalizeUnits(t *testing.T) {
	tests := []struct {
		in    string
		units []string
	}{
		{"中国", []string{"中", "国"}},
		{"iPhone5s手机", []string{"iphone5s", "手", "机"}},
		{"a股 3.5%", []string{"a", "股", " ", "3", ".", "5", "%"}},
		{"ＡＢ１２年", []string{"ab12", "年"}},
		{"αβγ дом", []string{"αβγ", " ", "дом"}},
	}
	for _, tt := range tests {
		var b cutBuffers
		norm := normalizeUnits(tt.in, &b)
		var got []string
		for i, u := range b.units {
			end := len(norm)
			if i+1 < len(b.units) {
				end = int(b.units[i+1])
			}
			got = append(got, norm[u:end])
			if r := b.runes[i]; r >= 0 && string(r) != norm[u:end] {
				t.Errorf("%q: unit %d rune %q, text %q", tt.in, i, r, norm[u:end])
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.units, "|") {
			t.Errorf("%q: units %q, want %q", tt.in, got, tt.units)
		}
	}
}

// FuzzNormalize: Normalize is idempotent, returns valid UTF-8 without
// leading, trailing or doubled spaces, and agrees with the unit splitter.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "中文 English", "ＡＢＣ　１２３", "\xff\xfe", " a  b ", "İK\u212a", "𐐀𝐀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if !utf8.ValidString(n) {
			t.Fatalf("invalid UTF-8 %q", n)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("bad spacing %q", n)
		}
		if n2 := Normalize(n); n2 != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, n2)
		}
		var b cutBuffers
		if n3 := normalizeUnits(s, &b); n3 != n {
			t.Fatalf("normalizeUnits %q != Normalize %q", n3, n)
		}
		for i := 1; i < len(b.units); i++ {
			if b.units[i] <= b.units[i-1] {
				t.Fatalf("units not increasing: %v", b.units)
			}
		}
	})
}
