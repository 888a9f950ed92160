package crawler

// Redirects and meta refreshes: every hop stays in scope, allowed by
// robots.txt, without loops, within fetch.max_redirects.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/newsdedup/newscrawl/urlnorm"
)

// followRefresh follows a <meta http-equiv="refresh"> that names another
// URL as if it were an HTTP redirect: the target must stay in the site's
// scope and be allowed by robots.txt, must not loop back into the chain,
// and the hops of the chain (HTTP redirects and refreshes) are bounded by
// fetch.max_redirects. A refresh without a URL or to the page itself
// (portal list pages reload every few minutes) leaves the page as it is.
// It returns the last page of the chain and its links.
func (r *run) followRefresh(ctx context.Context, st *siteState, slot *fetchSlot) (*fetchSlot, pageLinks, *FetchError, bool) {
	for {
		if !isHTML(slot.header, slot.body) {
			return slot, pageLinks{}, nil, false
		}
		links := extractLinks(slot.body, r.maxLinks)
		if links.refresh == "" || len(slot.hops) == 0 {
			return slot, links, nil, false
		}
		cur := slot.hops[len(slot.hops)-1]
		tu, err := cur.Parse(links.refresh)
		if err != nil || (tu.Scheme != "http" && tu.Scheme != "https") {
			return slot, links, nil, false // not a URL we could request: the page stands
		}
		tu.Fragment, tu.RawFragment = "", ""
		target, err := urlnorm.Canonical(tu.String(), nil)
		if err != nil {
			return slot, links, nil, false
		}
		if c, err := urlnorm.Canonical(cur.String(), nil); err == nil && c == target {
			return slot, links, nil, false // reloads itself
		}
		fail := func(kind string, format string, a ...any) (*fetchSlot, pageLinks, *FetchError, bool) {
			return slot, pageLinks{}, &FetchError{Kind: kind, Status: slot.status, Permanent: kind != KindRedirectDecided,
				Err: fmt.Errorf("meta refresh: "+format, a...)}, false
		}
		for _, h := range slot.hops {
			if c, err := urlnorm.Canonical(h.String(), nil); err == nil && c == target {
				return fail(KindRedirectLoop, "loop back to %s", target)
			}
		}
		if len(slot.hops) > r.cfg.Fetch.MaxRedirects {
			return fail(KindTooManyRedirects, "more than %d redirects", r.cfg.Fetch.MaxRedirects)
		}
		if cu, _ := url.Parse(target); cu == nil || !st.inScope(cu) {
			return fail(KindRedirectDisallowed, "%s leaves the site's allowed_domains", target)
		}
		rules, err := r.robotsFor(ctx, st, tu)
		if err != nil {
			return nil, pageLinks{}, nil, true
		}
		if !rules.allowed(tu) {
			why := "robots.txt disallows it"
			if rules.reason != "" {
				why = rules.reason
			}
			return fail(KindRedirectDisallowed, "%s: %s", target, why)
		}
		if o, ok, err := r.store.Decided(context.WithoutCancel(ctx), target); err == nil && ok && o.Final() {
			return fail(KindRedirectDecided, "%s already decided", target)
		}
		next, ferr, abandoned := r.fetch(ctx, st, tu.String(), tu.Host, max(st.delay, rules.crawlDelay))
		if abandoned {
			return nil, pageLinks{}, nil, true
		}
		if next != nil {
			next.hops = append(slices.Clone(slot.hops), next.hops...)
			if next.status != 0 {
				st.stats.fetched.Add(1)
				st.stats.bytes.Add(int64(len(next.body)))
			}
		}
		if ferr != nil {
			return next, pageLinks{}, ferr, false
		}
		slot = next
	}
}

// checkRedirect is colly's redirect handler: every hop must stay within the
// site's scope and be allowed by robots.txt, the chain must not loop and
// must not exceed fetch.max_redirects. Each hop is paced like a request.
func (r *run) checkRedirect(req *http.Request, via []*http.Request) error {
	slot := slotFrom(req.Context())
	if slot == nil {
		return nil
	}
	st := slot.site
	if len(via) > r.cfg.Fetch.MaxRedirects {
		return &FetchError{Kind: KindTooManyRedirects, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("more than %d redirects", r.cfg.Fetch.MaxRedirects)}
	}
	target, err := urlnorm.Canonical(req.URL.String(), nil)
	if err != nil {
		return &FetchError{Kind: KindRedirectDisallowed, Status: slot.status, Permanent: true, Err: fmt.Errorf("redirect to %q: %w", req.URL, err)}
	}
	repeats := 0
	for _, v := range via {
		if c, err := urlnorm.Canonical(v.URL.String(), nil); err == nil && c == target {
			repeats++
		}
	}
	if repeats > 0 {
		// One self-redirect that sets a cookie is a common session pattern.
		last, _ := urlnorm.Canonical(via[len(via)-1].URL.String(), nil)
		cookie := req.Response != nil && len(req.Response.Header.Values("Set-Cookie")) > 0
		if !(repeats == 1 && last == target && cookie) {
			return &FetchError{Kind: KindRedirectLoop, Status: slot.status, Permanent: true, Err: fmt.Errorf("redirect loop back to %s", target)}
		}
	}
	if slot.refuse != nil {
		if fe := slot.refuse(target); fe != nil {
			fe.Status = slot.status
			return fe
		}
	}
	tu, _ := url.Parse(target)
	inScope := st.inScope
	if slot.inScope != nil {
		inScope = slot.inScope
	}
	if !inScope(tu) {
		return &FetchError{Kind: KindRedirectDisallowed, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("redirect to %s leaves the site's allowed_domains", target)}
	}
	rules, err := r.robotsFor(withoutSlot(req.Context()), st, tu)
	if err != nil {
		return err
	}
	// robots.txt is matched against the URL that is requested (as the site
	// wrote it), not against the canonical seen-set key.
	if !rules.allowed(req.URL) {
		why := "robots.txt disallows it"
		if rules.reason != "" {
			why = rules.reason
		}
		return &FetchError{Kind: KindRedirectDisallowed, Status: slot.status, Permanent: true,
			Err: fmt.Errorf("redirect to %s: %s", target, why)}
	}
	// A redirect to an article decided by an earlier run (a /r/ short link
	// found again on a list page) is not fetched again.
	if o, ok, err := r.store.Decided(withoutSlot(req.Context()), target); err == nil && ok && o.Final() {
		return &FetchError{Kind: KindRedirectDecided, Status: slot.status, Err: fmt.Errorf("redirect to %s, already decided", target)}
	}
	return r.pacer.wait(req.Context(), tu.Host, max(st.delay, rules.crawlDelay))
}
