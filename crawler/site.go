package crawler

// Sites during a run: scope, link classes and the run's seen-set.

import (
	"fmt"
	"net/url"
	"regexp"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// siteState is one site's configuration and live state during a run.
type siteState struct {
	cfg       *config.Site
	name      string
	articleRe *regexp.Regexp
	followRe  *regexp.Regexp // nil: follow every in-scope non-article URL
	ports     map[string]bool
	delay     time.Duration
	stats     *siteCounters

	started   int // items taken from the frontier (site loop only)
	budgetHit bool
}

func compileSite(s *config.Site) (*siteState, error) {
	st := &siteState{cfg: s, name: s.Name, articleRe: s.ArticleRe, followRe: s.FollowRe,
		ports: make(map[string]bool), delay: max(s.Delay.D(), 0), stats: newSiteCounters()}
	var err error
	if st.articleRe == nil {
		if st.articleRe, err = regexp.Compile(s.ArticleURL); err != nil || s.ArticleURL == "" {
			return nil, fmt.Errorf("site %s: article_url %q is not a usable regexp", s.Name, s.ArticleURL)
		}
	}
	if st.followRe == nil && s.FollowURL != "" {
		if st.followRe, err = regexp.Compile(s.FollowURL); err != nil {
			return nil, fmt.Errorf("site %s: follow_url: %w", s.Name, err)
		}
	}
	if len(s.StartURLs) == 0 && !s.HasSources() {
		return nil, fmt.Errorf("site %s: no start URL and no sitemap, feed or api", s.Name)
	}
	sourcePorts(s, st.ports)
	for _, raw := range s.StartURLs {
		cu, err := urlnorm.Canonical(raw, nil)
		if err != nil {
			return nil, fmt.Errorf("site %s: start URL %q: %w", s.Name, raw, err)
		}
		u, _ := url.Parse(cu)
		if p := u.Port(); p != "" {
			st.ports[p] = true
		}
		if !st.inScope(u) {
			return nil, fmt.Errorf("site %s: start URL %q is outside allowed_domains", s.Name, raw)
		}
	}
	return st, nil
}

// inScope reports whether a canonical URL belongs to the site.
func (st *siteState) inScope(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if !config.HostAllowed(u.Host, st.cfg.AllowedDomains) {
		return false
	}
	p := u.Port()
	return p == "" || st.ports[p]
}

func (st *siteState) classify(canonical string) linkKind {
	switch {
	case st.articleRe.MatchString(canonical):
		return linkArticle
	case st.followRe == nil || st.followRe.MatchString(canonical):
		return linkFollow
	}
	return linkIgnore
}

// seenSet holds the 64-bit hashes of URLs queued or fetched in this run
// (the store forgets a frontier item once it is done, and list pages are
// never decided, so the frontier alone would let them be queued again).
type seenSet struct {
	mu sync.Mutex
	m  map[uint64]struct{}
}

func (s *seenSet) add(u string) bool {
	h := xxhash.Sum64String(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[h]; ok {
		return false
	}
	s.m[h] = struct{}{}
	return true
}

func (s *seenSet) has(u string) bool {
	h := xxhash.Sum64String(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[h]
	return ok
}
