package crawler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// pushRec is a memory store that records every frontier item pushed.
type pushRec struct {
	*memory.Store
	mu    sync.Mutex
	items map[string]storage.FrontierItem
}

func newPushRec() *pushRec {
	return &pushRec{Store: memory.New(), items: map[string]storage.FrontierItem{}}
}

func (p *pushRec) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	p.mu.Lock()
	for _, it := range items {
		if _, ok := p.items[it.URL]; !ok {
			p.items[it.URL] = it
		}
	}
	p.mu.Unlock()
	return p.Store.Push(ctx, items)
}

func (p *pushRec) item(u string) (storage.FrontierItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	it, ok := p.items[u]
	return it, ok
}

// crawlRec runs one crawl of cfg into a pushRec store.
func crawlRec(t *testing.T, cfg *config.Config, opts Options) (Summary, *pushRec, *recProc) {
	t.Helper()
	st := newPushRec()
	proc := &recProc{store: st}
	sum, err := runCrawl(t, context.Background(), cfg, st, proc, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum, st, proc
}

// sourceOf returns the SourceStats of (kind, url) of the run's first site.
func sourceOf(t *testing.T, sum Summary, kind, u string) SourceStats {
	t.Helper()
	for _, s := range sum.Sites[0].Sources {
		if s.Kind == kind && s.URL == u {
			return s
		}
	}
	t.Fatalf("no source %s %s in %+v", kind, u, sum.Sites[0].Sources)
	return SourceStats{}
}

// sinaRoll answers a page of Sina's roll API in its JSONP form:
// try{feedCardJsonpCallback({"result":{"status":…,"data":[{"url","wapurl",
// "title","intro","ctime","media_name"}]}});}catch(e){}; (the shape the
// issue quotes from feed.mix.sina.com.cn/api/roll/get, and the fields that
// news crawlers read from result.data: url, title, ctime).
func sinaRoll(items ...[2]string) http.HandlerFunc {
	data := []map[string]string{}
	for _, it := range items {
		data = append(data, map[string]string{"url": it[0], "wapurl": it[0], "title": "t", "intro": "i", "ctime": it[1], "media_name": "m"})
	}
	b, _ := json.Marshal(map[string]any{"result": map[string]any{"status": map[string]any{"code": 0, "msg": "succ"}, "data": data}})
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript; charset=utf-8")
		fmt.Fprintf(w, "try{feedCardJsonpCallback(%s);}catch(e){};", b)
	}
}

// qqPCList answers QQ's POST list API: a JSON body such as
// {"base_req":{"from":"pc"},"forward":"2","channel_id":"news_news_top",...}
// answered with {"ret":0,"data":[{"id":…,"title":…}]} (the request and
// answer shapes of news.qq.com's web_feed endpoints as crawlers post them,
// e.g. zhangzeqing1/Python-data-Spider Tencent_web). pages maps the
// "page" value of the body to the ids of that page.
func qqPCList(t *testing.T, pages map[int][]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			BaseReq   map[string]string `json:"base_req"`
			ChannelID string            `json:"channel_id"`
			Page      int               `json:"page"`
		}
		if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Unmarshal(body, &req) != nil || req.ChannelID == "" ||
			!strings.HasPrefix(r.Header.Get("Accept"), "application/json") {
			t.Errorf("getPCList: %s with Content-Type %q and body %q", r.Method, r.Header.Get("Content-Type"), body)
			http.Error(w, `{"ret":-1}`, http.StatusBadRequest)
			return
		}
		var data []map[string]string
		for _, id := range pages[req.Page] {
			data = append(data, map[string]string{"id": id, "title": "t"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"ret": 0, "data": data})
	}
}

func TestSourcesAPIs(t *testing.T) {
	const ctime = "1716170400" // 2024-05-20 02:00 UTC
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
		"/api/roll/get?lid=2509&page=1": func(w http.ResponseWriter, r *http.Request) {
			sinaRoll([2]string{ts.URL + "/art/s1", ctime}, [2]string{"https://other.example/art/x", ctime},
				[2]string{ts.URL + "/video/1", ctime}, [2]string{"/art/s3", ""})(w, r)
		},
		"/api/roll/get?lid=2509&page=2": func(w http.ResponseWriter, r *http.Request) {
			sinaRoll([2]string{ts.URL + "/art/s2", "not a time"}, [2]string{ts.URL + "/art/s1", ctime})(w, r)
		},
		"/api/roll/get?lid=2509&page=3": sinaRoll(),
		"/web_feed/getPCList":           qqPCList(t, map[int][]string{1: {"q1", "q2"}, 2: {"q3"}}),
	})
	rollAPI := ts.URL + "/api/roll/get?lid=2509&page={page}"
	pcAPI := ts.URL + "/web_feed/getPCList"
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		s := &c.Sites[0]
		s.FollowURL = `/list/`
		s.APIs = []config.API{
			{URL: rollAPI, Pages: 5, Method: "GET", Items: "result.data", ItemURL: "url", Time: "ctime"},
			{URL: pcAPI, Pages: 2, Method: "POST", Body: `{"base_req":{"from":"pc"},"forward":"2","channel_id":"news_news_top","page":{page}}`,
				Items: "data", URLTemplate: ts.URL + "/art/{id}"},
		}
	})
	var mu sync.Mutex
	onFetch := map[string]int{}
	sum, st, proc := crawlRec(t, cfg, Options{OnFetch: func(site, u string, status int, d time.Duration) {
		mu.Lock()
		onFetch[u]++
		mu.Unlock()
	}})
	got := proc.urls()
	for _, a := range []string{"1", "s1", "s2", "s3", "q1", "q2", "q3"} {
		if got[ts.URL+"/art/"+a] == nil {
			t.Errorf("article /art/%s not processed", a)
		}
	}
	if n := ts.hit("/api/roll/get?lid=2509&page=4"); n != 0 {
		t.Errorf("roll API page 4 requested %d times after page 3 listed nothing", n)
	}
	if n := ts.hit("/web_feed/getPCList"); n != 2 {
		t.Errorf("getPCList posted %d times, want 2 (pages 1 and 2)", n)
	}
	if n := onFetch[ts.URL+"/api/roll/get?lid=2509&page=2"]; n != 1 {
		t.Errorf("OnFetch saw roll API page 2 %d times, want 1", n)
	}
	it, ok := st.item(ts.URL + "/art/s1")
	if !ok || it.Depth != 1 || it.Referer != ts.URL+"/api/roll/get?lid=2509&page=1" {
		t.Errorf("frontier item of /art/s1 = %+v (pushed %v), want depth 1 and the API page as referer", it, ok)
	}
	if r := got[ts.URL+"/art/s1"]; r != nil && !r.Listed.Equal(time.Unix(1716170400, 0)) {
		t.Errorf("Listed of /art/s1 = %v, want the ctime %s", r.Listed, ctime)
	}
	if r := got[ts.URL+"/art/s2"]; r != nil && !r.Listed.IsZero() {
		t.Errorf("Listed of /art/s2 = %v, want none (unparsable ctime)", r.Listed)
	}
	roll := sourceOf(t, sum, SourceAPI, rollAPI)
	if roll.Requests != 3 || roll.Found != 6 || roll.Matched != 4 || roll.Pushed != 3 || roll.Errors != 0 ||
		roll.Skipped[SkipOffDomain] != 1 || roll.Skipped[SkipNoMatch] != 1 || roll.Skipped[SkipSeen] != 1 || roll.Dated != 1 {
		t.Errorf("roll API stats %+v", roll)
	}
	pc := sourceOf(t, sum, SourceAPI, pcAPI)
	if pc.Requests != 2 || pc.Found != 3 || pc.Matched != 3 || pc.Pushed != 3 {
		t.Errorf("getPCList stats %+v", pc)
	}
	if !sum.Completed || sum.Total.Errors != 0 {
		t.Errorf("completed %v, errors %d", sum.Completed, sum.Total.Errors)
	}
}

// TestSourcesFailuresNotFatal: an API answering an HTML page (a captcha)
// instead of JSON, one answering 500 forever, one timing out and one
// disallowed by robots.txt are counted and logged; the start page is
// crawled all the same.
func TestSourcesFailuresNotFatal(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		handler  http.HandlerFunc
		kind     string
		requests int // requests the server sees for the API
	}{
		{"html instead of json", "/api/captcha", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!DOCTYPE html><html><body><form id=captcha>请输入验证码</form></body></html>")
		}, "not_json", 1},
		{"500 forever", "/api/down", text(500, "oops"), "http_500", 3},
		{"timeout", "/api/slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		}, KindTimeout, 3},
		{"robots disallows", "/private/api", text(200, "{}"), SkipRobots, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.HandlerFunc{
				"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
				"/":           listPage("/art/1"),
				"/art/*":      article("a"),
				tc.path:       tc.handler,
			})
			api := ts.URL + tc.path
			cfg := testConfig(t, ts.URL, func(c *config.Config) {
				c.Fetch.Timeout = config.Duration(200 * time.Millisecond)
				c.Sites[0].APIs = []config.API{{URL: api, Pages: 1, ItemURL: "url"}}
			})
			sum, _, proc := crawlOnce(t, cfg, Options{RetryBase: time.Millisecond})
			if proc.urls()[ts.URL+"/art/1"] == nil {
				t.Error("start page's article not processed")
			}
			if n := ts.hit(tc.path); n != tc.requests {
				t.Errorf("API requested %d times, want %d", n, tc.requests)
			}
			s := sourceOf(t, sum, SourceAPI, api)
			if s.Errors != 1 || s.ErrorKinds[tc.kind] != 1 || s.LastError == "" {
				t.Errorf("source stats %+v, want one %s error", s, tc.kind)
			}
			if !strings.Contains(strings.Join(sum.Warnings, "\n"), "api "+api+" failed: "+tc.kind) {
				t.Errorf("warnings %q", sum.Warnings)
			}
			if sum.Total.Errors != 0 {
				t.Errorf("%d error pages recorded; a failed surface is not a page", sum.Total.Errors)
			}
		})
	}
}

// recPacer is a shared Pacer that records the hosts it paces.
type recPacer struct {
	mu    sync.Mutex
	waits map[string]int
}

func (p *recPacer) Wait(_ context.Context, host string, _ time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits[host]++
	return nil
}

func (p *recPacer) Hold(context.Context, string, time.Duration) error { return nil }

// TestSourcesPoliteness: surface requests on another host go through the
// shared pacer and that host's robots.txt, like pages.
func TestSourcesPoliteness(t *testing.T) {
	api := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nCrawl-delay: 0.01\n"),
		"/list?page=1": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":[]}`)
		},
	})
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/1"),
		"/art/*":      article("a"),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].APIs = []config.API{{URL: api.URL + "/list?page={page}", Pages: 1, Items: "data", ItemURL: "url"}}
	})
	p := &recPacer{waits: map[string]int{}}
	sum, _, _ := crawlOnce(t, cfg, Options{Pacer: p})
	host := strings.TrimPrefix(api.URL, "http://")
	if p.waits[host] < 2 {
		t.Errorf("shared pacer waited %d times for the API host, want robots.txt and the API page", p.waits[host])
	}
	if api.hit("/robots.txt") != 1 || api.hit("/list?page=1") != 1 {
		t.Errorf("API host requests %v", api.requests())
	}
	if s := sourceOf(t, sum, SourceAPI, api.URL+"/list?page={page}"); s.Requests != 1 || s.Found != 0 || s.Errors != 0 {
		t.Errorf("source stats %+v", s)
	}
}

// TestSourcesOnlySite: a site without start URLs is crawled from its
// sources alone.
func TestSourcesOnlySite(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/art/*":      article("a"),
		"/api?page=1": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `[{"u":"%s/art/1"},{"u":"/art/2"},]`, ts.URL)
		},
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].StartURLs = nil
		c.Sites[0].AllowedDomains = []string{strings.TrimPrefix(ts.URL, "http://")}
		c.Sites[0].APIs = []config.API{{URL: ts.URL + "/api?page={page}", Pages: 1, ItemURL: "u"}}
	})
	sum, _, proc := crawlOnce(t, cfg, Options{})
	if proc.count() != 2 || !sum.Completed {
		t.Errorf("processed %d articles (want 2), completed %v; requests %v", proc.count(), sum.Completed, ts.requests())
	}
}

// TestSourcesConditional: a second run asks a sitemap, a feed and an API
// page with the validators of their first answers and reads nothing from
// their 304s; the surface state lives in the store (storage/memory).
func TestSourcesConditional(t *testing.T) {
	var ts *testServer
	cond := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			h(w, r)
		}
	}
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/art/*":      article("a"),
		"/sitemap.xml": cond(func(w http.ResponseWriter, r *http.Request) {
			xmlDoc(newsSitemap(newsURL{ts.URL + "/art/s1", ""}))(w, r)
		}),
		"/api?page=1": cond(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `[{"u":"%s/art/a1"}]`, ts.URL)
		}),
	})
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].StartURLs = nil
		c.Sites[0].AllowedDomains = []string{strings.TrimPrefix(ts.URL, "http://")}
		c.Sites[0].Sitemaps = []string{ts.URL + "/sitemap.xml"}
		c.Sites[0].APIs = []config.API{{URL: ts.URL + "/api?page={page}", Pages: 1, ItemURL: "u"}}
	})
	st := memory.New()
	proc := &recProc{store: st}
	for run := 1; run <= 2; run++ {
		sum, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sm, api := sourceOf(t, sum, SourceSitemap, ts.URL+"/sitemap.xml"), sourceOf(t, sum, SourceAPI, ts.URL+"/api?page={page}")
		wantNM, wantPushed := int64(run-1), int64(2-run)
		if sm.NotModified != wantNM || api.NotModified != wantNM || sm.Pushed != wantPushed || api.Pushed != wantPushed || sm.Errors+api.Errors != 0 {
			t.Errorf("run %d: sitemap %+v\napi %+v", run, sm, api)
		}
	}
	if proc.count() != 2 || ts.hit("/art/s1") != 1 || ts.hit("/art/a1") != 1 {
		t.Errorf("%d articles processed; requests %v", proc.count(), ts.requests())
	}
}

// TestSourcesOnlySiteOtherPort: a site without start URLs whose API is
// served from another port keeps its articles, on the port its
// allowed_domains entry names, in scope.
func TestSourcesOnlySiteOtherPort(t *testing.T) {
	site := newTestServer(t, map[string]http.HandlerFunc{"/robots.txt": text(404, ""), "/art/*": article("a")})
	api := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/list": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"data":[{"id":"1"},{"id":"2"}]}`)
		},
	})
	cfg := testConfig(t, site.URL, func(c *config.Config) {
		c.Sites[0].StartURLs = nil
		c.Sites[0].AllowedDomains = []string{strings.TrimPrefix(site.URL, "http://")}
		c.Sites[0].APIs = []config.API{{URL: api.URL + "/list", Pages: 1, Items: "data", URLTemplate: site.URL + "/art/{id}"}}
	})
	sum, _, proc := crawlOnce(t, cfg, Options{})
	if proc.count() != 2 {
		t.Errorf("processed %d articles, want 2; API source %+v", proc.count(), sourceOf(t, sum, SourceAPI, api.URL+"/list"))
	}
}

// TestAPIIgnoringPage: an endpoint that answers every {page} with the same
// list is read twice, not pages times.
func TestAPIIgnoringPage(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage(),
		"/art/*":      article("a"),
		"/api*": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `[{"u":"%[1]s/art/1"},{"u":"%[1]s/art/2"}]`, ts.URL)
		},
	})
	api := ts.URL + "/api?p={page}"
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Sites[0].APIs = []config.API{{URL: api, Pages: config.MaxAPIPages, ItemURL: "u"}}
	})
	sum, _, proc := crawlOnce(t, cfg, Options{})
	if s := sourceOf(t, sum, SourceAPI, api); s.Requests != 2 || s.Pushed != 2 || s.Skipped[SkipSeen] != 2 {
		t.Errorf("api stats %+v, want 2 requests", s)
	}
	if proc.count() != 2 || !strings.Contains(strings.Join(sum.Warnings, "\n"), "page 2 lists what page 1 did") {
		t.Errorf("%d articles, warnings %q", proc.count(), sum.Warnings)
	}
}
