package dedupinput_test

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/dedupinput"
)

func TestReadJSONL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		ids     []string
		wantErr string
	}{
		{"ok", `{"id":1,"title":"t","text":"a"}` + "\n\n" + `{"id":"x","text":""}`, []string{"1", `"x"`}, ""},
		{"bom", "\xef\xbb\xbf" + `{"id":1,"text":"a"}`, []string{"1"}, ""},
		{"crlf", `{"id":1,"text":"a"}` + "\r\n" + `{"id":2,"text":"b"}` + "\r\n", []string{"1", "2"}, ""},
		{"missing text", `{"id":1,"text":"a"}` + "\n" + `{"id":2,"title":"t"}`, nil, `in.jsonl:2: missing "text"`},
		{"unknown key", `{"id":1,"text":"a","body":"b"}`, nil, `in.jsonl:1: unknown key "body"`},
		{"missing id", `{"text":"a"}`, nil, `in.jsonl:1: missing "id"`},
		{"null id", `{"id":null,"text":"a"}`, nil, `in.jsonl:1: missing "id"`},
		{"duplicate id", `{"id":"a","text":"1"}` + "\n" + `{"id": "a","text":"2"}`, nil, `in.jsonl:2: id "a" repeats line 1`},
		{"bad json", `{"id":1,"text":}`, nil, "in.jsonl:1: invalid character"},
		{"text not string", `{"id":1,"text":5}`, nil, `in.jsonl:1: key "text": want a string, got number`},
		{"two values", `{"id":1,"text":"a"} {"id":2,"text":"b"}`, nil, "in.jsonl:1: more than one JSON value"},
		{"text given twice", `{"id":1,"text":"a","text":"b"}`, nil, `in.jsonl:1: key "text" given twice`},
		{"text given twice, other case", `{"id":1,"text":"a","Text":"b"}`, nil, `in.jsonl:1: keys "text" and "Text" both set "text"`},
		{"text given twice, escaped", `{"id":1,"text":"a","\u0074ext":"b"}`, nil, `in.jsonl:1: key "text" given twice`},
		{"id given twice", `{"id":1,"id":2,"text":"a"}`, nil, `in.jsonl:1: key "id" given twice`},
		{"nested keys may repeat", `{"id":{"k":1,"k":2},"text":"a"}`, []string{`{"k":1,"k":2}`}, ""},
		{"invalid UTF-8 in text", "{\"id\":1,\"text\":\"a\xff\xfeb\"}", nil, "in.jsonl:1: not valid UTF-8 at byte 18"},
		{"invalid UTF-8 in id", "{\"id\":\"\xc3\",\"text\":\"a\"}", nil, "in.jsonl:1: not valid UTF-8"},
		{"lone high surrogate", `{"id":1,"text":"a\ud83db"}`, nil, `in.jsonl:1: escape \ud83d at byte 18 is half a UTF-16 surrogate pair`},
		{"lone low surrogate", `{"id":1,"text":"\uDC00"}`, nil, "half a UTF-16 surrogate pair"},
		{"surrogate pair", `{"id":1,"text":"\ud83d\ude00 \\ud800"}`, []string{"1"}, ""},
		{"escaped backslash before u", `{"id":1,"text":"\\udc00"}`, []string{"1"}, ""},
		{"id repeated with an escape", `{"id":"a","text":"1"}` + "\n" + `{"id":"\u0061","text":"2"}`, nil, `in.jsonl:2: id "\u0061" repeats line 1`},
		// A line of newscrawl's own export (internal/export.Record): its
		// url is the id, its other keys are known.
		{"export line", `{"run_id":3,"url":"https://a.example/1","site":"a","kept":false,"dup_of":"https://a.example/0","cluster":1,"title":"t","text":"x","published_at":null,"source":"","author":"","editor":"","fetched_at":"2026-11-20T08:00:00Z","simhash":"00000000000000ff","distance":2,"jaccard":0.9,"containment":1,"reason":"jaccard","partial_of":null,"own_share":null,"passages":null}`, []string{`"https://a.example/1"`}, ""},
		{"id wins over url", `{"id":7,"url":"u","text":"x"}`, []string{"7"}, ""},
		{"export line without url", `{"run_id":3,"text":"x"}`, nil, `in.jsonl:1: missing "id"`},
		{"url given twice", `{"url":"a","URL":"b","text":"x"}`, nil, `both set "url"`},
		{"bom not at start", `{"id":1,"text":"a"}` + "\n\xef\xbb\xbf" + `{"id":2,"text":"b"}`, nil, "in.jsonl:2: invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := readJSONL(strings.NewReader(tc.in), "in.jsonl")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range docs {
				ids = append(ids, string(d.ID))
			}
			if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
				t.Fatalf("ids %v, want %v", ids, tc.ids)
			}
		})
	}
}

// TestLenient: a lenient reader ignores unknown keys; a strict one names
// the first.
func TestLenient(t *testing.T) {
	in := `{"id":1,"text":"a","body":"b","extra":{"k":1}}`
	for _, tc := range []struct {
		name    string
		lenient bool
		wantErr string
	}{
		{"strict", false, `in.jsonl:1: unknown key "body"`},
		{"lenient", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dedupinput.NewReader(strings.NewReader(in), "in.jsonl")
			r.Lenient = tc.lenient
			d, err := r.Next()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(d.ID) != "1" || d.Text != "a" {
				t.Fatalf("doc %+v, err %v", d, err)
			}
		})
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"id":1,"title":"t","text":"a"}`)
	f.Add("\xef\xbb\xbf{\"id\":\"x\",\"text\":\"\"}\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		docs, err := readJSONL(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, d := range docs {
			if len(d.ID) == 0 || string(d.ID) == "null" || seen[string(d.ID)] {
				t.Fatalf("accepted bad id %q", d.ID)
			}
			seen[string(d.ID)] = true
		}
	})
}

// TestReader: the line-by-line reader returns the documents one at a
// time with their line numbers, then io.EOF; an error is sticky.
func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		lines   []int
		wantErr string
	}{
		{"ok", "\xef\xbb\xbf" + `{"id":1,"text":"a"}` + "\n\n" + `{"id":2,"text":"b"}` + "\n", []int{1, 3}, ""},
		{"empty", "", nil, ""},
		{"error after a document", `{"id":1,"text":"a"}` + "\n" + `{"id":1,"text":"b"}`, []int{1}, `in.jsonl:2: id 1 repeats line 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dedupinput.NewReader(strings.NewReader(tc.in), "in.jsonl")
			var lines []int
			var err error
			for {
				var d dedupinput.Doc
				if d, err = r.Next(); err != nil {
					break
				}
				lines = append(lines, d.Line)
			}
			if !slices.Equal(lines, tc.lines) {
				t.Fatalf("lines %v, want %v", lines, tc.lines)
			}
			if tc.wantErr == "" {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("end: %v, want io.EOF", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			}
			if _, again := r.Next(); again != err {
				t.Fatalf("second call after the end: %v, want %v", again, err)
			}
		})
	}
}

// readJSONL reads every document of r with a Reader; name prefixes error
// messages ("name:line: ...").
func readJSONL(r io.Reader, name string) ([]dedupinput.Doc, error) {
	var docs []dedupinput.Doc
	rd := dedupinput.NewReader(r, name)
	for {
		d, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
}
