package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/evalextract"
	"github.com/newsdedup/newscrawl/internal/fixture/portals"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// Acceptance figures of discovery on the replica web.
const (
	minCoverage   = 0.99 // of the articles listed only by one kind of surface
	minStitchedF1 = 0.98 // bigram F1 of a multi-page article against its joined text
	min304Share   = 0.90 // of a second run's list requests, with nothing new
)

// replicaStore is what a crawl of the replica left in the store.
type replicaStore struct {
	articles map[string]storage.Article
	dups     map[string]storage.Duplicate
	pages    map[string]storage.Page
}

func readReplicaStore(t *testing.T, db string) replicaStore {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rs := replicaStore{articles: map[string]storage.Article{}, dups: map[string]storage.Duplicate{}, pages: map[string]storage.Page{}}
	if err := store.Articles(ctx, func(a storage.Article) error { rs.articles[a.URL] = a; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.Duplicates(ctx, func(d storage.Duplicate) error { rs.dups[d.URL] = d; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.Pages(ctx, func(p storage.Page) error { rs.pages[p.URL] = p; return nil }); err != nil {
		t.Fatal(err)
	}
	return rs
}

func canonical(t *testing.T, u string) string {
	t.Helper()
	c, err := urlnorm.Canonical(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDiscoveryReplica crawls the replica web (internal/fixture/portals)
// with the site file it generates and checks the figures: every
// article listed only by APIs, only by sitemaps, only by feeds or only
// inside scripts is found (coverage ≥ 0.99 each); multi-page articles are
// stored once with all their text (bigram F1 ≥ 0.98) and no page of
// theirs is stored alone; a second run with nothing new fetches no stored
// article and no known 404, and ≥ 90 % of its list requests are answered
// 304 (counted by the replica); a third run after the portal published one
// more article fetches that article and no other. The broken surfaces (a captcha page, a
// 500-forever API) are in the file: the run must go on past them.
func TestDiscoveryReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary and crawls six sites twice")
	}
	rep, err := portals.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	siteFile := filepath.Join(dir, "sites.yaml")
	yml := rep.SiteYAML(db, portals.YAMLOptions{Bad: true})
	if err := os.WriteFile(siteFile, yml, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(siteFile); err != nil {
		t.Fatalf("the replica's site file does not load: %v\n%s", err, yml)
	}
	crawlReplica(t, siteFile, "first")
	first := rep.Requests()
	rs := readReplicaStore(t, db)
	checkCoverage(t, rep, rs)
	checkStitched(t, rep, rs)
	checkPublished(t, rep, rs)
	t.Logf("first run: %s", requestSummary(first))

	rep.ResetRequests()
	crawlReplica(t, siteFile, "second")
	checkSecondRun(t, rep.Requests())

	// A third run after the portal published one more article: the changed
	// list is fetched whole, the new article (only) is fetched and stored.
	if err := rep.Publish("sina"); err != nil {
		t.Fatal(err)
	}
	rep.ResetRequests()
	crawlReplica(t, siteFile, "third")
	checkThirdRun(t, rep, readReplicaStore(t, db), rep.Requests())
}

// checkThirdRun: the article published before the third run is stored,
// and it is the only article page fetched.
func checkThirdRun(t *testing.T, rep *portals.Replica, rs replicaStore, reqs []portals.Request) {
	t.Helper()
	t.Logf("third run: %s", requestSummary(reqs))
	var later portals.Article
	for _, a := range rep.Articles() {
		if a.Site == "sina" && a.Story == "r24" {
			later = a
		}
	}
	if _, ok := rs.articles[canonical(t, later.URL)]; !ok {
		t.Errorf("third run: the article published since, %s, is not stored", later.URL)
	}
	for _, r := range reqs {
		if (r.Kind == portals.KindArticle || r.Kind == portals.KindPage || r.Kind == portals.KindGone) && !strings.HasSuffix(later.URL, r.URL) {
			t.Errorf("third run fetched %s %s (%d), not new", r.Site, r.URL, r.Status)
		}
	}
}

func crawlReplica(t *testing.T, siteFile, which string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"crawl", "--site", siteFile, "--progress", "0"}, &out, &errb); code != exitOK {
		t.Fatalf("%s crawl: exit %d\nstdout:\n%s\nstderr:\n%s", which, code, out.String(), errb.String())
	}
	t.Logf("%s crawl summary:\n%s", which, out.String())
}

// checkCoverage: the share of the articles of each listing kind that the
// crawl decided (stored, or recorded as a duplicate); and every listed gone
// URL recorded with its status.
func checkCoverage(t *testing.T, rep *portals.Replica, rs replicaStore) {
	t.Helper()
	decided := func(u string) bool {
		c := canonical(t, u)
		_, stored := rs.articles[c]
		_, dup := rs.dups[c]
		return stored || dup
	}
	for _, c := range rep.Coverages(decided) {
		t.Logf("coverage of articles listed only by %-7s %d/%d = %.3f", c.Source, c.Found, c.Listed, share(c))
		if c.Source != portals.SourceHTML && share(c) < minCoverage {
			var missed []string
			for _, u := range c.Missing {
				missed = append(missed, fmt.Sprintf("%s (page record: %+v)", u, rs.pages[canonical(t, u)]))
			}
			t.Errorf("coverage of articles listed only by %s: %.3f < %.2f; missed:\n  %s", c.Source, share(c), minCoverage, strings.Join(missed, "\n  "))
		}
	}
	for _, g := range rep.Gone() {
		if p, ok := rs.pages[canonical(t, g.URL)]; !ok || p.Status != g.Status {
			t.Errorf("listed gone URL %s: recorded %+v, want status %d", g.URL, p, g.Status)
		}
	}
}

// checkStitched: each multi-page article (and the Xinhua article whose
// pager repeats page 1) is stored once under its first page with the text
// of all pages; no further page is stored or recorded as an article.
func checkStitched(t *testing.T, rep *portals.Replica, rs replicaStore) {
	t.Helper()
	for _, a := range rep.Articles() {
		if len(a.Pages) < 2 && a.Site != "xinhua" {
			continue
		}
		got, ok := rs.articles[canonical(t, a.URL)]
		if !ok {
			t.Errorf("multi-page article %s not stored", a.URL)
			continue
		}
		f1 := evalextract.BigramF1(got.Text, a.Text)
		t.Logf("stitched %s: %d pages, bigram F1 %.4f", a.URL, len(a.Pages), f1)
		if f1 < minStitchedF1 {
			t.Errorf("%s: bigram F1 %.4f < %.2f against the joined text\ngot:\n%s\nwant:\n%s", a.URL, f1, minStitchedF1, got.Text, a.Text)
		}
	}
	for u := range rs.articles {
		if isFurtherPage(u) {
			t.Errorf("a page stored as an article of its own: %s", u)
		}
	}
	for u := range rs.dups {
		if isFurtherPage(u) {
			t.Errorf("a page recorded as a duplicate article: %s", u)
		}
	}
}

// isFurtherPage reports whether u is page 2+ of a replica article: a
// people -N.html page or a xinhua c.html?page=N.
func isFurtherPage(u string) bool {
	if strings.Contains(u, "c.html?page=") {
		return true
	}
	base := strings.TrimSuffix(u, ".html")
	seg := base[strings.LastIndexByte(base, '/')+1:]
	return strings.Contains(u, "/n1/") && strings.Count(seg, "-") == 2
}

// checkPublished: an article whose page shows no time gets the time its
// listing source gave.
func checkPublished(t *testing.T, rep *portals.Replica, rs replicaStore) {
	t.Helper()
	for _, a := range rep.Articles() {
		if a.PageDate {
			continue
		}
		got, ok := rs.articles[canonical(t, a.URL)]
		if !ok {
			continue // counted by checkCoverage
		}
		if !got.PublishedAt.Equal(a.Published) {
			t.Errorf("%s: published_at %v, want the source's %v", a.URL, got.PublishedAt, a.Published)
		}
	}
}

// checkSecondRun: nothing new, so no article, page or gone URL is
// fetched, and list surfaces answer 304. The share counts the working list
// surfaces: a broken one (a captcha page, a 500) has no validators to send.
func checkSecondRun(t *testing.T, reqs []portals.Request) {
	t.Helper()
	t.Logf("second run: %s", requestSummary(reqs))
	lists, notModified := 0, 0
	for _, r := range reqs {
		switch r.Kind {
		case portals.KindArticle, portals.KindPage:
			t.Errorf("second run fetched a stored article's page: %s %s %s (%d)", r.Site, r.Method, r.URL, r.Status)
		case portals.KindGone:
			t.Errorf("second run fetched a known %d URL: %s %s", r.Status, r.Site, r.URL)
		case portals.KindList:
			lists++
			if r.Status == 304 {
				notModified++
			} else {
				t.Logf("list request not answered 304: %s %s %s conditional=%v status %d", r.Site, r.Method, r.URL, r.Conditional, r.Status)
			}
		}
	}
	if lists == 0 {
		t.Fatal("second run made no list request")
	}
	share := float64(notModified) / float64(lists)
	bad := portals.Summarize(reqs).Bad
	t.Logf("second run: %d of %d list requests answered 304 (%.3f); %d more requests to the broken surfaces (%.3f with them)",
		notModified, lists, share, bad, float64(notModified)/float64(lists+bad))
	if share < min304Share {
		t.Errorf("second run: %.3f of list requests answered 304, want ≥ %.2f", share, min304Share)
	}
}

// requestSummary counts requests by kind and status.
func requestSummary(reqs []portals.Request) string {
	n := map[string]int{}
	var other []string
	for _, r := range reqs {
		n[fmt.Sprintf("%s/%d", r.Kind, r.Status)]++
		if r.Kind == portals.KindOther || r.Kind == portals.KindPage {
			other = append(other, fmt.Sprintf("%s %s %s %d", r.Site, r.Method, r.URL, r.Status))
		}
	}
	var keys []string
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests:", len(reqs))
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, n[k])
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "; pages and unknown paths: %s", strings.Join(other, ", "))
	}
	return b.String()
}

// share is a coverage's Found/Listed (1 when nothing is listed).
func share(c portals.Coverage) float64 {
	if c.Listed == 0 {
		return 1
	}
	return float64(c.Found) / float64(c.Listed)
}
