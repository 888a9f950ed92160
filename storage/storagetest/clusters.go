package storagetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// ClusterReader is a store that counts its clusters itself (the report's
// cluster figures, with memory that does not grow with the store).
type ClusterReader interface {
	storage.Store
	ClusterSizes(ctx context.Context, fn func(storage.ClusterSize) error) error
	ClusterMembers(ctx context.Context, id int64, fn func(storage.ClusterMember) error) error
}

// ClusterReads checks ClusterSizes (and its order) and ClusterMembers against what
// Articles and Duplicates read, on clusters of one article, of articles
// and duplicates from several sites, and on clusters a bridging duplicate
// merged (the rows of the merged clusters then count in the one they
// moved to). open must return a new, empty store.
func ClusterReads(t *testing.T, open func(t *testing.T) ClusterReader) {
	ctx := context.Background()
	s := open(t)
	a1 := mustStore(t, s, "http://c/a1")
	a2 := mustStore(t, s, "http://c/a2")
	a3 := mustStore(t, s, "http://c/a3")
	lone := mustStore(t, s, "http://c/lone")
	mustCommit(t, s, duplicate("http://c/d1", a1))
	mustCommit(t, s, duplicate("http://c/d2", a2))
	mustCommit(t, s, duplicate("http://c/d3", a3))
	// An article of another site in a1's cluster (a partial reprint
	// stored beside it).
	other := stored("http://c/a1-other")
	other.Article.Site, other.Article.Cluster, other.Article.Title = "qq", a1, ""
	other.Article.PublishedAt, other.Article.Source = time.Time{}, ""
	mustCommit(t, s, other)
	bridge := duplicate("http://c/bridge", a2)
	bridge.Duplicate.Cluster, bridge.Duplicate.Merges = a2, []int64{a3}
	mustCommit(t, s, bridge)

	want := map[int64]storage.ClusterSize{}
	wantMembers := map[int64][]storage.ClusterMember{}
	if err := s.Articles(ctx, func(a storage.Article) error {
		c := want[a.Cluster]
		c.ID, c.Articles = a.Cluster, c.Articles+1
		want[a.Cluster] = c
		wantMembers[a.Cluster] = append(wantMembers[a.Cluster], storage.ClusterMember{ID: a.ID, URL: a.URL, Site: a.Site, Title: a.Title,
			Source: a.Source, PublishedAt: a.PublishedAt, PartialOf: a.PartialOf})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error {
		c := want[d.Cluster]
		c.ID, c.Duplicates = d.Cluster, c.Duplicates+1
		want[d.Cluster] = c
		wantMembers[d.Cluster] = append(wantMembers[d.Cluster], storage.ClusterMember{URL: d.URL, Site: d.Site, Title: d.Title,
			Source: d.Source, PublishedAt: d.PublishedAt, Reason: d.Reason})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 || want[a2].Size() != 5 || want[a1].Size() != 3 || want[lone].Size() != 1 {
		t.Fatalf("fixture: clusters %+v, want a2 of 5, a1 of 3, lone of 1", want)
	}

	t.Run("Sizes", func(t *testing.T) {
		got := map[int64]storage.ClusterSize{}
		var last int64
		if err := s.ClusterSizes(ctx, func(c storage.ClusterSize) error {
			if _, seen := got[c.ID]; seen {
				return fmt.Errorf("cluster %d reported twice", c.ID)
			}
			if c.ID <= last {
				return fmt.Errorf("cluster %d after %d: not in ascending order", c.ID, last)
			}
			got[c.ID], last = c, c.ID
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ClusterSizes = %+v, want %+v", got, want)
		}
	})
	t.Run("Members", func(t *testing.T) {
		ids := make([]int64, 0, len(want)+1)
		for id := range want {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range append(ids, 9999) { // 9999: no such cluster
			var got []storage.ClusterMember
			if err := s.ClusterMembers(ctx, id, func(m storage.ClusterMember) error { got = append(got, m); return nil }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, wantMembers[id]) {
				t.Errorf("ClusterMembers(%d) = %+v, want %+v", id, got, wantMembers[id])
			}
		}
	})
	t.Run("Stops", func(t *testing.T) {
		stop := errors.New("stop here")
		for name, run := range map[string]func(fn func() error) error{
			"ClusterSizes": func(fn func() error) error {
				return s.ClusterSizes(ctx, func(storage.ClusterSize) error { return fn() })
			},
			"ClusterMembers": func(fn func() error) error {
				return s.ClusterMembers(ctx, a2, func(storage.ClusterMember) error { return fn() })
			},
		} {
			calls := 0
			err := run(func() error { calls++; return stop })
			if !errors.Is(err, stop) || calls != 1 {
				t.Errorf("%s: error %v after %d calls, want %v after 1", name, err, calls, stop)
			}
		}
	})
}
