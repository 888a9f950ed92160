package labcli

import (
	"context"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/evalthroughput"
)

func cmdEvalThroughput(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval throughput", stderr)
	site := fs.String("site", "configs/bench-dev.yaml", "site file for the bench web")
	outDir := fs.String("out", "out/eval", "directory for the temporary stores")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	rep, err := evalthroughput.Run(ctx, evalthroughput.Config{Shared: dir, SiteFile: *site, OutDir: *outDir, Status: stderr})
	if err != nil {
		return fmt.Errorf("eval throughput: %w", err)
	}
	rep.WriteTable(stdout)
	return nil
}
