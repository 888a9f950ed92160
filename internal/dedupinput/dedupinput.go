// Package dedupinput reads the input of offline dedup: JSON lines of
// {"id", "title", "text"}, or the JSON lines newscrawl's own export writes
// (internal/export.Record: its "url" is the id when there is no "id", its
// other keys are known and ignored). Reading is strict, because a silently empty
// document would be "kept" and reported as a clean result: a line without
// "text", with a key it does not know or given twice, without an id,
// repeating an earlier id (a string id by its value, however escaped), or
// with bytes that are not UTF-8 or an escaped lone surrogate (which
// encoding/json would turn into U+FFFD) is an error naming the line. A
// UTF-8 byte order mark at the start of the file is accepted, as are
// blank lines.
package dedupinput

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/export"
)

// MaxLine is the longest line accepted (bytes).
const MaxLine = 64 << 20

// Doc is one input document. ID is the raw JSON of the id (any JSON value
// but null), echoed back in the output.
type Doc struct {
	ID    json.RawMessage
	Title string
	Text  string
	Line  int // 1-based line number in the input
}

type line struct {
	ID    json.RawMessage `json:"id"`
	URL   *string         `json:"url"` // the id of an export's record
	Title *string         `json:"title"`
	Text  *string         `json:"text"`
}

// ownKeys are the keys of the dedup input itself.
var ownKeys = []string{"id", "title", "text"}

// KnownKeys are the keys a line may have: the dedup input's and those of
// newscrawl's export, of which only url (the id when "id" is absent),
// title and text are used.
func KnownKeys() []string {
	return append(append([]string(nil), ownKeys...), export.Columns...)
}

// Reader reads the documents of a JSONL input one line at a time, with the
// checks of the package comment, so that a streaming caller holds one line. To find
// repeated ids it keeps every id seen (compacted JSON and line number).
type Reader struct {
	sc   *bufio.Scanner
	name string
	n    int // lines read
	seen map[string]int
	err  error // sticky: the first error, or io.EOF
	// Lenient, when set before the first Next, ignores keys that are not
	// KnownKeys instead of failing on them.
	Lenient bool
}

// NewReader returns a Reader of r; name prefixes error messages
// ("name:line: ...").
func NewReader(r io.Reader, name string) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), MaxLine)
	return &Reader{sc: sc, name: name, seen: map[string]int{}}
}

// Next returns the next document, or io.EOF after the last one. After an
// error every call returns that error.
func (r *Reader) Next() (Doc, error) {
	if r.err != nil {
		return Doc{}, r.err
	}
	d, err := r.next()
	if err != nil {
		r.err = err
	}
	return d, err
}

func (r *Reader) next() (Doc, error) {
	name := r.name
	for r.sc.Scan() {
		r.n++
		n := r.n
		b := r.sc.Bytes()
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if err := CheckLine(b, "id", "url", "title", "text"); err != nil {
			return Doc{}, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if k, ok := UnknownKey(b, KnownKeys()); ok && !r.Lenient {
			return Doc{}, fmt.Errorf("%s:%d: unknown key %q (allowed: id, title, text, or the keys of a newscrawl export; lenient reading ignores unknown keys)", name, n, k)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		var l line
		if err := dec.Decode(&l); err != nil {
			return Doc{}, fmt.Errorf("%s:%d: %w", name, n, describe(err))
		}
		if dec.More() {
			return Doc{}, fmt.Errorf("%s:%d: more than one JSON value on the line", name, n)
		}
		if (len(l.ID) == 0 || string(l.ID) == "null") && l.URL != nil && *l.URL != "" {
			l.ID, _ = json.Marshal(*l.URL) // a string always marshals
		}
		if len(l.ID) == 0 || string(l.ID) == "null" {
			return Doc{}, fmt.Errorf("%s:%d: missing \"id\"", name, n)
		}
		if l.Text == nil {
			return Doc{}, fmt.Errorf("%s:%d: missing \"text\"", name, n)
		}
		var key bytes.Buffer
		if err := json.Compact(&key, l.ID); err != nil {
			return Doc{}, fmt.Errorf("%s:%d: id: %w", name, n, err)
		}
		seenKey := idKey(key.Bytes())
		if first, ok := r.seen[seenKey]; ok {
			return Doc{}, fmt.Errorf("%s:%d: id %s repeats line %d", name, n, key.String(), first)
		}
		r.seen[seenKey] = n
		d := Doc{ID: json.RawMessage(key.Bytes()), Text: *l.Text, Line: n}
		if l.Title != nil {
			d.Title = *l.Title
		}
		return d, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Doc{}, fmt.Errorf("%s:%d: line longer than %d MiB", name, r.n+1, MaxLine>>20)
		}
		return Doc{}, fmt.Errorf("%s:%d: %w", name, r.n+1, err)
	}
	return Doc{}, io.EOF
}

// idKey is the form of a compacted id under which repeats are found: a
// string id by its value, so "a" and "\u0061" are one id; other values as
// written.
func idKey(id []byte) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		b, err := json.Marshal(s)
		if err == nil {
			return string(b)
		}
	}
	return string(id)
}

// describe turns encoding/json's messages into ones that name the key.
func describe(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("key %q: want a %s, got %s", te.Field, te.Type, te.Value)
	}
	return err
}
