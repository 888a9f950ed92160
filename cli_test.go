package main

import (
	"io"

	"github.com/newsdedup/newscrawl/internal/cli"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// The tests in this directory run the program as a whole: through
// cli.Main, in process or as a child process (TestMain in crash_test.go).

// run is the command line as the tests call it.
func run(args []string, stdout, stderr io.Writer) int { return cli.Main(args, stdout, stderr) }

// Exit codes (internal/cli/exit.go).
const (
	exitOK          = cli.ExitOK
	exitFailure     = cli.ExitFailure
	exitUsage       = cli.ExitUsage
	exitLocked      = cli.ExitLocked
	exitNothing     = cli.ExitNothingFetched
	exitNoStore     = cli.ExitNoStore
	exitInterrupted = cli.ExitInterrupted
	exitTerminated  = cli.ExitTerminated
)

// dedupResult is one output line of the dedup command.
type dedupResult = pipeline.OfflineResult
