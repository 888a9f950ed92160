package main

import (
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/internal/fixture"
)

// Tests of cron runs that re-fetch only what changed, on the bundled
// fixture web (whose pages answer conditional requests with 304).

// statusLog records the status of every answer per site and path.
type statusLog struct {
	mu  sync.Mutex
	got map[string][]int // "site path" -> statuses
}

func (l *statusLog) wrap(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.got == nil {
			l.got = map[string][]int{}
		}
		k := name + " " + r.URL.RequestURI()
		l.got[k] = append(l.got[k], sw.status)
	})
}

// take returns the answers so far and starts afresh.
func (l *statusLog) take() map[string][]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.got
	l.got = map[string][]int{}
	return g
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// cronFigures classifies one run's requests.
type cronFigures struct {
	robots, decided, gone, lists, lists304 int
	other                                  []string
}

func classifyRun(sites []fixture.Site, c corpus, got map[string][]int) cronFigures {
	decided := map[string]bool{}
	for _, u := range c.decided() {
		site, path := pathOf(sites, u)
		decided[site+" "+path] = true
	}
	gone := map[string]bool{}
	for u, p := range c.pages {
		if p.Status == http.StatusNotFound || p.Status == http.StatusGone {
			site, path := pathOf(sites, u)
			gone[site+" "+path] = true
		}
	}
	var f cronFigures
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, status := range got[k] {
			switch {
			case strings.HasSuffix(k, " /robots.txt"):
				f.robots++
			case decided[k]:
				f.decided++
			case gone[k]:
				f.gone++
			default:
				f.lists++
				if status == http.StatusNotModified {
					f.lists304++
				} else {
					f.other = append(f.other, k)
				}
			}
		}
	}
	return f
}

// summary304 adds up the 304 column of the summary's incremental table.
func summary304(stdout string) (n int, ok bool) {
	col := -1
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == "incremental" && f[1] == "requests" {
			col = slices.Index(f, "304")
			ok = true
			continue
		}
		if col < 0 || len(f) <= col {
			col = -1
			continue
		}
		v, err := strconv.Atoi(f[col])
		if err != nil {
			return n, false
		}
		n += v
	}
	return n, ok
}

// TestCronRunsFetchOnlyWhatChanged: after a first run, a second run with
// nothing new on the web requests no stored article and no known 404, and
// at least 90 % of its list requests are answered 304; the summary counts
// them. A third empty run still checks the lists; after it they have
// yielded nothing new for fetch.list_backoff_after (2) runs, and a fourth
// run straight after requests nothing at all (not even robots.txt: the
// links it queues from what it kept are all decided, gone or not due) and
// exits 0.
func TestCronRunsFetchOnlyWhatChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	var log statusLog
	sites := fixtureWeb(t, nil, log.wrap)
	db := filepath.Join(t.TempDir(), "news.db")
	siteFile := writeSiteFile(t, sites, db, nil)
	if res := runCrawl(siteFile); res.code != exitOK {
		t.Fatalf("first run: %v", res)
	}
	first := readCorpus(t, db)
	log.take()

	res := runCrawl(siteFile)
	if res.code != exitOK {
		t.Fatalf("second run: %v", res)
	}
	f := classifyRun(sites, first, log.take())
	t.Logf("second run: %d list requests, %d answered 304; %d to decided articles, %d to known 404s, %d robots.txt",
		f.lists, f.lists304, f.decided, f.gone, f.robots)
	if f.decided != 0 || f.gone != 0 {
		t.Errorf("second run requested %d decided articles and %d known 404s, want none", f.decided, f.gone)
	}
	if f.lists == 0 || f.lists304*10 < f.lists*9 {
		t.Errorf("second run: %d of %d list requests answered 304, want >= 90 %%; others: %v", f.lists304, f.lists, f.other)
	}
	if strings.Contains(res.stdout, "warning") {
		t.Errorf("second run warns (a 304 start page is no failure):\n%s", res.stdout)
	}
	if n, ok := summary304(res.stdout); !ok || n != f.lists304 {
		t.Errorf("second run summary shows %d answers 304 (found: %v), the fixture sent %d:\n%s", n, ok, f.lists304, res.stdout)
	}

	if res := runCrawl(siteFile); res.code != exitOK {
		t.Fatalf("third run: %v", res)
	}
	if f := classifyRun(sites, first, log.take()); f.lists != f.lists304 || f.lists == 0 {
		t.Errorf("third run: %d of %d list requests answered 304, want all; others: %v", f.lists304, f.lists, f.other)
	}
	res = runCrawl(siteFile)
	if res.code != exitOK {
		t.Fatalf("fourth run: %v", res)
	}
	if got := log.take(); len(got) != 0 {
		t.Errorf("fourth run, lists backed off: requested %v, want nothing", got)
	}
	if c := readCorpus(t, db); !equalKeys(c.stored, first.stored) || !equalKeys(c.dups, first.dups) {
		t.Errorf("later runs changed the corpus")
	}
}
