// Package storagetest is the conformance suite for storage.Store
// implementations: every backend (in-memory, SQLite, a shared deployment)
// runs Run from its own tests, so that they agree on the contract written in
// package storage — idempotent Commit keyed by URL, ErrAlreadyDecided with
// nothing written, id and cluster assignment, iteration orders, fingerprint
// and document-frequency streams, the frontier's FIFO leasing, the run lock
// and Check.
package storagetest

import (
	"context"
	"fmt"
	"math"
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
		{"Channels", testChannels},
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
