package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// Incremental runs. A list surface is a request the crawler repeats every
// run to learn of new article URLs: a start or follow page, a sitemap, a
// feed, one page of a list API. Its state is kept in the store
// (storage.SurfaceState) and used so that a cron run re-fetches only what
// changed:
//   - validators: a surface is requested with the ETag and Last-Modified of
//     its last answer (If-None-Match, If-Modified-Since; RFC 9110 section
//     13.1). A 304 is "unchanged": no error, no page record; a list page's
//     links of its last full answer are queued again, so that the pages it
//     leads to are still checked;
//   - decay: a surface whose fetch yielded no new URL in
//     fetch.list_backoff_after fetches in a row is next due
//     fetch.list_backoff_base after its last fetch, twice that after each
//     further empty fetch, at most fetch.list_backoff_max; one new URL
//     brings it back to every run (and fetch.list_interval is the least
//     time between two fetches in any case);
//   - fleet: the processes sharing a store claim a due surface atomically
//     (storage.SurfaceStore.ClaimSurface): one fetches it, the others skip
//     it until it is due again;
//   - a list URL that led to an article page (a short link redirecting to
//     it) is an alias of that article, not a list: it is next due
//     fetch.list_backoff_max later.
//
// Gone pages: a URL that answered 404 or 410 (article or list page) is
// recorded as a permanent error with RetryAt fetch.gone_retry later (zero
// when gone_retry is 0: never); the frontier skips it until then. Start
// URLs stay fetched every run they are due.

// Surface kinds (surfaceKey.Kind).
const (
	surfacePage    = "page"
	surfaceSitemap = "sitemap"
	surfaceFeed    = "feed"
	surfaceAPI     = "api"
)

// surfaceBodyHash is how many bytes of a request body's SHA-256 name a
// POST surface in its key.
const surfaceBodyHash = 8

// surfaceKey names one list surface: its kind, its URL and request method
// (GET when empty) and, for a POST, its body (the key holds a hash of it).
type surfaceKey struct {
	Kind, URL, Method string
	Body              []byte
}

// String is the key the store keeps the surface's state under.
func (k surfaceKey) String() string {
	m := k.Method
	if m == "" {
		m = http.MethodGet
	}
	s := k.Kind + " " + m + " " + k.URL
	if len(k.Body) > 0 {
		sum := sha256.Sum256(k.Body)
		s += " #" + hex.EncodeToString(sum[:surfaceBodyHash])
	}
	return s
}

// SurfaceStore keeps the state of list surfaces between runs (see
// storage.SurfaceStore). A Store without it fetches every surface every
// run, unconditionally.
type SurfaceStore interface {
	Surface(ctx context.Context, key string) (storage.SurfaceState, error)
	ClaimSurface(ctx context.Context, key string, now time.Time, hold time.Duration) (bool, error)
	SaveSurface(ctx context.Context, s storage.SurfaceState) error
}

// surfaceBook holds the states of the surfaces this run claimed.
type surfaceBook struct {
	mu sync.Mutex
	m  map[string]*storage.SurfaceState
}

func (b *surfaceBook) get(key string) (storage.SurfaceState, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.m[key]
	if !ok {
		return storage.SurfaceState{}, false
	}
	return *s, true
}

func (b *surfaceBook) put(s storage.SurfaceState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = make(map[string]*storage.SurfaceState)
	}
	b.m[s.Key] = &s
}

func (r *run) surfaceStore() SurfaceStore {
	ss, _ := r.store.(SurfaceStore)
	return ss
}

// surfaceBackoff is the wait after a fetch that left a surface with empty
// consecutive fetches without anything new: none before
// fetch.list_backoff_after, then list_backoff_base doubling per further
// empty fetch up to list_backoff_max; never less than fetch.list_interval.
func (r *run) surfaceBackoff(empty int) time.Duration {
	f := r.cfg.Fetch
	after := f.ListBackoffAfter
	if after <= 0 {
		after = 2
	}
	base, most := f.ListBackoffBase.D(), f.ListBackoffMax.D()
	var d time.Duration
	if empty >= after && base > 0 {
		d = base
		for i := after; i < empty && d < most; i++ {
			d *= 2
		}
		d = min(d, max(most, base))
	}
	return max(d, f.ListInterval.D())
}

// surfaceDue reports whether the surface s of site st is to be fetched by
// this run: it is due (never fetched, or its back-off has passed) and this
// process claimed it in the store before any other process sharing it.
// Either way the run keeps the state it read (a list page that is not due
// still passes on its kept links).
// The claim holds the surface for its back-off (at least
// fetch.list_interval); surfaceDone then sets the next due time.
func (r *run) surfaceDue(ctx context.Context, st *siteState, s surfaceKey) (bool, error) {
	ss := r.surfaceStore()
	if ss == nil {
		return true, nil
	}
	key := s.String()
	state, err := ss.Surface(ctx, key)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		state = storage.SurfaceState{Key: key}
	case err != nil:
		return false, fmt.Errorf("surface %s: %w", key, err)
	}
	state.Site = st.name
	now := r.clock.Now()
	r.surfaces.put(state)
	if state.NextDue.After(now) {
		st.stats.surfacesNotDue.Add(1)
		r.log.Info("skipped", "site", st.name, "surface", key, "reason", "not_due", "due", state.NextDue)
		return false, nil
	}
	ok, err := ss.ClaimSurface(ctx, key, now, r.surfaceBackoff(state.EmptyRuns))
	if err != nil {
		return false, fmt.Errorf("claim surface %s: %w", key, err)
	}
	if !ok {
		st.stats.surfacesNotDue.Add(1)
		r.log.Info("skipped", "site", st.name, "surface", key, "reason", "claimed")
		return false, nil
	}
	return true, nil
}

// conditional adds to h the validators kept for s (If-None-Match from its
// ETag, If-Modified-Since from its Last-Modified).
func (r *run) conditional(ctx context.Context, s surfaceKey, h http.Header) error {
	state, ok := r.surfaces.get(s.String())
	if !ok {
		ss := r.surfaceStore()
		if ss == nil {
			return nil
		}
		var err error
		state, err = ss.Surface(ctx, s.String())
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("surface %s: %w", s, err)
		}
	}
	if state.ETag != "" {
		h.Set("If-None-Match", state.ETag)
	}
	if state.LastModified != "" {
		h.Set("If-Modified-Since", state.LastModified)
	}
	return nil
}

// surfaceDone records a fetch of s: the answer's status (0: none), its
// validators (h, the final response's header; a 2xx without them clears
// the old ones), and how many URLs it yielded that were new; it counts a
// 304 and sets the surface's next due time (see surfaceBackoff).
func (r *run) surfaceDone(ctx context.Context, st *siteState, s surfaceKey, status int, h http.Header, newURLs int) error {
	return r.saveSurface(ctx, st, s, func(state *storage.SurfaceState, now time.Time) {
		r.noteSurface(st, state, status, h, newURLs)
		state.NextDue = now.Add(r.surfaceBackoff(state.EmptyRuns))
	})
}

// noteSurface updates state after a fetch answered status.
func (r *run) noteSurface(st *siteState, state *storage.SurfaceState, status int, h http.Header, newURLs int) {
	state.Status, state.NewURLs = status, max(newURLs, 0)
	if status == http.StatusNotModified {
		st.stats.notModified.Add(1)
	}
	if status == http.StatusNotModified || (status >= 200 && status <= 299) {
		etag, lm := validator(h.Get("ETag")), validator(h.Get("Last-Modified"))
		if status != http.StatusNotModified || etag != "" {
			state.ETag = etag
		}
		if status != http.StatusNotModified || lm != "" {
			state.LastModified = lm
		}
	}
	if newURLs > 0 {
		state.EmptyRuns = 0
	} else {
		state.EmptyRuns++
	}
}

// maxValidator bounds a kept ETag or Last-Modified: real ones are a few
// dozen bytes (a quoted hash, an HTTP-date); a longer one is not kept.
const maxValidator = 512

// validator returns v when it can be kept and sent back: at most
// maxValidator bytes of printable ASCII (RFC 9110 etagc without obs-text,
// and HTTP-date), else "" (the surface is then fetched unconditionally).
func validator(v string) string {
	if len(v) > maxValidator {
		return ""
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return ""
		}
	}
	return v
}

// saveSurface applies update to the run's state of s and saves it.
func (r *run) saveSurface(ctx context.Context, st *siteState, s surfaceKey, update func(*storage.SurfaceState, time.Time)) error {
	ss := r.surfaceStore()
	if ss == nil {
		return nil
	}
	key := s.String()
	state, ok := r.surfaces.get(key)
	if !ok {
		var err error
		state, err = ss.Surface(ctx, key)
		if errors.Is(err, storage.ErrNotFound) {
			state, err = storage.SurfaceState{Key: key}, nil
		}
		if err != nil {
			return fmt.Errorf("surface %s: %w", key, err)
		}
	}
	now := r.clock.Now()
	state.Site, state.FetchedAt = st.name, now
	update(&state, now)
	if err := ss.SaveSurface(ctx, state); err != nil {
		return fmt.Errorf("save surface %s: %w", key, err)
	}
	state.Links = nil // used once per run, before the fetch: not kept in memory
	r.surfaces.put(state)
	return nil
}
