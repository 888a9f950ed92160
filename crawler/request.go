package crawler

// One request through colly: pacing, retries with backoff, and the
// report of each attempt.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gocolly/colly/v2"
)

// fetch requests rawURL through colly, retrying transient failures with
// exponential backoff. abandoned is true when ctx ended first.
func (r *run) fetch(ctx context.Context, st *siteState, rawURL, host string, delay time.Duration) (slot *fetchSlot, ferr *FetchError, abandoned bool) {
	return r.fetchAs(ctx, st, rawURL, host, delay, fetchOpts{headers: r.headers})
}

// fetchOpts are what a fetch that is not a page's changes (lead images,
// list surfaces).
type fetchOpts struct {
	maxBody int64               // 0: fetch.max_body
	headers http.Header         // request headers
	inScope func(*url.URL) bool // nil: the site's page scope; redirect hops must stay in it
	method  string              // "": GET
	body    []byte              // request body (POST), sent again by every attempt
	refuse  func(target string) *FetchError
}

// fetchAs is fetch with the options of a non-page request.
func (r *run) fetchAs(ctx context.Context, st *siteState, rawURL, host string, delay time.Duration, o fetchOpts) (slot *fetchSlot, ferr *FetchError, abandoned bool) {
	var col *colly.Collector
	select {
	case col = <-r.cols:
	case <-ctx.Done():
		return nil, nil, true
	}
	defer func() {
		// The collector goes back to the pool without this fetch's slot:
		// its context would keep the page body alive until the next fetch.
		col.Context = context.Background()
		r.cols <- col
	}()
	for attempt := 0; ; attempt++ {
		if err := r.pacer.wait(ctx, host, delay); err != nil {
			return nil, nil, true
		}
		slot = &fetchSlot{site: st, maxBody: o.maxBody, inScope: o.inScope, refuse: o.refuse}
		col.Context = context.WithValue(ctx, slotKey{}, slot)
		st.stats.requests.Add(1)
		t0 := time.Now()
		err := col.Request(cmp.Or(o.method, http.MethodGet), rawURL, o.reqBody(), nil, o.headers.Clone())
		r.fetched(st, rawURL, slot.status, time.Since(t0), err)
		r.pacer.holdUntil(host, r.clock.Now().Add(delay))
		if ctx.Err() != nil {
			return nil, nil, true
		}
		switch {
		case err != nil:
			if !errors.As(err, &ferr) {
				ferr = otherError(err)
			}
		case slot.status < 200 || slot.status > 299:
			ferr = statusError(slot.status, slot.header, r.clock.Now())
		case len(slot.body) == 0:
			ferr = &FetchError{Kind: KindEmptyBody, Status: slot.status, Retry: true, Err: errors.New("empty body")}
		default:
			return slot, nil, false
		}
		if !ferr.Retry || attempt >= r.cfg.Fetch.Retries {
			return slot, ferr, false
		}
		wait := backoff(r.retryBase, attempt)
		if ra := ferr.RetryAfter; ra > 0 {
			if ra > maxRetryAfter {
				ferr.Err = fmt.Errorf("%w; Retry-After %s exceeds %s, given up for this run", ferr.Err, ra, maxRetryAfter)
				return slot, ferr, false
			}
			wait = max(wait, ra)
			r.pacer.holdUntil(host, r.clock.Now().Add(ra))
		}
		st.stats.retries.Add(1)
		r.log.Info("retrying", "site", st.name, "url", rawURL, "kind", ferr.Kind, "attempt", attempt+1, "wait", wait)
		if err := r.clock.Sleep(ctx, wait); err != nil {
			return nil, nil, true
		}
		ferr = nil
	}
}

// otherError classifies errors that did not come from limitTransport or the
// redirect hook: colly's URL parsing (permanent) and other client errors.
func otherError(err error) *FetchError {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Op != "parse" {
		return &FetchError{Kind: KindFetch, Err: err}
	}
	return &FetchError{Kind: KindBadURL, Permanent: true, Err: err}
}

// fetched reports one HTTP attempt: a debug log line (-vv) and
// Options.OnFetch.
func (r *run) fetched(st *siteState, u string, status int, d time.Duration, err error) {
	if err != nil {
		r.log.Debug("fetch", "site", st.name, "url", u, "status", status, "ms", d.Milliseconds(), "err", err)
	} else {
		r.log.Debug("fetch", "site", st.name, "url", u, "status", status, "ms", d.Milliseconds())
	}
	if r.opts.OnFetch != nil {
		r.opts.OnFetch(st.name, u, status, d)
	}
}
