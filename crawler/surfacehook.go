package crawler

import (
	"context"
	"net/http"
)

// The incremental hooks of surface requests. Conditional requests
// (ETag/Last-Modified), per-surface decay and the fleet claim replace
// these three methods and surfaceKey; until then every surface is due,
// sent unconditionally, and its answer is not remembered. surface() in
// sources.go is the one caller.

// surfaceKey names one list surface request.
type surfaceKey struct {
	Kind   string // "page", "sitemap", "feed", "api"
	URL    string
	Method string
	Body   []byte
}

// surfaceDue reports whether s is to be fetched by this run.
func (r *run) surfaceDue(ctx context.Context, st *siteState, s surfaceKey) (bool, error) {
	return true, nil
}

// conditional adds the validators of s's last answer to h.
func (r *run) conditional(ctx context.Context, s surfaceKey, h http.Header) error { return nil }

// surfaceDone records the answer to s and how many new URLs it gave.
func (r *run) surfaceDone(ctx context.Context, st *siteState, s surfaceKey, status int, h http.Header, newURLs int) error {
	return nil
}
