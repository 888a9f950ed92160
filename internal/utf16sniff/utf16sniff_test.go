package utf16sniff

import (
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

func encode(t *testing.T, s string, order unicode.Endianness) []byte {
	t.Helper()
	b, err := unicode.UTF16(order, unicode.IgnoreBOM).NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestByZeros(t *testing.T) {
	page := `<html><head><meta charset="utf-16"><title>新闻</title></head><body><p>北京时间今天上午，新闻发布会在人民大会堂举行。</p></body></html>`
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		body   []byte
		ok     bool
		endian unicode.Endianness
	}{
		{"little_endian", encode(t, page, unicode.LittleEndian), true, unicode.LittleEndian},
		{"big_endian", encode(t, page, unicode.BigEndian), true, unicode.BigEndian},
		{"utf8", []byte(page), false, unicode.LittleEndian},
		{"gbk", gbk, false, unicode.LittleEndian},
		{"too_short", encode(t, "<p>", unicode.LittleEndian), false, unicode.LittleEndian},
		{"chinese_only_utf16", encode(t, "新闻发布会在人民大会堂举行新闻发布会在人民大会堂举行", unicode.LittleEndian), false, unicode.LittleEndian},
		{"nul_bytes_in_utf8", append([]byte(page), make([]byte, 64)...), false, unicode.LittleEndian},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := ByZeros(tc.body)
			if ok != tc.ok || ok && e != tc.endian {
				t.Errorf("ByZeros = %v, %v; want %v, %v", e, ok, tc.endian, tc.ok)
			}
		})
	}
}
