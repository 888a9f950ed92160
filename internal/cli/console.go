package cli

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/newsdedup/newscrawl/internal/logging"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/progress"
)

// logFormatOf is the --log-format a command line asks for ("" when none),
// read before the command parses its flags so that every line Main
// writes to stderr (signal notices, the final error) is in that format.
func logFormatOf(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "log-format" {
			continue
		}
		if !hasVal && i+1 < len(args) {
			val = args[i+1]
		}
		return val
	}
	return ""
}

// consoleOf is the logging.Console behind a command's stderr, or nil.
func consoleOf(w io.Writer) *logging.Console {
	if h, ok := w.(helpOut); ok {
		w = h.Writer
	}
	c, _ := w.(*logging.Console)
	return c
}

// recordsOf is the writer a command's log handler writes to: the
// console's record writer, or w itself.
func recordsOf(w io.Writer) io.Writer {
	if c := consoleOf(w); c != nil {
		return c.Records()
	}
	return w
}

// printError writes a command's final error line: an ERROR object on a
// JSON console.
func printError(w io.Writer, msg string) {
	if c := consoleOf(w); c != nil {
		c.Error(msg)
		return
	}
	fmt.Fprintln(w, msg)
}

// progressTo prints progress lines on w; on a JSON console each progress
// report is one object with the counts as fields.
func progressTo(w io.Writer) func(p pipeline.Progress) {
	if c := consoleOf(w); c != nil && c.JSON() {
		log := slog.New(slog.NewJSONHandler(c.Records(), nil))
		return func(p pipeline.Progress) { logProgress(log, p) }
	}
	var m progress.Meter
	return func(p pipeline.Progress) { fmt.Fprintln(w, m.Line(p.Snapshot, p.Queue)) }
}

// logProgress logs one progress report with the outcome counts of the
// summary (internal/progress.Counts), in total and per site.
func logProgress(log *slog.Logger, p pipeline.Progress) {
	attrs := func(c progress.Counts, queue int, known bool) []any {
		a := []any{"pages", c.Pages, "stored", c.Stored, "duplicates", c.Duplicates, "not_article", c.NotArticle, "errors", c.Errors, "gone", c.Gone}
		if known {
			a = append(a, "queue", queue)
		}
		return a
	}
	total := 0
	for _, n := range p.Queue {
		total += n
	}
	args := append([]any{"elapsed_s", p.Snapshot.Elapsed.Seconds()}, attrs(progress.CountsOf(p.Snapshot.Total), total, p.Queue != nil)...)
	if len(p.Snapshot.Sites) > 1 {
		var sites []any
		for _, s := range p.Snapshot.Sites {
			sites = append(sites, slog.Group(s.Name, attrs(progress.CountsOf(s), p.Queue[s.Name], p.Queue != nil)...))
		}
		args = append(args, slog.Group("sites", sites...))
	}
	log.Info("progress", args...)
}
