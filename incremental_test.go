package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// Tests of cron-style incremental runs on the bundled fixture web: what a
// second and third run fetch and store, overlapping runs and the store lock,
// a graceful stop by SIGINT, and the dedup window. The helpers here are
// shared with faults_test.go and crash_test.go.

// requestLog counts requests per site and path.
type requestLog struct {
	mu sync.Mutex
	n  map[string]int // "site path" -> requests
}

func (l *requestLog) add(site, path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[site+" "+path]++
}

// take returns the counts so far and starts counting afresh.
func (l *requestLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.n
	l.n = map[string]int{}
	return n
}

// fixtureWeb serves the fixture portals on httptest servers, counting every
// request; wrap (optional) may replace a portal's handler.
func fixtureWeb(t *testing.T, log *requestLog, wrap func(name string, h http.Handler) http.Handler) []fixture.Site {
	t.Helper()
	hs := fixture.Handlers()
	var sites []fixture.Site
	for _, name := range []string{"jiangcheng", "nanfang"} {
		h := hs[name]
		if wrap != nil {
			h = wrap(name, h)
		}
		inner := h
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if log != nil {
				log.add(name, r.URL.RequestURI())
			}
			inner.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		sites = append(sites, fixture.Site{Name: name, URL: srv.URL, Handler: h})
	}
	return sites
}

// writeSiteFile writes the fixture's site file for sites and store db into
// the test's directory, after applying edit (optional) to its text.
func writeSiteFile(t *testing.T, sites []fixture.Site, db string, edit func(string) string) string {
	t.Helper()
	text := string(fixture.SiteYAML(sites, db))
	if edit != nil {
		text = edit(text)
	}
	path := filepath.Join(filepath.Dir(db), fmt.Sprintf("sites-%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// crawlResult is one `newscrawl crawl` invocation through run.
type crawlResult struct {
	code           int
	stdout, stderr string
}

func (c crawlResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", c.code, c.stdout, c.stderr)
}

func runCrawl(siteFile string, extra ...string) crawlResult {
	var out, errb bytes.Buffer
	args := append([]string{"crawl", "--site", siteFile, "--progress", "0"}, extra...)
	code := run(args, &out, &errb)
	return crawlResult{code, out.String(), errb.String()}
}

// corpus is what a store decided, by URL.
type corpus struct {
	stored map[string]storage.Article
	dups   map[string]storage.Duplicate
	pages  map[string]storage.Page
	runs   []storage.Run
}

func readCorpus(t *testing.T, db string) corpus {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c := corpus{stored: map[string]storage.Article{}, dups: map[string]storage.Duplicate{}, pages: map[string]storage.Page{}}
	if err := store.Articles(ctx, func(a storage.Article) error { c.stored[a.URL] = a; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.Duplicates(ctx, func(d storage.Duplicate) error { c.dups[d.URL] = d; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.Pages(ctx, func(p storage.Page) error { c.pages[p.URL] = p; return nil }); err != nil {
		t.Fatal(err)
	}
	if c.runs, err = store.Runs(ctx); err != nil {
		t.Fatal(err)
	}
	if err := store.Check(ctx); err != nil {
		t.Errorf("store check: %v", err)
	}
	return c
}

// decided lists the URLs with a final verdict, sorted.
func (c corpus) decided() []string {
	var out []string
	for u := range c.stored {
		out = append(out, u)
	}
	for u := range c.dups {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// pathOf is the request URI of an absolute URL on a fixture site, and the
// site's name.
func pathOf(sites []fixture.Site, u string) (site, path string) {
	for _, s := range sites {
		if strings.HasPrefix(u, s.URL+"/") {
			return s.Name, strings.TrimPrefix(u, s.URL)
		}
	}
	return "", u
}

// redirectTargets are the fixture's article paths linked only through a
// redirect (/r/7).
var redirectTargets = map[string]bool{"/news/2024/1105/s6.html": true}

// newStory is an article that is not in the fixture: it appears on the
// 江城日报网 front page between the second and the third run. The text was
// written for this test.
const (
	newStoryPath  = "/news/2024/1107/s7.html"
	newStoryTitle = "江城国际马拉松赛周日鸣枪 两万名跑者参赛"
)

var newStoryParagraphs = []string{
	"本报讯 第十届江城国际马拉松赛将于本周日上午七点半在江城体育中心鸣枪开跑，来自国内外的两万名跑者报名参加全程、半程和健康跑三个项目。",
	"组委会介绍，今年赛道沿江滨大道和老城区延伸，途经长江大桥、古城墙遗址和新建的湿地公园，全程共设置十八个补给站和二十四个医疗点。",
	"为保障比赛顺利进行，交警部门将在比赛当天对赛道沿线实施分时段交通管制，地铁一号线和二号线将提前一小时开始运营，方便参赛选手和观众出行。",
	"气象部门预计，周日江城以多云天气为主，早晨气温在十二摄氏度左右，适宜长跑运动。组委会提醒跑者赛前做好热身，量力而行，身体不适时及时向医疗志愿者求助。",
	"据了解，本届赛事首次设立亲子跑项目，吸引了三百多个家庭报名。比赛期间，沿线各社区将组织市民开展加油助威活动，展示江城的城市风貌。",
}

// articleHTML builds an article page in the fixture's layout: navigation,
// headline, byline, body paragraphs, related links and footer.
func articleHTML(metas, title string, paragraphs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head>%s<title>%s_江城日报网</title></head><body>\n", metas, title)
	b.WriteString(`<div class="top-nav nav"><a href="/">首页</a><a href="/">国内</a><a href="/">国际</a><a href="/">财经</a><a href="/">体育</a></div>` + "\n")
	b.WriteString(`<div class="main"><div class="article">` + "\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<div class=\"info\"><span class=\"time\">2024-11-07 08:00</span> <span class=\"from\">来源：江城日报网</span></div>\n", title)
	b.WriteString(`<div id="content" class="content">` + "\n")
	for _, p := range paragraphs {
		fmt.Fprintf(&b, "<p>　　%s</p>\n", p)
	}
	b.WriteString("</div>\n<p class=\"editor\">（责任编辑：吴刚）</p></div>\n")
	b.WriteString(`<div class="side"><h3>热点推荐</h3><ul><li><a href="/">今日天气预报</a></li><li><a href="/">股市行情</a></li></ul></div></div>` + "\n")
	b.WriteString(`<div class="footer"><p>关于我们 | 联系我们 | 广告服务</p><p>版权所有 © 2024 江城日报网</p></div>` + "\n</body></html>")
	return b.String()
}

// publishing serves the new story on the front page once publish is set.
func publishing(publish *atomic.Bool) func(string, http.Handler) http.Handler {
	return func(name string, h http.Handler) http.Handler {
		if name != "jiangcheng" {
			return h
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !publish.Load() {
				h.ServeHTTP(w, r)
				return
			}
			switch r.URL.Path {
			case newStoryPath:
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, articleHTML(`<meta charset="utf-8">`, newStoryTitle, newStoryParagraphs))
			case "/":
				// The changed front page is a new version: it is served
				// in full to a conditional request, under a new ETag.
				rec := httptest.NewRecorder()
				plain := r.Clone(r.Context())
				plain.Header.Del("If-None-Match")
				plain.Header.Del("If-Modified-Since")
				h.ServeHTTP(rec, plain)
				body := strings.Replace(rec.Body.String(), "</ul>",
					fmt.Sprintf("<li><a href=\"%s\">%s</a></li>\n</ul>", newStoryPath, newStoryTitle), 1)
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Set("ETag", `"published-s7"`)
				w.Header().Del("Content-Length")
				if r.Header.Get("If-None-Match") == `"published-s7"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.WriteHeader(rec.Code)
				fmt.Fprint(w, body)
			default:
				h.ServeHTTP(w, r)
			}
		})
	}
}

// TestIncrementalRuns runs the crawl three times, as cron would: the second
// run fetches the list pages again but no decided article URL and stores
// nothing; after a new article appears on the front page, the third run
// stores exactly that one.
func TestIncrementalRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	var log requestLog
	var publish atomic.Bool
	sites := fixtureWeb(t, &log, publishing(&publish))
	db := filepath.Join(t.TempDir(), "news.db")
	siteFile := writeSiteFile(t, sites, db, nil)

	if res := runCrawl(siteFile); res.code != exitOK {
		t.Fatalf("first run: %v", res)
	}
	first := readCorpus(t, db)
	want := fixture.Expected()
	if len(first.stored) != want.Stored || len(first.dups) != want.Duplicates {
		t.Fatalf("first run stored %d and %d duplicates, want %d and %d", len(first.stored), len(first.dups), want.Stored, want.Duplicates)
	}
	log.take()

	// Second run: nothing new on the web.
	res := runCrawl(siteFile)
	if res.code != exitOK {
		t.Fatalf("second run: %v", res)
	}
	reqs := log.take()
	for _, list := range []string{"jiangcheng /", "jiangcheng /list_2.html", "nanfang /"} {
		if reqs[list] == 0 {
			t.Errorf("second run did not fetch the list page %q again; requests: %v", list, reqs)
		}
	}
	for _, u := range first.decided() {
		site, path := pathOf(sites, u)
		n := reqs[site+" "+path]
		// This includes the article linked only through a redirect: the
		// crawler checks a redirect target against the store before
		// following the hop.
		if n > 0 {
			t.Errorf("second run fetched the decided article %s %d times", u, n)
		}
	}
	second := readCorpus(t, db)
	if !equalKeys(second.stored, first.stored) || !equalKeys(second.dups, first.dups) {
		t.Errorf("second run changed the corpus: stored %d -> %d, duplicates %d -> %d",
			len(first.stored), len(second.stored), len(first.dups), len(second.dups))
	}
	if !summaryTotals(t, res.stdout, 0, 0) {
		t.Errorf("second run summary does not report 0 stored, 0 duplicates:\n%s", res.stdout)
	}

	// Third run: one new article on the front page.
	publish.Store(true)
	res = runCrawl(siteFile)
	if res.code != exitOK {
		t.Fatalf("third run: %v", res)
	}
	reqs = log.take()
	third := readCorpus(t, db)
	newURL := sites[0].URL + newStoryPath
	if len(third.stored) != len(first.stored)+1 || len(third.dups) != len(first.dups) {
		t.Fatalf("third run: stored %d -> %d, duplicates %d -> %d; want exactly one more stored",
			len(first.stored), len(third.stored), len(first.dups), len(third.dups))
	}
	a, ok := third.stored[newURL]
	if !ok {
		t.Fatalf("the new article %s was not stored; stored: %v", newURL, keys(third.stored))
	}
	if a.Title != newStoryTitle || !strings.Contains(a.Text, "亲子跑") {
		t.Errorf("new article stored as %q: %q", a.Title, a.Text)
	}
	if reqs["jiangcheng "+newStoryPath] != 1 {
		t.Errorf("the new article was requested %d times, want 1", reqs["jiangcheng "+newStoryPath])
	}
	if !summaryTotals(t, res.stdout, 1, 0) {
		t.Errorf("third run summary does not report 1 stored:\n%s", res.stdout)
	}
	if n := len(third.runs); n != 3 {
		t.Errorf("%d runs recorded, want 3", n)
	}
	for _, r := range third.runs {
		if r.Status != storage.RunCompleted {
			t.Errorf("run %d status %q, want completed", r.ID, r.Status)
		}
	}
}

func equalKeys[A, B any](a map[string]A, b map[string]B) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// summaryTotals reports whether the summary's total line (site, pages,
// stored, dups, … every column filled) shows stored and dups.
func summaryTotals(t *testing.T, summary string, stored, dups int) bool {
	t.Helper()
	for _, line := range strings.Split(summary, "\n") {
		f := strings.Fields(line)
		if len(f) == 12 && f[0] == "total" {
			return f[2] == fmt.Sprint(stored) && f[3] == fmt.Sprint(dups)
		}
	}
	t.Errorf("no total line in the summary:\n%s", summary)
	return false
}

// TestOverlappingRunExitsLocked: a crawl started while another holds the
// store's lock exits at once with exitLocked and says why.
func TestOverlappingRunExitsLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	sites := fixtureWeb(t, nil, nil)
	db := filepath.Join(t.TempDir(), "news.db")
	siteFile := writeSiteFile(t, sites, db, nil)
	release := holdLock(t, db)
	defer release()

	start := time.Now()
	res := runCrawl(siteFile)
	if res.code != exitLocked {
		t.Fatalf("crawl while locked: %v; want exit %d", res, exitLocked)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("locked crawl took %s to give up, want at once", d)
	}
	if !strings.Contains(res.stderr, "another crawl is running") || !strings.Contains(res.stderr, "--wait") {
		t.Errorf("locked crawl message does not explain the lock:\n%s", res.stderr)
	}
	if c := readCorpus(t, db); len(c.runs) != 0 || len(c.pages) != 0 {
		t.Errorf("locked crawl wrote %d runs and %d pages", len(c.runs), len(c.pages))
	}
}

// TestOverlappingRunWaits: with --wait the second crawl waits for the lock
// and proceeds once it is released.
func TestOverlappingRunWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	sites := fixtureWeb(t, nil, nil)
	db := filepath.Join(t.TempDir(), "news.db")
	siteFile := writeSiteFile(t, sites, db, nil)
	release := holdLock(t, db)

	const hold = 1500 * time.Millisecond
	done := make(chan crawlResult, 1)
	start := time.Now()
	go func() { done <- runCrawl(siteFile, "--wait") }()
	select {
	case res := <-done:
		release()
		t.Fatalf("crawl --wait returned while the lock was held: %v", res)
	case <-time.After(hold):
	}
	release()
	var res crawlResult
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("crawl --wait did not proceed after the lock was released")
	}
	if res.code != exitOK {
		t.Fatalf("crawl --wait: %v", res)
	}
	if time.Since(start) < hold {
		t.Errorf("crawl --wait finished before the lock was released")
	}
	if !strings.Contains(res.stderr, "waiting for the store lock") {
		t.Errorf("crawl --wait did not say it was waiting:\n%s", res.stderr)
	}
	if c := readCorpus(t, db); len(c.stored) != fixture.Expected().Stored {
		t.Errorf("crawl after waiting stored %d articles, want %d", len(c.stored), fixture.Expected().Stored)
	}
}

// holdLock takes the store's run lock as another crawl would.
func holdLock(t *testing.T, db string) (release func()) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := store.Lock(ctx, false)
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if err := rel(); err != nil {
				t.Error(err)
			}
			store.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// TestDedupWindow: articles fetched and published before dedup.window are
// not loaded into the index, so a reprint of one is stored; without the
// window the reprint is a duplicate.
func TestDedupWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	sites := fixtureWeb(t, nil, nil)
	for _, tc := range []struct {
		name      string
		window    string
		indexed   int // stored articles loaded into the index by the second run
		stored    int // nanfang copies stored by the second run
		duplicate int // nanfang copies recorded as duplicates
	}{
		// jiangcheng publishes s1-s6 (6 stored); nanfang reprints s1, s2, s3, s5.
		{"no window", "", 6, 0, 4},
		{"30d window", "30d", 0, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "news.db")
			siteFile := writeSiteFile(t, sites, db, func(s string) string {
				if tc.window == "" {
					return s
				}
				if !strings.Contains(s, "dedup: {") {
					t.Fatalf("the fixture site file has no dedup line to set the window in:\n%s", s)
				}
				return strings.Replace(s, "dedup: {", "dedup: {window: "+tc.window+", ", 1)
			})
			if res := runCrawl(siteFile, "--only", "jiangcheng"); res.code != exitOK {
				t.Fatalf("first run: %v", res)
			}
			// The fixture's articles were published in 2024; make their fetch
			// time 60 days old too.
			ageArticles(t, db, 60*24*time.Hour)
			// The index snapshot keeps the times it saw (the store's
			// times are never rewritten but here): start from the store.
			os.Remove(db + ".index")
			os.Remove(db + ".index.delta")
			res := runCrawl(siteFile, "--only", "nanfang")
			if res.code != exitOK {
				t.Fatalf("second run: %v", res)
			}
			if want := fmt.Sprintf("; %d fingerprints indexed", tc.indexed); !strings.Contains(res.stderr, want) {
				t.Errorf("second run did not report %q:\n%s", want, res.stderr)
			}
			c := readCorpus(t, db)
			stored, dups := 0, 0
			for u := range c.stored {
				if strings.HasPrefix(u, sites[1].URL) {
					stored++
				}
			}
			for u := range c.dups {
				if strings.HasPrefix(u, sites[1].URL) {
					dups++
				}
			}
			if stored != tc.stored || dups != tc.duplicate {
				t.Errorf("nanfang copies: %d stored and %d duplicates, want %d and %d", stored, dups, tc.stored, tc.duplicate)
			}
		})
	}
}

// ageArticles moves every stored article's fetch time back by age, through
// a separate connection to the store file.
func ageArticles(t *testing.T, db string, age time.Duration) {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err := conn.Exec(`UPDATE articles SET fetched_at = fetched_at - ?`, age.Nanoseconds())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("no article to age")
	}
}

// mainEnv makes the test binary act as the newscrawl command (see TestMain
// in crash_test.go), so that tests can signal and kill a real crawl process.
const mainEnv = "NEWSCRAWL_TEST_RUN_MAIN"

// commandProcess returns an exec.Cmd that runs newscrawl with args in a
// child process.
func commandProcess(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	return cmd
}

// TestGracefulStop stops a crawl process with SIGINT (or SIGTERM) while it
// waits for a page: it exits with 130 (143), prints the summary of an
// interrupted run, leaves a consistent store with the rest of the frontier,
// and the next run resumes it without fetching any decided article again.
func TestGracefulStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts crawl processes")
	}
	for _, tc := range []struct {
		sig  os.Signal
		code int
		says string
	}{
		{os.Interrupt, exitInterrupted, "interrupt received"},
		{syscall.SIGTERM, exitTerminated, "terminated received"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			var log requestLog
			hold := make(chan struct{}, 1)
			// The second list page is answered only when the client gives
			// up: the crawl is stopped while it waits for it.
			holding := true
			var mu sync.Mutex
			sites := fixtureWeb(t, &log, func(name string, h http.Handler) http.Handler {
				if name != "jiangcheng" {
					return h
				}
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					block := holding && r.URL.Path == "/list_2.html"
					mu.Unlock()
					if block {
						select {
						case hold <- struct{}{}:
						default:
						}
						select {
						case <-r.Context().Done():
							return
						case <-time.After(30 * time.Second):
						}
					}
					h.ServeHTTP(w, r)
				})
			})
			db := filepath.Join(t.TempDir(), "news.db")
			siteFile := writeSiteFile(t, sites, db, nil)

			cmd := commandProcess("crawl", "--site", siteFile, "--progress", "0", "--workers", "1")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-hold:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the crawl never reached the held page\nstderr:\n%s", errb.String())
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := cmd.Wait()
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the crawl took %s to stop", d)
			}
			code := cmd.ProcessState.ExitCode()
			if code != tc.code {
				t.Fatalf("exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", code, err, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(errb.String(), tc.says) {
				t.Errorf("stderr does not say %q:\n%s", tc.says, errb.String())
			}
			if !strings.Contains(out.String(), "run 1 interrupted") || !strings.Contains(out.String(), "\ntotal ") {
				t.Errorf("no summary of the interrupted run:\n%s", out.String())
			}
			mu.Lock()
			holding = false
			mu.Unlock()

			first := readCorpus(t, db) // checks the store
			if len(first.runs) != 1 || first.runs[0].Status != storage.RunInterrupted || first.runs[0].FinishedAt.IsZero() {
				t.Errorf("runs after the stop: %+v", first.runs)
			}
			pending := frontierPending(t, db)
			if pending == 0 {
				t.Fatal("the interrupted run left no frontier to resume")
			}
			reqs := log.take()

			res := runCrawl(siteFile, "-v")
			if res.code != exitOK {
				t.Fatalf("resumed run: %v", res)
			}
			if !strings.Contains(res.stderr, "resuming interrupted crawl") {
				t.Errorf("the next run did not resume (requeue) the interrupted crawl:\n%s", res.stderr)
			}
			for k, n := range log.take() {
				reqs[k] += n
			}
			final := readCorpus(t, db)
			want := fixture.Expected()
			if len(final.stored) != want.Stored || len(final.dups) != want.Duplicates {
				t.Fatalf("after resuming: %d stored and %d duplicates, want %d and %d", len(final.stored), len(final.dups), want.Stored, want.Duplicates)
			}
			for _, u := range final.decided() {
				site, path := pathOf(sites, u)
				if n := reqs[site+" "+path]; n != 1 && !(redirectTargets[path] && n == 2) {
					t.Errorf("%s requested %d times over both runs, want once", u, n)
				}
			}
			if n := frontierPending(t, db); n != 0 {
				t.Errorf("%d frontier items left after the completed run", n)
			}
			t.Logf("stopped with %d frontier items pending; resumed run: %d stored, %d duplicates in total", pending, len(final.stored), len(final.dups))
		})
	}
}

func frontierPending(t *testing.T, db string) int {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n, err := store.Pending(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	return n
}
