package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// robots.txt handling follows RFC 9309.
const (
	// robotsLimit is the largest robots.txt accepted. RFC 9309 section 2.5
	// asks crawlers to parse at least 500 KiB; a larger file is treated as
	// unreachable (the host is not crawled) rather than parsed in part.
	robotsLimit = 500 << 10
	// robotsMaxRedirects: RFC 9309 section 2.3.1.2 asks crawlers to follow
	// at least five consecutive redirects, even across authorities.
	robotsMaxRedirects = 5
)

type robotsState int

const (
	robotsOK            robotsState = iota
	robotsUnreachable               // 5xx, timeout, network error: disallow all (RFC 9309 section 2.3.1.4)
	robotsDelayTooLarge             // Crawl-delay above fetch.max_crawl_delay: host skipped
)

// robotsRules is the parsed robots.txt of one origin, for our user agent.
type robotsRules struct {
	state      robotsState
	group      *robotstxt.Group // nil: everything allowed
	crawlDelay time.Duration
	reason     string // why the host is not crawled (state != robotsOK)
}

var allowAllRules = &robotsRules{}

// allowed reports whether u may be fetched. /robots.txt itself is always
// allowed (RFC 9309 section 2.2.2).
func (r *robotsRules) allowed(u *url.URL) bool {
	if r.state != robotsOK {
		return false
	}
	if r.group == nil || u.Path == "/robots.txt" {
		return true
	}
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return r.group.Test(p)
}

// productToken extracts the robots.txt product token from a User-Agent
// ("newscrawl/0.1 (+https://...)" -> "newscrawl"), lower-cased.
func productToken(ua string) string {
	if i := strings.IndexAny(ua, " /;("); i >= 0 {
		ua = ua[:i]
	}
	return strings.ToLower(strings.TrimSpace(ua))
}

// findGroup returns the group whose user-agent equals token (RFC 9309
// section 2.2.1: match the product token exactly, case-insensitively), or
// the "*" group. temoto/robotstxt's FindGroup matches the longest group name
// that is a prefix of the agent, so a group "news" would wrongly apply to
// "newscrawl"; a group found for token but not for token minus its last byte
// is named exactly token.
func findGroup(r *robotstxt.RobotsData, token string) *robotstxt.Group {
	if token == "" || token == "*" {
		return r.FindGroup("*")
	}
	g := r.FindGroup(token)
	if g != r.FindGroup(token[:len(token)-1]) {
		return g
	}
	return r.FindGroup("*")
}

// parseRobots parses a 2xx robots.txt body. Lines temoto/robotstxt rejects
// outright (rules before any User-agent line, unparsable Crawl-delay values)
// are dropped first, as lenient parsers do; a file that still fails to parse
// disallows everything.
func parseRobots(body []byte, token string, maxDelay time.Duration) *robotsRules {
	data, err := robotstxt.FromBytes(sanitizeRobots(body))
	if err != nil {
		return &robotsRules{state: robotsUnreachable, reason: fmt.Sprintf("robots.txt unparsable: %v", err)}
	}
	g := findGroup(data, token)
	r := &robotsRules{group: g, crawlDelay: g.CrawlDelay}
	if r.crawlDelay > maxDelay {
		r.state = robotsDelayTooLarge
		r.reason = fmt.Sprintf("robots.txt Crawl-delay %s exceeds fetch.max_crawl_delay %s", r.crawlDelay, maxDelay)
	}
	return r
}

func sanitizeRobots(body []byte) []byte {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var out bytes.Buffer
	out.Grow(len(body))
	seenAgent := false
	for _, line := range bytes.Split(body, []byte("\n")) {
		content := line
		if i := bytes.IndexByte(content, '#'); i >= 0 {
			content = content[:i]
		}
		key, val, ok := bytes.Cut(content, []byte(":"))
		if ok {
			k := strings.ToLower(strings.TrimSpace(string(key)))
			v := strings.TrimSpace(string(val))
			switch k {
			case "user-agent", "useragent":
				seenAgent = true
			case "allow", "disallow":
				if !seenAgent {
					continue
				}
			case "crawl-delay", "crawldelay":
				f, err := strconv.ParseFloat(v, 64)
				if !seenAgent || err != nil || f < 0 || f > 1e9 {
					continue
				}
			}
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// robotsCache holds one robots.txt per origin (scheme://host:port) for the
// duration of a run; concurrent callers for one origin share one fetch.
type robotsCache struct {
	mu sync.Mutex
	m  map[string]*robotsEntry
}

type robotsEntry struct {
	ready chan struct{}
	rules *robotsRules
	err   error // the fetch was abandoned (run cancelled)
}

func newRobotsCache() *robotsCache { return &robotsCache{m: make(map[string]*robotsEntry)} }

// get returns the rules of origin, calling fetch once per origin.
func (c *robotsCache) get(ctx context.Context, origin string, fetch func(context.Context) (*robotsRules, error)) (*robotsRules, error) {
	c.mu.Lock()
	e, ok := c.m[origin]
	if !ok {
		e = &robotsEntry{ready: make(chan struct{})}
		c.m[origin] = e
		c.mu.Unlock()
		e.rules, e.err = fetch(ctx)
		close(e.ready)
	} else {
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return e.rules, e.err
}

// peek returns the rules of origin if they are already known.
func (c *robotsCache) peek(origin string) *robotsRules {
	c.mu.Lock()
	e := c.m[origin]
	c.mu.Unlock()
	if e == nil {
		return nil
	}
	select {
	case <-e.ready:
		return e.rules
	default:
		return nil
	}
}

// fetchRobots downloads and interprets the robots.txt of origin (RFC 9309
// section 2.3.1): 2xx is parsed; 4xx means no restrictions, except 429,
// which is treated like 5xx; 5xx, timeouts and network errors make the host
// unreachable (nothing is fetched). More than five redirects count as
// "unavailable" (no restrictions), as section 2.3.1.2 allows.
func (r *run) fetchRobots(ctx context.Context, st *siteState, origin string) (*robotsRules, error) {
	ou, err := url.Parse(origin)
	if err != nil {
		return nil, err
	}
	if err := r.pacer.wait(ctx, ou.Host, st.delay); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(withoutSlot(ctx), http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", r.cfg.UserAgent)
	req.Header.Set("Accept", "text/plain,*/*;q=0.8")
	st.stats.requests.Add(1)
	resp, err := r.robotsClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var fe *FetchError
		if errors.As(err, &fe) && fe.Kind == KindTooManyRedirects {
			return allowAllRules, nil
		}
		if errors.As(err, &fe) && fe.Kind == KindTooLarge {
			return &robotsRules{state: robotsUnreachable, reason: fmt.Sprintf("robots.txt larger than %d bytes", robotsLimit)}, nil
		}
		return &robotsRules{state: robotsUnreachable, reason: "robots.txt unreachable: " + err.Error()}, nil
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body) // already read and limited by limitTransport
	resp.Body.Close()
	if err != nil {
		return &robotsRules{state: robotsUnreachable, reason: "robots.txt unreadable: " + err.Error()}, nil
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return parseRobots(buf.Bytes(), r.token, r.maxCrawlDelay), nil
	case s == http.StatusTooManyRequests || s >= 500:
		return &robotsRules{state: robotsUnreachable, reason: fmt.Sprintf("robots.txt answered http %d", s)}, nil
	default: // 4xx and unfollowed 3xx: unavailable, no restrictions
		return allowAllRules, nil
	}
}

// robotsRedirectPolicy bounds robots.txt redirects.
func robotsRedirectPolicy(req *http.Request, via []*http.Request) error {
	if len(via) > robotsMaxRedirects {
		return &FetchError{Kind: KindTooManyRedirects, Err: fmt.Errorf("more than %d redirects", robotsMaxRedirects)}
	}
	return nil
}
