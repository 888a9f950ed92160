// Command newscrawl crawls Chinese news portals and stores a corpus from
// which near-duplicate reprints were removed before storage.
//
//	newscrawl crawl --site configs/sites.yaml   # fetch, extract, dedup, store
//	newscrawl export --db data/news.db          # corpus as JSON lines
//	newscrawl demo                              # offline demo on a bundled fixture site
//
// Run "newscrawl help" for every subcommand. The pipeline is wired in one
// place, pipeline.go; each subcommand lives in its own cmd_*.go file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"crawl", "crawl the sites of a site file into the store", cmdCrawl},
		{"export", "write the store's decisions as JSON lines", cmdExport},
		{"extract", "print the article extracted from a file or URL as JSON", cmdExtract},
		{"dedup", "cluster a JSONL corpus or a directory of HTML pages offline", cmdDedup},
		{"eval", "print quality and speed figures (eval help for the list)", cmdEval},
		{"learn-antecedents", "learn SpotSigs antecedents from pages with a labelled text layer", cmdLearnAntecedents},
		{"demo", "crawl a bundled fixture site offline and print the summary", cmdDemo},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes, decided here and only here.
const (
	exitOK          = 0
	exitFailure     = 1   // the command failed (storage error, I/O error)
	exitUsage       = 2   // bad flags or an invalid config file
	exitLocked      = 3   // another crawl holds the store's lock
	exitInterrupted = 130 // stopped by SIGINT (128 + 2)
	exitTerminated  = 143 // stopped by SIGTERM (128 + 15)
)

// usageError marks errors caused by how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == args[0] {
			c := c
			cmd = &c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "newscrawl: unknown command %q\n", args[0])
		printUsage(stderr)
		return exitUsage
	}

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
			fmt.Fprintf(stderr, "\nnewscrawl: %v received, finishing the page in hand (press again to abort)\n", s)
			stop(errSignal{s})
			select {
			case <-sigs:
				fmt.Fprintln(stderr, "newscrawl: aborted")
				os.Exit(exitCodeForSignal(s))
			case <-done:
			}
		case <-done:
		}
	}()

	err := cmd.run(ctx, args[1:], stdout, stderr)
	return exitCode(cmd.name, err, context.Cause(ctx), stderr, got)
}

type errSignal struct{ sig os.Signal }

func (e errSignal) Error() string { return "stopped by " + e.sig.String() }

func exitCodeForSignal(s os.Signal) int {
	if s == syscall.SIGTERM {
		return exitTerminated
	}
	return exitInterrupted
}

// exitCode maps a command's result to the process exit code.
func exitCode(name string, err, cause error, stderr io.Writer, sig os.Signal) int {
	var es errSignal
	if errors.As(cause, &es) {
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "newscrawl %s: %v\n", name, err)
		}
		return exitCodeForSignal(es.sig)
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintf(stderr, "newscrawl %s: %v\n", name, err)
	var ue usageError
	var ve *config.ValidationError
	switch {
	case errors.As(err, &ue), errors.As(err, &ve):
		return exitUsage
	case errors.Is(err, storage.ErrLocked):
		return exitLocked
	}
	return exitFailure
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: newscrawl <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nrun \"newscrawl <command> -h\" for a command's flags")
}
