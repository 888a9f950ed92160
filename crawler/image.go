package crawler

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/newsdedup/newscrawl/config"
)

// Error kinds of lead-image fetches (they are not page outcomes: a failed
// image is counted in SiteStats and logged, and its page is decided on its
// text).
const (
	KindOutOfScope = "out_of_scope" // the image's host is not in the site's allowed_domains
	KindNotImage   = "not_image"    // 2xx whose Content-Type is not an image
)

// ErrNoImageFetcher: the Response was not made by a crawl (FetchPage, a
// test), so it cannot fetch its page's images.
var ErrNoImageFetcher = errors.New("crawler: this response cannot fetch images")

// Image is a fetched lead image.
type Image struct {
	URL         string // the requested URL
	Status      int
	ContentType string
	Body        []byte // decompressed, at most fetch.max_image bytes; never stored by the crawler
}

// FetchImage fetches an image of the page (its lead image) under the same
// policy as pages: the image's host must be in the site's allowed_domains
// or image_domains (else a *FetchError of kind out_of_scope, and redirect
// hops must stay there), robots.txt must allow it
// (else ErrRobotsDisallowed), the host is paced by the site delay or its
// Crawl-delay (through the shared pacer when one is configured), redirects
// follow the page rules, transient failures are retried, the request has
// the page timeouts, and the body is refused (kind too_large, never
// truncated) over fetch.max_image bytes after decompression. A 2xx
// response whose Content-Type names something other than an image is a
// *FetchError of kind not_image. When the crawl is stopping, the error
// wraps the run context's error.
func (resp *Response) FetchImage(ctx context.Context, rawURL string) (*Image, error) {
	if resp.images == nil {
		return nil, ErrNoImageFetcher
	}
	return resp.images(ctx, rawURL)
}

// imageFetcher returns the lead-image fetcher of a page of st, cancelled
// with the run (runCtx) as well as with its caller's context.
func (r *run) imageFetcher(runCtx context.Context, st *siteState) func(context.Context, string) (*Image, error) {
	return func(ctx context.Context, rawURL string) (*Image, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(runCtx, func() { cancel(context.Cause(runCtx)) })
		defer stop()
		img, err := r.fetchImage(ctx, st, rawURL)
		if err != nil && runCtx.Err() != nil {
			return nil, fmt.Errorf("lead image %s: %w", rawURL, runCtx.Err())
		}
		return img, err
	}
}

// imageInScope reports whether a lead image may be fetched from u: a URL
// of the site's pages, or of a host in its image_domains.
func (st *siteState) imageInScope(u *url.URL) bool {
	if st.inScope(u) {
		return true
	}
	return (u.Scheme == "http" || u.Scheme == "https") && config.HostAllowed(u.Host, st.cfg.ImageDomains)
}

// imageAccept is the Accept header of image requests.
const imageAccept = "image/webp,image/jpeg,image/png,image/gif;q=0.9,image/*;q=0.5"

func (r *run) fetchImage(ctx context.Context, st *siteState, rawURL string) (*Image, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(rawURL) > r.maxURLLength {
		st.stats.imagesSkipped.Add(1)
		return nil, &FetchError{Kind: KindBadURL, Err: fmt.Errorf("lead image %q is not an http(s) URL of at most %d bytes", rawURL, r.maxURLLength)}
	}
	if !st.imageInScope(u) {
		st.stats.imagesSkipped.Add(1)
		r.log.Info("lead image skipped", "site", st.name, "url", rawURL, "reason", KindOutOfScope)
		return nil, &FetchError{Kind: KindOutOfScope, Err: fmt.Errorf("lead image host %s is in neither allowed_domains nor image_domains of the site", u.Host)}
	}
	rules, err := r.robotsFor(ctx, st, u)
	if err != nil {
		return nil, err
	}
	switch {
	case rules.state == robotsUnreachable || rules.state == robotsDelayTooLarge:
		st.stats.imagesSkipped.Add(1)
		return nil, &FetchError{Kind: KindRobotsUnavailable, Err: errors.New(rules.reason)}
	case !rules.allowed(u):
		st.stats.imagesSkipped.Add(1)
		r.log.Info("lead image skipped", "site", st.name, "url", rawURL, "reason", "robots")
		return nil, fmt.Errorf("lead image %s: %w", rawURL, ErrRobotsDisallowed)
	}
	limit := fetchDefault(int64(r.cfg.Fetch.MaxImage), config.DefaultMaxImage)
	h := r.headers.Clone()
	h.Set("Accept", imageAccept)
	slot, ferr, abandoned := r.fetchAs(ctx, st, u.String(), u.Host, max(st.delay, rules.crawlDelay),
		fetchOpts{maxBody: limit, headers: h, inScope: st.imageInScope})
	if abandoned {
		return nil, fmt.Errorf("lead image %s: %w", rawURL, context.Cause(ctx))
	}
	if ferr != nil {
		if ferr.Kind == KindTooLarge {
			st.stats.imagesTooLarge.Add(1)
			r.log.Warn("lead image over fetch.max_image", "site", st.name, "url", rawURL, "limit", limit, "err", ferr)
			return nil, ferr
		}
		st.stats.imagesSkipped.Add(1)
		r.log.Info("lead image failed", "site", st.name, "url", rawURL, "kind", ferr.Kind, "err", ferr)
		return nil, ferr
	}
	ct := slot.header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); ct != "" && (err != nil || (!strings.HasPrefix(mt, "image/") && mt != "application/octet-stream")) {
		st.stats.imagesSkipped.Add(1)
		return nil, &FetchError{Kind: KindNotImage, Status: slot.status, Err: fmt.Errorf("content-type %q is not an image", ct)}
	}
	st.stats.images.Add(1)
	st.stats.imageBytes.Add(int64(len(slot.body)))
	return &Image{URL: u.String(), Status: slot.status, ContentType: ct, Body: slot.body}, nil
}
