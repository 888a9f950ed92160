package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// FetchPage fetches one page under the crawler's policy, for commands that
// look at a single URL (`extract URL`): the configured user agent,
// robots.txt (obeyed unless fetch.ignore_robots), the body limit and
// timeouts, retries, and redirects and meta refreshes that must stay on the
// URL's host family (the host and its subdomains, or the allowed_domains of
// the configured site that covers the URL) within fetch.max_redirects. The
// error is a *FetchError when the page could not be had (its Kind says why:
// redirect_disallowed, robots_unavailable, http_404, ...), or
// ErrRobotsDisallowed. store answers whether a redirect target was decided
// by a crawl (an empty store: never); nothing is written to it.
func FetchPage(ctx context.Context, cfg *config.Config, store Store, rawURL string) (*Response, error) {
	cu, err := urlnorm.Canonical(rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("crawler: %q: %w", rawURL, err)
	}
	u, err := url.Parse(cu)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("crawler: %q is not an absolute URL", rawURL)
	}
	site := config.Site{Name: "fetch", StartURLs: []string{cu}, AllowedDomains: []string{u.Hostname()},
		ArticleURL: ".", Parallelism: 1}
	for _, s := range cfg.Sites {
		st, err := compileSite(&s)
		if err == nil && st.inScope(u) {
			site = s
			site.StartURLs = []string{cu}
			site.Parallelism = 1
			break
		}
	}
	one := *cfg
	one.Sites = []config.Site{site}
	c, err := New(&one, store, Discard{Store: store}, Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	r := c.newRun(0)
	defer r.closeIdle()
	st := r.sites[0]
	rules, err := r.robotsFor(ctx, st, u)
	if err != nil {
		return nil, err
	}
	switch rules.state {
	case robotsUnreachable:
		return nil, &FetchError{Kind: KindRobotsUnavailable, Err: errors.New(rules.reason)}
	case robotsDelayTooLarge:
		return nil, &FetchError{Kind: KindCrawlDelay, Err: errors.New(rules.reason)}
	}
	if !rules.allowed(u) {
		return nil, fmt.Errorf("%s: %w", cu, ErrRobotsDisallowed)
	}
	slot, ferr, abandoned := r.fetch(ctx, st, cu, u.Host, 0)
	if abandoned {
		return nil, ctx.Err()
	}
	if ferr == nil {
		slot, _, ferr, abandoned = r.followRefresh(ctx, st, slot)
		if abandoned {
			return nil, ctx.Err()
		}
	}
	if ferr != nil {
		return nil, ferr
	}
	final := cu
	if n := len(slot.hops); n > 0 {
		final = slot.hops[n-1].String()
	}
	if !isHTML(slot.header, slot.body) {
		return nil, &FetchError{Kind: KindNotHTML, Status: slot.status,
			Err: fmt.Errorf("content-type %q is not HTML", slot.header.Get("Content-Type"))}
	}
	s := st.cfg
	return &Response{URL: final, RequestURL: cu, Site: s, Status: slot.status, Header: slot.header, Body: slot.body,
		FetchedAt: r.clock.Now()}, nil
}

// ErrRobotsDisallowed: robots.txt disallows the URL for our user agent.
var ErrRobotsDisallowed = errors.New("robots.txt disallows it")
