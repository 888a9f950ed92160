// Package cli is the newscrawl command line: one file per command, each
// holding its flags and its printing only; the work is done by
// internal/pipeline (crawl, export, extract, dedup). Exit codes are decided
// in exit.go. The evaluations are not here: they are the lab's commands
// (internal/labcli, cmd/newscrawl-lab), which run through Run.
package cli

import (
	"context"
	"fmt"
	"io"
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
		{"export", "write the store's decisions as JSON lines, CSV or WARC", cmdExport},
		{"migrate", "copy a SQLite store into an empty PostgreSQL database", cmdMigrate},
		{"discover", "print what each list surface of a site yields (sitemaps, feeds, APIs, start pages)", cmdDiscover},
		{"explain", "show why a URL was stored or dropped, with the evidence", cmdExplain},
		{"report", "write a self-contained HTML report of the store", cmdReport},
		{"status", "print the latest fleet run's totals from the store and the URLs left", cmdStatus},
		{"serve", "serve a read-only web view of the store (loopback)", cmdServe},
		{"extract", "print the article extracted from a file or URL as JSON", cmdExtract},
		{"dedup", "cluster a JSONL corpus or a directory of HTML pages offline", cmdDedup},
		{"import", "bring a JSONL corpus into the store through the same dedup", cmdImport},
		{"check", "check the whole store and its index snapshot for damage (for cron)", cmdCheck},
		{"demo", "crawl a bundled fixture site offline and print the summary", cmdDemo},
		{"version", "print the program's version and build", cmdVersion},
	}
}

// Main runs the command line args (without the program name) and returns
// the process exit code. SIGINT and SIGTERM cancel the command's context;
// a second signal exits at once.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-version" || args[0] == "--version") {
		args = []string{"version"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == args[0] {
			c := c
			cmd = &c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "newscrawl: unknown command %q%s (newscrawl help lists the commands)\n", args[0], suggest(args[0]))
		return ExitUsage
	}

	return Run("newscrawl", cmd.name, cmd.run, args[1:], stdout, stderr)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: newscrawl <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nrun \"newscrawl <command> -h\" for a command's description, example and flags")
	fmt.Fprintf(w, "\n%s\n", exitCodesHelp)
}
