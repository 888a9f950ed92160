package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// List pages as surfaces: how the page path of a run uses surface.go.

// found is what discover took from a page.
type found struct {
	newArticles int      // article URLs it added to the frontier
	links       []string // in-scope URLs it linked to (canonical, before the run's seen-set and depth checks)
}

// push queues a page's items. For a list page, article URLs go first and
// the others after, so that the article URLs the store did not know are
// counted apart (what a list surface yields is new articles; the list
// pages it links to come back every run); an article page's links go in
// one push.
func (r *run) push(bg context.Context, st *siteState, page *url.URL, items []storage.FrontierItem, f *found) error {
	if len(items) == 0 {
		return nil
	}
	var arts, rest []storage.FrontierItem
	if st.articleRe.MatchString(page.String()) {
		rest = items
	} else {
		for _, it := range items {
			if st.articleRe.MatchString(it.URL) {
				arts = append(arts, it)
			} else {
				rest = append(rest, it)
			}
		}
	}
	for i, part := range [][]storage.FrontierItem{arts, rest} {
		if len(part) == 0 {
			continue
		}
		n, err := r.store.Push(bg, part)
		if err != nil {
			return fmt.Errorf("push links of %s: %w", page, err)
		}
		st.stats.queued.Add(int64(n))
		if i == 0 {
			f.newArticles += n
		}
	}
	return nil
}

// listSurface returns the surface of a frontier URL that is a list page
// (any URL not matching article_url); listed is false for article URLs.
func (r *run) listSurface(st *siteState, u string) (s surfaceKey, listed bool) {
	if st.articleRe.MatchString(u) {
		return surfaceKey{}, false
	}
	return surfaceKey{Kind: surfacePage, URL: u, Method: http.MethodGet}, true
}

// listDue reports whether the list page of item it is fetched by this run
// (surfaceDue). When it is not, the links kept from its last full answer
// are queued, as for a 304 (the pages it leads to keep their own
// schedules), and the item is done.
func (r *run) listDue(ctx context.Context, st *siteState, it storage.FrontierItem, s surfaceKey) bool {
	bg := context.WithoutCancel(ctx)
	due, err := r.surfaceDue(bg, st, s)
	if err != nil {
		r.fatal(err)
		return false
	}
	if due {
		return true
	}
	// A list left alone by the back-off is no failure of the run
	// (Summary.NothingFetched).
	r.pagesOK.Add(1)
	if _, err := r.requeueKept(ctx, st, it, s); err != nil {
		if ctx.Err() == nil {
			r.fatal(err)
		}
		return false
	}
	r.done(bg, it.URL)
	return false
}

// requeueKept queues the links kept for the list page of item it.
func (r *run) requeueKept(ctx context.Context, st *siteState, it storage.FrontierItem, s surfaceKey) (found, error) {
	state, _ := r.surfaces.get(s.String())
	pu, err := url.Parse(it.URL)
	if err != nil || len(state.Links) == 0 {
		return found{}, nil
	}
	return r.discover(ctx, context.WithoutCancel(ctx), st, pu, it.Depth, pageLinks{hrefs: state.Links})
}

// pageOpts are the fetch options of a page: a list page's request carries
// its surface's validators.
func (r *run) pageOpts(bg context.Context, s surfaceKey, listed bool) fetchOpts {
	if !listed {
		return fetchOpts{headers: r.headers}
	}
	h := r.headers.Clone()
	if err := r.conditional(bg, s, h); err != nil {
		r.fatal(err)
	}
	return fetchOpts{headers: h}
}

// listUnchanged handles a list page that answered 304 Not Modified: the
// links of its last full answer are queued again (so that the pages it
// leads to are checked in turn), the surface is recorded, the item is
// done. It reports false for any other outcome.
func (r *run) listUnchanged(ctx context.Context, st *siteState, it storage.FrontierItem, s surfaceKey, slot *fetchSlot, ferr *FetchError) bool {
	if ferr == nil || ferr.Status != http.StatusNotModified || slot == nil {
		return false
	}
	bg := context.WithoutCancel(ctx)
	f, err := r.requeueKept(ctx, st, it, s)
	if err != nil {
		if ctx.Err() == nil {
			r.fatal(err)
		}
		return true
	}
	err = r.saveSurface(bg, st, s, func(state *storage.SurfaceState, now time.Time) {
		r.noteSurface(st, state, http.StatusNotModified, slot.header, f.newArticles)
		state.NextDue = now.Add(r.surfaceBackoff(state.EmptyRuns))
	})
	if err != nil {
		r.fatal(err)
		return true
	}
	r.pagesOK.Add(1)
	r.log.Info("not modified", "site", st.name, "url", it.URL, "queued_again", len(f.links), "new", f.newArticles)
	r.done(bg, it.URL)
	return true
}

// listFailed records a list page whose fetch failed. A redirect to an
// article decided earlier makes the URL an alias of that article (see
// listFetched).
func (r *run) listFailed(bg context.Context, st *siteState, s surfaceKey, ferr *FetchError) {
	var err error
	if ferr.Kind == KindRedirectDecided {
		err = r.surfaceAlias(bg, st, s)
	} else {
		err = r.surfaceDone(bg, st, s, ferr.Status, nil, 0)
	}
	if err != nil {
		r.fatal(err)
	}
}

// listFetched records the fetch of a page requested as reqURL and ended
// on final: a list page keeps its validators, its links and how many new
// article URLs it yielded; a list URL that led to an article page is an
// alias of that article (surfaceAlias).
func (r *run) listFetched(bg context.Context, st *siteState, reqURL, final string, slot *fetchSlot, f found) {
	s, listed := r.listSurface(st, reqURL)
	if !listed {
		return
	}
	var err error
	if st.articleRe.MatchString(final) {
		err = r.surfaceAlias(bg, st, s)
	} else {
		err = r.saveSurface(bg, st, s, func(state *storage.SurfaceState, now time.Time) {
			r.noteSurface(st, state, slot.status, slot.header, f.newArticles)
			state.Links = f.links
			state.NextDue = now.Add(r.surfaceBackoff(state.EmptyRuns))
		})
	}
	if err != nil {
		r.fatal(err)
	}
}

// surfaceAlias records a list URL that leads to an article page (a short
// link redirecting to it): once the article is decided it is never
// fetched again, so the link is next due fetch.list_backoff_max later.
func (r *run) surfaceAlias(bg context.Context, st *siteState, s surfaceKey) error {
	return r.saveSurface(bg, st, s, func(state *storage.SurfaceState, now time.Time) {
		state.Status, state.NewURLs, state.Links = 0, 0, nil
		state.EmptyRuns++
		state.NextDue = now.Add(max(r.cfg.Fetch.ListBackoffMax.D(), r.surfaceBackoff(state.EmptyRuns)))
	})
}

// isGone reports whether a status says the page is gone (404 Not Found,
// 410 Gone).
func isGone(status int) bool {
	return status == http.StatusNotFound || status == http.StatusGone
}

// permanence says how an error of pageURL is recorded: permanent errors
// are final for article URLs (today's rule for every kind), and a URL of
// any kind that is gone (404, 410) is permanent until fetch.gone_retry
// has passed (retryAt; zero when gone_retry is 0: never retried). Other
// errors of list pages are not permanent: they are fetched again by the
// next run. Start URLs are reopened by every run (reopenStart).
func (r *run) permanence(st *siteState, pageURL string, fe *FetchError) (permanent bool, retryAt time.Time) {
	if fe.Permanent && isGone(fe.Status) {
		if d := r.cfg.Fetch.GoneRetry.D(); d > 0 {
			retryAt = r.clock.Now().Add(d)
		}
		return true, retryAt
	}
	return fe.Permanent && st.articleRe.MatchString(pageURL), time.Time{}
}
