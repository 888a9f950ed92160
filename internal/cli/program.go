package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// What another program of the module (the lab, internal/labcli) shares with
// newscrawl's command line: running a command under the same signal rules
// and exit codes, marking usage errors, the exit-code help and the crawl's
// progress lines. The product does not import the lab; the lab imports this.

// RunFunc is the body of a command: it parses its own flags from args.
type RunFunc = func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// ExitCodesHelp is the paragraph on exit codes that ends every command's
// help.
const ExitCodesHelp = exitCodesHelp

// Run runs the command name of program prog ("newscrawl", "newscrawl-lab")
// and returns the process exit code. SIGINT and SIGTERM cancel the
// command's context; a second signal exits at once. A failure is printed as
// "prog name: message" and mapped to its exit code (exit.go).
func Run(prog, name string, run RunFunc, args []string, stdout, stderr io.Writer) int {
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got os.Signal
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case s := <-sigs:
			got = s
			fmt.Fprintf(stderr, "\n%s: %v received, finishing the page in hand (press again to abort)\n", prog, s)
			stop(errSignal{s})
			select {
			case <-sigs:
				fmt.Fprintf(stderr, "%s: aborted\n", prog)
				os.Exit(exitCodeForSignal(s))
			case <-done:
			}
		case <-done:
		}
	}()

	err := run(ctx, args, stdout, stderr)
	return exitCode(prog, name, err, context.Cause(ctx), stderr, got)
}

// UsageError marks err as caused by how the command was called: Run exits
// with ExitUsage.
func UsageError(err error) error { return usageError{err} }

// Usagef is UsageError of a formatted error.
func Usagef(format string, a ...any) error { return usagef(format, a...) }

// ProgressTo prints a crawl's progress lines on w, as crawl does.
func ProgressTo(w io.Writer) func(p pipeline.Progress) { return progressTo(w) }
