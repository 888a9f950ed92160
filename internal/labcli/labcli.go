// Package labcli is the command line of the lab, newscrawl-lab: the
// evaluations on the shared dev data (eval and its subcommands: quality
// tables, the baselines and the research methods with their knobs) and
// learn-antecedents. It is kept out of the newscrawl binary (internal/lint
// checks what the product links). Commands run through cli.Run, so they
// keep newscrawl's signal handling and exit codes.
package labcli

import (
	"flag"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/cli"
)

// prog is the lab program's name in usage lines and error messages.
const prog = "newscrawl-lab"

// exitCodesHelp ends every command's help, as in newscrawl's.
const exitCodesHelp = cli.ExitCodesHelp

// command is one subcommand: it parses its own flags from args.
type command struct {
	name    string
	summary string
	run     cli.RunFunc
}

func commands() []command {
	return []command{
		{"eval", "print quality and speed figures (eval help for the list)", cmdEval},
		{"learn-antecedents", "learn SpotSigs antecedents from pages with a labelled text layer", cmdLearnAntecedents},
	}
}

// doc is a command's help: what it does and an example.
type doc struct {
	description string
	examples    []string
}

// docs are the help texts of the commands, by name.
var docs = map[string]doc{
	"eval": {`Prints quality and speed figures on the shared data (../shared); "eval help"
lists the subcommands; without one it runs "eval dedup".`, []string{
		"newscrawl-lab eval web", "newscrawl-lab eval crash --n 50"}},
	"learn-antecedents": {`Learns SpotSigs antecedents from pages with a labelled text layer
(original/*.html and cleaned/*.txt) and prints them; --out writes the list
to a file you name.`, []string{
		"newscrawl-lab learn-antecedents --data ../shared/data/extraction/cwced-dev --out antecedents.txt"}},
}

// Main runs the lab's command line args (without the program name) and
// returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return cli.ExitUsage
		}
		return cli.ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return cli.Run(prog, c.name, c.run, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q (%s help lists the commands)\n", prog, args[0], prog)
	return cli.ExitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\nThe lab of newscrawl: evaluations on the shared dev data, baselines and research methods.\n\ncommands:\n", prog)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nrun \"%s <command> -h\" for a command's description, example and flags\n", prog)
	fmt.Fprintf(w, "\n%s\n", exitCodesHelp)
}

// newFlags returns the flag set of a command with its help (description,
// examples, flags, exit codes) as Usage, printed where newscrawl's
// commands print theirs (cli.FlagSet).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	return cli.FlagSet(name, stderr, func(w io.Writer, fs *flag.FlagSet) {
		d := docs[name]
		fmt.Fprintf(w, "usage: %s %s [flags]\n\n%s\n\nExamples:\n", prog, name, d.description)
		for _, e := range d.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
		fmt.Fprintf(w, "\n%s\n", exitCodesHelp)
	})
}

// usageError marks err as caused by how the command was called (exit code
// cli.ExitUsage).
func usageError(err error) error { return cli.UsageError(err) }

func usagef(format string, a ...any) error { return cli.Usagef(format, a...) }
