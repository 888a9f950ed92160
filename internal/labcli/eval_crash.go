package labcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/newsdedup/newscrawl/internal/evalcrash"
)

func cmdEvalCrash(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval crash", stderr)
	n := fs.Int("n", 50, "kill the crawl at least this many times (over as many series as needed)")
	seed := fs.Uint64("seed", 1, "seed of the kill delays")
	site := fs.String("site", "configs/bench-dev.yaml", "site file of the bench web")
	sites := fs.String("sites", "", "comma-separated sites to crawl, one after another (default: all)")
	minKill := fs.Duration("min-kill", evalcrash.DefaultMinKill, "shortest delay from start to kill")
	maxKill := fs.Duration("max-kill", evalcrash.DefaultMaxKill, "longest delay from start to kill")
	series := fs.Int("series", 100, "stop after this many series even when fewer than --n kills happened")
	keep := fs.Bool("keep", false, "keep the work directory (stores, binaries)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if fs.NArg() > 0 {
		return usagef("eval crash: unexpected arguments %q", fs.Args())
	}
	if *n < 1 || *minKill <= 0 || *maxKill < *minKill || *series < 1 {
		return usagef("eval crash: need --n >= 1, --series >= 1 and 0 < --min-kill <= --max-kill")
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "newscrawl-crash-")
	if err != nil {
		return fmt.Errorf("eval crash: %w", err)
	}
	if *keep {
		fmt.Fprintf(stderr, "work directory: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	command, err := evalcrash.BuildCommand(ctx, work, stderr)
	if err != nil {
		return fmt.Errorf("eval crash: %w", err)
	}
	var only []string
	if *sites != "" {
		only = strings.Split(*sites, ",")
	}
	c := evalcrash.Config{
		Shared: dir, SiteFile: *site, Sites: only, MinKills: *n, Series: *series, Seed: *seed,
		MinKill: *minKill, MaxKill: *maxKill, WorkDir: work, Log: stderr, Command: command,
	}
	rep, err := evalcrash.Run(ctx, c)
	if err != nil {
		return fmt.Errorf("eval crash: %w", err)
	}
	rep.WriteTable(stdout, c, fmt.Sprintf("newscrawl-lab eval crash --n %d --seed %d%s", *n, *seed, flagIf("--sites", *sites)))
	if rep.Failed() {
		return errors.New("eval crash: a check failed (see the table)")
	}
	return nil
}

func flagIf(name, v string) string {
	if v == "" {
		return ""
	}
	return " " + name + " " + v
}
