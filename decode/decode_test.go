package decode

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

const article = "新华社北京6月15日电 记者从国家统计局获悉，今年前五个月全国规模以上工业增加值同比增长。「引号」与“弯引号”、数字１２３。"

func encodeWith(t testing.TB, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

func page(meta, body string) string {
	return "<html><head>" + meta + "<title>标题</title></head><body><p>" + body + "</p></body></html>"
}

func TestDecode(t *testing.T) {
	gbkPage := func(meta string) []byte { return encodeWith(t, simplifiedchinese.GBK, page(meta, article)) }
	utf8Page := func(meta string) []byte { return []byte(page(meta, article)) }
	metaGB := `<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`
	metaUTF8 := `<meta charset="utf-8">`
	tests := []struct {
		name        string
		body        []byte
		contentType string
		override    string
		charset     string
		source      string
	}{
		{"gbk meta", gbkPage(metaGB), "", "", "gb18030", SourceMeta},
		{"gbk header", gbkPage(""), "text/html; charset=GBK", "", "gb18030", SourceHeader},
		{"gbk sloppy header", gbkPage(""), "text/html;charset=gbk;", "", "gb18030", SourceHeader},
		{"gbk header wins over wrong meta", gbkPage(metaUTF8), "text/html; charset=gbk", "", "gb18030", SourceHeader},
		{"utf-8 bytes declared gb2312", utf8Page(metaGB), "", "", "utf-8", SourceBytes},
		{"utf-8 bytes with gbk header", utf8Page(""), "text/html; charset=gbk", "", "utf-8", SourceBytes},
		{"gbk bytes declared utf-8", gbkPage(metaUTF8), "", "", "gb18030", SourceBytes},
		{"gbk bytes utf-8 header", gbkPage(""), "text/html; charset=utf-8", "", "gb18030", SourceBytes},
		{"gbk undeclared", gbkPage(""), "text/html", "", "gb18030", SourceSniff},
		{"utf-8 undeclared", utf8Page(""), "", "", "utf-8", SourceSniff},
		{"utf-8 declared", utf8Page(metaUTF8), "", "", "utf-8", SourceMeta},
		{"latin1 label on utf-8", utf8Page(`<meta charset="iso-8859-1">`), "", "", "utf-8", SourceBytes},
		{"override", encodeWith(t, traditionalchinese.Big5, "<html><head><title>標題</title></head><body><p>中華民國</p></body></html>"), "text/html; charset=utf-8", "big5", "big5", SourceOverride},
		{"override gb2312", gbkPage(metaUTF8), "", "GB2312", "gb18030", SourceOverride},
		{"bom utf-8", append([]byte{0xef, 0xbb, 0xbf}, utf8Page(metaGB)...), "text/html; charset=gbk", "", "utf-8", SourceBOM},
		{"bom utf-16le", encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), page("", article)), "", "", "utf-16le", SourceBOM},
		{"utf-16le without bom, header", encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), page("", article)), "text/html; charset=utf-16le", "", "utf-16le", SourceBytes},
		{"utf-16le without bom, meta utf-16", encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), page(`<meta charset="utf-16">`, article)), "", "", "utf-16le", SourceBytes},
		{"utf-16le without bom, gbk header", encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), page("", article)), "text/html; charset=gbk", "", "utf-16le", SourceBytes},
		{"utf-16le without bom, mostly Chinese", encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), page(`<meta charset="utf-16">`, strings.Repeat(article, 20))), "", "", "utf-16le", SourceBytes},
		{"utf-16be without bom, undeclared", encodeWith(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), page("", article)), "", "", "utf-16be", SourceBytes},
		{"utf-8 with NUL bytes", []byte(page(metaUTF8, strings.Repeat("\x00"+article, 3))), "", "", "utf-8", SourceMeta},
		{"conflicting metas, gbk bytes", gbkPage(metaUTF8 + metaGB), "", "", "gb18030", SourceMeta},
		{"conflicting metas, utf-8 bytes", utf8Page(metaGB + metaUTF8), "", "", "utf-8", SourceMeta},
		{"big5 undeclared", encodeWith(t, traditionalchinese.Big5, "<html><body><p>"+strings.Repeat("臺灣的報紙與電視節目。", 5)+"</p></body></html>"), "", "", "big5", SourceSniff},
		{"gb18030 four-byte", encodeWith(t, simplifiedchinese.GB18030, page(`<meta charset="gb18030">`, "𠀀𠀁"+article)), "", "", "gb18030", SourceMeta},
		{"meta after prescan window", append(gbkPage(""), []byte(strings.Repeat(" ", PrescanLimit)+metaUTF8)...), "", "", "gb18030", SourceSniff},
		{"ascii only", []byte("<html><head>" + metaGB + "</head><body>plain ascii</body></html>"), "", "", "gb18030", SourceMeta},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode(tt.body, tt.contentType, tt.override)
			if err != nil {
				t.Fatal(err)
			}
			if r.Charset != tt.charset || r.Source != tt.source {
				t.Fatalf("charset %s via %s (declared %q), want %s via %s", r.Charset, r.Source, r.Declared, tt.charset, tt.source)
			}
			if !utf8.Valid(r.Body) {
				t.Fatal("output is not valid UTF-8")
			}
			if bytes.HasPrefix(r.Body, []byte{0xef, 0xbb, 0xbf}) {
				t.Fatal("BOM kept")
			}
			if strings.Contains(tt.name, "big5") || tt.name == "override" || tt.name == "ascii only" {
				return
			}
			if !bytes.Contains(r.Body, []byte("标题")) {
				t.Fatalf("title not readable in %q", r.Body)
			}
			if r.Replacements != 0 {
				t.Fatalf("%d replacements", r.Replacements)
			}
		})
	}
}

func TestDecodeInvalidGBKIsReplacedAndCounted(t *testing.T) {
	body := encodeWith(t, simplifiedchinese.GBK, page(`<meta charset="gbk">`, article))
	// Truncated and invalid double-byte sequences in the middle.
	bad := append(append(append([]byte{}, body[:len(body)/2]...), 0x81, 0x20, 0xff, 0xfe, 0x80), body[len(body)/2:]...)
	r, err := Decode(bad, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Charset != "gb18030" {
		t.Fatalf("charset %s", r.Charset)
	}
	if r.Replacements == 0 || !utf8.Valid(r.Body) {
		t.Fatalf("replacements %d, valid %v", r.Replacements, utf8.Valid(r.Body))
	}
}

func TestDecodeInvalidUTF8DeclaredUTF8(t *testing.T) {
	// Mostly UTF-8 with stray Latin-1 bytes: not clean GB18030 either.
	body := []byte(page(`<meta charset="utf-8">`, "caf\xe9 "+article+" na\xefve"))
	r, err := Decode(body, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Charset != "utf-8" || r.Replacements != 2 || !utf8.Valid(r.Body) {
		t.Fatalf("charset %s, %d replacements", r.Charset, r.Replacements)
	}
}

func TestUnknownOverride(t *testing.T) {
	_, _, err := ToUTF8([]byte("<p>x</p>"), "", "no-such-charset")
	if !errors.Is(err, ErrUnknownOverride) {
		t.Fatalf("err = %v", err)
	}
}

func TestLookup(t *testing.T) {
	for label, want := range map[string]string{"gb2312": "gb18030", "GBK": "gb18030", "GB-18030": "gb18030", "utf8": "utf-8", "big5": "big5", "latin1": "windows-1252", "x-nope": ""} {
		if got := Lookup(label); got != want {
			t.Errorf("Lookup(%q) = %q, want %q", label, got, want)
		}
	}
}

func TestMetaCharsets(t *testing.T) {
	b := []byte(`<html><head><META HTTP-EQUIV="content-type" CONTENT="text/html; CHARSET='gbk'"><meta charset=" utf-8 "><meta name="x" content="charset=big5"></head>`)
	got := MetaCharsets(b)
	if strings.Join(got, ",") != "gbk,utf-8" {
		t.Fatalf("got %q", got)
	}
}

func FuzzToUTF8(f *testing.F) {
	f.Add([]byte(page(`<meta charset="gb2312">`, article)), "", "")
	f.Add(encodeWith(f, simplifiedchinese.GBK, page(`<meta charset="utf-8">`, article)), "text/html", "")
	f.Add([]byte{0xef, 0xbb, 0xbf, 0xff, 0xfe}, "text/html; charset=gbk", "")
	f.Add([]byte{0xfe, 0xff, 0x00}, "", "")
	f.Add([]byte("\x81\x30\x81"), "text/html; charset=gb18030", "")
	f.Add([]byte("<meta charset=utf-16><p>x"), "", "big5")
	f.Fuzz(func(t *testing.T, body []byte, contentType, override string) {
		out, label, err := ToUTF8(body, contentType, override)
		if err != nil {
			if !errors.Is(err, ErrUnknownOverride) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if label == "" {
			t.Fatal("empty label")
		}
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 output for %q", body)
		}
	})
}

// Lower-casing non-ASCII text changes its length (İ, the Kelvin sign,
// invalid bytes): charset parameters must be found without it.
func TestCharsetParamWithNonASCII(t *testing.T) {
	for _, tc := range []struct{ ct, want string }{
		{"text/html; \x9cChArset=", ""},
		{"text/html; İİİ; charset=gbk;", "gbk"},
		{"text/html; \u212a\u212a; CHARSET=utf-8;", "utf-8"},
	} {
		if got := headerCharset(tc.ct); got != tc.want {
			t.Errorf("headerCharset(%q) = %q, want %q", tc.ct, got, tc.want)
		}
	}
	for _, tc := range []struct{ content, want string }{
		{"text/html; İİİ charset=gb2312", "gb2312"},
		{"\u212a\u212a\u212a; Charset = 'GBK'", "GBK"},
		{"\xff\xfe charset", ""},
	} {
		if got := charsetFromContent(tc.content); got != tc.want {
			t.Errorf("charsetFromContent(%q) = %q, want %q", tc.content, got, tc.want)
		}
	}
}

// TestDecodeDamagedUTF8: UTF-8 bytes with a few invalid sequences stay
// UTF-8 (U+FFFD at the bad bytes) whatever the declaration; before, one bad
// byte sent the page to GB18030 and stored mojibake.
func TestDecodeDamagedUTF8(t *testing.T) {
	body := article + "第二段：" + article
	for _, tc := range []struct {
		name, page, contentType string
		charset, source         string
		replacements            int
	}{
		{"undeclared, one invalid byte", page("", article+"\xff"+body), "", "utf-8", SourceSniff, 1},
		{"undeclared, a cut character", page("", article+"\xe6\x96"+body), "", "utf-8", SourceSniff, 2},
		{"undeclared, a Latin-1 byte", page("", article+" caf\xe9 "+body), "text/html", "utf-8", SourceSniff, 1},
		{"utf-8 header, one invalid byte", page("", article+"\xff"+body), "text/html; charset=utf-8", "utf-8", SourceHeader, 1},
		{"utf-8 meta, one invalid byte", page(`<meta charset="utf-8">`, article+"\xc0"+body), "", "utf-8", SourceMeta, 1},
		{"gb2312 meta, utf-8 bytes with one invalid byte", page(`<meta charset="gb2312">`, article+"\xff"+body), "", "utf-8", SourceBytes, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Decode([]byte(tc.page), tc.contentType, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Charset != tc.charset || r.Source != tc.source || r.Replacements != tc.replacements {
				t.Fatalf("charset %s via %s, %d replacements; want %s via %s, %d", r.Charset, r.Source, r.Replacements, tc.charset, tc.source, tc.replacements)
			}
			if !bytes.Contains(r.Body, []byte(article)) || !bytes.Contains(r.Body, []byte("\uFFFD")) {
				t.Fatalf("text not decoded as UTF-8 with U+FFFD: %q", r.Body)
			}
		})
	}
	t.Run("gbk undeclared with invalid bytes stays gb18030", func(t *testing.T) {
		b := encodeWith(t, simplifiedchinese.GBK, page("", body))
		b = append(append(append([]byte{}, b[:len(b)/2]...), 0x81, 0x20), b[len(b)/2:]...)
		r, err := Decode(b, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Charset != "gb18030" || !bytes.Contains(r.Body, []byte("标题")) {
			t.Fatalf("charset %s", r.Charset)
		}
	})
}

// TestLegacyPagesAreNotMostlyUTF8 checks the margin of maxUTF8InvalidRatio
// on real pages: no page of the reprint web that is not valid UTF-8 (GBK,
// GB18030, Big5 portal pages) passes for damaged UTF-8.
func TestLegacyPagesAreNotMostlyUTF8(t *testing.T) {
	root := devdatatest.Path(t, "bench", "dev", "sites")
	n, maxRatio := 0, 0.0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if utf8.Valid(b) {
			return nil
		}
		n++
		if valid, _ := utf8Stats(b); valid {
			t.Errorf("%s: legacy page taken for damaged UTF-8", p)
		}
		invalid, multi := utf8Counts(b)
		if r := float64(multi) / float64(invalid); r > maxRatio {
			maxRatio = r
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d legacy pages found under %s", n, root)
	}
	t.Logf("%d legacy pages, none taken for UTF-8; at most %.2f valid multibyte characters per invalid sequence (UTF-8 needs %.0f)",
		n, maxRatio, 1/maxUTF8InvalidRatio)
}

// utf8Counts counts the invalid sequences and valid multibyte characters of b.
func utf8Counts(b []byte) (invalid, multi int) {
	for len(b) > 0 {
		c, size := utf8.DecodeRune(b)
		switch {
		case c == utf8.RuneError && size <= 1:
			invalid++
		case size > 1:
			multi++
		}
		b = b[max(size, 1):]
	}
	return invalid, multi
}
