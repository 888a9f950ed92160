package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// hugePage builds a page of about size bytes from the bench's oversized
// article (head, paragraphs repeated, tail), its first paragraph made unique
// by tag.
func hugePage(tb testing.TB, size int, tag string) []byte {
	dir := devdatatest.Path(tb, "bench", "dev", "special")
	read := func(name string) []byte {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	head, chunk, tail := read("oversized.head.html"), read("oversized.chunk.html"), read("oversized.tail.html")
	var b bytes.Buffer
	b.Write(head)
	fmt.Fprintf(&b, "<p>%s 第%s页</p>\n", tag, tag)
	for b.Len() < size-len(tail) {
		b.Write(chunk)
	}
	b.Write(tail)
	return b.Bytes()
}

// memSampler records the peak heap in use and the peak RSS of the process
// while it runs (sampled every millisecond).
type memSampler struct {
	heap, rss atomic.Uint64
	stop      chan struct{}
	done      chan struct{}
}

func startMemSampler() *memSampler {
	s := &memSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > s.heap.Load() {
				s.heap.Store(m.HeapInuse)
			}
			if r := rssBytes(); r > s.rss.Load() {
				s.rss.Store(r)
			}
			select {
			case <-s.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return s
}

func (s *memSampler) finish() (heap, rss uint64) {
	close(s.stop)
	<-s.done
	return s.heap.Load(), s.rss.Load()
}

// rssBytes is the resident set size of this process (Linux), 0 elsewhere.
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkHugePages crawls 8 article pages of 9.5 MB at parallelism 8
// through the whole pipeline (fetch, decode, extract, segment, fingerprint,
// dedup, memory store) and reports the peak heap and RSS growth over the
// process before the crawl, per page as a multiple of the page size (issue
// 10 item 3: about 30x before). "budget" runs with the memory budget that
// Crawl sets (SetMemoryBudget, default fetch.max_body), "gc-default"
// without it.
func BenchmarkHugePages(b *testing.B) {
	const pages, size = 8, 9_500_000
	bodies := make([][]byte, pages)
	links := make([]string, pages)
	for i := range bodies {
		bodies[i] = hugePage(b, size, strconv.Itoa(i))
		links[i] = fmt.Sprintf(`<a href="/c/%d">%d</a>`, i, i)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><body>%s</body></html>", strings.Join(links, ""))
		case strings.HasPrefix(r.URL.Path, "/c/"):
			i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/c/"))
			if i < 0 || i >= pages {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(bodies[i])
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	cfg := config.Default() // fetch.max_body 10 MiB
	cfg.Sites = []config.Site{{Name: "huge", StartURLs: []string{ts.URL + "/"}, AllowedDomains: []string{"127.0.0.1"},
		ArticleURL: `/c/\d+$`, Parallelism: pages, MaxDepth: 1}}
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		b.Fatal(err)
	}
	for _, budget := range []bool{false, true} {
		name := "gc-default"
		if budget {
			name = "budget"
		}
		b.Run(name, func(b *testing.B) {
			var heapPeak, rssPeak float64
			for b.Loop() {
				heap, rss := crawlHuge(b, &cfg, seg, pages, budget)
				heapPeak, rssPeak = max(heapPeak, heap), max(rssPeak, rss)
			}
			b.ReportMetric(heapPeak/1e6, "peak-heap-MB")
			b.ReportMetric(rssPeak/1e6, "peak-rss-MB")
			b.ReportMetric(heapPeak/pages/size, "heap-x-page")
			b.ReportMetric(rssPeak/pages/size, "rss-x-page")
		})
	}
}

// crawlHuge crawls cfg's site once into a memory store and returns the
// peak heap and RSS growth during the crawl.
func crawlHuge(b *testing.B, cfg *config.Config, seg *segment.Segmenter, pages int, budget bool) (heap, rss float64) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := memory.New()
	eng, _, err := NewEngine(ctx, cfg, seg, store, EngineConfig{Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	pl, err := NewProcessor(cfg, store, eng, log)
	if err != nil {
		b.Fatal(err)
	}
	cr, err := crawler.New(cfg, store, pl, crawler.Options{Workers: pages, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	if budget {
		_, restore := SetMemoryBudget(cfg, pages)
		defer restore()
	}
	// Collect and return freed memory to the OS first, so that the RSS
	// growth of one sub-benchmark does not hide behind what the previous
	// one left mapped.
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	heap0, rss0 := m.HeapInuse, rssBytes()
	s := startMemSampler()
	sum, err := cr.Run(ctx, 1)
	h, r := s.finish()
	if err != nil {
		b.Fatal(err)
	}
	if sum.Total.Articles != int64(pages) {
		b.Fatalf("%d articles processed, want %d (errors %v)", sum.Total.Articles, pages, sum.Total.ErrorKinds)
	}
	heap = float64(h - heap0)
	if r > rss0 {
		rss = float64(r - rss0)
	}
	return heap, rss
}

func TestInFlightPages(t *testing.T) {
	cfg := config.Default()
	cfg.Sites = []config.Site{{Name: "a", Parallelism: 2}, {Name: "b", Parallelism: 3}, {Name: "c"}}
	for _, tc := range []struct {
		name    string
		sites   []string
		workers int
		want    int
	}{
		{"all sites", nil, 0, 6},
		{"selected sites", []string{"b", "c"}, 0, 4},
		{"workers set", nil, 1, 1},
		{"workers capped", nil, 1000, crawler.MaxWorkers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := inFlightPages(&cfg, tc.sites, tc.workers); got != tc.want {
				t.Errorf("inFlightPages = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestSetMemoryBudget(t *testing.T) {
	cfg := config.Default()
	t.Run("set and restored", func(t *testing.T) {
		t.Setenv("GOMEMLIMIT", "")
		before := debug.SetMemoryLimit(-1)
		limit, restore := SetMemoryBudget(&cfg, 4)
		if min := int64(4*cfg.Fetch.MaxBody*pageMemoryFactor + budgetSlack); limit < min || debug.SetMemoryLimit(-1) != limit {
			t.Errorf("limit %d (runtime %d), want at least %d", limit, debug.SetMemoryLimit(-1), min)
		}
		restore()
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("limit after restore %d, want %d", got, before)
		}
	})
	t.Run("operator's GOMEMLIMIT wins", func(t *testing.T) {
		t.Setenv("GOMEMLIMIT", "1GiB")
		before := debug.SetMemoryLimit(-1)
		limit, restore := SetMemoryBudget(&cfg, 4)
		defer restore()
		if limit != 0 || debug.SetMemoryLimit(-1) != before {
			t.Errorf("limit %d set although GOMEMLIMIT is", limit)
		}
	})
}
