package storagetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

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
