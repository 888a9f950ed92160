package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// Error kinds of article-page fetches (Response.FetchPage). They are not
// page outcomes: the Processor decides what a missing page means for its
// article.
const (
	KindPageLimit = "page_limit" // more than MaxArticlePages pages asked for one article
	KindPageLoop  = "page_loop"  // a page already fetched for the article (or the article's own page) asked again
)

// MaxArticlePages bounds the pages fetched for one article page handed to
// the Processor (its own page not counted): a pager that names more, or
// leads on for ever, is cut there.
const MaxArticlePages = 30

// ErrNoPageFetcher: the Response was not made by a crawl (FetchPage, a
// test), so it cannot fetch the other pages of its article.
var ErrNoPageFetcher = errors.New("crawler: this response cannot fetch pages")

// FetchPage fetches another page of the article of resp (page 1 of an
// article reached on its page 3, or its pages 2, 3, …) under the policy
// of the crawl's pages: the URL must be in the site's allowed_domains
// (else a *FetchError of kind out_of_scope; redirect hops must stay there,
// so a pager pointing off-site is refused), robots.txt must allow it (else
// ErrRobotsDisallowed), the host is paced like every request (site delay,
// Crawl-delay, the shared pacer), transient failures are retried, the
// body limit is fetch.max_body, and the answer must be 2xx HTML; a URL the
// store holds with a permanent error (a 404 met first on a list) is not
// requested again (a *FetchError of its recorded kind). At most
// MaxArticlePages pages are fetched through one article's Responses (kind
// page_limit), and a URL already fetched for the article, or the article
// page itself, is refused (kind page_loop): a pager that loops ends.
//
// The URLs fetched (as requested and after redirects) are claimed for the
// run: the frontier does not fetch or process them again, whatever its
// queue holds; the Processor records them as pages of their article
// (storage.OutcomePart) when it commits it. When the crawl is stopping,
// the error wraps the run context's error.
func (resp *Response) FetchPage(ctx context.Context, rawURL string) (*Response, error) {
	if resp.pages == nil {
		return nil, ErrNoPageFetcher
	}
	return resp.pages(ctx, rawURL)
}

// articlePages is the state of one article's page fetches, shared by the
// Responses of its pages.
type articlePages struct {
	mu      sync.Mutex
	fetched map[string]bool // canonical URLs asked for or reached
	n       int             // fetches started
}

// take reserves a fetch of cu: a page_limit or page_loop error when the
// article may not have it.
func (a *articlePages) take(cu string) *FetchError {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fetched[cu] {
		return &FetchError{Kind: KindPageLoop, Err: fmt.Errorf("page %s was already fetched for this article", cu)}
	}
	if a.n >= MaxArticlePages {
		return &FetchError{Kind: KindPageLimit, Err: fmt.Errorf("more than %d pages for one article", MaxArticlePages)}
	}
	a.n++
	a.fetched[cu] = true
	return nil
}

// reached records the URL a fetch ended on after redirects: false when
// the article already had it (a page redirecting into another).
func (a *articlePages) reached(cu string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fetched[cu] {
		return false
	}
	a.fetched[cu] = true
	return true
}

// refuseHop vetoes a redirect hop to a page the article already has (a
// loop), before it is requested.
func (a *articlePages) refuseHop(target string) *FetchError {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fetched[target] {
		return &FetchError{Kind: KindPageLoop, Permanent: true, Err: fmt.Errorf("redirect to %s, a page already fetched for this article", target)}
	}
	return nil
}

// pageFetcher returns the page fetcher of the article of page (a Response
// of st), cancelled with the run (runCtx) as well as with its caller's
// context.
func (r *run) pageFetcher(runCtx context.Context, st *siteState, page *Response) func(context.Context, string) (*Response, error) {
	art := &articlePages{fetched: map[string]bool{page.URL: true, page.RequestURL: true}}
	var fetch func(ctx context.Context, rawURL string) (*Response, error)
	fetch = func(ctx context.Context, rawURL string) (*Response, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(runCtx, func() { cancel(context.Cause(runCtx)) })
		defer stop()
		out, err := r.fetchArticlePage(ctx, st, art, page, rawURL)
		if err != nil {
			if runCtx.Err() != nil {
				return nil, fmt.Errorf("article page %s: %w", rawURL, runCtx.Err())
			}
			st.stats.articlePagesFailed.Add(1)
			r.log.Info("article page not fetched", "site", st.name, "article", page.URL, "url", rawURL, "err", err)
			return nil, err
		}
		out.images, out.pages = page.images, fetch
		return out, nil
	}
	return fetch
}

// fetchArticlePage fetches one page of art under the page rules (see
// FetchPage).
func (r *run) fetchArticlePage(ctx context.Context, st *siteState, art *articlePages, page *Response, rawURL string) (*Response, error) {
	cu, err := urlnorm.Canonical(rawURL, nil)
	if err != nil || len(cu) > r.maxURLLength {
		return nil, &FetchError{Kind: KindBadURL, Err: fmt.Errorf("article page %q is not an http(s) URL of at most %d bytes", rawURL, r.maxURLLength)}
	}
	u, _ := url.Parse(cu)
	if !st.inScope(u) {
		return nil, &FetchError{Kind: KindOutOfScope, Err: fmt.Errorf("article page host %s is not in the site's allowed_domains", u.Host)}
	}
	if fe := art.take(cu); fe != nil {
		return nil, fe
	}
	// A page recorded with a permanent error (a 404 met first on a list,
	// in this run or an earlier one) is not requested again.
	if p, err := r.store.PageOf(context.WithoutCancel(ctx), cu); err == nil && p.Outcome == storage.OutcomeError && p.Permanent {
		return nil, &FetchError{Kind: p.ErrKind, Status: p.Status, Permanent: true, Err: fmt.Errorf("recorded by run %d: %s", p.RunID, p.Err)}
	} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("article page %s: %w", cu, err)
	}
	rules, err := r.robotsFor(ctx, st, u)
	if err != nil {
		return nil, err
	}
	switch {
	case rules.state == robotsUnreachable || rules.state == robotsDelayTooLarge:
		return nil, &FetchError{Kind: KindRobotsUnavailable, Err: errors.New(rules.reason)}
	case !rules.allowed(u):
		st.stats.robotsBlocked.Add(1)
		return nil, fmt.Errorf("article page %s: %w", cu, ErrRobotsDisallowed)
	}
	// Claimed before the request: a frontier worker popping the URL
	// meanwhile skips it (admit), and discover no longer queues it.
	r.claimed.add(cu)
	r.seen.add(cu)
	slot, ferr, abandoned := r.fetchAs(ctx, st, cu, u.Host, max(st.delay, rules.crawlDelay),
		fetchOpts{headers: r.headers, refuse: art.refuseHop})
	if abandoned {
		return nil, fmt.Errorf("article page %s: %w", cu, context.Cause(ctx))
	}
	if slot != nil && slot.status != 0 {
		st.stats.fetched.Add(1)
		st.stats.bytes.Add(int64(len(slot.body)))
	}
	if ferr != nil {
		return nil, ferr
	}
	final := cu
	if n := len(slot.hops); n > 0 {
		if c, err := urlnorm.Canonical(slot.hops[n-1].String(), nil); err == nil {
			final = c
		}
	}
	if final != cu {
		if !art.reached(final) {
			return nil, &FetchError{Kind: KindPageLoop, Status: slot.status, Err: fmt.Errorf("page %s redirects to %s, already fetched for this article", cu, final)}
		}
		r.claimed.add(final)
		r.seen.add(final)
	}
	if !isHTML(slot.header, slot.body) {
		return nil, &FetchError{Kind: KindNotHTML, Status: slot.status,
			Err: fmt.Errorf("content-type %q is not HTML", slot.header.Get("Content-Type"))}
	}
	st.stats.articlePages.Add(1)
	return &Response{URL: final, RequestURL: cu, Site: page.Site, RunID: page.RunID, Depth: page.Depth,
		Status: slot.status, Header: slot.header, Body: slot.body, FetchedAt: r.clock.Now()}, nil
}
