package labcli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/devdata"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/segment"
)

// evalCommands are the subcommands of `eval`.
func evalCommands() []command {
	return []command{
		{"dedup", "near-duplicate tables: robustness set, SpotSigs gold set, reprint web (the default)", cmdEvalDedup},
		{"robust", "Li Gang et al. robustness protocol on bench/dev/robust.jsonl, with SVG plots", cmdEvalRobust},
		{"goldset", "pairwise P/R/F1 on the SpotSigs gold set (English news pages)", cmdEvalGoldset},
		{"web", "crawl the reprint web (bench server), score the export with score.py", cmdEvalWeb},
		{"throughput", "pages/s of the full pipeline vs a fetch-only run on the bench server", cmdEvalThroughput},
		{"extract", "extraction quality tables (CWCED, ScrapingHub, snippets, reprint web)", cmdEvalExtract},
		{"scale", "decision latency, memory, import rate and start-up from 10 k to 1 M stored articles (gen.py corpus)", cmdEvalScale},
		{"keyfp", "keyword semantic fingerprint (crawler book chapter) vs the exact text hash on the dev sets", cmdEvalKeyFP},
		{"winnow", "winnowing (Schleimer et al. 2003): shared passages and own-text share of copies, follow-ups and edits; the chapter's sentence-block winnowing beside it", cmdEvalWinnow},
		{"images", "lead-image fingerprint (crawler book chapter, colour blocks): match rates of generated copies and of different photos of one template", cmdEvalImages},
		{"synonyms", "synonym normalisation (Cilin) on and off, pairwise P/R/F1 on the reprint web texts and robust.jsonl", cmdEvalSynonyms},
		{"ligang", "Li Gang et al. 2013 reproduced: Table 2 (±5 % edits), Figure 2 (recall curves, SVG), ms/doc, Simhash (Hamming < 3 and ≤ 3) vs Shingle, on robust.jsonl and the protocol rebuilt", cmdEvalLiGang},
		{"antecedents", "Li Yan et al. 2017: Figure 4 (P and R against τ, SVG), Table 1 recomputed, the paper's antecedent and chain rules against the product's", cmdEvalAntecedents},
		{"psimhash", "P-Simhash (Zhang Yanan et al. 2022) as published vs Simhash and E-Simhash: published column, μ swept 0..3, run time by text length", cmdEvalPSimhash},
		{"crash", "kill -9 bench crawls at random moments, check the store against an uninterrupted crawl", cmdEvalCrash},
	}
}

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	name := "dedup"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if len(args) > 0 && name == "dedup" && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		name = "help" // "eval --help" asks about eval, not about its default subcommand
	}
	if name == "help" {
		d := docs["eval"]
		fmt.Fprintf(stdout, "usage: newscrawl-lab eval [subcommand] [flags]\n\n%s\n\nsubcommands:\n", d.description)
		for _, c := range evalCommands() {
			fmt.Fprintf(stdout, "  %-11s %s\n", c.name, c.summary)
		}
		fmt.Fprintln(stdout, "\nExamples:")
		for _, e := range d.examples {
			fmt.Fprintf(stdout, "  %s\n", e)
		}
		fmt.Fprintf(stdout, "\nrun \"newscrawl-lab eval <subcommand> -h\" for its flags\n\n%s\n", exitCodesHelp)
		return nil
	}
	for _, c := range evalCommands() {
		if c.name == name {
			return c.run(ctx, args, stdout, stderr)
		}
	}
	return usagef("eval: unknown subcommand %q (eval help lists them)", name)
}

// evalFlagSet returns the flag set of an eval subcommand with the --shared
// flag every one of them takes.
func evalFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		summary := ""
		for _, c := range evalCommands() {
			if "eval "+c.name == name {
				summary = c.summary
			}
		}
		fmt.Fprintf(fs.Output(), "usage: newscrawl-lab %s [flags]\n\n%s\n\nFlags:\n", name, summary)
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\n%s\n", exitCodesHelp)
	}
	return fs, fs.String("shared", "", "shared data directory (default: ../shared beside the repository)")
}

// sharedDir is the --shared flag value, or else ../shared next to the
// repository holding the working directory (devdata.Find).
func sharedDir(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	dir, err := devdata.Find(".")
	if err != nil {
		return "", fmt.Errorf("%w (pass --shared DIR)", err)
	}
	return dir, nil
}

// addEngineFlags adds the engine settings the eval subcommands run with
// (--jaccard, --containment, --centres-only, --no-merge, --index; zero:
// the defaults).
func addEngineFlags(fs *flag.FlagSet) *dedup.Options {
	o := &dedup.Options{}
	// The config's default candidate stage; --index picks another.
	_ = pipeline.SetIndex(o, pipeline.DefaultIndex)
	fs.Func("index", "candidate stage: lsh (default), prefix or exhaustive", func(s string) error { return pipeline.SetIndex(o, s) })
	fs.Float64Var(&o.Jaccard, "jaccard", 0, "SpotSigs Jaccard threshold (0: default)")
	fs.Float64Var(&o.Containment, "containment", 0, "containment threshold (0: default, <0: off)")
	fs.BoolVar(&o.CentresOnly, "centres-only", false, "compare with cluster centres only (classic Single-Pass)")
	fs.BoolVar(&o.NoMerge, "no-merge", false, "never merge clusters that a new article bridges")
	o.PartialReprint = config.Default().Dedup.PartialReprints
	fs.BoolVar(&o.PartialReprint, "partial", o.PartialReprint, "partial-reprint rule in the default rows: keep a verified article when it and the stored one each add enough text of their own under headlines of their own (--partial=false: off)")
	return o
}

// addSegmentFlags adds --synonyms (a Cilin-format lexicon for synonym
// normalisation) to an eval subcommand.
func addSegmentFlags(fs *flag.FlagSet) *config.Segment {
	c := &config.Segment{}
	fs.StringVar(&c.Synonyms, "synonyms", "", "Cilin-format synonym lexicon for normalisation (e.g. ../shared/data/lexicon/cilin-hit-extended/cilin_ex.utf8.txt)")
	return c
}

// loadSegmenter loads the default segmenter and says how long it took.
func loadSegmenter(stderr io.Writer) (*segment.Segmenter, error) {
	return loadSegmenterWith(stderr, config.Segment{})
}

// loadSegmenterWith loads a segmenter with cfg's extra files.
func loadSegmenterWith(stderr io.Writer, cfg config.Segment) (*segment.Segmenter, error) {
	t := time.Now()
	seg, err := pipeline.NewSegmenter(cfg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "segmenter loaded in %.2fs\n", time.Since(t).Seconds())
	return seg, nil
}
