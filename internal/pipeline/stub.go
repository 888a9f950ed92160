package pipeline

import (
	"context"
	"errors"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// Stubs. A page that shows the start of an article and a read-the-rest
// marker (extract.Article.Truncated: sina.cn's 打开新浪新闻 阅读全文, 展开全文
// on an app share page) is never stored as the article: the rest would be
// lost silently. When it names a full variant (link rel=canonical, else
// og:url) that the crawl may fetch (same scope, robots.txt and pacing as
// any page of an article: crawler.Response.FetchPage), the variant is
// fetched and processed as the article in the stub's place, and the stub
// is recorded as a part of it (storage.OutcomePart: decided, never
// fetched again). When there is no variant, it is out of scope, it cannot
// be had, or it is a stub itself, the stub is recorded as not_article
// with the reason, and a later run that meets it tries again.
//
// Known mobile/desktop host pairs are not guessed: a portal's mobile and
// desktop URLs differ in more than the host (sina.cn's doc ids against
// news.sina.com.cn's dated paths), and a guessed URL would be a request
// to a page that may not exist.

// fullVariant returns the full variant of the truncated page r (extracted
// as art), fetched and extracted; when there is none to take, the stub is
// recorded and out is its outcome.
func (p *Processor) fullVariant(ctx context.Context, ex *extract.Extractor, r *crawler.Response, art *extract.Article) (articlePage, storage.Outcome, error) {
	stub := storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Status: r.Status, FetchedAt: r.FetchedAt,
		Outcome: storage.OutcomeNotArticle, Err: truncatedReason(art), Permanent: true}
	record := func() (articlePage, storage.Outcome, error) {
		out, err := p.commit(ctx, &storage.Commit{Page: stub})
		return articlePage{}, out, err
	}
	if art.Canonical == "" {
		return record()
	}
	// The store keys pages by their canonical form (urlnorm), as the
	// crawl's page fetcher does.
	cu, err := urlnorm.Canonical(art.Canonical, nil)
	if err != nil {
		stub.Err += " (not fetched: " + err.Error() + ")"
		return record()
	}
	if o, ok, err := p.store.Decided(ctx, cu); err != nil {
		return articlePage{}, "", err
	} else if ok && o.Final() {
		stub.Err += " (already decided: " + string(o) + ")"
		return record()
	}
	full, err := r.FetchPage(ctx, cu)
	if errors.Is(err, crawler.ErrNoPageFetcher) {
		return record()
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return articlePage{}, "", err
		}
		var fe *crawler.FetchError
		stub.Permanent = errors.As(err, &fe) && fe.Permanent
		stub.Err += " (not fetched: " + err.Error() + ")"
		p.log.Warn("stub's full variant not fetched", "url", r.URL, "variant", art.Canonical, "err", err)
		return record()
	}
	ap, err := p.extractPage(ctx, ex, full)
	if err != nil && ctx.Err() != nil {
		return articlePage{}, "", err // the run is stopping: the stub waits for the next
	}
	if err != nil {
		stub.Err += " (not read: " + err.Error() + ")"
		return record()
	}
	if ap.art.Text == "" || ap.art.Truncated {
		stub.Err += " (the variant holds no full article either)"
		return record()
	}
	return ap, "", nil
}

// recordStub records the stub page r, whose article was taken from its
// full variant at full, as a part of that article (the page is the
// article's mobile start, never an article of its own): no later run
// fetches it again.
func (p *Processor) recordStub(ctx context.Context, r *crawler.Response, full string) error {
	if _, ok, err := p.store.Decided(ctx, r.URL); err != nil || ok {
		return err
	}
	page := storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Status: r.Status, FetchedAt: r.FetchedAt}
	_, err := p.commitPart(ctx, page, full)
	return err
}
