package pipeline

import (
	"context"
	"errors"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/internal/leadimage"
)

// leadImage fetches and fingerprints the lead image of a page whose text
// is too short to compare (fp.Short: a photo page, a gallery with
// captions), when fetch.lead_images is on, and sets fp.Image: dedup then
// uses it as evidence (reason "image"). The image goes through the
// crawler's policy (Response.FetchImage: scope, robots.txt, pacing,
// fetch.max_image); it is fingerprinted in memory and never stored. An
// image that cannot be had or decoded is a logged skip: the page is then
// decided on its text alone. Only the end of the crawl is an error (the
// page stays queued for the next run, so that it is not decided without
// the image it would have had).
func (p *Processor) leadImage(ctx context.Context, r *crawler.Response, art *extract.Article, fp *dedup.Fingerprint) error {
	if !p.leadImages || !fp.Short() || art.LeadImage == "" {
		return nil
	}
	img, err := r.FetchImage(ctx, art.LeadImage)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		p.log.Info("lead image not fetched", "url", r.URL, "image", art.LeadImage, "err", err)
		return nil
	}
	res, err := leadimage.Fingerprint(img.Body)
	if err != nil {
		p.log.Warn("lead image skipped", "url", r.URL, "image", art.LeadImage, "err", err)
		return nil
	}
	fp.Image = res.FP
	return nil
}

// imageString is a lead-image fingerprint as the store keeps it ("": none).
func imageString(fp imgfp.Fingerprint) string {
	if fp.IsZero() {
		return ""
	}
	return fp.String()
}
