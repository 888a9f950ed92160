package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testServer is an httptest server whose routes are exact request URIs
// (path plus query) or, for keys ending in "*", prefixes. It counts hits.
type testServer struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	order  []string
	routes map[string]http.HandlerFunc
}

func newTestServer(t testing.TB, routes map[string]http.HandlerFunc) *testServer {
	t.Helper()
	ts := &testServer{hits: make(map[string]int), routes: routes}
	ts.Server = httptest.NewServer(http.HandlerFunc(ts.serve))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *testServer) serve(w http.ResponseWriter, r *http.Request) {
	key := r.URL.RequestURI()
	ts.mu.Lock()
	ts.hits[key]++
	ts.order = append(ts.order, key)
	h := ts.routes[key]
	if h == nil {
		best := ""
		for k, v := range ts.routes {
			if p, ok := strings.CutSuffix(k, "*"); ok && strings.HasPrefix(key, p) && len(p) >= len(best) {
				best, h = p, v
			}
		}
	}
	ts.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

func (ts *testServer) hit(uri string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.hits[uri]
}

func (ts *testServer) requests() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.order...)
}

// listPage answers an HTML page linking to links.
func listPage(links ...string) http.HandlerFunc {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><title>list</title></head><body><ul>\n")
	for _, l := range links {
		fmt.Fprintf(&b, "<li><a href=%q>link</a></li>\n", l)
	}
	b.WriteString("</ul></body></html>\n")
	page := b.String()
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}
}

// artLinks returns the paths /art/0 .. /art/n-1, the links of a list page
// served with listPage.
func artLinks(n int) []string {
	links := make([]string, n)
	for i := range links {
		links[i] = fmt.Sprintf("/art/%d", i)
	}
	return links
}

// article answers an article page.
func article(title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=gbk")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s body text</p></body></html>", title, title)
	}
}

func text(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

func redirect(status int, to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, status) }
}

// testConfig returns a one-site config for a test server: start URL "/",
// articles at /art/<n>, no delay, small timeouts and limits.
func testConfig(t testing.TB, base string, mod ...func(*config.Config)) *config.Config {
	t.Helper()
	c := config.Default()
	c.UserAgent = "newscrawl/0.1 (+https://example.org/newscrawl)"
	c.Fetch.Timeout = config.Duration(2 * time.Second)
	c.Fetch.ConnectTimeout = config.Duration(time.Second)
	c.Fetch.MaxBody = 1 << 20
	c.Fetch.Retries = 2
	c.Fetch.MaxCrawlDelay = config.Duration(10 * time.Second)
	c.Sites = []config.Site{{
		Name:           "t",
		StartURLs:      []string{base + "/"},
		AllowedDomains: []string{"127.0.0.1"},
		ArticleURL:     `/art/[a-z0-9]+$`,
		Parallelism:    2,
		MaxDepth:       3,
	}}
	for _, m := range mod {
		m(&c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("test config: %v", err)
	}
	return &c
}

// recProc is a Processor that stores every article and records what it got.
type recProc struct {
	store storage.Store
	mu    sync.Mutex
	got   []*Response
	fail  string        // URL whose processing fails (store failure)
	delay time.Duration // processing time before the commit
}

func (p *recProc) ProcessArticle(ctx context.Context, r *Response) (storage.Outcome, error) {
	if r.URL == p.fail {
		return "", fmt.Errorf("simulated store failure for %s", r.URL)
	}
	p.mu.Lock()
	p.got = append(p.got, r)
	p.mu.Unlock()
	time.Sleep(p.delay)
	c := &storage.Commit{
		Page:    storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Outcome: storage.OutcomeStored, Status: r.Status, FetchedAt: r.FetchedAt},
		Article: &storage.Article{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Title: "t", Text: string(r.Body), FetchedAt: r.FetchedAt},
	}
	if err := p.store.Commit(ctx, c); errors.Is(err, storage.ErrAlreadyDecided) {
		return storage.OutcomeStored, nil
	} else if err != nil {
		return "", err
	}
	return storage.OutcomeStored, nil
}

func (p *recProc) urls() map[string]*Response {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]*Response, len(p.got))
	for _, r := range p.got {
		m[r.URL] = r
	}
	return m
}

func (p *recProc) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.got)
}

// crawlOnce runs one crawl of cfg into a fresh memory store.
func crawlOnce(t *testing.T, cfg *config.Config, opts Options) (Summary, *memory.Store, *recProc) {
	t.Helper()
	st := memory.New()
	proc := &recProc{store: st}
	sum, err := runCrawl(t, context.Background(), cfg, st, proc, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum, st, proc
}

func runCrawl(t *testing.T, ctx context.Context, cfg *config.Config, st Store, proc Processor, opts Options) (Summary, error) {
	t.Helper()
	c, err := New(cfg, st, proc, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c.Run(ctx, 1)
}

func pageOf(t *testing.T, st storage.Store, u string) storage.Page {
	t.Helper()
	p, err := st.PageOf(context.Background(), u)
	if err != nil {
		t.Fatalf("PageOf(%s): %v", u, err)
	}
	return p
}

// wantErrorPage checks that u was recorded as an error of kind with the given permanence.
func wantErrorPage(t *testing.T, st storage.Store, u, kind string, permanent bool) storage.Page {
	t.Helper()
	p := pageOf(t, st, u)
	if p.Outcome != storage.OutcomeError || p.ErrKind != kind || p.Permanent != permanent {
		t.Fatalf("page %s = outcome %q kind %q permanent %v (%s); want error %q permanent %v",
			u, p.Outcome, p.ErrKind, p.Permanent, p.Err, kind, permanent)
	}
	return p
}

// fakeClock is a Clock whose Sleep advances virtual time at once.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2024, 6, 1, 8, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.now = f.now.Add(max(d, 0))
	f.mu.Unlock()
	return nil
}
