package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/newsdedup/newscrawl/internal/logging"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// What another program of the module (the lab, internal/labcli) shares with
// newscrawl's command line: running a command under the same console,
// signal rules and exit codes, flag sets whose help goes where newscrawl's
// goes, marking usage errors, the exit-code help and the crawl's progress
// lines. The product does not import the lab; the lab imports this.

// RunFunc is the body of a command: it parses its own flags from args.
type RunFunc = func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// ExitCodesHelp is the paragraph on exit codes that ends every command's
// help.
const ExitCodesHelp = exitCodesHelp

// Run runs the command name of program prog ("newscrawl", "newscrawl-lab")
// and returns the process exit code. stderr is a console in the
// --log-format of args; the command's help (-h) goes to stdout. SIGINT and
// SIGTERM cancel the command's context; a second signal exits at once. A
// failure is printed as "prog name: message" and mapped to its exit code
// (exit.go).
func Run(prog, name string, run RunFunc, args []string, stdout, stderr io.Writer) int {
	con := logging.NewConsole(stderr, logFormatOf(args))
	defer con.Flush()
	stderr = con
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

	err := run(ctx, args, stdout, helpOut{stderr, stdout})
	return exitCode(prog, name, err, context.Cause(ctx), stderr, got)
}

// UsageError marks err as caused by how the command was called: Run exits
// with ExitUsage.
func UsageError(err error) error { return usageError{err} }

// Usagef is UsageError of a formatted error.
func Usagef(format string, a ...any) error { return usagef(format, a...) }

// ProgressTo prints a crawl's progress lines on w, as crawl does.
func ProgressTo(w io.Writer) func(p pipeline.Progress) { return progressTo(w) }

// FlagSet returns a flag set whose help, written by usage, goes where the
// help of newscrawl's commands goes: to stdout when -h asks for it (to
// stderr when stderr is not the one Run gives), and nowhere after a parse
// error, which the command returns and Run prints in one line.
func FlagSet(name string, stderr io.Writer, usage func(w io.Writer, fs *flag.FlagSet)) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	help := stderr
	if h, ok := stderr.(helpOut); ok {
		help = h.stdout
	}
	fw := &failWriter{}
	fs.SetOutput(fw)
	fs.Usage = func() {
		if fw.failed {
			return
		}
		fs.SetOutput(help)
		usage(help, fs)
		fs.SetOutput(fw)
	}
	return fs
}
