package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Console is a command's stderr, shared by its log records and the lines
// it prints besides them (start-up status, progress, warnings, the final
// error), so that neither cuts into the other. Log records are written
// whole through Records. Lines are written through the Console itself:
//
//   - in text format as they come, but a record that arrives while a line
//     is unfinished ("loading segmenter dictionary… ", completed later)
//     starts on a line of its own;
//   - in JSON format each complete line becomes one JSON object in the
//     shape of slog's JSONHandler ({"time","level","msg"}): level WARN for
//     a line that starts with "warning:", ERROR for Error, INFO otherwise;
//     an unfinished line waits for its end, so a record is never glued to
//     it. A line that is already a JSON object passes as it is.
//
// Every line on a JSON Console's output is thus one JSON object.
type Console struct {
	mu      sync.Mutex
	w       io.Writer
	json    bool
	open    bool   // text: the last byte written was not a newline
	pending []byte // json: an unfinished line
	lines   *slog.Logger
	now     func() time.Time
}

// NewConsole returns a Console writing to w in format (FormatText or
// FormatJSON; anything else is text).
func NewConsole(w io.Writer, format string) *Console {
	c := &Console{w: w, json: format == FormatJSON, now: time.Now}
	c.lines = slog.New(slog.NewJSONHandler(lockedWriter{c}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return c
}

// JSON reports whether the console writes JSON objects.
func (c *Console) JSON() bool { return c.json }

// Format is the console's format, FormatText or FormatJSON.
func (c *Console) Format() string {
	if c.json {
		return FormatJSON
	}
	return FormatText
}

// Write writes lines (see Console).
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.json {
		if len(p) > 0 {
			c.open = p[len(p)-1] != '\n'
		}
		return c.w.Write(p)
	}
	c.pending = append(c.pending, p...)
	for {
		i := bytes.IndexByte(c.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(c.pending[:i])
		c.pending = c.pending[i+1:]
		if err := c.writeLine(slog.LevelInfo, line); err != nil {
			return len(p), err
		}
	}
}

// Error writes msg as an error line (level ERROR in JSON).
func (c *Console) Error(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.json {
		c.breakLine()
		io.WriteString(c.w, msg+"\n") //nolint:errcheck // stderr: nowhere to report
		return
	}
	for l := range strings.SplitSeq(strings.TrimRight(msg, "\n"), "\n") {
		c.writeLine(slog.LevelError, l) //nolint:errcheck // as above
	}
}

// Flush writes an unfinished JSON line, if any.
func (c *Console) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.json && len(c.pending) > 0 {
		line := string(c.pending)
		c.pending = nil
		c.writeLine(slog.LevelInfo, line) //nolint:errcheck // stderr
	}
}

// Records returns the writer for a log handler: each Write is one whole
// record.
func (c *Console) Records() io.Writer { return recordWriter{c} }

// writeLine writes one line as a JSON object; c.mu is held.
func (c *Console) writeLine(level slog.Level, line string) error {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return nil
	}
	if t := strings.TrimSpace(line); strings.HasPrefix(t, "{") && jsonObject(t) {
		_, err := io.WriteString(c.w, t+"\n")
		return err
	}
	if level == slog.LevelInfo && strings.HasPrefix(strings.TrimSpace(line), "warning:") {
		level = slog.LevelWarn
	}
	r := slog.NewRecord(c.now(), level, strings.TrimSpace(line), 0)
	return c.lines.Handler().Handle(context.Background(), r)
}

// breakLine ends an unfinished text line; c.mu is held.
func (c *Console) breakLine() {
	if c.open {
		io.WriteString(c.w, "\n") //nolint:errcheck // stderr
		c.open = false
	}
}

// recordWriter writes log records to a Console.
type recordWriter struct{ c *Console }

func (r recordWriter) Write(p []byte) (int, error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.breakLine()
	return r.c.w.Write(p)
}

// lockedWriter is the output of the Console's own JSON handler, called
// with c.mu held.
type lockedWriter struct{ c *Console }

func (l lockedWriter) Write(p []byte) (int, error) { return l.c.w.Write(p) }

// jsonObject reports whether s is one JSON object.
func jsonObject(s string) bool {
	var v map[string]any
	return json.Unmarshal([]byte(s), &v) == nil
}
