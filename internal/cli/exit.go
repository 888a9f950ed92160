package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage"
)

// Exit codes, decided here and only here.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command failed (storage error, I/O error)
	ExitUsage   = 2 // bad flags or an invalid config file
	ExitLocked  = 3 // another crawl holds the store's lock
	// ExitNothingFetched: the crawl ran to its end but could fetch nothing
	// at all (every host unreachable, every start page failing): an outage,
	// not a success, for cron.
	ExitNothingFetched = 4
	// ExitNoStore: no store this program can use at --db: none yet (a
	// reading command on an empty database or a missing file), or one
	// written by a newer program. Nothing was created or written.
	ExitNoStore = 5
	// ExitIncomplete: the crawl stopped with URLs left in the frontier,
	// at --max-time or because PostgreSQL or Redis stayed unreachable for
	// longer than fleet.outage_limit; the run is interrupted, the next run
	// resumes.
	ExitIncomplete  = 6
	ExitInterrupted = 130 // stopped by SIGINT (128 + 2)
	ExitTerminated  = 143 // stopped by SIGTERM (128 + 15)
)

// usageError marks errors caused by how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// errMaxTime: the crawl reached --max-time (see ExitIncomplete).
var errMaxTime = errors.New("stopped at --max-time")

// errNothingFetched: see ExitNothingFetched.
var errNothingFetched = errors.New("nothing could be fetched: every host unreachable or every start page failing (see the warnings of the summary)")

type errSignal struct{ sig os.Signal }

func (e errSignal) Error() string { return "stopped by " + e.sig.String() }

func exitCodeForSignal(s os.Signal) int {
	if s == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

// exitCode maps a command's result to the process exit code; prog is the
// program's name in the message.
func exitCode(prog, name string, err, cause error, stderr io.Writer, sig os.Signal) int {
	var es errSignal
	if errors.As(cause, &es) {
		if err != nil && !errors.Is(err, context.Canceled) {
			printError(stderr, fmt.Sprintf("%s %s: %s", prog, name, trimPrefix(err.Error(), name)))
		}
		return exitCodeForSignal(es.sig)
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	printError(stderr, fmt.Sprintf("%s %s: %s", prog, name, trimPrefix(err.Error(), name)))
	var ue usageError
	var ve *config.ValidationError
	switch {
	case errors.As(err, &ue), errors.As(err, &ve), errors.Is(err, pipeline.ErrNotStoreURL):
		return ExitUsage
	case errors.Is(err, storage.ErrLocked):
		return ExitLocked
	case errors.Is(err, pipeline.ErrOutage), errors.Is(err, errMaxTime):
		return ExitIncomplete
	case errors.Is(err, errNothingFetched):
		return ExitNothingFetched
	case errors.Is(err, storage.ErrNoStore), errors.Is(err, storage.ErrSchemaTooNew):
		return ExitNoStore
	}
	return ExitFailure
}
