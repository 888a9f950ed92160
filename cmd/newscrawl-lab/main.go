// Command newscrawl-lab is newscrawl's lab: the evaluations on the shared
// dev data (../shared), the baselines and the research methods, kept out of
// the newscrawl binary.
//
//	go run ./cmd/newscrawl-lab eval help        # the evaluations
//	go run ./cmd/newscrawl-lab eval goldset     # SpotSigs gold set P/R/F1
//	go run ./cmd/newscrawl-lab learn-antecedents --data ../shared/data/extraction/cwced-dev
//
// The commands live in internal/labcli.
package main

import (
	"os"

	"github.com/newsdedup/newscrawl/internal/labcli"
)

func main() {
	os.Exit(labcli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
