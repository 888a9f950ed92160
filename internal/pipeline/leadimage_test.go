package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/evalimages"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// photoPage is a photo-news page: a headline, a one-sentence caption and
// its lead image named by og:image.
func photoPage(title, caption, image string) string {
	return `<html><head><meta charset="utf-8"><title>` + title + `_图片新闻</title>
<meta property="og:image" content="` + image + `"></head><body>
<div class="nav"><a href="/">首页</a></div>
<h1>` + title + `</h1><div class="article"><p><img src="` + image + `"></p><p>` + caption + `</p></div></body></html>`
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// imageSite serves the photo pages of TestCrawlLeadImages and counts the
// requests per path.
func imageSite(t *testing.T) (*httptest.Server, func(path string) int) {
	t.Helper()
	scene := evalimages.Scene{T: evalimages.Templates[0], SunX: 0.7, SunY: 0.15, SunR: 0.12, BuildingX: 0.1, BuildW: 0.3,
		BuildingTop: 0.25, TreeX: 0.8, TreeR: 0.1, Building: color.RGBA{200, 50, 40, 255}, Sun: color.RGBA{250, 220, 40, 255},
		Dot: color.RGBA{30, 30, 30, 255}}
	photo := scene.Draw(640, 480)
	other := scene
	other.T, other.SunX, other.BuildingX, other.TreeX = evalimages.Templates[1], 0.15, 0.55, 0.2
	must := func(b []byte, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	images := map[string][]byte{
		"/img/photo.jpg":         must(evalimages.JPEG(photo, 85)),
		"/img/photo-reprint.png": must(evalimages.PNG(evalimages.WithLogo(evalimages.Resize(photo, 320, 240)))),
		"/private/photo.jpg":     must(evalimages.JPEG(photo, 85)),
		"/img/other.jpg":         must(evalimages.JPEG(other.Draw(640, 480), 85)),
		"/img/huge.jpg":          append(must(evalimages.JPEG(photo, 100)), make([]byte, 200<<10)...),
	}
	long := strings.Repeat("市政府今天召开新闻发布会，介绍今年以来城市建设的进展情况，并回答了记者的提问。", 12)
	pages := map[string]string{
		"/a/1.html": photoPage("东湖初雪", "昨日清晨，东湖迎来今冬第一场雪，湖边游人如织。", "/img/photo.jpg"),
		"/a/2.html": photoPage("雪后东湖美如画", "市民冒雪来到东湖边拍照留念，场面十分热闹。", "/img/photo-reprint.png"),
		"/a/3.html": photoPage("古城墙夜景", "夜幕降临，古城墙上的灯光次第亮起，游客登城夜游。", "/private/photo.jpg"),
		"/a/4.html": photoPage("港口晨景", "清晨的港口，一艘艘货轮整齐地停靠在码头边。", "/img/huge.jpg"),
		"/a/5.html": photoPage("沙漠星空", "星空下的沙漠营地，游客围坐在篝火旁聊天。", "/img/other.jpg"),
		"/a/6.html": photoPage("城市建设发布会", long, "/img/photo.jpg"),
	}
	var mu sync.Mutex
	hits := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch p := r.URL.Path; {
		case p == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case p == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><body><a href="/a/1.html">1</a> <a href="/a/2.html">2</a> <a href="/a/3.html">3</a>
<a href="/a/4.html">4</a> <a href="/a/5.html">5</a> <a href="/a/6.html">6</a></body></html>`)
		case pages[p] != "":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, pages[p])
		case images[p] != nil:
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write(images[p])
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts, func(path string) int { mu.Lock(); defer mu.Unlock(); return hits[path] }
}

// TestCrawlLeadImages crawls two photo pages sharing a photo (the second a
// resized copy with a logo, under another caption): the first is stored,
// the second dropped on its image with the evidence recorded. An image
// robots.txt disallows is never requested and its page is decided on its
// text; an image over fetch.max_image is refused and reported; a
// different photo and a long text stay stored, and a long text's image is
// not fetched at all.
func TestCrawlLeadImages(t *testing.T) {
	ctx := context.Background()
	ts, hits := imageSite(t)
	cfg := config.Default()
	cfg.Fetch.MaxImage = 128 << 10
	cfg.Sites = []config.Site{{Name: "photos", StartURLs: []string{ts.URL + "/"}, AllowedDomains: []string{"127.0.0.1"},
		ArticleURL: `/a/\d+\.html$`, Parallelism: 1, MaxDepth: 1}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if !cfg.Fetch.LeadImages {
		t.Fatal("fetch.lead_images is off by default")
	}
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	store := memory.New()
	eng, _, err := NewEngine(ctx, &cfg, seg, store, EngineConfig{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewProcessor(&cfg, store, eng, log)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := crawler.New(&cfg, store, pl, crawler.Options{Workers: 1, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := cr.Run(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(path string) storage.Outcome {
		o, _, err := store.Decided(ctx, ts.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	want := map[string]storage.Outcome{"/a/1.html": storage.OutcomeStored, "/a/2.html": storage.OutcomeDuplicate,
		"/a/3.html": storage.OutcomeStored, "/a/4.html": storage.OutcomeStored, "/a/5.html": storage.OutcomeStored,
		"/a/6.html": storage.OutcomeStored}
	for path, o := range want {
		if got := outcome(path); got != o {
			t.Errorf("%s: %s, want %s\nlog:\n%s", path, got, o, logs.String())
		}
	}
	a1, err := store.ArticleByURL(ctx, ts.URL+"/a/1.html")
	if err != nil || a1.Fingerprint.Image == "" {
		t.Fatalf("page 1 stored without its image fingerprint: %q, %v", a1.Fingerprint.Image, err)
	}
	err = store.Duplicates(ctx, func(d storage.Duplicate) error {
		if d.URL != ts.URL+"/a/2.html" {
			return fmt.Errorf("unexpected duplicate %s", d.URL)
		}
		if d.Reason != "image" || d.DupOf != a1.ID || d.ImageSimilarity < 0.9 || d.Image == "" {
			return fmt.Errorf("duplicate evidence %+v, want reason image of article %d", d, a1.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if a3, err := store.ArticleByURL(ctx, ts.URL+"/a/3.html"); err != nil || a3.Fingerprint.Image != "" {
		t.Errorf("page 3 (image disallowed): image %q, %v", a3.Fingerprint.Image, err)
	}
	for path, n := range map[string]int{"/private/photo.jpg": 0, "/img/photo.jpg": 1, "/img/photo-reprint.png": 1, "/img/other.jpg": 1} {
		if got := hits(path); got != n {
			t.Errorf("%s requested %d times, want %d", path, got, n)
		}
	}
	tot := sum.Total
	if tot.Images != 3 || tot.ImagesTooLarge != 1 || tot.ImagesSkipped != 1 {
		t.Errorf("images fetched %d, too large %d, skipped %d; want 3, 1, 1", tot.Images, tot.ImagesTooLarge, tot.ImagesSkipped)
	}
	if l := logs.String(); !strings.Contains(l, "lead image over fetch.max_image") || !strings.Contains(l, "/img/huge.jpg") {
		t.Errorf("the oversized image is not reported in the log:\n%s", l)
	}
}
