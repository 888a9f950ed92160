package storagetest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// Conformance of the list-surface state (storage.SurfaceStore) and of the
// frontier's gone back-off (storage.Page.RetryAt).

func testSurfaces(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if _, err := s.Surface(ctx, "page GET http://s/"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Surface of an unknown key: %v, want ErrNotFound", err)
	}
	want := storage.SurfaceState{Key: "page GET http://s/", Site: "s", ETag: `W/"abc"`, LastModified: "Tue, 05 Nov 2024 12:00:00 GMT",
		FetchedAt: t0, Status: 200, NewURLs: 3, EmptyRuns: 0, NextDue: t0.Add(time.Hour),
		Links: []string{"http://s/a/1.html", "http://s/list_2.html"}}
	tests := []struct {
		name string
		save storage.SurfaceState
	}{
		{"create", want},
		{"replace", func() storage.SurfaceState {
			w := want
			w.ETag, w.Status, w.NewURLs, w.EmptyRuns, w.Links = "", 304, 0, 4, nil
			return w
		}()},
		{"api key with body hash", storage.SurfaceState{Key: "api POST http://s/api #0011223344556677", Site: "s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.SaveSurface(ctx, tc.save); err != nil {
				t.Fatal(err)
			}
			got, err := s.Surface(ctx, tc.save.Key)
			if err != nil {
				t.Fatal(err)
			}
			got.FetchedAt, got.NextDue = normTime(got.FetchedAt), normTime(got.NextDue)
			if !reflect.DeepEqual(got, tc.save) {
				t.Fatalf("Surface = %+v\nwant      %+v", got, tc.save)
			}
		})
	}
	bad := []struct {
		name string
		st   storage.SurfaceState
	}{
		{"empty key", storage.SurfaceState{}},
		{"negative count", storage.SurfaceState{Key: "k", EmptyRuns: -1}},
		{"newline in a link", storage.SurfaceState{Key: "k", Links: []string{"http://s/a\nb"}}},
		{"time out of range", storage.SurfaceState{Key: "k", NextDue: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tc := range bad {
		t.Run("invalid "+tc.name, func(t *testing.T) {
			if err := s.SaveSurface(ctx, tc.st); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("SaveSurface: %v, want ErrInvalid", err)
			}
		})
	}
}

func testSurfaceClaim(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const key = "feed GET http://s/rss.xml"
	steps := []struct {
		name string
		now  time.Time
		hold time.Duration
		want bool
	}{
		{"new surface", t0, time.Hour, true},
		{"held", t0.Add(time.Minute), time.Hour, false},
		{"just before due", t0.Add(time.Hour - time.Nanosecond), 0, false},
		{"due", t0.Add(time.Hour), 0, true},
		{"hold 0 leaves it due", t0.Add(time.Hour), 10 * time.Minute, true},
		{"held again", t0.Add(time.Hour + time.Minute), 0, false},
	}
	for _, st := range steps {
		got, err := s.ClaimSurface(ctx, key, st.now, st.hold)
		if err != nil || got != st.want {
			t.Fatalf("%s: ClaimSurface = %v, %v; want %v", st.name, got, err, st.want)
		}
	}
	state, err := s.Surface(ctx, key)
	if err != nil || !normTime(state.NextDue).Equal(t0.Add(time.Hour+10*time.Minute)) {
		t.Fatalf("after claims: %+v, %v; want NextDue %s", state, err, t0.Add(time.Hour+10*time.Minute))
	}
	// A save sets the next due time; the claim keeps the saved fields.
	state.ETag, state.NextDue = `"v2"`, t0.Add(3*time.Hour)
	if err := s.SaveSurface(ctx, state); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.ClaimSurface(ctx, key, t0.Add(2*time.Hour), 0); err != nil || ok {
		t.Fatalf("claim before the saved due time: %v, %v", ok, err)
	}
	if ok, err := s.ClaimSurface(ctx, key, t0.Add(3*time.Hour), time.Hour); err != nil || !ok {
		t.Fatalf("claim at the saved due time: %v, %v", ok, err)
	}
	if got, err := s.Surface(ctx, key); err != nil || got.ETag != `"v2"` || !normTime(got.NextDue).Equal(t0.Add(4*time.Hour)) {
		t.Fatalf("after the claim: %+v, %v", got, err)
	}
	if _, err := s.ClaimSurface(ctx, "", t0, 0); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("claim of an empty key: %v, want ErrInvalid", err)
	}
}

// testSurfaceClaimConcurrent: of many claims of one due surface at once,
// exactly one succeeds.
func testSurfaceClaimConcurrent(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const claimers = 8
	for round := range 3 {
		now := t0.Add(time.Duration(round) * time.Hour)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range claimers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.ClaimSurface(ctx, "page GET http://s/", now, 30*time.Minute)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("round %d: %d of %d claims succeeded, want 1", round, won, claimers)
		}
	}
}

// testFrontierGoneRetry: a permanent error is skipped by Push until its
// RetryAt (zero: for ever); PageOf returns RetryAt.
func testFrontierGoneRetry(t *testing.T, s storage.Store) {
	ctx := context.Background()
	now := time.Now().UTC()
	cases := []struct {
		url     string
		retryAt time.Time
		pushed  bool
	}{
		{"http://g/never", time.Time{}, false},
		{"http://g/later", now.Add(24 * time.Hour), false},
		{"http://g/due", now.Add(-time.Minute), true},
	}
	var items []storage.FrontierItem
	for _, tc := range cases {
		c := errorPage(tc.url, true)
		c.Page.RetryAt = tc.retryAt
		mustCommit(t, s, c)
		p, err := s.PageOf(ctx, tc.url)
		if err != nil || !normTime(p.RetryAt).Equal(normTime(tc.retryAt)) || !p.Permanent {
			t.Fatalf("PageOf(%s) = %+v, %v; want RetryAt %s", tc.url, p, err, tc.retryAt)
		}
		items = append(items, item(tc.url, "g", 1))
	}
	if _, err := s.Push(ctx, items); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pop(ctx, "g", 10)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tc := range cases {
		if tc.pushed {
			want = append(want, tc.url)
		}
	}
	if !reflect.DeepEqual(urlsOf(got), want) {
		t.Fatalf("Pop = %v, want %v", urlsOf(got), want)
	}
}
