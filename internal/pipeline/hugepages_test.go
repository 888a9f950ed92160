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
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/shared/sharedtest"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// hugePage builds a page of about size bytes from the bench's oversized
// article (head, paragraphs repeated, tail), its first paragraph made unique
// by tag.
func hugePage(tb testing.TB, size int, tag string) []byte {
	dir := sharedtest.Path(tb, "bench", "dev", "special")
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
// process before the crawl, per page and as a multiple of the page size
// (issue 10 item 3: about 30x before).
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
	cfg := config.Default()
	cfg.Fetch.MaxBody = 16 << 20
	cfg.Sites = []config.Site{{Name: "huge", StartURLs: []string{ts.URL + "/"}, AllowedDomains: []string{"127.0.0.1"},
		ArticleURL: `/c/\d+$`, Parallelism: pages, MaxDepth: 1}}
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var heapPeak, rssPeak float64
	for b.Loop() {
		store := memory.New()
		eng, _, err := NewEngine(ctx, &cfg, seg, store, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		pl, err := NewProcessor(&cfg, store, eng, log)
		if err != nil {
			b.Fatal(err)
		}
		cr, err := crawler.New(&cfg, store, pl, crawler.Options{Workers: pages, Logger: log})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		heap0, rss0 := m.HeapInuse, rssBytes()
		s := startMemSampler()
		sum, err := cr.Run(ctx, 1)
		heap, rss := s.finish()
		if err != nil {
			b.Fatal(err)
		}
		if sum.Total.Articles != pages {
			b.Fatalf("%d articles processed, want %d (errors %v)", sum.Total.Articles, pages, sum.Total.ErrorKinds)
		}
		heapPeak = max(heapPeak, float64(heap-heap0))
		if rss > rss0 {
			rssPeak = max(rssPeak, float64(rss-rss0))
		}
	}
	b.ReportMetric(heapPeak/1e6, "peak-heap-MB")
	b.ReportMetric(rssPeak/1e6, "peak-rss-MB")
	b.ReportMetric(heapPeak/pages/size, "heap-x-page")
	b.ReportMetric(rssPeak/pages/size, "rss-x-page")
}
