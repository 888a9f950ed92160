package storagetest

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

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
