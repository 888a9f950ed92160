package crawler

// One frontier item: admitted, fetched, claimed, then processed or
// recorded.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// handle fetches one frontier item and records its outcome. Store writes
// use a context that survives cancellation, so that a page whose body
// arrived is committed and marked done even while the run stops.
func (r *run) handle(ctx context.Context, st *siteState, it storage.FrontierItem) {
	bg := context.WithoutCancel(ctx)
	// Start URLs (depth 0): whether this run could fetch them, for the
	// summary's warning. startWhy stays "" when the item was skipped or
	// abandoned, "ok" once the page came back as 2xx HTML.
	startWhy := ""
	if it.Depth == 0 {
		defer func() {
			switch startWhy {
			case "":
			case "ok":
				st.stats.noteStart(it.URL, "")
			default:
				st.stats.noteStart(it.URL, startWhy)
			}
		}()
	}
	sk, listed := r.listSurface(st, it.URL)
	if listed && !r.listDue(ctx, st, it, sk) {
		return
	}
	u, rules, why := r.admit(ctx, st, it)
	if rules == nil {
		startWhy = why
		return
	}
	slot, ferr, abandoned := r.fetchAs(ctx, st, it.URL, u.Host, max(st.delay, rules.crawlDelay), r.pageOpts(bg, sk, listed))
	if abandoned {
		return
	}
	if slot != nil && slot.status != 0 {
		st.stats.fetched.Add(1)
		st.stats.bytes.Add(int64(len(slot.body)))
	}
	if listed && r.listUnchanged(ctx, st, it, sk, slot, ferr) {
		startWhy = "ok"
		return
	}
	var links pageLinks
	if ferr == nil {
		slot, links, ferr, abandoned = r.followRefresh(ctx, st, slot)
		if abandoned {
			return
		}
	}
	if ferr != nil && listed {
		r.listFailed(bg, st, sk, ferr)
	}
	if ferr != nil && ferr.Kind == KindRedirectDecided {
		st.stats.skipDone.Add(1)
		r.done(bg, it.URL)
		return
	}
	if ferr != nil {
		r.recordError(bg, st, it.URL, it.URL, ferr)
		startWhy = ferr.Error()
		return
	}
	final, ok := r.claimFinal(bg, st, it, slot)
	if !ok {
		return
	}
	if !isHTML(slot.header, slot.body) {
		fe := &FetchError{Kind: KindNotHTML, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("content-type %q is not HTML", slot.header.Get("Content-Type"))}
		r.recordError(bg, st, final, it.URL, fe)
		startWhy = fe.Error()
		return
	}
	startWhy = "ok"
	r.pagesOK.Add(1)
	r.keepPage(ctx, st, it, final, slot, links)
}

// admit checks a frontier item before it is fetched: a URL that parses, not
// decided by an earlier run, on a host whose robots.txt could be read and
// allows it. rules is nil when the item is not fetched; why then says why
// (empty when it was skipped, not failed).
func (r *run) admit(ctx context.Context, st *siteState, it storage.FrontierItem) (u *url.URL, rules *robotsRules, why string) {
	bg := context.WithoutCancel(ctx)
	u, err := url.Parse(it.URL)
	if err != nil || !u.IsAbs() {
		fe := &FetchError{Kind: KindBadURL, Permanent: true, Err: fmt.Errorf("unparsable frontier url")}
		r.recordError(bg, st, it.URL, it.URL, fe)
		return nil, nil, fe.Error()
	}
	if o, ok, err := r.store.Decided(bg, it.URL); err != nil {
		r.fatal(fmt.Errorf("decided %s: %w", it.URL, err))
		return nil, nil, ""
	} else if (ok && o.Final()) || r.claimed.has(it.URL) {
		// Decided by an earlier run, or already fetched by this one (a
		// later page of an article, FetchPage).
		st.stats.skipDone.Add(1)
		r.done(bg, it.URL)
		return nil, nil, ""
	}
	rules, err = r.robotsFor(ctx, st, u)
	if err != nil {
		return nil, nil, "" // cancelled: the item stays in flight and is requeued next run
	}
	switch rules.state {
	case robotsUnreachable, robotsDelayTooLarge:
		kind := KindRobotsUnavailable
		if rules.state == robotsDelayTooLarge {
			kind = KindCrawlDelay
		}
		r.warn(st, fmt.Sprintf("host %s skipped: %s", u.Host, rules.reason))
		r.recordError(bg, st, it.URL, it.URL, &FetchError{Kind: kind, Err: errors.New(rules.reason)})
		return nil, nil, rules.reason
	}
	if rules.truncated {
		r.warn(st, fmt.Sprintf("host %s: robots.txt is larger than %d KiB: its first %d KiB were parsed, the rest ignored", u.Host, robotsLimit>>10, robotsLimit>>10))
	}
	if !rules.allowed(u) {
		st.stats.robotsBlocked.Add(1)
		r.log.Info("skipped", "site", st.name, "url", it.URL, "reason", "robots")
		r.done(bg, it.URL)
		return nil, nil, "disallowed by robots.txt"
	}
	return u, rules, ""
}

// claimFinal returns the canonical URL of the page a fetch ended on (after
// redirects and refreshes) and claims it for this run: one outcome per URL
// per run, so a page reached through two redirects (or directly and through
// a redirect) at the same time is processed once, and a page decided by an
// earlier run is not processed again. ok is false when the item is done.
func (r *run) claimFinal(bg context.Context, st *siteState, it storage.FrontierItem, slot *fetchSlot) (final string, ok bool) {
	final = it.URL
	if n := len(slot.hops); n > 0 {
		if c, err := urlnorm.Canonical(slot.hops[n-1].String(), nil); err == nil {
			final = c
		}
	}
	if !r.claimed.add(final) {
		st.stats.skipDone.Add(1)
		r.done(bg, it.URL)
		return "", false
	}
	if final != it.URL {
		r.seen.add(final)
		if o, ok, err := r.store.Decided(bg, final); err != nil {
			r.fatal(fmt.Errorf("decided %s: %w", final, err))
			return "", false
		} else if ok && o.Final() {
			st.stats.skipDone.Add(1)
			r.done(bg, it.URL)
			return "", false
		}
	}
	if _, err := url.Parse(final); err != nil {
		r.recordError(bg, st, it.URL, it.URL, &FetchError{Kind: KindBadURL, Permanent: true, Err: err})
		return "", false
	}
	return final, true
}

// keepPage pushes the links of a fetched HTML page, then hands an article
// to the Processor or records a list page, and marks the item done.
func (r *run) keepPage(ctx context.Context, st *siteState, it storage.FrontierItem, final string, slot *fetchSlot, links pageLinks) {
	bg := context.WithoutCancel(ctx)
	fu, _ := url.Parse(final) // checked by claimFinal
	found, err := r.discover(ctx, bg, st, fu, it.Depth, links)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return // cancelled: the item stays in flight and is requeued next run
		}
		r.fatal(err)
		return
	}
	now := r.clock.Now()
	article := st.articleRe.MatchString(final)
	if !article {
		r.scriptLinks(ctx, st, fu, it.Depth, slot.body, &found)
	}
	r.listFetched(bg, st, it.URL, final, slot, found)
	if article {
		st.stats.articles.Add(1)
		resp := &Response{URL: final, RequestURL: it.URL, Site: st.cfg, RunID: r.runID, Depth: it.Depth,
			Status: slot.status, Header: slot.header, Body: slot.body, FetchedAt: now, images: r.imageFetcher(ctx, st),
			Listed: r.listed.take(it.URL, final)}
		resp.pages = r.pageFetcher(ctx, st, resp)
		out, err := r.proc.ProcessArticle(bg, resp)
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return // a lead image fetch was cut by the end of the run: the item stays in flight
		}
		if err != nil {
			r.fatal(fmt.Errorf("process %s: %w", final, err))
			return
		}
		switch out {
		case storage.OutcomeStored:
			st.stats.stored.Add(1)
		case storage.OutcomeDuplicate:
			st.stats.duplicates.Add(1)
		case storage.OutcomeNotArticle:
			st.stats.notArticle.Add(1)
		case storage.OutcomePart:
			st.stats.parts.Add(1)
		case OutcomeDecidedElsewhere:
			st.stats.skipDone.Add(1)
		default:
			st.stats.addError("processor")
		}
	} else {
		p := storage.Page{URL: final, Site: st.name, RunID: r.runID, Outcome: storage.OutcomeNotArticle,
			Status: slot.status, FetchedAt: now}
		if err := r.commit(bg, &storage.Commit{Page: p}); err != nil {
			r.fatal(err)
			return
		}
		st.stats.notArticle.Add(1)
	}
	r.done(bg, it.URL)
	if final != it.URL {
		r.done(bg, final)
	}
}

// isHTML reports whether a 2xx response is an HTML page: by its media type,
// or by sniffing when the type is missing or generic.
func isHTML(h http.Header, body []byte) bool {
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "text/html", "application/xhtml+xml":
		return true
	case "", "application/octet-stream", "text/plain":
		return strings.HasPrefix(http.DetectContentType(body), "text/html")
	}
	return false
}

// commit writes an outcome; a URL already decided is not an error.
func (r *run) commit(ctx context.Context, c *storage.Commit) error {
	err := r.store.Commit(ctx, c)
	if err != nil && !errors.Is(err, storage.ErrAlreadyDecided) {
		return fmt.Errorf("commit %s: %w", c.Page.URL, err)
	}
	return nil
}

// recordError commits an error page for pageURL and marks reqURL (and
// pageURL) done.
func (r *run) recordError(ctx context.Context, st *siteState, pageURL, reqURL string, fe *FetchError) {
	msg := fe.Kind
	if fe.Err != nil {
		msg = fe.Err.Error()
	}
	permanent, retryAt := r.permanence(st, pageURL, fe)
	p := storage.Page{URL: pageURL, Site: st.name, RunID: r.runID, Outcome: storage.OutcomeError,
		Status: fe.Status, ErrKind: fe.Kind, Err: msg, Permanent: permanent, FetchedAt: r.clock.Now(), RetryAt: retryAt}
	if err := r.commit(ctx, &storage.Commit{Page: p}); err != nil {
		r.fatal(err)
		return
	}
	st.stats.addError(fe.Kind)
	r.log.Info("failed", "site", st.name, "url", pageURL, "kind", fe.Kind, "status", fe.Status, "err", msg)
	r.done(ctx, reqURL)
	if pageURL != reqURL {
		r.done(ctx, pageURL)
	}
}
