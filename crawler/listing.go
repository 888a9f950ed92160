package crawler

import (
	"context"
	"fmt"
	"net/url"

	"github.com/newsdedup/newscrawl/discovery"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// listing says where a batch of listed URLs comes from and how they are
// pushed.
type listing struct {
	kind, src string // the source they are counted under
	referer   string // the surface or page URL they were listed on
	// depth is their frontier depth (0: sourceDepth); deeper than
	// max_depth they are skipped only when checkDepth is set (script
	// links of a page; a source's URLs are one step from a list whatever
	// max_depth says).
	depth      int
	checkDepth bool
	// articleOnly keeps only URLs matching article_url (script links:
	// scripts hold many URLs that are not links).
	articleOnly bool
	// admitted, when set, receives every URL that passed the checks (before
	// the run's seen-set): a list page's links, kept for a 304.
	admitted *[]string
}

// offer filters the links a source listed and pushes the new ones;
// it returns how many it pushed. A store failure stops the run. In a
// discover run (r.dry) nothing is pushed: each URL is looked up in the
// store instead, and Pushed counts those not decided yet.
func (r *run) offer(ctx context.Context, st *siteState, l listing, links []discovery.Link) int {
	if l.depth == 0 {
		l.depth = sourceDepth
	}
	var items []storage.FrontierItem
	var dated []string // URLs of items given a listed time
	var c SourceStats
	now := r.clock.Now()
	bg := context.WithoutCancel(ctx)
	for _, link := range links {
		c.Found++
		cu, reason := r.admitListed(st, link.URL, nil, l.articleOnly)
		if reason == "" && l.checkDepth && l.depth > st.cfg.MaxDepth {
			reason = SkipDepth
		}
		if reason != "" {
			c.skip(reason, 1)
			continue
		}
		c.Matched++
		if l.admitted != nil {
			*l.admitted = append(*l.admitted, cu)
		}
		article := st.classify(cu) == linkArticle
		noted := false
		if article {
			c.Articles++
			if noted = r.listed.note(cu, link.Time, now); noted {
				c.Dated++
			}
		}
		if !r.seen.add(cu) {
			c.skip(SkipSeen, 1)
			continue
		}
		if r.dry {
			if o, ok, err := r.store.Decided(bg, cu); err == nil && ok && o.Final() {
				c.skip(SkipDecided, 1)
			} else {
				c.Pushed++
			}
			continue
		}
		if article {
			st.stats.articleLinks.Add(1)
		}
		items = append(items, storage.FrontierItem{URL: cu, Site: st.name, Depth: l.depth, Referer: l.referer})
		if noted {
			dated = append(dated, cu)
		}
	}
	if !r.dry {
		n := r.pushListed(ctx, st, items, l.referer)
		c.Pushed = int64(n)
		c.skip(SkipDecided, len(items)-n)
		if n < len(items) {
			c.Dated -= int64(r.forgetDecided(bg, dated))
		}
	}
	st.stats.sources.update(l.kind, l.src, func(s *SourceStats) { s.merge(c) })
	return int(c.Pushed)
}

// forgetDecided drops the listed times of the urls that are decided (Push
// refused them: they will not be fetched), so that a sitemap listing
// thousands of old articles does not fill listedTimes; it returns how
// many it dropped.
func (r *run) forgetDecided(ctx context.Context, urls []string) int {
	n := 0
	for _, u := range urls {
		if o, ok, err := r.store.Decided(ctx, u); err == nil && ok && o.Final() {
			r.listed.take(u)
			n++
		}
	}
	return n
}

// admitListed checks one listed URL (resolved against base when not
// absolute): canonical, in scope, matching article_url (articleOnly) or
// either pattern, not too long, not a trap, not disallowed by a robots.txt
// already read. It returns the canonical URL, or why it is skipped.
func (r *run) admitListed(st *siteState, raw string, base *url.URL, articleOnly bool) (string, string) {
	cu, err := urlnorm.Canonical(raw, base)
	if err != nil {
		return "", SkipBadURL
	}
	lu, err := url.Parse(cu)
	switch {
	case err != nil:
		return "", SkipBadURL
	case !st.inScope(lu):
		return "", SkipOffDomain
	}
	kind := st.classify(cu)
	switch {
	case kind == linkIgnore, articleOnly && kind != linkArticle:
		return "", SkipNoMatch
	case len(cu) > r.maxURLLength:
		return "", SkipURLLength
	case isPathTrap(lu.Path):
		return "", SkipTrap
	}
	if rules := r.robots.peek(lu.Scheme + "://" + lu.Host); rules != nil && rules.state == robotsOK && !rules.allowed(lu) {
		return "", SkipRobots
	}
	return cu, ""
}

// pushListed pushes items to the frontier; a store failure stops the run.
func (r *run) pushListed(ctx context.Context, st *siteState, items []storage.FrontierItem, from string) int {
	if len(items) == 0 {
		return 0
	}
	n, err := r.store.Push(context.WithoutCancel(ctx), items)
	if err != nil {
		r.fatal(fmt.Errorf("push URLs listed by %s: %w", from, err))
		return 0
	}
	st.stats.queued.Add(int64(n))
	return n
}

// merge adds the URL counts of o.
func (s *SourceStats) merge(o SourceStats) {
	s.Found += o.Found
	s.Matched += o.Matched
	s.Articles += o.Articles
	s.Pushed += o.Pushed
	s.Dated += o.Dated
	for k, v := range o.Skipped {
		s.skip(k, v)
	}
}

// scriptLinks pushes the article URLs found inside the inline scripts of
// a fetched list page (JSON state, escaped URLs): at most
// fetch.max_links_per_page of them (the rest counted as too_many), one
// step deeper than the page and within max_depth. They are added to the
// page's links and new articles (f, nil in a discover run).
func (r *run) scriptLinks(ctx context.Context, st *siteState, page *url.URL, depth int, body []byte, f *found) {
	found := discovery.ScriptLinks(htmlBytes(body), page, r.discoveryLimits())
	if len(found) == 0 {
		return
	}
	if extra := len(found) - r.maxLinks; extra > 0 {
		st.stats.sources.update(SourceScript, "", func(s *SourceStats) { s.skip(SkipTooMany, extra) })
		found = found[:r.maxLinks]
	}
	links := make([]discovery.Link, len(found))
	for i, u := range found {
		links[i] = discovery.Link{URL: u}
	}
	l := listing{kind: SourceScript, referer: page.String(), depth: depth + 1, checkDepth: true, articleOnly: true}
	if f != nil {
		l.admitted = &f.links
	}
	n := r.offer(ctx, st, l, links)
	if f != nil {
		f.newArticles += n
	}
}
