package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/discovery"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// SourcePage is the kind of a start page in a discover report: the links
// of its <a> elements (its inline-script links are counted under
// SourceScript).
const SourcePage = "page"

// SiteSources is what Discover found for one site.
type SiteSources struct {
	Site     string        `json:"site"`
	Requests int64         `json:"requests"` // HTTP requests sent (robots.txt and retries included)
	Sources  []SourceStats `json:"sources"`  // Pushed counts the URLs not decided yet ("new")
	Warnings []string      `json:"warnings,omitempty"`
}

// errReadOnly: a discover run tried to write (a bug, never expected).
var errReadOnly = errors.New("discover writes nothing to the store")

// readOnlyStore hides every method of a store but those of Store, and
// refuses writes: a discover run neither pushes nor commits, and keeps no
// surface state (validators, back-off), so every surface is fetched whole.
type readOnlyStore struct{ Store }

func (readOnlyStore) Push(context.Context, []storage.FrontierItem) (int, error) {
	return 0, errReadOnly
}
func (readOnlyStore) Commit(context.Context, *storage.Commit) error { return errReadOnly }

// Discover fetches every list surface of the selected sites once — start
// pages, the robots.txt Sitemap: lines of their hosts, sitemaps, feeds and
// APIs — under the crawl's politeness (robots.txt, delays, Crawl-delay,
// the shared pacer, retries, body limits), and counts per source what it
// lists: found, matching article_url, not decided yet in store (new),
// and skipped by reason. No article is fetched and nothing is written;
// store only answers which URLs are decided (an empty store: none).
func Discover(ctx context.Context, cfg *config.Config, store Store, opts Options) ([]SiteSources, error) {
	ro := readOnlyStore{store}
	c, err := New(cfg, ro, Discard{Store: ro}, opts)
	if err != nil {
		return nil, err
	}
	r := c.newRun(0)
	r.dry = true
	defer r.closeIdle()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.cancel = cancel
	var wg sync.WaitGroup
	for _, st := range r.sites {
		wg.Go(func() {
			r.discoverPages(runCtx, st)
			r.fetchSources(runCtx, st)
		})
	}
	wg.Wait()
	if err := r.fatal(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]SiteSources, len(r.sites))
	for i, st := range r.sites {
		out[i] = SiteSources{Site: st.name, Requests: st.stats.requests.Load(), Sources: st.stats.sources.list(),
			Warnings: st.stats.warningList()}
	}
	return out, nil
}

// discoverPages reads the links of the site's start pages as a crawl's
// first step would, without following them.
func (r *run) discoverPages(ctx context.Context, st *siteState) {
	for _, raw := range st.cfg.StartURLs {
		if ctx.Err() != nil {
			return
		}
		cu, err := urlnorm.Canonical(raw, nil)
		if err != nil {
			continue // checked by New
		}
		req := surfaceReq{key: surfaceKey{Kind: surfacePage, URL: cu, Method: http.MethodGet}, kind: SourcePage, src: cu}
		r.surface(ctx, st, req, func(slot *fetchSlot, final *url.URL) (int, error) {
			if !isHTML(slot.header, slot.body) {
				return 0, fmt.Errorf("%s: content-type %q is not HTML", KindNotHTML, slot.header.Get("Content-Type"))
			}
			pl := extractLinks(slot.body, r.maxLinks)
			base := resolveBase(final, pl.base)
			links := make([]discovery.Link, 0, len(pl.hrefs))
			for _, h := range pl.hrefs {
				if u, err := base.Parse(h); err == nil {
					h = u.String()
				}
				links = append(links, discovery.Link{URL: h})
			}
			if pl.excess > 0 {
				st.stats.sources.update(SourcePage, cu, func(s *SourceStats) { s.skip(SkipTooMany, pl.excess) })
			}
			n := r.offer(ctx, st, listing{kind: SourcePage, src: cu, referer: final.String()}, links)
			r.scriptLinks(ctx, st, final, 0, slot.body, nil)
			return n, nil
		})
	}
}
