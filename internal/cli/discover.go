package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/logging"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// cmdDiscover prints what each list surface of each site yields:
//
//	newscrawl discover --site FILE [--only NAME,...] [--db STORE] [--json]
func cmdDiscover(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("discover", stderr)
	site := fs.String("site", "configs/sites.yaml", "site file")
	only := fs.String("only", "", "comma-separated site names (default: all)")
	db := fs.String("db", "", "store telling new URLs from decided ones, opened read-only: a SQLite file or a postgres:// URL (default: the site file's storage; none there: every URL is new)")
	asJSON := fs.Bool("json", false, "print the counts as JSON instead of a table")
	logFlags := logging.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if dbFlagEmpty(fs) {
		return usagef("discover: --db must name a store (omit it to use the site file's storage)")
	}
	if fs.NArg() > 0 {
		return usagef("discover: unexpected arguments %q", fs.Args())
	}
	log, err := logFlags.Logger(stderr)
	if err != nil {
		return usageError{fmt.Errorf("discover: --%w", err)}
	}
	cfg, err := config.Load(*site)
	if err != nil {
		return usageError{err}
	}
	if *db != "" {
		cfg.Storage = *db
	}
	var names []string
	if *only != "" {
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !slices.ContainsFunc(cfg.Sites, func(s config.Site) bool { return s.Name == n }) {
				return usagef("discover: --only: no site named %q in %s", n, *site)
			}
			names = append(names, n)
		}
	}
	res, err := pipeline.Discover(ctx, &cfg, names, log)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := printDiscover(stdout, res, cfg.Storage); err != nil {
		return err
	}
	if nothingRead(res) {
		return fmt.Errorf("discover: %w", errNothingFetched)
	}
	return nil
}

// nothingRead reports whether no surface of any site could be read.
func nothingRead(res pipeline.DiscoverResult) bool {
	for _, s := range res.Sites {
		for _, src := range s.Sources {
			if src.Requests > src.Errors || src.Found > 0 || src.NotModified > 0 {
				return false
			}
		}
	}
	return true
}

// printDiscover writes one table per site: a row per source with its
// counts and skip reasons, then the sources' errors and the warnings.
func printDiscover(w io.Writer, res pipeline.DiscoverResult, storage string) error {
	if res.Store == "" {
		fmt.Fprintf(w, "no store at %s: every URL counts as new\n", pipeline.StoreName(storage))
	} else {
		fmt.Fprintf(w, "store %s (read-only): new = not decided there\n", res.Store)
	}
	for _, s := range res.Sites {
		fmt.Fprintf(w, "\nsite %s: %d requests\n", s.Site, s.Requests)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  source\turl\tfound\tmatched\tarticles\tnew\tdecided\tskipped")
		for _, src := range s.Sources {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", src.Kind, cmpOr(src.URL, "(inline scripts of list pages)"), src.Found, src.Matched,
				src.Articles, src.Pushed, src.Skipped[crawler.SkipDecided], skipReasons(src.Skipped))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, src := range s.Sources {
			if src.Errors > 0 {
				fmt.Fprintf(w, "  error: %s %s: %s (last: %s)\n", src.Kind, src.URL, kindCounts(src.ErrorKinds), src.LastError)
			}
		}
		for _, m := range s.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", m)
		}
	}
	return nil
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// skipReasons lists the skip reasons but decided (its own column), e.g.
// "off_domain 3, no_match 12"; "-" when none.
func skipReasons(m map[string]int) string {
	m = maps.Clone(m)
	delete(m, crawler.SkipDecided)
	if len(m) == 0 {
		return "-"
	}
	return kindCounts(m)
}

// kindCounts is "a 1, b 2" in key order.
func kindCounts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
