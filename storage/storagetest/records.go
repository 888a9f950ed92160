package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

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

// testChannels: an article's and a duplicate's channel round-trip through
// every read (by id, by URL, the scans of articles, fingerprints and
// duplicates), and a record without one reads back "".
func testChannels(t *testing.T, s storage.Store) {
	ctx := context.Background()
	c := stored("http://ch/a")
	c.Article.Channel = "self_media"
	mustCommit(t, s, c)
	mustStore(t, s, "http://ch/b")
	a, err := s.ArticleByURL(ctx, "http://ch/a")
	if err != nil || a.Channel != "self_media" {
		t.Fatalf("article by URL: channel %q, %v", a.Channel, err)
	}
	if b, err := s.Article(ctx, a.ID); err != nil || b.Channel != "self_media" {
		t.Fatalf("article by id: channel %q, %v", b.Channel, err)
	}
	d := duplicate("http://ch/a-copy", a.ID)
	d.Duplicate.Channel = "newsroom"
	mustCommit(t, s, d)
	got := map[string]string{}
	if err := s.Articles(ctx, func(a storage.Article) error { got[a.URL] = a.Channel; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Fingerprints(ctx, time.Time{}, func(a storage.Article) error {
		if got[a.URL] != a.Channel {
			t.Errorf("fingerprints of %s: channel %q, articles read %q", a.URL, a.Channel, got[a.URL])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error { got[d.URL] = d.Channel; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.DuplicateFingerprints(ctx, time.Time{}, func(d storage.Duplicate) error {
		if got[d.URL] != d.Channel {
			t.Errorf("duplicate fingerprints of %s: channel %q, duplicates read %q", d.URL, d.Channel, got[d.URL])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"http://ch/a": "self_media", "http://ch/b": "", "http://ch/a-copy": "newsroom"}
	for u, c := range want {
		if got[u] != c {
			t.Errorf("%s: channel %q, want %q", u, got[u], c)
		}
	}
}
