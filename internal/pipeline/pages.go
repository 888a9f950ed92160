package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/storage"
)

// Multi-page articles. An article page whose pager (extract.FindPager)
// names other pages becomes one article: its text is the texts of all
// its pages in page order, its title, time and bylines are page 1's, it
// is stored (or judged a duplicate) under page 1's URL, and the near-
// duplicate decision runs on the stitched text. The other pages are
// fetched through the crawl (crawler.Response.FetchPage: same scope,
// robots.txt, pacing and limits, at most crawler.MaxArticlePages pages,
// loops refused) and recorded as its parts (storage.OutcomePart) in the
// article's commit, so that they are never stored as articles of their
// own and no later run fetches them again.
//
// Decisions:
//   - A page reached before its page 1 (a list linking to page 2) leads
//     to page 1, which is fetched and processed with all the pages; when
//     page 1 is already decided, the page is recorded as a part of it and
//     nothing is fetched. When page 1 cannot be had, the page is recorded
//     as an error of kind first_page, transient (a later run tries again)
//     unless page 1's failure is permanent (404, off-site redirect).
//   - A later page that cannot be had (404, timeout, refused off-site
//     redirect, robots.txt) does not stop the article: it is stored with
//     the pages that were fetched, and the pages missing are listed in
//     Article.PagesMissing (shown by export and explain) and logged. A
//     missing page is not recorded as a part, so a later run that finds it
//     on a list fetches it and records it as a part of the stored article.
//   - A page whose text repeats text already taken adds only its
//     paragraphs not seen on an earlier page; a line closing every page
//     (责编：…) is kept once, at the end (joinPages). A page that holds every
//     page's text, split by a script in the browser (Xinhua's page-break
//     markers, extract.Pager.Whole, the same HTML at every ?page=N), is
//     the article: its other pages are recorded as its parts without a
//     request.
//   - A later page's own pager can name pages the first did not (a
//     windowed pager); they are added in page order, up to the bound.
//   - A Response not made by a crawl (no page fetcher) is processed as a
//     page of its own.

// KindFirstPage is the error kind of an article page whose page 1 could
// not be fetched or read.
const KindFirstPage = "first_page"

// multiPage is what a multi-page article adds to its commit.
type multiPage struct {
	pages   []string // every page, page 1 first (Article.Pages)
	missing []string // pages that could not be had (Article.PagesMissing)
	parts   []string // later pages fetched, to record as parts (Commit.Parts)
}

// apply adds mp's page lists to c (nothing for nil).
func (mp *multiPage) apply(c *storage.Commit) {
	if mp == nil {
		return
	}
	if c.Article != nil {
		c.Article.Pages, c.Article.PagesMissing = mp.pages, mp.missing
	}
	c.Parts = mp.parts
}

// clean makes the lists what the store accepts whatever the redirects
// did: pages start with the article's URL and repeat none, missing pages
// are later pages, parts are distinct URLs other than the article's.
func (mp *multiPage) clean(article string) {
	pages := []string{article}
	for _, u := range mp.pages {
		if !slices.Contains(pages, u) && !strings.ContainsAny(u, "\r\n") {
			pages = append(pages, u)
		}
	}
	mp.pages = pages
	mp.missing = slices.DeleteFunc(mp.missing, func(u string) bool { return !slices.Contains(pages[1:], u) })
	var parts []string
	for _, u := range mp.parts {
		if u != article && !slices.Contains(parts, u) && !slices.Contains(mp.missing, u) && !strings.ContainsAny(u, "\r\n") {
			parts = append(parts, u)
		}
	}
	mp.parts = parts
	if len(mp.pages) < 2 {
		mp.pages, mp.missing = nil, nil
	}
}

// articlePage is one fetched and extracted page of an article.
type articlePage struct {
	r    *crawler.Response
	art  *extract.Article
	body []byte // decoded UTF-8, for the pager
}

// stitch makes the article of page r (extracted as art from the decoded
// body) whole: for a page of a multi-page article it returns page 1's
// response, the article with every page's text, and the page lists; for
// an article of one page r, art and a nil multiPage. out is set when the
// page was decided here (recorded as a part, or an error). release ends
// the page's extraction turn (before any fetch).
func (p *Processor) stitch(ctx context.Context, ex *extract.Extractor, r *crawler.Response, art *extract.Article, body []byte,
	release func()) (*crawler.Response, *extract.Article, *multiPage, storage.Outcome, error) {
	pg, err := ex.FindPager(r.URL, body)
	if err != nil {
		p.log.Info("pager not read", "url", r.URL, "err", err)
	}
	if err != nil || !pg.Multi() {
		return r, art, nil, "", nil
	}
	release()
	if pg.Truncated {
		p.log.Warn("pager names more pages than the limit: the rest are left out", "url", r.URL, "limit", extract.MaxArticlePages)
	}
	got := map[string]articlePage{r.URL: {r, art, body}}
	first := articlePage{r, art, body}
	if pg.Current != 0 {
		fp, out, err := p.firstPage(ctx, ex, r, pg.Pages[0])
		if out != "" || err != nil || fp.r == nil {
			return r, art, nil, out, err
		}
		first = fp
		got[fp.r.URL] = fp
		if pg1, err := ex.FindPager(fp.r.URL, fp.body); err == nil && pg1.Multi() && pg1.Current == 0 {
			pg.Pages = mergePages(pg1.Pages, pg.Pages)
			pg.Whole = pg1.Whole
		}
		pg.Pages[0] = fp.r.URL
	}
	var mp *multiPage
	var texts []string
	if pg.Whole {
		// Page 1 holds every page's text (Xinhua): the others are the same
		// HTML, recorded as parts without a request.
		mp = &multiPage{pages: pg.Pages, parts: append(slices.Clone(pg.Pages[1:]), r.URL, r.RequestURL)}
		texts = []string{first.art.Text}
	} else if mp, texts, err = p.collectPages(ctx, ex, r, first, pg.Pages, got); err != nil || mp == nil {
		return r, art, nil, "", err
	}
	mp.clean(first.r.URL)
	whole := *first.art
	whole.Text = joinPages(texts)
	if len(mp.missing) > 0 {
		p.log.Warn("article stored without pages that could not be fetched", "url", first.r.URL, "missing", mp.missing)
	}
	return first.r, &whole, mp, "", nil
}

// firstPage fetches and extracts page 1 (first) of the article of r, a
// later page reached first. When page 1 is decided already, r is recorded
// as its part (out Part); when it cannot be had, r is recorded as a
// transient first_page error (out Error). An articlePage with no
// response: r is to be processed as a page of its own (no page fetcher).
func (p *Processor) firstPage(ctx context.Context, ex *extract.Extractor, r *crawler.Response, first string) (articlePage, storage.Outcome, error) {
	page := storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Status: r.Status, FetchedAt: r.FetchedAt}
	if o, ok, err := p.store.Decided(ctx, first); err != nil {
		return articlePage{}, "", err
	} else if ok && o.Final() {
		out, err := p.commitPart(ctx, page, first)
		return articlePage{}, out, err
	}
	r1, err := r.FetchPage(ctx, first)
	if errors.Is(err, crawler.ErrNoPageFetcher) {
		return articlePage{}, "", nil
	}
	if err == nil {
		var ap articlePage
		if ap, err = p.extractPage(ctx, ex, r1); err == nil {
			return ap, "", nil
		}
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return articlePage{}, "", err
	}
	// Transient unless page 1 is gone for good (a permanent fetch error:
	// 404, off-site redirect, not HTML): then no later run tries again.
	var fe *crawler.FetchError
	page.Permanent = errors.As(err, &fe) && fe.Permanent
	page.Outcome, page.ErrKind, page.Err = storage.OutcomeError, KindFirstPage, "page 1 "+first+": "+err.Error()
	p.log.Warn("article page skipped: its page 1 could not be had", "url", r.URL, "first", first, "err", err)
	out, err := p.commit(ctx, &storage.Commit{Page: page})
	return articlePage{}, out, err
}

// recordReached records the page the crawl handed over (reached), a later
// page of the article committed under first, as its part when that commit
// did not (page 1 was decided meanwhile by another worker or process, and
// the article's commit found it decided).
func (p *Processor) recordReached(ctx context.Context, reached *crawler.Response, first string) error {
	if reached.URL == first {
		return nil
	}
	if _, ok, err := p.store.Decided(ctx, reached.URL); err != nil || ok {
		return err
	}
	page := storage.Page{URL: reached.URL, Site: reached.Site.Name, RunID: reached.RunID, Status: reached.Status, FetchedAt: reached.FetchedAt}
	_, err := p.commitPart(ctx, page, first)
	return err
}

// commitPart records page as a part of the article at first.
func (p *Processor) commitPart(ctx context.Context, page storage.Page, first string) (storage.Outcome, error) {
	page.Outcome, page.PartOf = storage.OutcomePart, first
	return p.commit(ctx, &storage.Commit{Page: page})
}

// extractPage decodes and extracts a fetched page in its extraction turn.
func (p *Processor) extractPage(ctx context.Context, ex *extract.Extractor, r *crawler.Response) (articlePage, error) {
	release, err := p.acquire(ctx, len(r.Body))
	if err != nil {
		return articlePage{}, err
	}
	defer release()
	art, dec, err := ExtractPage(ex, Page{URL: r.URL, Body: r.Body, ContentType: r.Header.Get("Content-Type"), Charset: r.Site.Charset, FetchedAt: r.FetchedAt})
	if errors.Is(err, extract.ErrNoArticle) {
		// A later page of pictures only: a page of the article without text.
		return articlePage{r: r, art: &extract.Article{}, body: dec.Body}, nil
	}
	if err != nil {
		return articlePage{}, err
	}
	return articlePage{r: r, art: art, body: dec.Body}, nil
}

// collectPages fetches the pages of the article whose page 1 is first
// (pages as its pager lists them, page 1 first; got holds those already
// fetched) and returns the page lists and the texts to join in order. A
// nil multiPage: no other page could be had and none is missing (a pager
// whose pages all loop back).
func (p *Processor) collectPages(ctx context.Context, ex *extract.Extractor, r *crawler.Response, first articlePage,
	pages []string, got map[string]articlePage) (*multiPage, []string, error) {
	mp := &multiPage{}
	var texts []string
	for i := 0; i < len(pages) && i < extract.MaxArticlePages; i++ {
		u := pages[i]
		ap, ok := got[u]
		if !ok {
			resp, err := r.FetchPage(ctx, u)
			if errors.Is(err, crawler.ErrNoPageFetcher) {
				return nil, nil, nil // not a crawl: the page is an article of its own
			}
			if err == nil {
				ap, err = p.extractPage(ctx, ex, resp)
			}
			if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, nil, err
			}
			var fe *crawler.FetchError
			switch {
			case errors.As(err, &fe) && fe.Kind == crawler.KindPageLoop:
				pages = slices.Delete(pages, i, i+1) // names a page the article has: not a page of its own
				i--
				continue
			case err != nil:
				mp.missing = append(mp.missing, u)
				mp.pages = append(mp.pages, u)
				continue
			}
			if pk, err := ex.FindPager(ap.r.URL, ap.body); err == nil && pk.Multi() && pk.Pages[0] == pages[0] {
				pages = mergePages(pages, pk.Pages)
			}
			// Not kept in got: only its text is, so that up to 30 pages of
			// fetch.max_body are never held at once.
		}
		mp.pages = append(mp.pages, u)
		if i > 0 {
			mp.parts = appendNew(mp.parts, u, ap.r.URL, first.r.URL)
		}
		texts = append(texts, ap.art.Text)
	}
	if len(mp.pages) < 2 {
		return nil, nil, nil
	}
	if r.URL != first.r.URL {
		mp.parts = appendNew(mp.parts, r.URL, r.RequestURL, first.r.URL)
	}
	return mp, texts, nil
}

// appendNew appends the URLs of us that are neither in list nor skip.
func appendNew(list []string, u, alias, skip string) []string {
	for _, x := range []string{u, alias} {
		if x != "" && x != skip && !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

// joinPages joins the texts of an article's pages in order: a paragraph
// an earlier page had is not repeated (a page serving page 1's text again
// adds nothing; repeats within one page stay), and one that closes every
// page it is on (a 责编 line under each page) is kept where it last
// closes a page, so that it ends the article instead of page 1.
func joinPages(texts []string) string {
	pages := make([][]string, len(texts))
	ends := map[string]int{} // paragraph -> pages it closes
	on := map[string]int{}   // paragraph -> pages it is on
	last := map[string]int{} // paragraph -> the last page it closes
	for i, t := range texts {
		seen := map[string]bool{}
		for _, para := range strings.Split(t, "\n") {
			if k := strings.TrimSpace(para); k != "" {
				pages[i] = append(pages[i], k)
				if !seen[k] {
					seen[k] = true
					on[k]++
				}
			}
		}
		if n := len(pages[i]); n > 0 {
			ends[pages[i][n-1]]++
			last[pages[i][n-1]] = i
		}
	}
	var out []string
	from := map[string]int{} // paragraph -> 1 + the page it was taken from
	for i, ps := range pages {
		for j, k := range ps {
			trailer := on[k] > 1 && ends[k] == on[k]
			switch {
			case from[k] != 0 && from[k] != i+1: // an earlier page had it
			case trailer && (last[k] != i || j != len(ps)-1):
			default:
				from[k] = i + 1
				out = append(out, k)
			}
		}
	}
	return strings.Join(out, "\n")
}

// mergePages adds to pages (in page order) the pages of more it lacks,
// each after the page more lists before it, within the bound.
func mergePages(pages, more []string) []string {
	out := slices.Clone(pages)
	for i, u := range more {
		if slices.Contains(out, u) {
			continue
		}
		at := len(out)
		if i > 0 {
			if j := slices.Index(out, more[i-1]); j >= 0 {
				at = j + 1
			}
		}
		out = slices.Insert(out, at, u)
	}
	if len(out) > extract.MaxArticlePages {
		out = out[:extract.MaxArticlePages]
	}
	return out
}
