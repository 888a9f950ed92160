package dedupinput

import (
	"fmt"
	"testing"
)

var (
	checkOwn   = []string{"url", "title", "text"}
	checkKnown = []string{"url", "title", "text", "id"}
)

// checkTwice is the reference for CheckLineKeys: CheckLine, then
// UnknownKey.
func checkTwice(b []byte) (string, bool, error) {
	if err := CheckLine(b, checkOwn...); err != nil {
		return "", false, err
	}
	k, ok := UnknownKey(b, checkKnown)
	return k, ok, nil
}

func sameCheck(t *testing.T, line string) {
	t.Helper()
	k, ok, err := CheckLineKeys([]byte(line), checkOwn, checkKnown)
	wk, wok, werr := checkTwice([]byte(line))
	if k != wk || ok != wok || fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Errorf("CheckLineKeys(%q) = %q, %v, %v; CheckLine and UnknownKey: %q, %v, %v", line, k, ok, err, wk, wok, werr)
	}
}

// TestCheckLineKeys: the one walk reports what CheckLine and UnknownKey
// report one after the other.
func TestCheckLineKeys(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"plain", `{"url":"u","title":"t","text":"正文"}`},
		{"unknown key", `{"url":"u","body":"x","text":"t"}`},
		{"empty key", `{"url":"u","":1}`},
		{"unknown before repeated", `{"x":1,"url":"u","URL":"v"}`},
		{"repeated", `{"text":"a","text":"b"}`},
		{"escaped key repeated", `{"text":"a","\u0074ext":"b"}`},
		{"lone surrogate", `{"text":"\ud800"}`},
		{"not UTF-8", "{\"text\":\"\xff\"}"},
		{"not an object", `["url"]`},
		{"broken after unknown", `{"x":1,"url":`},
		{"broken", `{"url":"u",`},
		{"nested repeated is fine", `{"id":{"text":1,"text":2},"text":"t"}`},
	} {
		t.Run(tc.name, func(t *testing.T) { sameCheck(t, tc.line) })
	}
}

func FuzzCheckLineKeys(f *testing.F) {
	f.Add(`{"url":"u","title":"t","text":"正文"}`)
	f.Add(`{"x":1,"url":"u","URL":"v"}`)
	f.Add(`{"text":"a","\u0074ext":"b"}`)
	f.Fuzz(sameCheck)
}
