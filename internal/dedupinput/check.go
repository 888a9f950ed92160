package dedupinput

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// CheckLine reports what encoding/json would accept in a line but change
// without a word: bytes that are not UTF-8 and escapes of lone UTF-16
// surrogates ("\ud800"), both decoded as U+FFFD, and a key given twice
// (keys compared as encoding/json matches them to fields, case folded), of
// which only the last value would be kept. keys are the keys of the
// record; others are left to the decoder's unknown-key check. A line that
// is not a JSON object is left to the decoder too (nil is returned).
func CheckLine(b []byte, keys ...string) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("not valid UTF-8 at byte %d", invalidAt(b))
	}
	if err := checkSurrogates(b); err != nil {
		return err
	}
	return checkRepeatedKeys(b, keys)
}

// invalidAt is the 1-based offset of the first byte that is not UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i + 1
		}
		i += n
	}
	return len(b)
}

// checkSurrogates finds a \uD800-\uDFFF escape that is not half of a
// surrogate pair. Backslashes occur only inside strings of valid JSON, so
// the escapes are found without tracking strings (invalid JSON is the
// decoder's to report).
func checkSurrogates(b []byte) error {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 || i+j+1 >= len(b) {
			return nil
		}
		i += j
		if b[i+1] != 'u' {
			i += 2 // \\ \" \n ...: the escaped byte is not an escape's start
			continue
		}
		r, ok := hex4(b[i+2:])
		if !ok {
			return nil // the decoder reports it
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := rune(0), false
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				lo, ok = hex4(b[i+8:])
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Errorf("escape %s at byte %d is half a UTF-16 surrogate pair", b[i:i+6], i+1)
			}
			i += 12
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Errorf("escape %s at byte %d is half a UTF-16 surrogate pair", b[i:i+6], i+1)
		default:
			i += 6
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkRepeatedKeys walks the keys of the top-level object (decoded, so
// "\u0074ext" is "text").
func checkRepeatedKeys(b []byte, keys []string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	seen := make(map[string]string, len(keys))
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		if err := noRepeat(seen, k, keys); err != nil {
			return err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// UnknownKey returns the first key of the top-level object b that is none
// of known (compared case folded, as encoding/json matches keys to fields)
// and true; false when every key is known or b is not a JSON object (which
// the decoder reports).
func UnknownKey(b []byte, known []string) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := t.(string)
		if !slices.ContainsFunc(known, func(w string) bool { return strings.EqualFold(k, w) }) {
			return k, true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// CheckLineKeys is CheckLine(b, keys...) and UnknownKey(b, known) in one
// walk of the line's keys: err is CheckLine's error, and when there is
// none, unknown and hasUnknown are what UnknownKey returns. Each walk
// decodes every value of the line; an import reads its lines with this
// one walk instead of two.
func CheckLineKeys(b []byte, keys, known []string) (unknown string, hasUnknown bool, err error) {
	if !utf8.Valid(b) {
		return "", false, fmt.Errorf("not valid UTF-8 at byte %d", invalidAt(b))
	}
	if err := checkSurrogates(b); err != nil {
		return "", false, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false, nil
	}
	seen := make(map[string]string, len(keys))
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		if !hasUnknown && !slices.ContainsFunc(known, func(w string) bool { return strings.EqualFold(k, w) }) {
			unknown, hasUnknown = k, true
		}
		if err := noRepeat(seen, k, keys); err != nil {
			return "", false, err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
	}
	return unknown, hasUnknown, nil
}

// noRepeat notes key k among keys (case folded) in seen and reports a key
// seen before.
func noRepeat(seen map[string]string, k string, keys []string) error {
	for _, want := range keys {
		if !strings.EqualFold(k, want) {
			continue
		}
		if first, ok := seen[want]; ok {
			if first == k {
				return fmt.Errorf("key %q given twice (only the last would be kept)", k)
			}
			return fmt.Errorf("keys %q and %q both set %q (only the last would be kept)", first, k, want)
		}
		seen[want] = k
	}
	return nil
}
