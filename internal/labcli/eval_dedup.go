package labcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/newsdedup/newscrawl/internal/antecedents"
	"github.com/newsdedup/newscrawl/internal/dataset"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/internal/evalmethods"
	"github.com/newsdedup/newscrawl/internal/pipeline"
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
	gen := fs.Bool("rebuilt", true, "also run the protocol rebuilt on every usable base text of the data (the paper's 1,000 if there are as many)")
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
	cfg := evaldedup.RobustConfig{Shared: dir, Segmenter: seg, Plots: *plots}
	run, err := evaldedup.RunLiGang(ctx, cfg)
	if err != nil {
		return fmt.Errorf("eval ligang: %w", err)
	}
	run.WriteTable(stdout)
	if !*gen {
		return nil
	}
	bases, pool, err := liGangTexts(dir)
	if err != nil {
		return fmt.Errorf("eval ligang: %w", err)
	}
	docs, n := evaldedup.LiGangSet(bases, pool, evaldedup.LiGangSeed)
	name := fmt.Sprintf("the paper's protocol rebuilt: %d base texts (robust.jsonl's originals and distinct texts with >= 5 sentences, each sharing at most a fifth of its sentences with an earlier one; no other distinct Chinese news texts are in the data), sentences added from the %d CWCED dev main texts (the paper: 1,000 and %d, line 155)",
		n, len(pool), evaldedup.LiGangAddTexts)
	run, err = evaldedup.RunLiGangDocs(ctx, cfg, name, docs, "ligang-rebuilt")
	if err != nil {
		return fmt.Errorf("eval ligang: %w", err)
	}
	run.WriteTable(stdout)
	return nil
}

// liGangTexts are the base texts of the rebuilt protocol (robust.jsonl's
// originals and distinct texts; the reprint web's stories are left out:
// most repeat sentences of those texts, and the rest, kept as bases, were
// merged with them by Shingle at J > 0.95) and the texts whose sentences
// are added (CWCED dev's labelled main texts, which are neither).
func liGangTexts(dir string) ([]string, []string, error) {
	p := evalmethods.DevPaths(dir)
	robust, err := dataset.LoadRobust(p.Robust)
	if err != nil {
		return nil, nil, err
	}
	var bases []string
	for _, d := range robust {
		if d.Op == "orig" || d.Op == "distinct" {
			bases = append(bases, d.Text)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "data", "extraction", "cwced-dev", "cleaned", "*.txt"))
	if err != nil {
		return nil, nil, err
	}
	var pool []string
	for _, f := range files {
		b, err := pipeline.ReadLimited(f, antecedents.MaxLabelledFile)
		if err != nil {
			return nil, nil, err
		}
		pool = append(pool, string(b))
	}
	if len(pool) == 0 {
		return nil, nil, fmt.Errorf("no CWCED dev main texts under %s", dir)
	}
	return bases, pool, nil
}
