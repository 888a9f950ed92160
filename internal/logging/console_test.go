package logging_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/logging"
)

// TestConsole: a status text written without its newline, a log record
// arriving meanwhile, then the rest of the line: the record never shares
// a line with the status text, and in JSON every output line is one
// object with the level its text implies.
func TestConsole(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   []string // output lines, in order
	}{
		{logging.FormatText, []string{"loading… ", `level=INFO msg="index rebuilt"`, "ready in 0.1s", "warning: index full", "newscrawl crawl: failed"}},
		{logging.FormatJSON, []string{`"level":"INFO","msg":"index rebuilt"`, `"level":"INFO","msg":"loading… ready in 0.1s"`, `"level":"WARN","msg":"warning: index full"`, `{"a":1}`, `"level":"ERROR","msg":"newscrawl crawl: failed"`}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			c := logging.NewConsole(&b, tc.format)
			log, err := logging.New(c.Records(), 1, tc.format)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprint(c, "loading… ")
			log.Info("index rebuilt")
			fmt.Fprint(c, "ready in 0.1s\nwarning: index ")
			fmt.Fprint(c, "full\n")
			if tc.format == logging.FormatJSON {
				fmt.Fprintln(c, `{"a":1}`)
			}
			c.Error("newscrawl crawl: failed")
			c.Flush()
			lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), b.String())
			}
			for i, l := range lines {
				if !strings.Contains(l, tc.want[i]) {
					t.Errorf("line %d %q lacks %q", i+1, l, tc.want[i])
				}
				if tc.format == logging.FormatJSON && !json.Valid([]byte(l)) {
					t.Errorf("line %d is not JSON: %q", i+1, l)
				}
			}
		})
	}
}

// TestConsoleFlush: an unfinished JSON line is written at Flush.
func TestConsoleFlush(t *testing.T) {
	var b bytes.Buffer
	c := logging.NewConsole(&b, logging.FormatJSON)
	fmt.Fprint(c, "loading… ")
	if b.Len() != 0 {
		t.Fatalf("unfinished line written: %q", b.String())
	}
	c.Flush()
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["msg"] != "loading…" || m["level"] != slog.LevelInfo.String() {
		t.Errorf("%q: %v", b.String(), err)
	}
}
