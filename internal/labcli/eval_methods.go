package labcli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/newsdedup/newscrawl/internal/dataset"

	"github.com/newsdedup/newscrawl/internal/evalimages"
	"github.com/newsdedup/newscrawl/internal/evalmethods"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/winnow"
)

// cmdEvalKeyFP measures the keyword semantic fingerprint on the dev sets.
func cmdEvalKeyFP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval keyfp", stderr)
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	_, sets, seg, err := devEval("eval keyfp", *shared, true, stderr)
	if err != nil {
		return err
	}
	return evalmethods.KeyFP(ctx, seg, []evalmethods.Set{sets.Web, sets.Robust, sets.Gold}, evalmethods.DefaultKeyFPVariants(), stdout)
}

// cmdEvalWinnow measures winnowing's shared passages and own-text share on
// the dev sets.
func cmdEvalWinnow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval winnow", stderr)
	k := fs.Int("k", winnow.DefaultK, "noise threshold: words per block")
	g := fs.Int("g", winnow.DefaultG, "guarantee threshold: every shared run of g words is found")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	_, sets, seg, err := devEval("eval winnow", *shared, false, stderr)
	if err != nil {
		return err
	}
	web, robust := sets.Web, sets.Robust
	if err := evalmethods.Winnow(ctx, seg, web, robust, winnow.Config{K: *k, G: *g}, stdout); err != nil {
		return fmt.Errorf("eval winnow: %w", err)
	}
	if err := evalmethods.ChapterWinnowTable(ctx, seg, web, robust, winnow.Config{K: *k, G: *g}, stdout); err != nil {
		return fmt.Errorf("eval winnow: %w", err)
	}
	return nil
}

// cmdEvalSynonyms measures synonym normalisation on the dev sets.
func cmdEvalSynonyms(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval synonyms", stderr)
	segCfg := addSegmentFlags(fs)
	only := fs.String("methods", "simhash k=3,spotsigs,combined (default)", "comma-separated parts of method names to run (empty: all)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	dir, sets, plain, err := devEval("eval synonyms", *shared, false, stderr)
	if err != nil {
		return err
	}
	if segCfg.Synonyms == "" {
		segCfg.Synonyms = filepath.Join(dir, "data", "lexicon", "cilin-hit-extended", "cilin_ex.utf8.txt")
	}
	web, robust := sets.Web, sets.Robust
	syn, err := loadSegmenterWith(stderr, *segCfg)
	if err != nil {
		return err
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	if err := evalmethods.Synonyms(ctx, plain, syn, []evalmethods.Set{web, robust}, names, stdout); err != nil {
		return fmt.Errorf("eval synonyms: %w", err)
	}
	return nil
}

// cmdEvalPSimhash measures P-Simhash as published against Simhash and
// E-Simhash with the paper's settings, a μ sweep and run time by length.
func cmdEvalPSimhash(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval psimhash", stderr)
	def := evalmethods.DefaultPSimhashConfig()
	ks := fs.String("k", "10,3", "comma-separated Hamming thresholds (the paper's 10)")
	mus := fs.String("mu", "", "comma-separated μ values of the sweep (default 0 to 3 in steps of 0.1)")
	timed := fs.Int("timed", def.Timed, "texts per length in the run-time table")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	cfg := def
	cfg.Ks, cfg.Timed = nil, *timed
	for _, s := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 0 || k > 64 {
			return usagef("eval psimhash: --k: %q is not a Hamming threshold in 0..64", s)
		}
		cfg.Ks = append(cfg.Ks, k)
	}
	if *mus != "" {
		cfg.Mus = nil
		for _, s := range strings.Split(*mus, ",") {
			mu, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(mu) || math.IsInf(mu, 0) {
				return usagef("eval psimhash: --mu: %q is not a finite number", s)
			}
			cfg.Mus = append(cfg.Mus, mu)
		}
	}
	if *timed < 0 {
		return usagef("eval psimhash: --timed must not be negative")
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	p := evalmethods.DevPaths(dir)
	robust, err := dataset.LoadRobust(p.Robust)
	if err != nil {
		return fmt.Errorf("eval psimhash: %w", err)
	}
	web, err := evalmethods.LoadWeb(p.Truth)
	if err != nil {
		return fmt.Errorf("eval psimhash: %w", err)
	}
	seg, err := loadSegmenter(stderr)
	if err != nil {
		return err
	}
	if err := evalmethods.PSimhash(ctx, seg, robust, web, cfg, stdout); err != nil {
		return fmt.Errorf("eval psimhash: %w", err)
	}
	return nil
}

// cmdEvalAntecedents reproduces Li Yan et al. (2017)'s Figure 4 on the dev sets.
func cmdEvalAntecedents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval antecedents", stderr)
	plots := fs.String("plots", "out/eval", "directory for the SVG plots")
	fig4 := fs.Bool("figure4", true, "run the Figure 4 τ sweep (the slow part)")
	fs.String("labelled", "", "labelled pages (original/*.html, cleaned/*.txt) for Table 1 and the antecedent rules (default: <shared>/data/extraction/cwced-dev)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	labelled := fs.Lookup("labelled").Value.String()
	dir, sets, seg, err := devEval("eval antecedents", *shared, true, stderr)
	if err != nil {
		return err
	}
	if labelled == "" {
		labelled = filepath.Join(dir, "data", "extraction", "cwced-dev")
	}
	web, robust := sets.Web, sets.Robust
	if *fig4 {
		if _, err := evalmethods.Figure4(ctx, seg, []evalmethods.Set{web, robust}, *plots, stdout); err != nil {
			return fmt.Errorf("eval antecedents: %w", err)
		}
	}
	if err := evalmethods.SpotSigsZh(ctx, seg, labelled, []evalmethods.Set{web, robust, sets.Gold}, stdout); err != nil {
		return fmt.Errorf("eval antecedents: %w", err)
	}
	return nil
}

// cmdEvalImages measures the lead-image fingerprint on generated pictures.
func cmdEvalImages(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs, _ := evalFlagSet("eval images", stderr)
	photos := fs.Int("photos", 20, "photos drawn per template (3 templates)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if *photos < 2 {
		return usagef("eval images: --photos must be at least 2")
	}
	r, err := evalimages.Measure(*photos)
	if err != nil {
		return fmt.Errorf("eval images: %w", err)
	}
	evalimages.Print(stdout, r)
	return nil
}

// devEval loads what most method evals start from: the shared directory,
// the dev sets (with the gold set when gold) and the default segmenter.
// Errors carry the command's name.
func devEval(name, shared string, gold bool, stderr io.Writer) (string, evalmethods.DevSets, *segment.Segmenter, error) {
	dir, err := sharedDir(shared)
	if err != nil {
		return "", evalmethods.DevSets{}, nil, err
	}
	sets, err := evalmethods.LoadDev(dir, gold)
	if err != nil {
		return "", evalmethods.DevSets{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	seg, err := loadSegmenter(stderr)
	if err != nil {
		return "", evalmethods.DevSets{}, nil, err
	}
	return dir, sets, seg, nil
}
