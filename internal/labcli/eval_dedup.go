package labcli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/internal/evaldedup"
)

func cmdEvalDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval dedup", stderr)
	plots := fs.String("plots", "out/eval", "directory for the SVG plots")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	a := []string{"--plots", *plots}
	if *shared != "" {
		a = append(a, "--shared", *shared)
	}
	if err := cmdEvalRobust(ctx, a, stdout, stderr); err != nil {
		return err
	}
	a = a[2:]
	if err := cmdEvalGoldset(ctx, a, stdout, stderr); err != nil {
		return err
	}
	return cmdEvalWeb(ctx, a, stdout, stderr)
}

func cmdEvalRobust(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval robust", stderr)
	plots := fs.String("plots", "out/eval", "directory for the SVG plots")
	only := fs.String("method", "", "run only methods whose name contains this")
	engine := addEngineFlags(fs)
	segCfg := addSegmentFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	seg, err := loadSegmenterWith(stderr, *segCfg)
	if err != nil {
		return err
	}
	run, err := evaldedup.RunRobust(ctx, evaldedup.RobustConfig{Shared: dir, Segmenter: seg, Engine: *engine, Method: *only, Plots: *plots})
	if errors.Is(err, evaldedup.ErrNoMethod) {
		return usageError(fmt.Errorf("eval robust: %w", err))
	}
	if err != nil {
		return fmt.Errorf("eval robust: %w", err)
	}
	run.WriteTable(stdout)
	return nil
}

func cmdEvalGoldset(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval goldset", stderr)
	only := fs.String("method", "", "run only methods whose name contains this")
	dump := fs.String("dump", "", "write each page's true and predicted cluster (TSV) per method to this file")
	engine := addEngineFlags(fs)
	segCfg := addSegmentFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	seg, err := loadSegmenterWith(stderr, *segCfg)
	if err != nil {
		return err
	}
	rep, err := evaldedup.RunGoldset(ctx, evaldedup.GoldConfig{Shared: dir, Segmenter: seg, Engine: *engine, Method: *only, Dump: *dump})
	if err != nil {
		return fmt.Errorf("eval goldset: %w", err)
	}
	rep.WriteTable(stdout)
	return nil
}

// cmdEvalLiGang reproduces Li Gang et al. (2013)'s Table 2, Figure 2 and
// runtime comparison on the robustness set.
func cmdEvalLiGang(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval ligang", stderr)
	plots := fs.String("plots", "out/eval", "directory for the SVG plots (ligang-add.svg, ligang-delete.svg)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	seg, err := loadSegmenter(stderr)
	if err != nil {
		return err
	}
	run, err := evaldedup.RunLiGang(ctx, evaldedup.RobustConfig{Shared: dir, Segmenter: seg, Plots: *plots})
	if err != nil {
		return fmt.Errorf("eval ligang: %w", err)
	}
	run.WriteTable(stdout)
	return nil
}
