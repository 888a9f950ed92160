package segment

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// maxSynonymFileBytes bounds the synonym file read by LoadCilin (the full
// Cilin Extended is 0.8 MB).
const maxSynonymFileBytes = 64 << 20

// LoadCilin reads a HIT Tongyici Cilin (Extended) lexicon and returns the
// synonym map word -> canonical word. Each row is an 8-character code whose
// last character is the flag, then space-separated words:
//
//	Aa01A01= 人 士 人物 人士 人氏 人选
//
// Only '=' rows (synonyms) are used; '#' rows (related, not synonymous) and
// '@' rows (a word with no synonym) are skipped. Every word of a '=' row maps
// to the row's first word, with three rules for Cilin's polysemy:
//   - a word that heads some '=' row is canonical and never mapped, so
//     mappings do not chain;
//   - another word in several '=' rows maps to the head of its first row in
//     file (code) order;
//   - stopwords (isStop; may be nil) are never mapped, and the words of a row
//     headed by a stopword are not mapped either, so that synonym mapping
//     cannot create or remove SpotSigs antecedents.
//
// Words are normalised with Normalize. The input may be UTF-8 or
// GB18030/GBK (the original distribution's encoding).
func LoadCilin(r io.Reader, isStop func(string) bool) (map[string]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSynonymFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSynonymFileBytes {
		return nil, fmt.Errorf("cilin: file larger than %d bytes", maxSynonymFileBytes)
	}
	if !utf8.Valid(data) {
		data, err = simplifiedchinese.GB18030.NewDecoder().Bytes(data)
		if err != nil {
			return nil, fmt.Errorf("cilin: neither UTF-8 nor GB18030: %w", err)
		}
	}
	if isStop == nil {
		isStop = func(string) bool { return false }
	}
	type row struct {
		head  string
		words []string
	}
	var rows []row
	heads := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		code := fields[0]
		if len(code) != 8 || !isCilinCode(code[:7]) {
			return nil, fmt.Errorf("cilin: line %d: bad code %q", line, code)
		}
		switch code[7] {
		case '=':
		case '#', '@':
			continue
		default:
			return nil, fmt.Errorf("cilin: line %d: bad flag %q", line, code[7:])
		}
		if len(fields) < 3 {
			continue
		}
		r := row{head: Normalize(fields[1])}
		for _, w := range fields[2:] {
			if w = Normalize(w); w != "" && w != r.head {
				r.words = append(r.words, w)
			}
		}
		if r.head != "" && !isStop(r.head) {
			heads[r.head] = true
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cilin: %w", err)
	}
	syn := map[string]string{}
	seen := map[string]bool{}
	for _, r := range rows {
		stopRow := r.head == "" || isStop(r.head)
		for _, w := range r.words {
			if seen[w] || heads[w] || isStop(w) {
				continue
			}
			seen[w] = true
			if !stopRow {
				syn[w] = r.head
			}
		}
	}
	return syn, nil
}

// isCilinCode checks the 7-character category code: letter, letter, two
// digits, letter, two digits (e.g. "Aa01A01").
func isCilinCode(c string) bool {
	isU := func(b byte) bool { return b >= 'A' && b <= 'Z' }
	isL := func(b byte) bool { return b >= 'a' && b <= 'z' }
	isD := func(b byte) bool { return b >= '0' && b <= '9' }
	return isU(c[0]) && isL(c[1]) && isD(c[2]) && isD(c[3]) && isU(c[4]) && isD(c[5]) && isD(c[6])
}
