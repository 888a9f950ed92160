package labcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/evalextract"
)

// cmdEvalExtract prints the extraction quality table:
//
//	newscrawl-lab eval extract [--shared DIR] [--split dev] [--only NAME] [--worst N] [--baseline] [--loso=false] [--folds]
func cmdEvalExtract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval extract", stderr)
	split := fs.String("split", "dev", "reprint-web bench split under SHARED/bench")
	only := fs.String("only", "", "measure only the datasets whose name contains this (reprint-web, cwced, scrapinghub, trafilatura, newspaper4k, htmltotext, readability)")
	worst := fs.Int("worst", 0, "also list this many lowest-scoring pages")
	baseline := fs.Bool("baseline", false, "measure plain go-readability instead of the extractor (the baseline)")
	loso := fs.Bool("loso", true, "also fit the extract.Tuning thresholds leave-one-site-out (27 grid points; the costliest part)")
	folds := fs.Bool("folds", false, "also list every leave-one-site-out fold: the site, the values fitted without it, its F1")
	stripMeta := fs.Bool("strip-meta", false, "remove 来源/责任编辑 lines from the text (extract.Options.StripMetaLines)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError(err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	opts := extract.Options{StripMetaLines: *stripMeta}
	if *baseline {
		opts.Engine = extract.EngineReadability
	}
	rep, err := evalextract.Run(ctx, evalextract.Config{Shared: dir, Split: *split, Options: opts, Only: *only, CompareBaseline: !*baseline, LOSO: *loso})
	if err != nil {
		return err
	}
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nper-field accuracy (body: mean text F1; pages labelled in parentheses; - : not labelled):\n")
	if err := rep.WriteFields(stdout); err != nil {
		return err
	}
	if len(rep.Below) > 0 {
		fmt.Fprintf(stdout, "\npages more than %.1f F1 below plain readability:\n", evalextract.BaselineMargin)
		for _, b := range rep.Below {
			fmt.Fprintf(stdout, "  %-14s %.3f vs %.3f  %s\n", b.Dataset, b.Ours, b.Baseline, b.ID)
		}
	}
	if *folds && len(rep.Folds) > 0 {
		fmt.Fprintf(stdout, "\nleave-one-site-out folds (link-block density/sibling share/close runner-up fitted without the site):\n")
		for _, f := range rep.Folds {
			fmt.Fprintf(stdout, "  %-14s %-40s %4d pages  %.1f/%.1f/%.1f  F1 %.4f\n", f.Dataset, f.Site, f.Pages, f.Tuning.LinkBlockDensity, f.Tuning.SiblingScoreShare, f.Tuning.CloseRunnerUp, f.F1)
		}
	}
	if *worst > 0 {
		fmt.Fprintf(stdout, "\nlowest-scoring pages:\n")
		for _, p := range rep.Worst(*worst) {
			fmt.Fprintf(stdout, "  %-14s %.3f  %s  %s\n", p.Dataset, p.F1, p.ID, p.Err)
		}
	}
	return nil
}
