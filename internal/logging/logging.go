// Package logging builds the program's log/slog logger from the command
// line: verbosity (-v, -vv) and format (text for people, json for log
// shippers).
//
// Levels: by default only warnings and errors; -v (Verbose) adds one line
// per decided URL (stored, duplicate with the URL it duplicates, the
// reason and Jaccard, not_article with why) and per skipped or failed URL
// with its reason (slog.LevelInfo); -vv (VeryVerbose) adds every fetch
// (slog.LevelDebug). A Console keeps the command's other stderr lines
// apart from the records, and in JSON makes each of them a JSON object.
package logging

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// Verbosity levels.
const (
	Quiet       = 0
	Verbose     = 1
	VeryVerbose = 2
)

// Formats.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// Level is the slog level of a verbosity.
func Level(verbosity int) slog.Level {
	switch {
	case verbosity >= VeryVerbose:
		return slog.LevelDebug
	case verbosity == Verbose:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// New returns a logger writing to w at the level of verbosity in format
// ("text" or "json").
func New(w io.Writer, verbosity int, format string) (*slog.Logger, error) {
	if verbosity < 0 {
		return nil, fmt.Errorf("verbosity %d < 0", verbosity)
	}
	opts := &slog.HandlerOptions{Level: Level(verbosity)}
	switch format {
	case FormatText, "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case FormatJSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// Flags are the logging flags of a command.
type Flags struct {
	Verbosity int
	Format    string
}

// AddFlags registers -v (repeatable: -v -v is -vv), -vv and -log-format on
// fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{Format: FormatText}
	fs.BoolFunc("v", "verbose: log one line per decided URL (stored; duplicate with the URL, reason and Jaccard; not_article with why) and per skipped or failed URL", func(string) error {
		f.Verbosity++
		return nil
	})
	fs.BoolFunc("vv", "very verbose: -v plus one line per fetch", func(string) error {
		f.Verbosity += 2
		return nil
	})
	fs.StringVar(&f.Format, "log-format", FormatText, "log format: text or json (json: every line on stderr is one JSON object, progress and status lines too)")
	return f
}

// Logger returns the logger the flags ask for, writing to w.
func (f *Flags) Logger(w io.Writer) (*slog.Logger, error) { return New(w, f.Verbosity, f.Format) }
