// Command newscrawl crawls Chinese news portals and stores a corpus from
// which near-duplicate reprints were removed before storage.
//
//	newscrawl crawl --site configs/sites.yaml   # fetch, extract, dedup, store
//	newscrawl export --db data/news.db          # corpus as JSON lines
//	newscrawl demo                              # offline demo on a bundled fixture site
//
// Run "newscrawl help" for every subcommand. The commands live in
// internal/cli; the pipeline is wired in one place, internal/pipeline.
package main

import (
	"os"

	"github.com/newsdedup/newscrawl/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
