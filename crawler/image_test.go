package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// imageProc fetches one image per article page (the page's path mapped by
// images) and records the result.
type imageProc struct {
	recProc
	images map[string]string // article URL -> image URL
	mu     sync.Mutex
	res    map[string]fetchResult
}

type fetchResult struct {
	img *Image
	err error
}

func (p *imageProc) ProcessArticle(ctx context.Context, r *Response) (storage.Outcome, error) {
	img, err := r.FetchImage(ctx, p.images[r.URL])
	p.mu.Lock()
	p.res[r.URL] = fetchResult{img, err}
	p.mu.Unlock()
	return p.recProc.ProcessArticle(ctx, r)
}

func TestFetchImage(t *testing.T) {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	bomb := bytes.Repeat(member.Bytes(), 8) // 8 MiB inflated
	jpeg := append([]byte{0xff, 0xd8, 0xff}, make([]byte, 1000)...)
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(200, "User-agent: *\nDisallow: /private/\n"),
		"/":           listPage("/art/a", "/art/b", "/art/c", "/art/d", "/art/e", "/art/f", "/art/g"),
		"/art/g":      article("g"),
		"/art/a":      article("a"), "/art/b": article("b"), "/art/c": article("c"),
		"/art/d": article("d"), "/art/e": article("e"), "/art/f": article("f"),
		"/img/ok.jpg": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write(jpeg)
		},
		"/img/bomb.jpg": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		},
		"/img/page.jpg":      article("not a picture"),
		"/private/photo.jpg": func(w http.ResponseWriter, r *http.Request) { w.Write(jpeg) },
	})
	// The image server of the site: the same server under another name.
	imageHost := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	cfg := testConfig(t, ts.URL, func(c *config.Config) {
		c.Fetch.MaxImage = 64 << 10
		c.Sites[0].ImageDomains = []string{"localhost"}
	})
	u := func(p string) string { return ts.URL + p }
	st := memory.New()
	proc := &imageProc{recProc: recProc{store: st}, res: map[string]fetchResult{}, images: map[string]string{
		u("/art/a"): u("/img/ok.jpg"),
		u("/art/b"): u("/img/bomb.jpg"),
		u("/art/c"): u("/private/photo.jpg"),
		u("/art/d"): "http://elsewhere.example/img.jpg",
		u("/art/e"): u("/img/page.jpg"),
		u("/art/f"): "data:image/png;base64,AAAA",
		u("/art/g"): imageHost + "/img/ok.jpg",
	}}
	sum, err := runCrawl(t, context.Background(), cfg, st, proc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kindOf := func(err error) string {
		var fe *FetchError
		if errors.As(err, &fe) {
			return fe.Kind
		}
		return ""
	}
	for _, tt := range []struct {
		page, kind string
		robots     bool
	}{
		{"/art/a", "", false},
		{"/art/b", KindTooLarge, false},
		{"/art/c", "", true},
		{"/art/d", KindOutOfScope, false},
		{"/art/e", KindNotImage, false},
		{"/art/f", KindBadURL, false},
		{"/art/g", "", false},
	} {
		t.Run(tt.page, func(t *testing.T) {
			r := proc.res[u(tt.page)]
			switch {
			case tt.robots:
				if !errors.Is(r.err, ErrRobotsDisallowed) {
					t.Fatalf("error %v, want ErrRobotsDisallowed", r.err)
				}
			case tt.kind != "":
				if kindOf(r.err) != tt.kind {
					t.Fatalf("error %v, want kind %s", r.err, tt.kind)
				}
			case r.err != nil || r.img == nil || !bytes.Equal(r.img.Body, jpeg) || r.img.ContentType != "image/jpeg":
				t.Fatalf("got %+v, %v", r.img, r.err)
			}
		})
	}
	if ts.hit("/private/photo.jpg") != 0 || ts.hit("/img/bomb.jpg") != 1 {
		t.Errorf("disallowed image requested %d times, bomb %d times (want 0, 1: too_large is not retried)",
			ts.hit("/private/photo.jpg"), ts.hit("/img/bomb.jpg"))
	}
	if tot := sum.Total; tot.Images != 2 || tot.ImagesTooLarge != 1 || tot.ImagesSkipped != 4 || tot.ImageBytes != 2*int64(len(jpeg)) {
		t.Errorf("images %d (%d bytes), too large %d, skipped %d; want 2 (%d), 1, 4", tot.Images, tot.ImageBytes,
			tot.ImagesTooLarge, tot.ImagesSkipped, 2*len(jpeg))
	}
	if _, err := (&Response{}).FetchImage(context.Background(), u("/img/ok.jpg")); !errors.Is(err, ErrNoImageFetcher) {
		t.Errorf("a Response not made by a crawl: %v, want ErrNoImageFetcher", err)
	}
}

// A crawl stopped while a lead image is being fetched leaves the page
// undecided and queued (it is not decided without its image), and the run
// ends as interrupted, not failed.
func TestFetchImageInterrupted(t *testing.T) {
	entered := make(chan struct{})
	ts := newTestServer(t, map[string]http.HandlerFunc{
		"/robots.txt": text(404, ""),
		"/":           listPage("/art/a"),
		"/art/a":      article("a"),
		"/img/slow.jpg": func(w http.ResponseWriter, r *http.Request) {
			close(entered)
			<-r.Context().Done()
		},
	})
	cfg := testConfig(t, ts.URL)
	st := memory.New()
	proc := &interruptProc{store: st, image: ts.URL + "/img/slow.jpg"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	sum, err := runCrawl(t, ctx, cfg, st, proc, Options{})
	if err != nil {
		t.Fatalf("Run: %v (an interrupted image fetch is not a failure)", err)
	}
	if !sum.Interrupted {
		t.Error("summary not interrupted")
	}
	if !errors.Is(proc.err, context.Canceled) {
		t.Errorf("FetchImage error %v, want context.Canceled", proc.err)
	}
	if _, ok, _ := st.Decided(context.Background(), ts.URL+"/art/a"); ok {
		t.Error("the page was decided without its image")
	}
	if n, _ := st.Pending(context.Background(), ""); n == 0 {
		t.Error("the page left the frontier")
	}
}

type interruptProc struct {
	store storage.Store
	image string
	err   error
}

func (p *interruptProc) ProcessArticle(ctx context.Context, r *Response) (storage.Outcome, error) {
	_, p.err = r.FetchImage(ctx, p.image)
	if p.err != nil {
		return "", p.err
	}
	return "", errors.New("the image fetch was not interrupted")
}
