package labcli

import (
	"context"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/cli"
	"github.com/newsdedup/newscrawl/internal/evalweb"
)

func cmdEvalWeb(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval web", stderr)
	site := fs.String("site", "configs/bench-dev.yaml", "site file for the bench web")
	outDir := fs.String("out", "out/eval", "directory for the export and the scores")
	reuse := fs.Bool("reuse", false, "skip the crawl: re-cluster the texts of the previous crawl's store")
	db := fs.String("db", "", "store to crawl into and read: a SQLite file or a postgres:// URL holding no store yet (default: OUT/bench-dev.db, replaced)")
	engine := addEngineFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	rep, err := evalweb.Run(ctx, evalweb.Config{Shared: dir, SiteFile: *site, OutDir: *outDir, DB: *db, Reuse: *reuse, Engine: *engine,
		Status: stderr, Progress: cli.ProgressTo(stderr)})
	if err != nil {
		return fmt.Errorf("eval web: %w", err)
	}
	return rep.WriteTable(stdout)
}
