package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/discovery"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// Discovery sources. At the start of each site's work the crawler fetches
// the site's list surfaces besides its start pages: the sitemaps named by
// the robots.txt "Sitemap:" lines of the site's hosts (the hosts of its
// start URLs and of its surfaces that are in allowed_domains), its
// sitemaps (the sitemaps of an index followed, bounded), feeds and APIs
// (each {page} of 1..pages, GET or POST). Package discovery reads them.
//
// Every surface request goes through surface(), under the page rules:
// robots.txt must allow it, the host's delay and Crawl-delay and the shared
// pacer apply, transient failures are retried, the body is limited and
// decompressed by limitTransport, and every attempt is logged and reported
// to Options.OnFetch. A failed surface (HTTP error, HTML instead of JSON,
// timeouts) is counted in its SourceStats and logged, never fatal.
//
// Every URL a source lists is canonicalised (urlnorm) and pushed to the
// frontier at depth 1, its Referer the surface URL, when it is in
// allowed_domains and matches article_url or follow_url; the others are
// counted by reason (SourceStats.Skipped). A time the source gives is
// kept for the run (listedTimes) and handed to the Processor as
// Response.Listed.
const (
	// maxSitemapDepth bounds sitemap index nesting below a configured or
	// robots.txt sitemap: sitemaps.org forbids an index in an index, some
	// portals nest one level anyway.
	maxSitemapDepth = 2
	// maxSitemapsPerSite bounds the sitemap files fetched per site and run
	// (an index of daily sitemaps names thousands; the newest come first).
	maxSitemapsPerSite = 100
	// maxSitemapBody is the sitemaps.org limit on a sitemap file,
	// decompressed; fetch.max_body applies to feeds and APIs.
	maxSitemapBody = discovery.DefaultMaxBytes
	// sourceDepth is the frontier depth of a URL a surface lists: one
	// step from the list, like a link of a start page.
	sourceDepth = 1
)

// surfaceAccept is the Accept header of a surface request of kind.
func surfaceAccept(kind string) string {
	switch kind {
	case surfaceSitemap:
		return "application/xml,text/xml;q=0.9,*/*;q=0.5"
	case surfaceFeed:
		return "application/rss+xml,application/atom+xml,application/feed+json,application/xml;q=0.9,*/*;q=0.5"
	case surfaceAPI:
		return "application/json,text/javascript;q=0.9,*/*;q=0.5"
	}
	return "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
}

// reqBody is a fresh reader over the request body (nil: none).
func (o fetchOpts) reqBody() io.Reader {
	if o.body == nil {
		return nil
	}
	return bytes.NewReader(o.body)
}

// sourcePorts adds to ports the ports of a site's surfaces whose host is in
// allowed_domains, and of its host:port allowed_domains entries: a site
// whose article URLs come only from a sitemap keeps them in scope.
func sourcePorts(s *config.Site, ports map[string]bool) {
	urls := append(append([]string(nil), s.Sitemaps...), s.Feeds...)
	for _, a := range s.APIs {
		urls = append(urls, discovery.ExpandPage(a.URL, 1))
	}
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && u.Port() != "" && config.HostAllowed(u.Host, s.AllowedDomains) {
			ports[u.Port()] = true
		}
	}
	for _, d := range s.AllowedDomains {
		if _, port, err := net.SplitHostPort(d); err == nil && port != "" {
			ports[port] = true
		}
	}
}

// startSources fetches the site's surfaces in a goroutine counted in
// flight by the site loop, so that the loop waits for the URLs they push.
func (r *run) startSources(ctx context.Context, st *siteState, wg *sync.WaitGroup, inflight *atomic.Int64, wake chan struct{}) {
	inflight.Add(1)
	wg.Add(1)
	go func() {
		defer func() {
			inflight.Add(-1)
			select {
			case wake <- struct{}{}:
			default:
			}
			wg.Done()
		}()
		r.fetchSources(ctx, st)
	}()
}

// fetchSources reads every list surface of the site once.
func (r *run) fetchSources(ctx context.Context, st *siteState) {
	w := &sitemapWalk{seen: make(map[string]bool), newURLs: make(map[string]int)}
	roots := r.robotsSitemaps(ctx, st, w)
	for _, sm := range st.cfg.Sitemaps {
		w.add(sm, SourceSitemap, sm, "", 0)
	}
	r.walkSitemaps(ctx, st, w)
	for _, k := range roots {
		if err := r.surfaceDone(context.WithoutCancel(ctx), st, k.key, k.status, nil, w.newURLs[k.key.URL]); err != nil {
			r.fatal(fmt.Errorf("surface %s: %w", k.key.URL, err))
		}
	}
	for _, f := range st.cfg.Feeds {
		if ctx.Err() != nil {
			return
		}
		req := surfaceReq{key: surfaceKey{Kind: surfaceFeed, URL: f, Method: http.MethodGet}, kind: SourceFeed, src: f}
		r.surface(ctx, st, req, func(slot *fetchSlot, base *url.URL) (int, error) {
			links, err := discovery.ParseFeed(slot.body, slot.header.Get("Content-Type"), base, r.discoveryLimits())
			if err != nil {
				return 0, err
			}
			return r.offer(ctx, st, listing{kind: SourceFeed, src: f, referer: base.String()}, links), nil
		})
	}
	for i := range st.cfg.APIs {
		r.fetchAPI(ctx, st, &st.cfg.APIs[i])
	}
}

// discoveryLimits are the parser limits of a surface document: the
// sitemaps.org limits (50,000 URLs, 50 MB) and package discovery's JSON
// depth. fetch.max_links_per_page is a page's limit, not a sitemap's.
func (r *run) discoveryLimits() discovery.Limits { return discovery.DefaultLimits() }

// robotsRoot is a robots.txt read for its Sitemap: lines: a surface of its
// own (kind sitemap, URL origin/robots.txt), due and backed off like the
// others, so that a cron run with nothing due requests nothing, not even
// robots.txt.
type robotsRoot struct {
	key    surfaceKey
	status int // 200 when its rules could be read, else 0
}

// robotsSitemaps queues the Sitemap: lines of the robots.txt of the site's
// hosts (each robots.txt fetched once per run, as pages do) and returns
// the robots.txt surfaces read, for surfaceDone once their sitemaps are.
func (r *run) robotsSitemaps(ctx context.Context, st *siteState, w *sitemapWalk) []robotsRoot {
	if r.cfg.Fetch.IgnoreRobots {
		return nil // robots.txt is not read at all
	}
	var roots []robotsRoot
	for _, o := range siteOrigins(st) {
		key := surfaceKey{Kind: surfaceSitemap, URL: o + "/robots.txt", Method: http.MethodGet}
		if due, err := r.surfaceDue(ctx, st, key); err != nil || !due {
			if err != nil && ctx.Err() == nil {
				r.fatal(fmt.Errorf("surface %s: %w", key.URL, err))
			}
			if err == nil {
				// surfaceDue counted it among the site's lists not due
				// (the summary's not-due); a robots.txt is none of them.
				st.stats.surfacesNotDue.Add(-1)
			}
			continue
		}
		u, _ := url.Parse(o)
		rules, err := r.robotsFor(ctx, st, u)
		if err != nil {
			return roots // cancelled
		}
		root := robotsRoot{key: key}
		if rules.state == robotsOK {
			root.status = http.StatusOK
		}
		roots = append(roots, root)
		for _, sm := range rules.sitemaps {
			w.add(sm, SourceRobots, sm, key.URL, 0)
		}
	}
	return roots
}

// siteOrigins are the origins (scheme://host) of the site's start URLs and
// of its surfaces whose host is in scope, in config order.
func siteOrigins(st *siteState) []string {
	s := st.cfg
	urls := append(append(append([]string(nil), s.StartURLs...), s.Sitemaps...), s.Feeds...)
	for _, a := range s.APIs {
		urls = append(urls, discovery.ExpandPage(a.URL, 1))
	}
	var out []string
	seen := map[string]bool{}
	for _, raw := range urls {
		cu, err := urlnorm.Canonical(raw, nil)
		if err != nil {
			continue
		}
		u, err := url.Parse(cu)
		if err != nil || !st.inScope(u) {
			continue
		}
		o := u.Scheme + "://" + u.Host
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// sitemapWalk is the breadth-first walk of a site's sitemaps in one run:
// the files to read, and every sitemap URL met (loops are skipped).
type sitemapWalk struct {
	queue   []sitemapTask
	seen    map[string]bool
	fetched int
	newURLs map[string]int // URLs pushed, by the robots.txt the sitemaps descend from
}

type sitemapTask struct {
	url, kind, source string // source: the configured (or robots.txt) sitemap it descends from
	root              string // the robots.txt that named it ("" for a configured one)
	depth             int
}

// add queues a sitemap unless it was met before; it reports whether it did.
func (w *sitemapWalk) add(raw, kind, source, root string, depth int) bool {
	key := raw
	if cu, err := urlnorm.Canonical(raw, nil); err == nil {
		key = cu
	}
	if w.seen[key] {
		return false
	}
	w.seen[key] = true
	w.queue = append(w.queue, sitemapTask{url: raw, kind: kind, source: source, root: root, depth: depth})
	return true
}

// walkSitemaps reads the queued sitemaps and the sitemaps their indexes
// name, at most maxSitemapsPerSite files, maxSitemapDepth levels down.
func (r *run) walkSitemaps(ctx context.Context, st *siteState, w *sitemapWalk) {
	for len(w.queue) > 0 && ctx.Err() == nil {
		t := w.queue[0]
		w.queue = w.queue[1:]
		if w.fetched >= maxSitemapsPerSite {
			st.stats.sources.update(t.kind, t.source, func(s *SourceStats) { s.skip(SkipTooMany, 1) })
			r.warn(st, fmt.Sprintf("more than %d sitemaps: the rest were not read this run", maxSitemapsPerSite))
			continue
		}
		w.fetched++
		req := surfaceReq{key: surfaceKey{Kind: surfaceSitemap, URL: t.url, Method: http.MethodGet}, kind: t.kind, src: t.source}
		r.surface(ctx, st, req, func(slot *fetchSlot, base *url.URL) (int, error) {
			sm, err := discovery.ParseSitemap(slot.body, base, r.discoveryLimits())
			if err != nil {
				return 0, err
			}
			if sm.Truncated {
				r.warn(st, fmt.Sprintf("sitemap %s lists more than %d URLs: the first were read", t.url, discovery.DefaultMaxURLs))
			}
			if sm.Index {
				r.queueChildren(st, w, t, base, sm.Sitemaps)
			}
			n := r.offer(ctx, st, listing{kind: t.kind, src: t.source, referer: base.String()}, sm.URLs)
			w.newURLs[t.root] += n
			return n, nil
		})
	}
}

// queueChildren queues the sitemaps an index names: on the index's host
// or in allowed_domains, not met before, not deeper than maxSitemapDepth.
func (r *run) queueChildren(st *siteState, w *sitemapWalk, parent sitemapTask, base *url.URL, children []discovery.Link) {
	st.stats.sources.update(parent.kind, parent.source, func(s *SourceStats) {
		for _, c := range children {
			cu, err := url.Parse(c.URL)
			switch {
			case err != nil || (cu.Scheme != "http" && cu.Scheme != "https"):
				s.skip(SkipBadURL, 1)
			case cu.Host != base.Host && !config.HostAllowed(cu.Host, st.cfg.AllowedDomains):
				s.skip(SkipSurfaceOff, 1)
			case parent.depth+1 > maxSitemapDepth:
				s.skip(SkipTooDeep, 1)
			case !w.add(c.URL, parent.kind, parent.source, parent.root, parent.depth+1):
				s.skip(SkipLoop, 1)
			}
		}
	})
}

// fetchAPI reads the pages 1..pages of one api entry; it stops at the
// first page that fails, lists nothing (the end of the list) or lists
// only what the page before listed (an endpoint that ignores {page}).
func (r *run) fetchAPI(ctx context.Context, st *siteState, a *config.API) {
	parser := discovery.API{Items: a.Items, URL: a.ItemURL, URLTemplate: a.URLTemplate, Time: a.Time}
	var prev map[string]bool
	for page := 1; page <= a.PageCount() && ctx.Err() == nil; page++ {
		key := surfaceKey{Kind: surfaceAPI, URL: discovery.ExpandPage(a.URL, page), Method: a.RequestMethod()}
		if a.Body != "" {
			key.Body = []byte(discovery.ExpandPage(a.Body, page))
		}
		req := surfaceReq{key: key, kind: SourceAPI, src: a.URL, contentType: a.RequestContentType()}
		listed, repeated := -1, false
		ok := r.surface(ctx, st, req, func(slot *fetchSlot, base *url.URL) (int, error) {
			res, err := parser.ParseResult(slot.body, base, r.discoveryLimits())
			if err != nil {
				return 0, err
			}
			listed = len(res.Links)
			cur := make(map[string]bool, len(res.Links))
			repeated = prev != nil
			for _, l := range res.Links {
				cur[l.URL] = true
				repeated = repeated && prev[l.URL]
			}
			prev = cur
			st.stats.sources.update(SourceAPI, a.URL, func(s *SourceStats) {
				s.Found += int64(res.Skipped)
				s.skip(SkipBadURL, res.Skipped)
			})
			if res.Skipped > 0 {
				r.log.Info("api items without a usable URL", "site", st.name, "url", key.URL, "skipped", res.Skipped, "first", res.FirstSkip)
			}
			return r.offer(ctx, st, listing{kind: SourceAPI, src: a.URL, referer: key.URL}, res.Links), nil
		})
		if repeated && listed > 0 {
			r.warn(st, fmt.Sprintf("api %s: page %d lists what page %d did ({page} ignored?): later pages not fetched", a.URL, page, page-1))
		}
		if !ok || listed == 0 || repeated {
			return
		}
	}
}

// surfaceReq is one surface request: the key the incremental hooks know
// it by, the source it is counted under (kind and configured URL) and the
// Content-Type of its body.
type surfaceReq struct {
	key         surfaceKey
	kind, src   string
	contentType string
}

// surfaceRead reads a fetched surface (base: the URL it ended on) and
// returns how many new URLs it pushed.
type surfaceRead func(slot *fetchSlot, base *url.URL) (newURLs int, err error)

// surface fetches one list surface and reads it: the one place every
// surface request goes through. robots.txt must allow the URL; the
// surface must be due (surfaceDue); the request carries the validators of
// its last answer (conditional); a 304 is not read; surfaceDone learns the
// answer and how many new URLs it gave. Failures are counted under the
// source (kind, src) and logged. ok is false when the surface was not
// read (failed, not due, disallowed, not modified or cancelled).
func (r *run) surface(ctx context.Context, st *siteState, req surfaceReq, read surfaceRead) (ok bool) {
	book, kind, src, key := st.stats.sources, req.kind, req.src, req.key
	fail := func(fk, msg string) {
		book.update(kind, src, func(s *SourceStats) { s.fail(fk, msg) })
		r.log.Error("discovery source failed", "site", st.name, "source", kind, "url", key.URL, "kind", fk, "err", msg)
		r.warn(st, fmt.Sprintf("%s %s failed: %s", kind, src, fk))
	}
	u, err := url.Parse(key.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fail(KindBadURL, fmt.Sprintf("not an http(s) URL: %q", key.URL))
		return false
	}
	rules, err := r.robotsFor(ctx, st, u)
	if err != nil {
		return false // cancelled
	}
	switch rules.state {
	case robotsUnreachable:
		fail(KindRobotsUnavailable, rules.reason)
		return false
	case robotsDelayTooLarge:
		fail(KindCrawlDelay, rules.reason)
		return false
	}
	if !rules.allowed(u) {
		st.stats.robotsBlocked.Add(1)
		fail(SkipRobots, "disallowed by robots.txt")
		return false
	}
	if due, err := r.surfaceDue(ctx, st, key); err != nil || !due {
		if err != nil && ctx.Err() == nil {
			r.fatal(fmt.Errorf("surface %s: %w", key.URL, err))
		}
		book.update(kind, src, func(s *SourceStats) { s.NotDue++ })
		return false
	}
	slot, ferr, abandoned := r.fetchSurface(ctx, st, u, req, max(st.delay, rules.crawlDelay))
	if abandoned {
		return false
	}
	book.update(kind, src, func(s *SourceStats) { s.Requests++ })
	status, header, newURLs := 0, http.Header(nil), 0
	if slot != nil {
		status, header = slot.status, slot.header
	}
	switch {
	case status == http.StatusNotModified:
		book.update(kind, src, func(s *SourceStats) { s.NotModified++ })
	case ferr != nil:
		fail(ferr.Kind, ferr.Error())
	default:
		base := u
		if n := len(slot.hops); n > 0 {
			base = slot.hops[n-1]
		}
		newURLs, err = read(slot, base)
		if err != nil {
			fail(parseErrorKind(err), err.Error())
		} else {
			ok = true
			r.log.Info("discovery source read", "site", st.name, "source", kind, "url", key.URL, "status", status, "new", newURLs)
		}
	}
	if err := r.surfaceDone(context.WithoutCancel(ctx), st, key, status, header, newURLs); err != nil {
		r.fatal(fmt.Errorf("surface %s: %w", key.URL, err))
	}
	return ok
}

// fetchSurface sends a surface request through fetchAs with its method,
// body and headers (the conditional validators added): redirect hops may
// stay on the surface's host or go into allowed_domains.
func (r *run) fetchSurface(ctx context.Context, st *siteState, u *url.URL, req surfaceReq, delay time.Duration) (*fetchSlot, *FetchError, bool) {
	key := req.key
	h := r.headers.Clone()
	h.Set("Accept", surfaceAccept(key.Kind))
	if req.contentType != "" {
		h.Set("Content-Type", req.contentType)
	}
	if err := r.conditional(ctx, key, h); err != nil {
		r.log.Warn("conditional request headers", "site", st.name, "url", key.URL, "err", err)
	}
	host := u.Host
	o := fetchOpts{headers: h, method: key.Method, body: key.Body, inScope: func(t *url.URL) bool {
		return (t.Scheme == "http" || t.Scheme == "https") && (t.Host == host || config.HostAllowed(t.Host, st.cfg.AllowedDomains))
	}}
	if key.Kind == surfaceSitemap {
		o.maxBody = maxSitemapBody
	}
	slot, ferr, abandoned := r.fetchAs(ctx, st, key.URL, host, delay, o)
	if ferr != nil && slot != nil && slot.status == http.StatusNotModified {
		ferr = nil
	}
	return slot, ferr, abandoned
}

// parseErrorKind names a discovery error for the counters.
func parseErrorKind(err error) string {
	switch {
	case errors.Is(err, discovery.ErrNotJSON):
		return "not_json"
	case errors.Is(err, discovery.ErrTooLarge):
		return KindTooLarge
	case errors.Is(err, discovery.ErrTooDeep):
		return "too_deep"
	case errors.Is(err, discovery.ErrNotSitemap):
		return "not_sitemap"
	case errors.Is(err, discovery.ErrNotFeed):
		return "not_feed"
	case errors.Is(err, discovery.ErrCharset):
		return "charset"
	case errors.Is(err, discovery.ErrPath):
		return "path"
	}
	return "parse"
}
