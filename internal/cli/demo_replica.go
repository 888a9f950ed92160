package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture/portals"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// demoReplica crawls the replica portals (internal/fixture/portals) twice
// into dir/replica.db and prints what each kind of list surface led to,
// the multi-page articles, and what the second run (nothing new) asked for.
func demoReplica(ctx context.Context, dir string, log *slog.Logger, stdout, stderr io.Writer) error {
	rep, err := portals.Listen()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer rep.Close()
	fmt.Fprintf(stdout, "\nreplica portals (the list formats of Sina, NetEase, QQ, Sohu, People's Daily and Xinhua; two broken surfaces included on purpose):\n")
	for _, s := range rep.Sites() {
		fmt.Fprintf(stdout, "replica site %-8s %s\n", s.Name, s.URL)
	}
	db := filepath.Join(dir, "replica.db")
	siteFile := filepath.Join(dir, "replica-sites.yaml")
	yml := rep.SiteYAML(db, portals.YAMLOptions{Bad: true})
	if err := os.WriteFile(siteFile, yml, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	cfg, err := config.Parse(bytes.NewReader(yml))
	if err != nil {
		return fmt.Errorf("demo: replica config: %w", err)
	}
	if _, err := crawl(ctx, &cfg, pipeline.CrawlOptions{ConfigPath: siteFile, Log: log}, stdout, stderr); err != nil {
		return err
	}
	first := portals.Summarize(rep.Requests())
	decided, stored, err := readDecided(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nfound, by the only kind of surface that lists them:\n")
	for _, c := range rep.Coverages(func(u string) bool { return decided[canonicalOr(u)] }) {
		fmt.Fprintf(stdout, "  %-8s %2d of %2d articles\n", c.Source, c.Found, c.Listed)
	}
	printMultiPage(stdout, rep, stored)
	fmt.Fprintf(stdout, "first run: %d list requests, %d article pages, %d gone URLs (of the %d the portals list), %d to broken surfaces\n",
		first.Lists, first.Articles, first.Gone, len(rep.Gone()), first.Bad)

	// Between two cron runs a portal publishes: Sina lists one more
	// article at the top of its roll API.
	if err := rep.Publish("sina"); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	rep.ResetRequests()
	if _, err := crawl(ctx, &cfg, pipeline.CrawlOptions{ConfigPath: siteFile, Log: log}, io.Discard, stderr); err != nil {
		return err
	}
	second := portals.Summarize(rep.Requests())
	after, _, err := readDecided(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "second run (sina published one article meanwhile): %d list requests, %d answered 304 Not Modified; %d article page(s) fetched, %d new URL(s) decided; %d requests to known 404/410 URLs\n",
		second.Lists, second.NotModified, second.Articles, len(after)-len(decided), second.Gone)
	return nil
}

// readDecided returns the URLs the store decided (stored or recorded as
// duplicates) and the stored articles by URL.
func readDecided(ctx context.Context, db string) (map[string]bool, map[string]storage.Article, error) {
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, nil, fmt.Errorf("demo: %w", err)
	}
	defer store.Close()
	decided := map[string]bool{}
	stored := map[string]storage.Article{}
	err = store.Articles(ctx, func(a storage.Article) error { decided[a.URL] = true; stored[a.URL] = a; return nil })
	if err == nil {
		err = store.Duplicates(ctx, func(d storage.Duplicate) error { decided[d.URL] = true; return nil })
	}
	if err != nil {
		return nil, nil, fmt.Errorf("demo: %w", err)
	}
	return decided, stored, nil
}

// printMultiPage says how the multi-page articles were stored.
func printMultiPage(w io.Writer, rep *portals.Replica, stored map[string]storage.Article) {
	for _, a := range rep.Articles() {
		if len(a.Pages) < 2 {
			continue
		}
		got, ok := stored[canonicalOr(a.URL)]
		switch {
		case !ok:
			fmt.Fprintf(w, "multi-page %s (%d pages): not stored\n", a.URL, len(a.Pages))
		case strings.Contains(got.Text, lastParagraph(a.Text)):
			fmt.Fprintf(w, "multi-page %s: %d pages stored as one article of %d characters\n", a.URL, len(a.Pages), len([]rune(got.Text)))
		default:
			fmt.Fprintf(w, "multi-page %s (%d pages): stored without its last page's text\n", a.URL, len(a.Pages))
		}
	}
}

func lastParagraph(text string) string {
	return text[strings.LastIndexByte(text, '\n')+1:]
}

// canonicalOr is u in the store's canonical form (u itself when it does
// not parse).
func canonicalOr(u string) string {
	if c, err := urlnorm.Canonical(u, nil); err == nil {
		return c
	}
	return u
}
