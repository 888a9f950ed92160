package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/crawler/robots"
	"github.com/newsdedup/newscrawl/discovery"
)

// robots.txt handling follows RFC 9309, with Google's reading of what the
// RFC leaves open: package crawler/robots parses and matches; this file
// fetches, caches and shares a host's robots.txt and applies the crawl's
// limits to it.
const (
	// robotsLimit is how much of a robots.txt is parsed. RFC 9309 section
	// 2.5 asks crawlers to parse at least 500 KiB; Google parses the first
	// 500 KiB and ignores the rest, and so do we (a larger file is not a
	// reason to skip the host).
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
	group      *robots.Group // nil: everything allowed
	crawlDelay time.Duration
	reason     string   // why the host is not crawled (state != robotsOK)
	truncated  bool     // the file was larger than robotsLimit; its start was parsed
	sitemaps   []string // its Sitemap: lines (discovery.RobotsSitemaps)
}

var allowAllRules = &robotsRules{}

// allowed reports whether u may be fetched. The path compared is the
// request target that is sent (u.RequestURI(): escaped path and query as
// they go on the wire), in RFC 9309's canonical form. /robots.txt itself is
// always allowed (RFC 9309 section 2.2.2).
func (r *robotsRules) allowed(u *url.URL) bool {
	if r.state != robotsOK {
		return false
	}
	if r.group == nil || u.Path == "/robots.txt" {
		return true
	}
	return r.group.Allowed(u.RequestURI())
}

// parseRobots parses a 2xx robots.txt body (its first robotsLimit bytes).
// Lines that cannot be parsed are ignored, as Google does; nothing in the
// body makes the host unreachable.
func parseRobots(body []byte, token string, maxDelay time.Duration) *robotsRules {
	truncated := len(body) > robotsLimit
	if truncated {
		body = body[:robotsLimit]
	}
	body = robotsUTF8(body)
	g := robots.Compile(string(body), token)
	r := &robotsRules{group: g, truncated: truncated, sitemaps: discovery.RobotsSitemaps(body)}
	if d, ok := g.CrawlDelay(); ok {
		r.crawlDelay = d
	}
	if r.crawlDelay > maxDelay {
		r.state = robotsDelayTooLarge
		r.reason = fmt.Sprintf("robots.txt Crawl-delay %s exceeds fetch.max_crawl_delay %s", r.crawlDelay, maxDelay)
	}
	return r
}

// robotsUTF8 transcodes a robots.txt that starts with a UTF-16 byte order
// mark (Windows editors save text so) to UTF-8, the encoding RFC 9309
// requires and the parser reads: read as bytes, its every line is
// unparsable and the file allowed everything it disallows. Other bodies
// are returned as they are. (The limit of robotsLimit bytes applies to the
// file as sent, before this.)
func robotsUTF8(body []byte) []byte {
	if e := bomEncoding(body); e != nil {
		return fromUTF16(body, e)
	}
	return body
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

// robotsAnswer is what a robots.txt request gave, before it is compiled:
// what processes share (RobotsShare), since each compiles it for its own
// user agent and limits.
type robotsAnswer struct {
	kind   byte   // answerBody, answerAllowAll or answerUnreachable
	body   []byte // answerBody: the 2xx body
	reason string // answerUnreachable: why
}

// robotsAnswer kinds, the first byte of an encoded answer.
const (
	answerBody        = 'b'
	answerAllowAll    = 'a'
	answerUnreachable = 'u'
)

// Shared robots.txt answers are cached this long. RFC 9309 section 2.4
// allows a cached robots.txt for up to 24 hours; an unreachable one is
// cached briefly, so that a host that comes back is crawled by the next
// processes to start.
const (
	robotsShareTTL       = time.Hour
	robotsUnreachableTTL = time.Minute
)

func (a robotsAnswer) encode() []byte {
	switch a.kind {
	case answerBody:
		return append([]byte{answerBody}, a.body...)
	case answerUnreachable:
		return append([]byte{answerUnreachable}, a.reason...)
	}
	return []byte{answerAllowAll}
}

func (a robotsAnswer) ttl() time.Duration {
	if a.kind == answerUnreachable {
		return robotsUnreachableTTL
	}
	return robotsShareTTL
}

func decodeRobotsAnswer(b []byte) (robotsAnswer, error) {
	if len(b) == 0 {
		return robotsAnswer{}, errors.New("empty shared robots.txt answer")
	}
	switch b[0] {
	case answerBody:
		return robotsAnswer{kind: answerBody, body: b[1:]}, nil
	case answerAllowAll:
		return robotsAnswer{kind: answerAllowAll}, nil
	case answerUnreachable:
		return robotsAnswer{kind: answerUnreachable, reason: string(b[1:])}, nil
	}
	return robotsAnswer{}, fmt.Errorf("shared robots.txt answer of unknown kind %q", b[0])
}

// rules compiles the answer for our product token and Crawl-delay limit.
func (a robotsAnswer) rules(token string, maxDelay time.Duration) *robotsRules {
	switch a.kind {
	case answerBody:
		return parseRobots(a.body, token, maxDelay)
	case answerUnreachable:
		return &robotsRules{state: robotsUnreachable, reason: a.reason}
	}
	return allowAllRules
}

// RobotsShare shares robots.txt answers between the processes crawling
// one corpus. Once returns the value cached under key; when there is none,
// one caller among all processes runs fetch and caches its value for the
// time to live fetch returns, while the others wait for it. An error of
// fetch is returned to its caller and nothing is cached.
// storage/redisfrontier.Frontier is one.
type RobotsShare interface {
	Once(ctx context.Context, key string, fetch func(context.Context) ([]byte, time.Duration, error)) ([]byte, error)
}

// fetchRobots returns the robots.txt answer of origin: the shared one when
// processes share answers (fetched by one of them), else its own fetch.
func (r *run) fetchRobots(ctx context.Context, st *siteState, origin string) (*robotsRules, error) {
	share := r.opts.Robots
	if share == nil {
		a, err := r.requestRobots(ctx, st, origin)
		if err != nil {
			return nil, err
		}
		return a.rules(r.token, r.maxCrawlDelay), nil
	}
	b, err := share.Once(ctx, "robots:"+origin, func(ctx context.Context) ([]byte, time.Duration, error) {
		a, err := r.requestRobots(ctx, st, origin)
		if err != nil {
			return nil, 0, err
		}
		return a.encode(), a.ttl(), nil
	})
	if err != nil {
		if ctx.Err() == nil {
			r.fatal(fmt.Errorf("shared robots.txt of %s: %w", origin, err))
		}
		return nil, err
	}
	a, err := decodeRobotsAnswer(b)
	if err != nil {
		r.fatal(fmt.Errorf("shared robots.txt of %s: %w", origin, err))
		return nil, err
	}
	return a.rules(r.token, r.maxCrawlDelay), nil
}

// requestRobots downloads the robots.txt of origin and interprets it (RFC
// 9309 section 2.3.1): 2xx is parsed; 4xx means no restrictions, except
// 429, which is treated like 5xx; 5xx, timeouts and network errors make the
// host unreachable (nothing is fetched). More than five redirects count as
// "unavailable" (no restrictions), as section 2.3.1.2 allows.
func (r *run) requestRobots(ctx context.Context, st *siteState, origin string) (robotsAnswer, error) {
	ou, err := url.Parse(origin)
	if err != nil {
		return robotsAnswer{}, err
	}
	if err := r.pacer.wait(ctx, ou.Host, st.delay); err != nil {
		return robotsAnswer{}, err
	}
	req, err := http.NewRequestWithContext(withoutSlot(ctx), http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return robotsAnswer{}, err
	}
	req.Header.Set("User-Agent", r.cfg.UserAgent)
	req.Header.Set("Accept", "text/plain,*/*;q=0.8")
	st.stats.requests.Add(1)
	resp, err := r.robotsClient.Do(req)
	r.pacer.holdUntil(ou.Host, r.clock.Now().Add(st.delay))
	if err != nil {
		if ctx.Err() != nil {
			return robotsAnswer{}, ctx.Err()
		}
		var fe *FetchError
		if errors.As(err, &fe) && fe.Kind == KindTooManyRedirects {
			return robotsAnswer{kind: answerAllowAll}, nil
		}
		return robotsAnswer{kind: answerUnreachable, reason: "robots.txt unreachable: " + err.Error()}, nil
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body) // already read and limited by limitTransport
	resp.Body.Close()
	if err != nil {
		return robotsAnswer{kind: answerUnreachable, reason: "robots.txt unreadable: " + err.Error()}, nil
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return robotsAnswer{kind: answerBody, body: buf.Bytes()}, nil
	case s == http.StatusTooManyRequests || s >= 500:
		return robotsAnswer{kind: answerUnreachable, reason: fmt.Sprintf("robots.txt answered http %d", s)}, nil
	default: // 4xx and unfollowed 3xx: unavailable, no restrictions
		return robotsAnswer{kind: answerAllowAll}, nil
	}
}

// robotsRedirectPolicy bounds robots.txt redirects.
func robotsRedirectPolicy(req *http.Request, via []*http.Request) error {
	if len(via) > robotsMaxRedirects {
		return &FetchError{Kind: KindTooManyRedirects, Err: fmt.Errorf("more than %d redirects", robotsMaxRedirects)}
	}
	return nil
}

// robotsFor returns the robots.txt rules of u's origin, fetching them once
// per run. After the robots.txt request the host waits its effective delay.
func (r *run) robotsFor(ctx context.Context, st *siteState, u *url.URL) (*robotsRules, error) {
	if r.cfg.Fetch.IgnoreRobots {
		return allowAllRules, nil
	}
	origin := u.Scheme + "://" + u.Host
	return r.robots.get(ctx, origin, func(ctx context.Context) (*robotsRules, error) {
		rules, err := r.fetchRobots(ctx, st, origin)
		if err == nil && rules.crawlDelay > st.delay {
			r.pacer.holdUntil(u.Host, r.clock.Now().Add(rules.crawlDelay))
		}
		return rules, err
	})
}
