// Package storagetest is the conformance suite for storage.Store
// implementations: every backend (in-memory, SQLite, a shared deployment)
// runs Run from its own tests, so that they agree on the contract written in
// package storage — idempotent Commit keyed by URL, ErrAlreadyDecided with
// nothing written, id and cluster assignment, iteration orders, fingerprint
// and document-frequency streams, the frontier's FIFO leasing, the run lock
// and Check.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// lockWaitLimit bounds how long the suite waits for a blocked Lock(wait=true)
// to return after the holder released it. SQLite polls every 200 ms.
const lockWaitLimit = 5 * time.Second

// Option changes what the suite expects of a backend.
type Option func(*options)

type options struct {
	sharedLock bool
}

// SharedLock declares a store whose Lock admits several crawls at once
// (storage/postgres): the suite then checks that a second Lock succeeds
// while the first is held, instead of expecting ErrLocked.
func SharedLock() Option { return func(o *options) { o.sharedLock = true } }

// Run runs the conformance suite. open must return a new, empty store for
// each call and arrange (with t.Cleanup) for it to be closed.
func Run(t *testing.T, open func(t *testing.T) storage.Store, opts ...Option) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	lock := testLock
	if o.sharedLock {
		lock = testSharedLock
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, s storage.Store)
	}{
		{"Runs", testRuns},
		{"CommitOutcomes", testCommitOutcomes},
		{"CommitInvalid", testCommitInvalid},
		{"AlreadyDecided", testAlreadyDecided},
		{"ReplaceNonFinal", testReplaceNonFinal},
		{"ArticleIDsAndCluster", testArticleIDs},
		{"DuplicateLinks", testDuplicateLinks},
		{"ClusterMerges", testClusterMerges},
		{"IterationOrder", testIterationOrder},
		{"IterationStops", testIterationStops},
		{"Fingerprints", testFingerprints},
		{"DuplicateFingerprints", testDuplicateFingerprints},
		{"SignatureCopies", testSignatureCopies},
		{"DocFreqs", testDocFreqs},
		{"DocFreqsMany", testDocFreqsMany},
		{"Frontier", testFrontier},
		{"FrontierSkipsDecided", testFrontierSkipsDecided},
		{"Lock", lock},
		{"Check", testCheck},
		{"CanceledContext", testCanceled},
		{"Concurrent", testConcurrent},
		{"RawResponses", testRawResponses},
		{"ChangeFeed", testChangeFeed},
		{"PartialReprints", testPartialReprints},
		{"LeadImages", testLeadImages},
		{"Surfaces", testSurfaces},
		{"SurfaceClaim", testSurfaceClaim},
		{"SurfaceClaimConcurrent", testSurfaceClaimConcurrent},
		{"FrontierGoneRetry", testFrontierGoneRetry},
		{"MultiPageArticles", testMultiPage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

// t0 is a fixed UTC instant with nanoseconds, so that round trips are exact.
var t0 = time.Date(2024, 3, 5, 8, 30, 15, 123456789, time.UTC)

func page(url string, o storage.Outcome) storage.Page {
	return storage.Page{URL: url, Site: "sina", RunID: 1, Outcome: o, Status: 200, FetchedAt: t0}
}

func article(url string) *storage.Article {
	return &storage.Article{
		URL:         url,
		Site:        "sina",
		RunID:       1,
		Title:       "标题 " + url,
		Text:        "第一段新闻内容。\n第二段新闻内容。",
		PublishedAt: t0.Add(-time.Hour),
		Source:      "新华社",
		Author:      "张三",
		Editor:      "李四",
		FetchedAt:   t0,
		ContentHash: fmt.Sprintf("%064x", len(url)),
		Fingerprint: storage.Fingerprint{Simhash: 0xdeadbeefcafef00d, Signature: []uint64{1, 2, 2, 1 << 63}, Length: 42},
	}
}

func stored(url string, terms ...string) *storage.Commit {
	return &storage.Commit{Page: page(url, storage.OutcomeStored), Article: article(url), Terms: terms}
}

func duplicate(url string, of int64) *storage.Commit {
	return &storage.Commit{
		Page: page(url, storage.OutcomeDuplicate),
		Duplicate: &storage.Duplicate{
			URL: url, Site: "sohu", RunID: 1, DupOf: of, Distance: 3, Jaccard: 0.875, Containment: 0.9375, Reason: "containment",
			Title: "转载", Text: "转载正文", PublishedAt: t0, Source: "来源", Author: "作者",
			FetchedAt: t0, Simhash: math.MaxUint64, Signature: []uint64{0, 7, 7, 1 << 63, math.MaxUint64},
		},
		Terms: []string{"ignored"},
	}
}

func errorPage(url string, permanent bool) *storage.Commit {
	p := page(url, storage.OutcomeError)
	p.Status, p.ErrKind, p.Err, p.Permanent = 404, "http_404", "not found", permanent
	return &storage.Commit{Page: p}
}

func notArticle(url string) *storage.Commit {
	return &storage.Commit{Page: page(url, storage.OutcomeNotArticle)}
}

func mustCommit(t *testing.T, s storage.Store, c *storage.Commit) {
	t.Helper()
	if err := s.Commit(context.Background(), c); err != nil {
		t.Fatalf("commit %s: %v", c.Page.URL, err)
	}
}

// mustStore commits a stored article and returns its id.
func mustStore(t *testing.T, s storage.Store, url string, terms ...string) int64 {
	t.Helper()
	c := stored(url, terms...)
	mustCommit(t, s, c)
	if c.Article.ID <= 0 {
		t.Fatalf("commit %s: article id %d", url, c.Article.ID)
	}
	return c.Article.ID
}

// snapshot is everything a store holds, for before/after comparisons.
type snapshot struct {
	Pages    []storage.Page
	Articles []storage.Article
	Dups     []storage.Duplicate
	DF       map[string]int
	Docs     int
	Pending  int
}

func snap(t *testing.T, s storage.Store) snapshot {
	t.Helper()
	ctx := context.Background()
	var sn snapshot
	if err := s.Pages(ctx, func(p storage.Page) error { sn.Pages = append(sn.Pages, p); return nil }); err != nil {
		t.Fatalf("pages: %v", err)
	}
	if err := s.Articles(ctx, func(a storage.Article) error { sn.Articles = append(sn.Articles, a); return nil }); err != nil {
		t.Fatalf("articles: %v", err)
	}
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error { sn.Dups = append(sn.Dups, d); return nil }); err != nil {
		t.Fatalf("duplicates: %v", err)
	}
	sn.DF = map[string]int{}
	docs, err := s.DocFreqs(ctx, func(term string, df int) error { sn.DF[term] = df; return nil })
	if err != nil {
		t.Fatalf("docfreqs: %v", err)
	}
	sn.Docs = docs
	if sn.Pending, err = s.Pending(ctx, ""); err != nil {
		t.Fatalf("pending: %v", err)
	}
	return sn
}

func urlsOfPages(ps []storage.Page) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.URL)
	}
	return out
}

func testRuns(t *testing.T, s storage.Store) {
	ctx := context.Background()
	r1, err := s.BeginRun(ctx, "sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.BeginRun(ctx, "other.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID <= 0 || r2.ID <= r1.ID {
		t.Fatalf("run ids %d, %d: want positive and increasing", r1.ID, r2.ID)
	}
	if r1.Status != storage.RunRunning || r1.StartedAt.IsZero() || !r1.FinishedAt.IsZero() || r1.Config != "sites.yaml" {
		t.Fatalf("new run = %+v", r1)
	}
	r1.FinishedAt = r1.StartedAt.Add(time.Minute)
	r1.Status = storage.RunCompleted
	r1.Stats = storage.RunStats{Fetched: 10, Stored: 5, Duplicates: 3, NotArticle: 1, Errors: 1,
		Sites:    []storage.SiteCounters{{Site: "sina", Counters: map[string]int64{"requests": 12, "robots_blocked": 2, "gone": 1}}},
		Settings: &storage.RunSettings{Index: "lsh", Hamming: 3, Jaccard: 0.4, Window: "720h0m0s", Antecedents: "learned", PartialReprints: true, SourceNames: map[string][]string{"xinhua": {"新华社", "新华网"}}}}
	if err := s.FinishRun(ctx, r1); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != r1.ID || runs[1].ID != r2.ID {
		t.Fatalf("runs = %+v", runs)
	}
	got := runs[0]
	if !got.StartedAt.Equal(r1.StartedAt) || !got.FinishedAt.Equal(r1.FinishedAt) || got.Status != r1.Status ||
		got.Config != r1.Config || !reflect.DeepEqual(got.Stats, r1.Stats) {
		t.Fatalf("finished run = %+v, want %+v", got, r1)
	}
	if runs[1].Status != storage.RunRunning || !runs[1].FinishedAt.IsZero() {
		t.Fatalf("unfinished run = %+v", runs[1])
	}
	if err := s.FinishRun(ctx, storage.Run{ID: r2.ID + 100, Status: storage.RunFailed}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("FinishRun(unknown) = %v, want ErrNotFound", err)
	}
}

func testCommitOutcomes(t *testing.T, s storage.Store) {
	ctx := context.Background()
	base := mustStore(t, s, "http://a/base")
	tests := []struct {
		name    string
		c       *storage.Commit
		decided bool
	}{
		{"stored", stored("http://a/1"), true},
		{"duplicate", duplicate("http://a/2", base), true},
		{"not_article", notArticle("http://a/3"), false},
		{"error", errorPage("http://a/4", false), false},
		{"permanent_error", errorPage("http://a/5", true), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.c.Page
			mustCommit(t, s, tc.c)
			got, err := s.PageOf(ctx, want.URL)
			if err != nil {
				t.Fatal(err)
			}
			if !samePage(got, want) {
				t.Fatalf("PageOf = %+v, want %+v", got, want)
			}
			o, ok, err := s.Decided(ctx, want.URL)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.decided || (ok && o != want.Outcome) {
				t.Fatalf("Decided = %q, %v; want %q, %v", o, ok, want.Outcome, tc.decided)
			}
		})
	}
	if _, err := s.PageOf(ctx, "http://a/none"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("PageOf(missing) = %v, want ErrNotFound", err)
	}
	if _, ok, err := s.Decided(ctx, "http://a/none"); ok || err != nil {
		t.Fatalf("Decided(missing) = %v, %v", ok, err)
	}
}

func samePage(a, b storage.Page) bool {
	eq := a.FetchedAt.Equal(b.FetchedAt)
	a.FetchedAt, b.FetchedAt = time.Time{}, time.Time{}
	return eq && a == b
}

func testCommitInvalid(t *testing.T, s storage.Store) {
	ctx := context.Background()
	base := mustStore(t, s, "http://a/base")
	before := snap(t, s)
	withPage := func(c *storage.Commit, f func(*storage.Commit)) *storage.Commit { f(c); return c }
	tests := []struct {
		name string
		c    *storage.Commit
	}{
		{"nil", nil},
		{"empty url", withPage(notArticle(""), func(*storage.Commit) {})},
		{"unknown outcome", withPage(notArticle("http://a/x"), func(c *storage.Commit) { c.Page.Outcome = "maybe" })},
		{"stored without article", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Article = nil })},
		{"raw with a duplicate", withPage(duplicate("http://a/x", base), func(c *storage.Commit) {
			c.Raw = &storage.RawResponse{Status: 200, Body: []byte("x")}
		})},
		{"raw with bad status", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Raw = &storage.RawResponse{Status: 42} })},
		{"stored with duplicate", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Duplicate = duplicate("http://a/x", base).Duplicate })},
		{"duplicate without verdict", withPage(duplicate("http://a/x", base), func(c *storage.Commit) { c.Duplicate = nil })},
		{"duplicate of nothing", withPage(duplicate("http://a/x", 0), func(*storage.Commit) {})},
		{"error with article", withPage(errorPage("http://a/x", false), func(c *storage.Commit) { c.Article = article("http://a/x") })},
		{"article url mismatch", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Article.URL = "http://a/y" })},
		{"negative length", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Article.Fingerprint.Length = -1 })},
		{"nan jaccard", withPage(duplicate("http://a/x", base), func(c *storage.Commit) { c.Duplicate.Jaccard = math.NaN() })},
		{"inf containment", withPage(duplicate("http://a/x", base), func(c *storage.Commit) { c.Duplicate.Containment = math.Inf(1) })},
		{"merges without cluster", withPage(duplicate("http://a/x", base), func(c *storage.Commit) { c.Duplicate.Merges = []int64{base} })},
		{"merges into itself", withPage(duplicate("http://a/x", base), func(c *storage.Commit) {
			c.Duplicate.Cluster, c.Duplicate.Merges = base, []int64{base}
		})},
		{"merges cluster 0", withPage(duplicate("http://a/x", base), func(c *storage.Commit) {
			c.Duplicate.Cluster, c.Duplicate.Merges = base, []int64{0}
		})},
		{"malformed lead image", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Article.Fingerprint.Image = "8x8:KW" })},
		{"lead image similarity above 1", withPage(duplicate("http://a/x", base), func(c *storage.Commit) { c.Duplicate.ImageSimilarity = 1.5 })},
		{"nan lead image similarity", withPage(duplicate("http://a/x", base), func(c *storage.Commit) { c.Duplicate.ImageSimilarity = math.NaN() })},
		{"time too early", withPage(stored("http://a/x"), func(c *storage.Commit) { c.Article.PublishedAt = time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC) })},
		{"time too late", withPage(notArticle("http://a/x"), func(c *storage.Commit) { c.Page.FetchedAt = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC) })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Commit(ctx, tc.c); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("Commit = %v, want ErrInvalid", err)
			}
		})
	}
	// A duplicate of an article that does not exist is well formed but fails.
	if err := s.Commit(ctx, duplicate("http://a/x", math.MaxInt64)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Commit(duplicate of missing article) = %v, want ErrNotFound", err)
	}
	if after := snap(t, s); !reflect.DeepEqual(before, after) {
		t.Fatalf("rejected commits changed the store:\nbefore %+v\nafter  %+v", before, after)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func testAlreadyDecided(t *testing.T, s storage.Store) {
	ctx := context.Background()
	id := mustStore(t, s, "http://a/1", "x", "y")
	mustCommit(t, s, duplicate("http://a/2", id))
	before := snap(t, s)
	tests := []struct {
		name string
		c    *storage.Commit
	}{
		{"stored again", stored("http://a/1", "x", "z")},
		{"stored then duplicate", duplicate("http://a/1", id)},
		{"stored then error", errorPage("http://a/1", true)},
		{"stored then not_article", notArticle("http://a/1")},
		{"duplicate then stored", stored("http://a/2", "q")},
		{"duplicate again", duplicate("http://a/2", id)},
		{"duplicate then error", errorPage("http://a/2", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Commit(ctx, tc.c); !errors.Is(err, storage.ErrAlreadyDecided) {
				t.Fatalf("Commit = %v, want ErrAlreadyDecided", err)
			}
			if tc.c.Article != nil && tc.c.Article.ID != 0 {
				t.Fatalf("rejected article got id %d", tc.c.Article.ID)
			}
		})
	}
	if after := snap(t, s); !reflect.DeepEqual(before, after) {
		t.Fatalf("ErrAlreadyDecided commits changed the store:\nbefore %+v\nafter  %+v", before, after)
	}
}

func testReplaceNonFinal(t *testing.T, s storage.Store) {
	ctx := context.Background()
	mustCommit(t, s, errorPage("http://a/1", false))
	mustCommit(t, s, notArticle("http://a/2"))
	mustCommit(t, s, notArticle("http://a/1")) // error replaced by not_article
	mustCommit(t, s, errorPage("http://a/3", true))
	c := stored("http://a/1", "t")
	mustCommit(t, s, c) // not_article replaced by stored
	mustCommit(t, s, stored("http://a/3"))

	sn := snap(t, s)
	if got, want := urlsOfPages(sn.Pages), []string{"http://a/2", "http://a/1", "http://a/3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("page order = %v, want %v (a replaced page moves to the end)", got, want)
	}
	p, err := s.PageOf(ctx, "http://a/1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Outcome != storage.OutcomeStored || p.ErrKind != "" || p.Permanent {
		t.Fatalf("replaced page = %+v", p)
	}
	if len(sn.Articles) != 2 || sn.Articles[0].ID != c.Article.ID || sn.Docs != 2 || sn.DF["t"] != 1 {
		t.Fatalf("after replacement: %+v", sn)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// norm makes an article comparable with reflect.DeepEqual: UTC times without
// monotonic readings and nil for an empty signature.
func norm(a storage.Article) storage.Article {
	a.PublishedAt, a.FetchedAt = normTime(a.PublishedAt), normTime(a.FetchedAt)
	if len(a.Fingerprint.Signature) == 0 {
		a.Fingerprint.Signature = nil
	}
	return a
}

func normTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Unix(0, t.UnixNano()).UTC()
}

// normDup does for a duplicate what norm does for an article.
func normDup(d storage.Duplicate) storage.Duplicate {
	d.PublishedAt, d.FetchedAt = normTime(d.PublishedAt), normTime(d.FetchedAt)
	if len(d.Signature) == 0 {
		d.Signature = nil
	}
	return d
}

func testArticleIDs(t *testing.T, s storage.Store) {
	ctx := context.Background()
	c1 := stored("http://a/1")
	mustCommit(t, s, c1)
	if c1.Article.ID <= 0 || c1.Article.Cluster != c1.Article.ID {
		t.Fatalf("first article id %d cluster %d: want positive id and cluster = id", c1.Article.ID, c1.Article.Cluster)
	}
	c2 := stored("http://a/2")
	c2.Article.Cluster = c1.Article.ID // joins the first article's cluster
	c2.Article.URL = ""                // taken from the page
	loc := time.FixedZone("CST", 8*3600)
	c2.Article.PublishedAt = time.Date(2009, 1, 18, 8, 0, 0, 1, loc)
	c2.Article.FetchedAt = time.Time{}
	mustCommit(t, s, c2)
	if c2.Article.ID <= c1.Article.ID || c2.Article.Cluster != c1.Article.ID {
		t.Fatalf("second article id %d cluster %d", c2.Article.ID, c2.Article.Cluster)
	}
	c3 := stored("http://a/3")
	mustCommit(t, s, c3)
	if c3.Article.ID <= c2.Article.ID || c3.Article.Cluster != c3.Article.ID {
		t.Fatalf("third article id %d cluster %d", c3.Article.ID, c3.Article.Cluster)
	}

	for _, c := range []*storage.Commit{c1, c2, c3} {
		want := *c.Article
		want.URL = c.Page.URL
		want = norm(want)
		got, err := s.Article(ctx, c.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(norm(got), want) {
			t.Fatalf("Article(%d) =\n%+v\nwant\n%+v", c.Article.ID, got, want)
		}
		if got.PublishedAt.Location() != time.UTC || !got.PublishedAt.Equal(c.Article.PublishedAt) {
			t.Fatalf("published_at %v: want UTC %v", got.PublishedAt, c.Article.PublishedAt)
		}
		got, err = s.ArticleByURL(ctx, c.Page.URL)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(norm(got), want) {
			t.Fatalf("ArticleByURL(%s) = %+v, want %+v", c.Page.URL, got, want)
		}
	}
	got, _ := s.Article(ctx, c2.Article.ID)
	if !got.FetchedAt.IsZero() {
		t.Fatalf("zero fetched_at came back as %v", got.FetchedAt)
	}
	if _, err := s.Article(ctx, 1000); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Article(missing) = %v", err)
	}
	if _, err := s.ArticleByURL(ctx, "http://a/none"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("ArticleByURL(missing) = %v", err)
	}
}

func testDuplicateLinks(t *testing.T, s storage.Store) {
	ctx := context.Background()
	c1 := stored("http://a/1")
	mustCommit(t, s, c1)
	c2 := stored("http://a/2")
	c2.Article.Cluster = 77
	mustCommit(t, s, c2)

	d1 := duplicate("http://b/1", c1.Article.ID)
	mustCommit(t, s, d1)
	if d1.Duplicate.DupOfURL != "http://a/1" || d1.Duplicate.Cluster != c1.Article.Cluster {
		t.Fatalf("duplicate filled in %q cluster %d", d1.Duplicate.DupOfURL, d1.Duplicate.Cluster)
	}
	d2 := duplicate("http://b/2", c2.Article.ID) // inherits cluster 77
	d2.Duplicate.Signature = []uint64{}          // empty signature
	mustCommit(t, s, d2)
	d3 := duplicate("http://b/3", c2.Article.ID)
	d3.Duplicate.Cluster, d3.Duplicate.DupOfURL = 5, "http://given"
	d3.Duplicate.Signature = nil
	mustCommit(t, s, d3)

	var got []storage.Duplicate
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error { got = append(got, d); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []storage.Duplicate{*d1.Duplicate, *d2.Duplicate, *d3.Duplicate}
	want[1].DupOfURL, want[1].Cluster = "http://a/2", 77
	want[2].DupOfURL, want[2].Cluster = "http://given", 5
	if len(got) != len(want) {
		t.Fatalf("got %d duplicates, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(normDup(got[i]), normDup(want[i])) {
			t.Fatalf("duplicate %d =\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
	if got[0].Simhash != math.MaxUint64 {
		t.Fatalf("duplicate simhash %x", got[0].Simhash)
	}
	if want := []uint64{0, 7, 7, 1 << 63, math.MaxUint64}; !reflect.DeepEqual(got[0].Signature, want) {
		t.Fatalf("duplicate signature %v, want %v", got[0].Signature, want)
	}
}

// testClusterMerges: a duplicate that bridges clusters moves every article
// and duplicate of the merged clusters to its own cluster, in its commit;
// other clusters are untouched.
func testClusterMerges(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a1 := mustStore(t, s, "http://a/1")
	a2 := mustStore(t, s, "http://a/2")
	a3 := mustStore(t, s, "http://a/3")
	a4 := mustStore(t, s, "http://a/4")
	mustCommit(t, s, duplicate("http://b/2", a2))
	mustCommit(t, s, duplicate("http://b/3", a3))
	mustCommit(t, s, duplicate("http://b/4", a4))
	bridge := duplicate("http://b/bridge", a1)
	bridge.Duplicate.Cluster, bridge.Duplicate.Merges = a1, []int64{a2, a3, a3}
	mustCommit(t, s, bridge)
	if bridge.Duplicate.Cluster != a1 {
		t.Fatalf("bridge cluster %d, want %d", bridge.Duplicate.Cluster, a1)
	}
	want := map[string]int64{
		"http://a/1": a1, "http://a/2": a1, "http://a/3": a1, "http://a/4": a4,
		"http://b/2": a1, "http://b/3": a1, "http://b/4": a4, "http://b/bridge": a1,
	}
	got := map[string]int64{}
	if err := s.Articles(ctx, func(a storage.Article) error { got[a.URL] = a.Cluster; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error {
		if d.Merges != nil {
			t.Errorf("duplicate %s read back with merges %v", d.URL, d.Merges)
		}
		got[d.URL] = d.Cluster
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("clusters after the merge:\n got %v\nwant %v", got, want)
	}
	// Fingerprint reads (the index rebuild) see the merged clusters too.
	if err := s.Fingerprints(ctx, time.Time{}, func(a storage.Article) error {
		if a.Cluster != want[a.URL] {
			t.Errorf("Fingerprints: %s in cluster %d, want %d", a.URL, a.Cluster, want[a.URL])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.DuplicateFingerprints(ctx, time.Time{}, func(d storage.Duplicate) error {
		if d.Cluster != want[d.URL] {
			t.Errorf("DuplicateFingerprints: %s in cluster %d, want %d", d.URL, d.Cluster, want[d.URL])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// testSignatureCopies: a store keeps its own copy of a committed signature
// and hands out copies, so that neither the committer nor a reader can
// change what is stored.
func testSignatureCopies(t *testing.T, s storage.Store) {
	ctx := context.Background()
	c := stored("http://cp/1")
	mustCommit(t, s, c)
	d := duplicate("http://cp/2", c.Article.ID)
	mustCommit(t, s, d)
	c.Article.Fingerprint.Signature[0] = 99
	d.Duplicate.Signature[0] = 99

	a, err := s.Article(ctx, c.Article.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := article("").Fingerprint.Signature; !reflect.DeepEqual(a.Fingerprint.Signature, want) {
		t.Fatalf("article signature %v after the committer changed its slice, want %v", a.Fingerprint.Signature, want)
	}
	a.Fingerprint.Signature[1] = 99
	readDups := func() []storage.Duplicate {
		t.Helper()
		var out []storage.Duplicate
		if err := s.Duplicates(ctx, func(d storage.Duplicate) error { out = append(out, d); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.DuplicateFingerprints(ctx, time.Time{}, func(d storage.Duplicate) error { out = append(out, d); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := duplicate("", 1).Duplicate.Signature
	for _, got := range readDups() {
		if !reflect.DeepEqual(got.Signature, want) {
			t.Fatalf("duplicate signature %v after the committer changed its slice, want %v", got.Signature, want)
		}
		got.Signature[1] = 99
	}
	for _, got := range readDups() {
		if !reflect.DeepEqual(got.Signature, want) {
			t.Fatalf("duplicate signature %v after a reader changed its copy, want %v", got.Signature, want)
		}
	}
	if a, err := s.Article(ctx, c.Article.ID); err != nil || a.Fingerprint.Signature[1] != article("").Fingerprint.Signature[1] {
		t.Fatalf("article signature %v (%v) after a reader changed its copy", a.Fingerprint.Signature, err)
	}
}

func testIterationOrder(t *testing.T, s storage.Store) {
	var wantPages, wantArts []string
	var first int64
	for i := range 12 {
		u := fmt.Sprintf("http://o/%02d", 11-i) // URLs in reverse byte order
		switch i % 3 {
		case 0:
			id := mustStore(t, s, u)
			if first == 0 {
				first = id
			}
			wantArts = append(wantArts, u)
		case 1:
			mustCommit(t, s, duplicate(u, first))
		case 2:
			mustCommit(t, s, notArticle(u))
		}
		wantPages = append(wantPages, u)
	}
	sn := snap(t, s)
	if got := urlsOfPages(sn.Pages); !reflect.DeepEqual(got, wantPages) {
		t.Fatalf("pages order %v, want %v", got, wantPages)
	}
	var gotArts []string
	var lastID int64
	for _, a := range sn.Articles {
		if a.ID <= lastID {
			t.Fatalf("articles not in id order: %d after %d", a.ID, lastID)
		}
		lastID = a.ID
		gotArts = append(gotArts, a.URL)
	}
	if !reflect.DeepEqual(gotArts, wantArts) {
		t.Fatalf("articles order %v, want %v", gotArts, wantArts)
	}
	var gotDups []string
	for _, d := range sn.Dups {
		gotDups = append(gotDups, d.URL)
	}
	if want := []string{"http://o/10", "http://o/07", "http://o/04", "http://o/01"}; !reflect.DeepEqual(gotDups, want) {
		t.Fatalf("duplicates order %v, want %v", gotDups, want)
	}
}

func testIterationStops(t *testing.T, s storage.Store) {
	ctx := context.Background()
	for i := range 5 {
		id := mustStore(t, s, fmt.Sprintf("http://s/%d", i), "t")
		mustCommit(t, s, duplicate(fmt.Sprintf("http://d/%d", i), id))
	}
	stop := errors.New("stop here")
	iters := []struct {
		name string
		run  func(fn func() error) error
	}{
		{"Articles", func(fn func() error) error {
			return s.Articles(ctx, func(storage.Article) error { return fn() })
		}},
		{"Fingerprints", func(fn func() error) error {
			return s.Fingerprints(ctx, time.Time{}, func(storage.Article) error { return fn() })
		}},
		{"DuplicateFingerprints", func(fn func() error) error {
			return s.DuplicateFingerprints(ctx, time.Time{}, func(storage.Duplicate) error { return fn() })
		}},
		{"Duplicates", func(fn func() error) error {
			return s.Duplicates(ctx, func(storage.Duplicate) error { return fn() })
		}},
		{"Pages", func(fn func() error) error {
			return s.Pages(ctx, func(storage.Page) error { return fn() })
		}},
		{"DocFreqs", func(fn func() error) error {
			_, err := s.DocFreqs(ctx, func(string, int) error { return fn() })
			return err
		}},
	}
	for _, it := range iters {
		t.Run(it.name, func(t *testing.T) {
			calls := 0
			err := it.run(func() error {
				calls++
				// Callbacks may call back into the store.
				if _, err := s.Pending(ctx, ""); err != nil {
					return err
				}
				return stop
			})
			if !errors.Is(err, stop) || calls != 1 {
				t.Fatalf("err %v after %d calls: want the callback's error after 1 call", err, calls)
			}
		})
	}
}

func testFingerprints(t *testing.T, s storage.Store) {
	ctx := context.Background()
	day := 24 * time.Hour
	base := time.Date(2024, 1, 10, 0, 0, 0, 0, time.UTC)
	type in struct {
		url       string
		fetched   time.Time
		published time.Time
		fp        storage.Fingerprint
	}
	ins := []in{
		{"http://f/old", base.Add(-10 * day), base.Add(-11 * day), storage.Fingerprint{Simhash: 0, Signature: nil, Length: 0}},
		{"http://f/fetched-new", base.Add(day), base.Add(-30 * day), storage.Fingerprint{Simhash: math.MaxUint64, Signature: []uint64{math.MaxUint64, math.MaxUint64}, Length: 7}},
		{"http://f/published-new", base.Add(-5 * day), base.Add(2 * day), storage.Fingerprint{Simhash: 1 << 63, Signature: []uint64{0, 3, 3, 1 << 40}, Length: 300}},
		{"http://f/no-dates", time.Time{}, time.Time{}, storage.Fingerprint{Simhash: 12345, Signature: []uint64{}, Length: 1}},
		{"http://f/exact", base, time.Time{}, storage.Fingerprint{Simhash: 99, Signature: []uint64{5}, Length: 2}},
	}
	byURL := map[string]in{}
	for _, x := range ins {
		c := stored(x.url)
		c.Article.FetchedAt, c.Article.PublishedAt, c.Article.Fingerprint = x.fetched, x.published, x.fp
		c.Page.FetchedAt = x.fetched
		mustCommit(t, s, c)
		byURL[x.url] = x
	}
	tests := []struct {
		name  string
		since time.Time
		want  []string
	}{
		{"zero since: all", time.Time{}, []string{"http://f/old", "http://f/fetched-new", "http://f/published-new", "http://f/no-dates", "http://f/exact"}},
		{"since base: inclusive", base, []string{"http://f/fetched-new", "http://f/published-new", "http://f/exact"}},
		{"since base+1ns", base.Add(1), []string{"http://f/fetched-new", "http://f/published-new"}},
		{"by published only", base.Add(36 * time.Hour), []string{"http://f/published-new"}},
		{"future", base.Add(100 * day), nil},
		{"since year 1: all dated", time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), []string{"http://f/old", "http://f/fetched-new", "http://f/published-new", "http://f/exact"}},
		{"since year 9999: none", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{"since in another zone", base.In(time.FixedZone("CST", 8*3600)), []string{"http://f/fetched-new", "http://f/published-new", "http://f/exact"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := s.Fingerprints(ctx, tc.since, func(a storage.Article) error {
				got = append(got, a.URL)
				if a.Text != "" {
					return fmt.Errorf("%s: text loaded", a.URL)
				}
				x := byURL[a.URL]
				if a.Fingerprint.Simhash != x.fp.Simhash || a.Fingerprint.Length != x.fp.Length ||
					len(a.Fingerprint.Signature) != len(x.fp.Signature) ||
					(len(x.fp.Signature) > 0 && !reflect.DeepEqual(a.Fingerprint.Signature, x.fp.Signature)) {
					return fmt.Errorf("%s: fingerprint %+v, want %+v", a.URL, a.Fingerprint, x.fp)
				}
				if a.ID == 0 || a.Cluster == 0 || a.Title == "" {
					return fmt.Errorf("%s: missing id, cluster or title: %+v", a.URL, a)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func testDuplicateFingerprints(t *testing.T, s storage.Store) {
	ctx := context.Background()
	day := 24 * time.Hour
	base := time.Date(2024, 1, 10, 0, 0, 0, 0, time.UTC)
	first := mustStore(t, s, "http://g/a1")
	c2 := stored("http://g/a2")
	c2.Article.Cluster = 77
	mustCommit(t, s, c2)
	second := c2.Article.ID
	type in struct {
		url       string
		of        int64
		fetched   time.Time
		published time.Time
		simhash   uint64
		sig       []uint64
	}
	// Committed in this order, which is neither URL nor dup_of order.
	ins := []in{
		{"http://g/z-old", second, base.Add(-10 * day), base.Add(-11 * day), 0, nil},
		{"http://g/y-fetched-new", first, base.Add(day), base.Add(-30 * day), math.MaxUint64, []uint64{math.MaxUint64, math.MaxUint64}},
		{"http://g/x-published-new", second, base.Add(-5 * day), base.Add(2 * day), 1 << 63, []uint64{0, 3, 3, 1 << 40}},
		{"http://g/w-no-dates", first, time.Time{}, time.Time{}, 12345, []uint64{}},
		{"http://g/v-exact", second, base, time.Time{}, 99, []uint64{5}},
	}
	byURL := map[string]in{}
	for _, x := range ins {
		c := duplicate(x.url, x.of)
		c.Duplicate.FetchedAt, c.Duplicate.PublishedAt = x.fetched, x.published
		c.Duplicate.Simhash, c.Duplicate.Signature = x.simhash, x.sig
		c.Page.FetchedAt = x.fetched
		mustCommit(t, s, c)
		byURL[x.url] = x
	}
	// Articles committed after the duplicates are not streamed as duplicates.
	mustStore(t, s, "http://g/a3")
	all := []string{"http://g/z-old", "http://g/y-fetched-new", "http://g/x-published-new", "http://g/w-no-dates", "http://g/v-exact"}
	tests := []struct {
		name  string
		since time.Time
		want  []string
	}{
		{"zero since: all", time.Time{}, all},
		{"since base: inclusive", base, []string{"http://g/y-fetched-new", "http://g/x-published-new", "http://g/v-exact"}},
		{"since base+1ns", base.Add(1), []string{"http://g/y-fetched-new", "http://g/x-published-new"}},
		{"by published only", base.Add(36 * time.Hour), []string{"http://g/x-published-new"}},
		{"future", base.Add(100 * day), nil},
		{"since year 1: all dated", time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), []string{"http://g/z-old", "http://g/y-fetched-new", "http://g/x-published-new", "http://g/v-exact"}},
		{"since year 9999: none", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{"since in another zone", base.In(time.FixedZone("CST", 8*3600)), []string{"http://g/y-fetched-new", "http://g/x-published-new", "http://g/v-exact"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := s.DuplicateFingerprints(ctx, tc.since, func(d storage.Duplicate) error {
				got = append(got, d.URL)
				if d.Text != "" {
					return fmt.Errorf("%s: text loaded", d.URL)
				}
				x := byURL[d.URL]
				if d.Simhash != x.simhash || len(d.Signature) != len(x.sig) ||
					(len(x.sig) > 0 && !reflect.DeepEqual(d.Signature, x.sig)) {
					return fmt.Errorf("%s: simhash %x signature %v, want %x %v", d.URL, d.Simhash, d.Signature, x.simhash, x.sig)
				}
				wantCluster, wantOfURL := first, "http://g/a1"
				if x.of == second {
					wantCluster, wantOfURL = 77, "http://g/a2"
				}
				if d.DupOf != x.of || d.DupOfURL != wantOfURL || d.Cluster != wantCluster || d.Title == "" ||
					d.Jaccard != 0.875 || d.Containment != 0.9375 || d.Reason != "containment" || !d.FetchedAt.Equal(x.fetched) || !d.PublishedAt.Equal(x.published) {
					return fmt.Errorf("%s: verdict %+v", d.URL, d)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Duplicates (with text) streams the same verdicts in the same order.
	var withText []string
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error {
		if d.Text == "" {
			return fmt.Errorf("%s: Duplicates left out the text", d.URL)
		}
		withText = append(withText, d.URL)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withText, all) {
		t.Fatalf("Duplicates order %v, want %v", withText, all)
	}
}

func testDocFreqs(t *testing.T, s storage.Store) {
	ctx := context.Background()
	docs, err := s.DocFreqs(ctx, func(string, int) error { return errors.New("empty store has no terms") })
	if err != nil || docs != 0 {
		t.Fatalf("empty store: docs %d, err %v", docs, err)
	}
	id := mustStore(t, s, "http://t/1", "新闻", "北京", "新闻", "北京", "新闻") // repeats count once
	mustCommit(t, s, stored("http://t/2", "新闻", "上海"))
	mustCommit(t, s, stored("http://t/3")) // no terms, still a document
	dup := duplicate("http://t/4", id)
	dup.Terms = []string{"新闻", "广州"}
	mustCommit(t, s, dup)
	na := notArticle("http://t/5")
	na.Terms = []string{"新闻"}
	mustCommit(t, s, na)
	// Rejected commit: nothing counted.
	if err := s.Commit(ctx, stored("http://t/1", "新闻")); !errors.Is(err, storage.ErrAlreadyDecided) {
		t.Fatalf("recommit: %v", err)
	}
	got := map[string]int{}
	var order []string
	docs, err = s.DocFreqs(ctx, func(term string, df int) error {
		if _, seen := got[term]; seen {
			return fmt.Errorf("term %q streamed twice", term)
		}
		got[term] = df
		order = append(order, term)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"新闻": 2, "北京": 1, "上海": 1}
	if docs != 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("DocFreqs = %v docs %d, want %v docs 3", got, docs, want)
	}
	if !sort.StringsAreSorted(order) {
		t.Fatalf("terms not in byte order: %q", order)
	}
}

// manyDocs is how many articles testDocFreqsMany stores: more than a backend
// is likely to batch document-frequency updates by (the SQLite store folds
// its log every 256 documents), so that the counts are checked across
// several batch boundaries.
const manyDocs = 600

// testDocFreqsMany stores many articles with overlapping terms and checks
// DocFreqs against a recount after every commit whose count is next to a
// multiple of 16, and at the end.
func testDocFreqsMany(t *testing.T, s storage.Store) {
	ctx := context.Background()
	want := map[string]int{}
	for i := 1; i <= manyDocs; i++ {
		terms := []string{fmt.Sprintf("p%d", i%5), fmt.Sprintf("q%d", i%11), fmt.Sprintf("own%d", i), "共同", fmt.Sprintf("p%d", i%5)}
		if i%17 == 0 {
			terms = nil
		}
		mustCommit(t, s, stored(fmt.Sprintf("http://many/%d", i), terms...))
		for _, term := range storage.DistinctTerms(terms) {
			want[term]++
		}
		if k := i % 16; k != 15 && k != 0 && k != 1 && i != manyDocs {
			continue
		}
		got := map[string]int{}
		prev := ""
		docs, err := s.DocFreqs(ctx, func(term string, df int) error {
			if len(got) > 0 && term <= prev {
				return fmt.Errorf("term %q streamed after %q", term, prev)
			}
			prev = term
			got[term] = df
			return nil
		})
		if err != nil {
			t.Fatalf("after %d articles: %v", i, err)
		}
		if docs != i || !reflect.DeepEqual(got, want) {
			for term, df := range want {
				if got[term] != df {
					t.Errorf("after %d articles: df(%q) = %d, want %d", i, term, got[term], df)
				}
			}
			t.Fatalf("after %d articles: %d docs, %d terms; want %d docs, %d terms", i, docs, len(got), i, len(want))
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func item(url, site string, depth int) storage.FrontierItem {
	return storage.FrontierItem{URL: url, Site: site, Depth: depth, Referer: "http://ref/" + site}
}

func urlsOf(items []storage.FrontierItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func testFrontier(t *testing.T, s storage.Store) {
	ctx := context.Background()
	mustPending := func(site string, want int) {
		t.Helper()
		n, err := s.Pending(ctx, site)
		if err != nil || n != want {
			t.Fatalf("Pending(%q) = %d, %v; want %d", site, n, err, want)
		}
	}
	mustPop := func(site string, n int, want ...string) []storage.FrontierItem {
		t.Helper()
		got, err := s.Pop(ctx, site, n)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = []string{}
		}
		if g := urlsOf(got); !reflect.DeepEqual(g, want) {
			t.Fatalf("Pop(%q, %d) = %v, want %v", site, n, g, want)
		}
		return got
	}

	mustPending("", 0)
	mustPop("", 5)
	added, err := s.Push(ctx, []storage.FrontierItem{
		item("http://z/1", "sina", 0), item("http://a/2", "sohu", 1), item("http://m/3", "sina", 2),
		item("http://z/1", "sina", 5), // repeated within the batch
	})
	if err != nil || added != 3 {
		t.Fatalf("Push = %d, %v; want 3", added, err)
	}
	added, err = s.Push(ctx, []storage.FrontierItem{item("http://a/2", "sohu", 0), item("http://b/4", "sohu", 1), item("http://c/5", "sina", 1)})
	if err != nil || added != 2 {
		t.Fatalf("second Push = %d, %v; want 2", added, err)
	}
	if added, err := s.Push(ctx, nil); err != nil || added != 0 {
		t.Fatalf("empty Push = %d, %v", added, err)
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{{URL: ""}}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Push(empty url) = %v, want ErrInvalid", err)
	}
	mustPending("", 5)
	mustPending("sina", 3)
	mustPending("sohu", 2)
	mustPending("qq", 0)

	got := mustPop("sina", 2, "http://z/1", "http://m/3") // FIFO, not URL order
	if want := item("http://z/1", "sina", 0); got[0] != want {
		t.Fatalf("popped %+v, want %+v (first push wins)", got[0], want)
	}
	got = mustPop("", 2, "http://a/2", "http://b/4") // in-flight items are skipped
	if want := item("http://a/2", "sohu", 0); got[0] != want {
		t.Fatalf("popped %+v, want %+v (a pending URL pushed again at a smaller depth takes it)", got[0], want)
	}
	mustPop("", 10, "http://c/5")
	mustPop("", 10)
	mustPending("", 5) // in flight still counts
	if err := s.Done(ctx, "http://m/3"); err != nil {
		t.Fatal(err)
	}
	if err := s.Done(ctx, "http://never/queued"); err != nil {
		t.Fatalf("Done(absent) = %v, want nil", err)
	}
	mustPending("", 4)
	mustPending("sina", 2)
	// Pushing an in-flight URL again is ignored.
	if added, err := s.Push(ctx, []storage.FrontierItem{item("http://z/1", "sina", 0)}); err != nil || added != 0 {
		t.Fatalf("Push(in flight) = %d, %v", added, err)
	}
	n, err := s.Requeue(ctx)
	if err != nil || n != 4 {
		t.Fatalf("Requeue = %d, %v; want 4", n, err)
	}
	if n, err := s.Requeue(ctx); err != nil || n != 0 {
		t.Fatalf("second Requeue = %d, %v; want 0", n, err)
	}
	// Requeued items keep their original order.
	mustPop("", 3, "http://z/1", "http://a/2", "http://b/4")
	if added, err := s.Push(ctx, []storage.FrontierItem{item("http://m/3", "sina", 2)}); err != nil || added != 1 {
		t.Fatalf("Push(done url) = %d, %v; want 1 (a done URL without a final page may be queued again)", added, err)
	}
	mustPop("sina", 5, "http://c/5", "http://m/3")
	mustPop("", 0)
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	mustPending("", 0)
	mustPop("", 10)
	if added, err := s.Push(ctx, []storage.FrontierItem{item("http://z/1", "sina", 0)}); err != nil || added != 1 {
		t.Fatalf("Push after Reset = %d, %v; want 1", added, err)
	}
	mustPop("", 1, "http://z/1")
}

func testFrontierSkipsDecided(t *testing.T, s storage.Store) {
	ctx := context.Background()
	id := mustStore(t, s, "http://k/stored")
	mustCommit(t, s, duplicate("http://k/dup", id))
	mustCommit(t, s, errorPage("http://k/permanent", true))
	mustCommit(t, s, errorPage("http://k/transient", false))
	mustCommit(t, s, notArticle("http://k/list"))
	added, err := s.Push(ctx, []storage.FrontierItem{
		item("http://k/stored", "s", 1), item("http://k/dup", "s", 1), item("http://k/permanent", "s", 1),
		item("http://k/transient", "s", 1), item("http://k/list", "s", 0), item("http://k/new", "s", 1),
	})
	if err != nil || added != 3 {
		t.Fatalf("Push = %d, %v; want 3", added, err)
	}
	got, err := s.Pop(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://k/transient", "http://k/list", "http://k/new"}; !reflect.DeepEqual(urlsOf(got), want) {
		t.Fatalf("Pop = %v, want %v", urlsOf(got), want)
	}
}

func testLock(t *testing.T, s storage.Store) {
	ctx := context.Background()
	release, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock(ctx, false); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("second Lock(wait=false) = %v, want ErrLocked", err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.Lock(short, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock(wait=true) with expiring ctx = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > lockWaitLimit {
		t.Fatalf("Lock ignored its context for %v", d)
	}
	canceled, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := s.Lock(canceled, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock(wait=true) with canceled ctx = %v, want Canceled", err)
	}

	type result struct {
		release func() error
		err     error
	}
	got := make(chan result, 1)
	go func() {
		r, err := s.Lock(ctx, true)
		got <- result{r, err}
	}()
	select {
	case r := <-got:
		t.Fatalf("Lock(wait=true) returned %v while the lock was held", r.err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil { // idempotent
		t.Fatalf("second release: %v", err)
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(lockWaitLimit):
		t.Fatal("Lock(wait=true) did not return after release")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if _, err := s.Lock(ctx, false); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("Lock while the waiter holds it = %v, want ErrLocked", err)
	}
	if err := r.release(); err != nil {
		t.Fatal(err)
	}
	again, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatalf("Lock after release = %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
}

// testSharedLock: several holders at once, a canceled context still fails,
// releases are idempotent.
func testSharedLock(t *testing.T, s storage.Store) {
	ctx := context.Background()
	first, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatalf("second Lock(wait=false) of a shared lock = %v, want nil", err)
	}
	third, err := s.Lock(ctx, true)
	if err != nil {
		t.Fatalf("Lock(wait=true) of a shared lock = %v, want nil", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Lock(canceled, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock(wait=true) with canceled ctx = %v, want Canceled", err)
	}
	for i, release := range []func() error{first, second, third, first} { // first twice: idempotent
		if err := release(); err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
	}
	again, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatalf("Lock after release = %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
}

func testCheck(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if err := s.Check(ctx); err != nil {
		t.Fatalf("empty store: %v", err)
	}
	mustCommit(t, s, stored("http://c/1", "a", "b"))
	id := mustStore(t, s, "http://c/2", "b")
	mustCommit(t, s, duplicate("http://c/3", id))
	mustCommit(t, s, errorPage("http://c/4", true))
	mustCommit(t, s, notArticle("http://c/5"))
	mustCommit(t, s, errorPage("http://c/6", false))
	mustCommit(t, s, stored("http://c/6"))
	if _, err := s.Push(ctx, []storage.FrontierItem{item("http://c/7", "x", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("good store: %v", err)
	}
}

func testCanceled(t *testing.T, s storage.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Commit(ctx, stored("http://x/1")); err == nil {
		t.Fatal("Commit with a canceled context succeeded")
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{item("http://x/2", "s", 0)}); err == nil {
		t.Fatal("Push with a canceled context succeeded")
	}
	if err := s.Articles(ctx, func(storage.Article) error { return nil }); err == nil {
		t.Fatal("Articles with a canceled context succeeded")
	}
	sn := snap(t, s)
	if len(sn.Pages) != 0 || sn.Pending != 0 {
		t.Fatalf("canceled calls wrote: %+v", sn)
	}
}

func testConcurrent(t *testing.T, s storage.Store) {
	ctx := context.Background()
	base := mustStore(t, s, "http://base/0", "共同")
	const workers, per = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*per*4)
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				u := fmt.Sprintf("http://w%d/%d", w, i)
				var c *storage.Commit
				if i%4 == 3 {
					c = duplicate(u, base)
				} else {
					c = stored(u, "共同", fmt.Sprintf("w%d", w), u)
				}
				if err := s.Commit(ctx, c); err != nil {
					errs <- err
				}
				if _, err := s.Push(ctx, []storage.FrontierItem{item(u+"/next", "s", 1), item("http://shared/next", "s", 1)}); err != nil {
					errs <- err
				}
				if _, err := s.Pending(ctx, "s"); err != nil {
					errs <- err
				}
			}
		})
	}
	// All workers race to decide one URL: exactly one wins.
	var winners sync.Map
	for w := range workers {
		wg.Go(func() {
			err := s.Commit(ctx, stored("http://contested/", "争"))
			switch {
			case err == nil:
				winners.Store(w, true)
			case !errors.Is(err, storage.ErrAlreadyDecided):
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	winners.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("%d commits of one URL succeeded, want 1", n)
	}

	sn := snap(t, s)
	storedN := 1 + workers*per*3/4 + 1
	if sn.Docs != storedN || len(sn.Articles) != storedN || sn.DF["共同"] != storedN-1 || sn.DF["争"] != 1 ||
		sn.DF["w0"] != per*3/4 || len(sn.Dups) != workers*per/4 || len(sn.Pages) != storedN+workers*per/4 {
		t.Fatalf("after concurrent commits: docs %d articles %d df %d/%d/%d dups %d pages %d",
			sn.Docs, len(sn.Articles), sn.DF["共同"], sn.DF["争"], sn.DF["w0"], len(sn.Dups), len(sn.Pages))
	}
	ids := map[int64]bool{}
	for _, a := range sn.Articles {
		if ids[a.ID] {
			t.Fatalf("article id %d assigned twice", a.ID)
		}
		ids[a.ID] = true
	}
	if want := workers*per + 1; sn.Pending != want {
		t.Fatalf("pending %d, want %d", sn.Pending, want)
	}

	// Concurrent Pop: every item is leased exactly once.
	var mu sync.Mutex
	leased := map[string]int{}
	for range workers {
		wg.Go(func() {
			for {
				items, err := s.Pop(ctx, "", 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(items) == 0 {
					return
				}
				mu.Lock()
				for _, it := range items {
					leased[it.URL]++
				}
				mu.Unlock()
				for _, it := range items {
					if err := s.Done(ctx, it.URL); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if len(leased) != workers*per+1 {
		t.Fatalf("leased %d distinct items, want %d", len(leased), workers*per+1)
	}
	for u, k := range leased {
		if k != 1 {
			t.Fatalf("%s leased %d times", u, k)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// testRawResponses: a RawStore keeps the raw response committed with a
// stored article and gives it back; other stores are skipped (the pipeline
// refuses fetch.keep_raw with them).
func testRawResponses(t *testing.T, s storage.Store) {
	rs, ok := s.(storage.RawStore)
	if !ok {
		t.Skip("not a storage.RawStore")
	}
	ctx := context.Background()
	body := []byte("<html><head><meta charset=\"gbk\"></head><body>\xd6\xd0\xce\xc4\x00\xff</body></html>")
	c := stored("http://raw/1")
	c.Raw = &storage.RawResponse{Status: 200, Proto: "HTTP/1.1", Header: http.Header{
		"Content-Type": {"text/html; charset=gbk"}, "Set-Cookie": {"a=1", "b=2"}}, Body: body}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, stored("http://raw/2")); err != nil {
		t.Fatal(err)
	}
	got, err := rs.Raw(ctx, "http://raw/1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != 200 || got.Proto != "HTTP/1.1" || !bytes.Equal(got.Body, body) ||
		got.Header.Get("Content-Type") != "text/html; charset=gbk" || !reflect.DeepEqual(got.Header.Values("Set-Cookie"), []string{"a=1", "b=2"}) {
		t.Fatalf("raw read back as %+v", got)
	}
	for _, u := range []string{"http://raw/2", "http://nowhere/"} {
		if _, err := rs.Raw(ctx, u); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Raw(%s) = %v, want ErrNotFound", u, err)
		}
	}
}

// changeFeed is the change feed every store of this module offers
// (storage.Cursor).
type changeFeed interface {
	Head(ctx context.Context) (storage.Cursor, error)
	Changes(ctx context.Context, after storage.Cursor, fn func(storage.Change) error) (storage.Cursor, error)
}

// feedItem is a change as the test compares it.
type feedItem struct {
	kind    string
	key     string // URL, or "into<-from"
	cluster int64
	text    string
	sigLen  int
}

func readFeed(t *testing.T, f changeFeed, after storage.Cursor) ([]feedItem, storage.Cursor) {
	t.Helper()
	var out []feedItem
	next, err := f.Changes(context.Background(), after, func(c storage.Change) error {
		switch {
		case c.Article != nil:
			out = append(out, feedItem{"article", c.Article.URL, c.Article.Cluster, c.Article.Text, len(c.Article.Fingerprint.Signature)})
		case c.Duplicate != nil:
			out = append(out, feedItem{"duplicate", c.Duplicate.URL, c.Duplicate.Cluster, c.Duplicate.Text, len(c.Duplicate.Signature)})
		case c.Merge != nil:
			out = append(out, feedItem{kind: "merge", key: fmt.Sprintf("%d<-%d", c.Merge.Into, c.Merge.From)})
		default:
			t.Errorf("change with no field set")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Changes(%+v): %v", after, err)
	}
	return out, next
}

// testChangeFeed: Head and Changes report every commit after a cursor
// (articles, duplicates and cluster merges, without texts, with current
// clusters), the cursor only grows, and a callback error stops the feed.
func testChangeFeed(t *testing.T, s storage.Store) {
	ctx := context.Background()
	f, ok := s.(changeFeed)
	if !ok {
		// storage/sqlite, storage/memory and storage/postgres have one;
		// a wrapper that hides it (a Redis frontier in front) is fine.
		t.Skipf("%T has no change feed (Head, Changes)", s)
	}
	h0, err := f.Head(ctx)
	if err != nil || h0 != (storage.Cursor{}) {
		t.Fatalf("Head of an empty store = %+v, %v; want zero", h0, err)
	}
	a1, a2 := stored("http://f/a1"), stored("http://f/a2")
	mustCommit(t, s, a1)
	mustCommit(t, s, a2)
	mustCommit(t, s, duplicate("http://f/d1", a1.Article.ID))
	mustCommit(t, s, notArticle("http://f/list"))
	h1, err := f.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, next := readFeed(t, f, h0)
	want := []feedItem{
		{"article", "http://f/a1", a1.Article.ID, "", 4},
		{"article", "http://f/a2", a2.Article.ID, "", 4},
		{"duplicate", "http://f/d1", a1.Article.ID, "", 5},
	}
	if !reflect.DeepEqual(got, want) || next != h1 {
		t.Fatalf("Changes(zero) = %+v, cursor %+v; want %+v, cursor %+v", got, next, want, h1)
	}
	a3 := stored("http://f/a3")
	mustCommit(t, s, a3)
	bridge := duplicate("http://f/bridge", a1.Article.ID)
	bridge.Duplicate.Cluster, bridge.Duplicate.Merges = a1.Article.ID, []int64{a3.Article.ID, a2.Article.ID, a3.Article.ID}
	mustCommit(t, s, bridge)
	h2, err := f.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !h1.Before(h2) || h2.Article <= h1.Article || h2.Duplicate <= h1.Duplicate || h2.Merge <= h1.Merge {
		t.Fatalf("Head moved from %+v to %+v; want every axis to grow", h1, h2)
	}
	got, next = readFeed(t, f, h1)
	want = []feedItem{
		{"article", "http://f/a3", a1.Article.ID, "", 4}, // its current cluster
		{"duplicate", "http://f/bridge", a1.Article.ID, "", 5},
		{kind: "merge", key: fmt.Sprintf("%d<-%d", a1.Article.ID, a2.Article.ID)},
		{kind: "merge", key: fmt.Sprintf("%d<-%d", a1.Article.ID, a3.Article.ID)},
	}
	if !reflect.DeepEqual(got, want) || next != h2 {
		t.Fatalf("Changes(%+v) = %+v, cursor %+v; want %+v, cursor %+v", h1, got, next, want, h2)
	}
	if got, next = readFeed(t, f, h2); len(got) != 0 || next != h2 {
		t.Fatalf("Changes(head) = %+v, cursor %+v; want nothing, cursor unchanged", got, next)
	}
	stop := errors.New("stop")
	n := 0
	next, err = f.Changes(ctx, h0, func(storage.Change) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 || next != h0 {
		t.Fatalf("Changes with a failing callback: %v after %d calls, cursor %+v; want the callback's error after 1, cursor unchanged", err, n, next)
	}
}

// testPartialReprints: the partial-reprint rule's data round-trips through
// every read (winnowing prints and content-word counts of articles and
// duplicates, partial_of, own share and passages of a partial reprint),
// next to lead images in the same rows; partial_of must name a stored
// article; a malformed record is invalid.
func testPartialReprints(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const img = "2x2:CYGR"
	a := stored("http://s.cn/a")
	a.Article.Fingerprint.Prints = []uint64{3<<32 | 5, 9<<32 | 0, math.MaxUint32<<32 | 99}
	a.Article.Fingerprint.ContentWords = 100
	a.Article.Fingerprint.Image = img
	mustCommit(t, s, a)
	b := stored("http://s.cn/b")
	b.Article.Fingerprint.Prints = []uint64{3<<32 | 1}
	b.Article.Fingerprint.ContentWords = 60
	b.Article.PartialOf, b.Article.OwnShare = a.Article.ID, 0.3125
	b.Article.Passages = []storage.Passage{{Start: 0, OtherStart: 5, Len: 20}, {Start: 30, OtherStart: 70, Len: 12}}
	mustCommit(t, s, b)
	d := duplicate("http://s.cn/d", a.Article.ID)
	d.Duplicate.Prints, d.Duplicate.ContentWords = []uint64{3<<32 | 5}, 8
	d.Duplicate.Image, d.Duplicate.ImageSimilarity = img, 0.75
	mustCommit(t, s, d)
	plain := stored("http://s.cn/plain")
	mustCommit(t, s, plain)

	check := func(how string, got storage.Article) {
		t.Helper()
		var want *storage.Article
		for _, c := range []*storage.Commit{a, b, plain} {
			if c.Article.ID == got.ID {
				want = c.Article
			}
		}
		if want == nil {
			t.Fatalf("%s: unknown article %d", how, got.ID)
		}
		if !reflect.DeepEqual(got.Fingerprint.Prints, want.Fingerprint.Prints) || got.Fingerprint.ContentWords != want.Fingerprint.ContentWords ||
			got.PartialOf != want.PartialOf || got.OwnShare != want.OwnShare || !reflect.DeepEqual(got.Passages, want.Passages) ||
			got.Fingerprint.Image != want.Fingerprint.Image {
			t.Errorf("%s: article %d prints %v/%d partial_of %d own %g passages %v image %q; want %v/%d %d %g %v %q", how, got.ID,
				got.Fingerprint.Prints, got.Fingerprint.ContentWords, got.PartialOf, got.OwnShare, got.Passages, got.Fingerprint.Image,
				want.Fingerprint.Prints, want.Fingerprint.ContentWords, want.PartialOf, want.OwnShare, want.Passages, want.Fingerprint.Image)
		}
	}
	for _, c := range []*storage.Commit{a, b, plain} {
		got, err := s.Article(ctx, c.Article.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("Article", got)
		if got, err = s.ArticleByURL(ctx, c.Page.URL); err != nil {
			t.Fatal(err)
		}
		check("ArticleByURL", got)
	}
	n := 0
	if err := s.Articles(ctx, func(x storage.Article) error { n++; check("Articles", x); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Fingerprints(ctx, time.Time{}, func(x storage.Article) error { n++; check("Fingerprints", x); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("Articles and Fingerprints read %d articles, want 3 each", n)
	}
	for _, read := range []struct {
		name string
		fn   func(context.Context, func(storage.Duplicate) error) error
	}{
		{"Duplicates", s.Duplicates},
		{"DuplicateFingerprints", func(ctx context.Context, fn func(storage.Duplicate) error) error {
			return s.DuplicateFingerprints(ctx, time.Time{}, fn)
		}},
	} {
		var got []storage.Duplicate
		if err := read.fn(ctx, func(x storage.Duplicate) error { got = append(got, x); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !reflect.DeepEqual(got[0].Prints, d.Duplicate.Prints) || got[0].ContentWords != 8 ||
			got[0].Image != img || got[0].ImageSimilarity != 0.75 {
			t.Errorf("%s: %+v, want prints %v over 8 words, image %q at 0.75", read.name, got, d.Duplicate.Prints, img)
		}
	}

	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	missing := stored("http://s.cn/missing")
	missing.Article.PartialOf, missing.Article.OwnShare = 999, 0.5
	if err := s.Commit(ctx, missing); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("partial_of a missing article: %v, want ErrNotFound", err)
	}
	for _, tc := range []struct {
		name string
		edit func(a *storage.Article)
	}{
		{"print past the text", func(a *storage.Article) { a.Fingerprint.Prints, a.Fingerprint.ContentWords = []uint64{7}, 7 }},
		{"negative content words", func(a *storage.Article) { a.Fingerprint.ContentWords = -1 }},
		{"own share above 1", func(a *storage.Article) { a.PartialOf, a.OwnShare = 1, 1.5 }},
		{"passages without partial_of", func(a *storage.Article) { a.Passages = []storage.Passage{{Len: 3}} }},
		{"empty passage", func(a *storage.Article) { a.PartialOf, a.Passages = 1, []storage.Passage{{Start: 2, Len: 0}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := stored("http://s.cn/bad/" + tc.name)
			tc.edit(c.Article)
			if err := s.Commit(ctx, c); !errors.Is(err, storage.ErrInvalid) {
				t.Errorf("commit: %v, want ErrInvalid", err)
			}
		})
	}
}

// testLeadImages: an article's and a duplicate's lead-image fingerprints
// and the image evidence round-trip through every read.
func testLeadImages(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const img = "2x2:CYGR"
	c := stored("http://img/a")
	c.Article.Fingerprint.Image = img
	mustCommit(t, s, c)
	id := c.Article.ID
	d := duplicate("http://img/b", id)
	d.Duplicate.Reason, d.Duplicate.Image, d.Duplicate.ImageSimilarity = "image", img, 0.953125
	mustCommit(t, s, d)
	plain := mustStore(t, s, "http://img/none")
	for _, get := range []func() (storage.Article, error){
		func() (storage.Article, error) { return s.Article(ctx, id) },
		func() (storage.Article, error) { return s.ArticleByURL(ctx, "http://img/a") },
	} {
		a, err := get()
		if err != nil || a.Fingerprint.Image != img {
			t.Fatalf("article image %q, %v; want %q", a.Fingerprint.Image, err, img)
		}
	}
	if a, err := s.Article(ctx, plain); err != nil || a.Fingerprint.Image != "" {
		t.Fatalf("article without image: %q, %v", a.Fingerprint.Image, err)
	}
	seen := 0
	err := s.Fingerprints(ctx, time.Time{}, func(a storage.Article) error {
		if a.URL == "http://img/a" && a.Fingerprint.Image == img {
			seen++
		}
		return nil
	})
	if err != nil || seen != 1 {
		t.Fatalf("Fingerprints: image seen %d times, %v", seen, err)
	}
	for name, each := range map[string]func(context.Context, func(storage.Duplicate) error) error{
		"Duplicates": s.Duplicates,
		"DuplicateFingerprints": func(ctx context.Context, fn func(storage.Duplicate) error) error {
			return s.DuplicateFingerprints(ctx, time.Time{}, fn)
		},
	} {
		got := 0
		err := each(ctx, func(d storage.Duplicate) error {
			if d.URL == "http://img/b" {
				if d.Image != img || d.ImageSimilarity != 0.953125 || d.Reason != "image" {
					return fmt.Errorf("duplicate %+v", d)
				}
				got++
			}
			return nil
		})
		if err != nil || got != 1 {
			t.Fatalf("%s: %d, %v", name, got, err)
		}
	}
}

// testMultiPage: an article of several pages keeps its page lists, its
// later pages are recorded as parts in the same commit (decided, skipped
// by Push, naming the article), a part already decided keeps its record,
// a non-final one is replaced, a page reached alone is recorded as a part,
// and malformed part records are refused.
func testMultiPage(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const p1, p2, p3, p4 = "http://m/a.html", "http://m/a-2.html", "http://m/a-3.html", "http://m/a-4.html"
	mustCommit(t, s, errorPage(p2, false)) // a transient failure earlier: replaced by the part
	mustStore(t, s, p4)                    // decided earlier: kept as it is
	c := stored(p1)
	c.Article.Pages, c.Article.PagesMissing = []string{p1, p2, p3, p4}, []string{p3}
	c.Parts = []string{p2, p4}
	mustCommit(t, s, c)
	a, err := s.ArticleByURL(ctx, p1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Pages, []string{p1, p2, p3, p4}) || !reflect.DeepEqual(a.PagesMissing, []string{p3}) {
		t.Fatalf("pages %q, missing %q", a.Pages, a.PagesMissing)
	}
	pg, err := s.PageOf(ctx, p2)
	if err != nil || pg.Outcome != storage.OutcomePart || pg.PartOf != p1 || pg.Site != "sina" {
		t.Fatalf("page 2: %+v, %v", pg, err)
	}
	if o, ok, err := s.Decided(ctx, p2); err != nil || !ok || o != storage.OutcomePart {
		t.Fatalf("Decided(page 2) = %s, %v, %v", o, ok, err)
	}
	if pg, err := s.PageOf(ctx, p4); err != nil || pg.Outcome != storage.OutcomeStored {
		t.Fatalf("page 4 decided before: %+v, %v", pg, err)
	}
	if _, err := s.PageOf(ctx, p3); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing page 3 recorded: %v", err)
	}
	if err := s.Commit(ctx, stored(p2)); !errors.Is(err, storage.ErrAlreadyDecided) {
		t.Fatalf("page 2 stored as an article of its own: %v", err)
	}
	alone := storage.Commit{Page: page("http://m/b-2.html", storage.OutcomePart)}
	alone.Page.PartOf = "http://m/b.html"
	mustCommit(t, s, &alone)
	added, err := s.Push(ctx, []storage.FrontierItem{item(p2, "s", 1), item("http://m/b-2.html", "s", 1), item(p3, "s", 1)})
	if err != nil || added != 1 {
		t.Fatalf("Push = %d, %v; want 1 (page 3 only)", added, err)
	}
	bad := []struct {
		name string
		c    *storage.Commit
	}{
		{"part naming no article", &storage.Commit{Page: page("http://m/x", storage.OutcomePart)}},
		{"part_of on a stored page", func() *storage.Commit { c := stored("http://m/y"); c.Page.PartOf = p1; return c }()},
		{"parts of an error page", func() *storage.Commit {
			c := errorPage("http://m/z", true)
			c.Parts = []string{"http://m/z-2"}
			return c
		}()},
		{"part equal to the page", func() *storage.Commit { c := stored("http://m/w"); c.Parts = []string{"http://m/w"}; return c }()},
		{"pages not starting with the article", func() *storage.Commit {
			c := stored("http://m/v")
			c.Article.Pages = []string{"http://m/v-2", "http://m/v"}
			return c
		}()},
		{"missing page not a page", func() *storage.Commit {
			c := stored("http://m/u")
			c.Article.Pages, c.Article.PagesMissing = []string{"http://m/u", "http://m/u-2"}, []string{"http://m/u-3"}
			return c
		}()},
		{"page url with a line break", func() *storage.Commit {
			c := stored("http://m/t")
			c.Article.Pages = []string{"http://m/t", "http://m/t-2\nx"}
			return c
		}()},
	}
	for _, tc := range bad {
		if err := s.Commit(ctx, tc.c); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("%s: Commit = %v, want ErrInvalid", tc.name, err)
		}
	}
}
