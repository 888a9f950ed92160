package storage

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SurfaceState is what the crawl keeps of one list surface between runs: a
// list page, a sitemap, a feed or one request of a list API, the places a
// site announces its new article URLs. The crawler fetches a surface with
// the validators of its last response (If-None-Match, If-Modified-Since;
// RFC 9110 section 13.1) and fetches it less often while it yields nothing
// new; NextDue is when it may be fetched again, by any process sharing the
// store.
type SurfaceState struct {
	Key          string // the crawler's key: kind, method, URL (and a hash of a request body)
	Site         string
	ETag         string // validators of the last response that carried them
	LastModified string
	FetchedAt    time.Time // last fetch answered by the server (zero: never)
	Status       int       // that answer's status (304: not modified)
	NewURLs      int       // URLs that fetch yielded that were new to the store
	EmptyRuns    int       // consecutive fetches that yielded nothing new
	NextDue      time.Time // not fetched before this time (zero: due)
	// Links are the URLs the surface's last full answer listed (a list
	// page's in-scope links), queued again when it answers 304; at most a
	// page's link limit, none holding a newline.
	Links []string
}

// SurfaceStore keeps list surfaces' states. ClaimSurface is atomic across
// every process sharing the store, so that of several crawls of one store
// one fetches a due surface and the others skip it.
type SurfaceStore interface {
	// Surface returns the state kept for key, or an error wrapping
	// ErrNotFound.
	Surface(ctx context.Context, key string) (SurfaceState, error)
	// ClaimSurface takes the surface for one fetch when it is due (no
	// state, or NextDue at or before now): it sets NextDue to now+hold,
	// creating the state when there is none, and reports true. When it is
	// not due it writes nothing and reports false.
	ClaimSurface(ctx context.Context, key string, now time.Time, hold time.Duration) (bool, error)
	// SaveSurface writes s as the state of s.Key (created or replaced).
	SaveSurface(ctx context.Context, s SurfaceState) error
}

// Validate checks a SurfaceState before it is saved.
func (s *SurfaceState) Validate() error {
	switch {
	case s.Key == "":
		return fmt.Errorf("%w: surface with an empty key", ErrInvalid)
	case s.EmptyRuns < 0 || s.NewURLs < 0:
		return fmt.Errorf("%w: surface %s has a negative count", ErrInvalid, s.Key)
	}
	if err := validUTF8("surface", s.Key, append([]string{s.Site, s.ETag, s.LastModified}, s.Links...)...); err != nil {
		return err
	}
	for _, l := range s.Links {
		if l == "" || strings.ContainsAny(l, "\r\n") {
			return fmt.Errorf("%w: surface %s links to %q", ErrInvalid, s.Key, l)
		}
	}
	if err := ValidTime("surface fetched_at", s.FetchedAt); err != nil {
		return err
	}
	return ValidTime("surface next_due", s.NextDue)
}
