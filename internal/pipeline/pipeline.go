// Package pipeline is the program's one wiring place: it turns fetched
// pages into articles (decode → extract, Page), runs the crawl's article
// stage (segment/fingerprint → near-duplicate decision → store, Processor),
// rebuilds the dedup index from the store (NewEngine), and runs a crawl or
// an export as functions returning values for the CLI to print (Crawl,
// Export). Every path that turns a page into an article (crawl, the
// extract and dedup commands, every evaluation) goes through ExtractPage.
// A crawled article of several pages is stitched into one (pages.go).
package pipeline

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/segment"
	"github.com/newsdedup/newscrawl/storage"
	"golang.org/x/sync/semaphore"
)

// Processor is the crawl's article stage, wired in this one place:
// decode → extract → segment/fingerprint → near-duplicate decision → store.
// It implements crawler.Processor.
type Processor struct {
	store      storage.Store
	engine     *dedup.Engine
	extractors map[string]*extract.Extractor // by site name
	keepDupTxt bool
	keepRaw    bool // fetch.keep_raw: the store is a storage.RawStore
	leadImages bool // fetch.lead_images: fingerprint the lead image of short-text pages
	log        *slog.Logger
	now        func() time.Time

	// mu serialises decide → commit → index: Single-Pass clustering needs
	// every earlier article indexed before the next decision.
	mu sync.Mutex
	// shared, for a store several processes write, extends that to the
	// fleet (see sharedDecisions); nil otherwise.
	shared *sharedDecisions
	// work bounds the bytes of pages decoded, extracted and fingerprinted
	// at once (extractPages pages of fetch.max_body).
	work     *semaphore.Weighted
	workSize int64
	// selWarned holds "site/selector" pairs already warned about (see
	// warnSelectorMisses).
	selWarned sync.Map
}

// extractPages is how many pages of fetch.max_body are decoded, extracted
// and fingerprinted at once (docs/THRESHOLDS.md). A page's memory peaks
// there, at about 3x its size (body, parse tree text, extracted text),
// against 1x while it waits with its body: with 8 huge pages in flight the
// collector's default pacing, which lets the heap reach twice the live
// memory, then stays under 5x the page size without a memory limit.
// Ordinary pages (tens of KB) never wait: hundreds fit in the budget. Two
// pages keep two cores busy; a larger machine crawling many huge pages at
// once extracts them two at a time.
const extractPages = 2

// acquire waits until a page of n bytes may be extracted and returns the
// function that ends its turn (safe to call more than once). A page larger
// than the whole budget takes all of it.
func (p *Processor) acquire(ctx context.Context, n int) (release func(), err error) {
	w := min(max(int64(n), 1), p.workSize)
	if err := p.work.Acquire(ctx, w); err != nil {
		return nil, fmt.Errorf("wait to extract: %w", err)
	}
	return sync.OnceFunc(func() { p.work.Release(w) }), nil
}

// NewSegmenter loads the segmenter (the gse dictionary) once per process.
func NewSegmenter(cfg config.Segment) (*segment.Segmenter, error) {
	seg, err := segment.New(segment.Options{StopwordFile: cfg.Stopwords, SynonymFile: cfg.Synonyms})
	if err != nil {
		return nil, fmt.Errorf("segmenter: %w", err)
	}
	return seg, nil
}

// NewProcessor returns the article stage of a crawl of cfg's sites into
// store, deciding with eng (see NewEngine); skipped pages are logged to log.
func NewProcessor(cfg *config.Config, store storage.Store, eng *dedup.Engine, log *slog.Logger) (*Processor, error) {
	maxBody := cfg.Fetch.MaxBody
	if maxBody <= 0 {
		maxBody = config.DefaultMaxBody
	}
	p := &Processor{store: store, engine: eng, extractors: map[string]*extract.Extractor{},
		keepDupTxt: cfg.Dedup.KeepDuplicateText, keepRaw: cfg.Fetch.KeepRaw, leadImages: cfg.Fetch.LeadImages, log: log, now: time.Now,
		workSize: extractPages * int64(maxBody)}
	p.work = semaphore.NewWeighted(p.workSize)
	if _, ok := store.(storage.RawStore); p.keepRaw && !ok {
		return nil, fmt.Errorf("fetch.keep_raw: the store (%T) does not keep raw responses", store)
	}
	for i, s := range cfg.Sites {
		// The crawler hands over only pages matching the site's
		// article_url: a short brief among promo links is kept, and a page
		// is refused only when it has no article text (ExpectArticle). One
		// extractor per site learns the site's template lines.
		ex, err := extract.New(extract.Options{Remove: s.Remove, BodySelector: s.Extract.Body, TitleSelector: s.Extract.Title, TimeSelector: s.Extract.Time,
			PagerSelector: s.Extract.Pager, ExpectArticle: true, Location: s.Location})
		if err != nil {
			return nil, fmt.Errorf("sites[%d].extract: %w", i, err)
		}
		p.extractors[s.Name] = ex
	}
	return p, nil
}

// ProcessArticle implements crawler.Processor.
func (p *Processor) ProcessArticle(ctx context.Context, r *crawler.Response) (storage.Outcome, error) {
	page := storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Status: r.Status, FetchedAt: r.FetchedAt}
	ex := p.extractors[r.Site.Name]
	if ex == nil {
		return "", fmt.Errorf("no extractor for site %q", r.Site.Name)
	}
	release, err := p.acquire(ctx, len(r.Body))
	if err != nil {
		return "", err
	}
	defer release()
	art, dec, err := ExtractPage(ex, Page{URL: r.URL, Body: r.Body, ContentType: r.Header.Get("Content-Type"), Charset: r.Site.Charset, FetchedAt: r.FetchedAt})
	var de *DecodeError
	if errors.As(err, &de) {
		return p.commitFailure(ctx, page, "decode", de.Err)
	}
	if errors.Is(err, extract.ErrNoArticle) {
		page.Outcome, page.Err, page.Permanent = storage.OutcomeNotArticle, err.Error(), true
		return p.commit(ctx, &storage.Commit{Page: page})
	}
	if err != nil {
		return p.commitFailure(ctx, page, "extract", err)
	}
	if art.PublishedAt.IsZero() && !r.Listed.IsZero() {
		// The page gives no time: the one its list surface (sitemap,
		// feed, API) gave stands in.
		art.PublishedAt = r.Listed
	}
	p.warnSelectorMisses(r, art)
	for _, n := range art.Notes {
		p.log.Warn("extraction limit", "url", r.URL, "note", n)
	}
	body := dec.Body
	var stub *crawler.Response
	if art.Truncated {
		// A stub showing the start of the article and a read-the-rest
		// marker: its full variant is the article (see fullVariant).
		release()
		full, out, err := p.fullVariant(ctx, ex, r, art)
		if out != "" || err != nil {
			return out, err
		}
		stub, r, art, body = r, full.r, full.art, full.body
	}
	reached := r
	r, art, mp, out, err := p.stitch(ctx, ex, r, art, body, release)
	if out != "" || err != nil {
		return out, err
	}
	if mp != nil || stub != nil {
		// A stitched text, or a stub's variant, is fingerprinted in its
		// own turn (the page's turn ended before the fetches).
		if release, err = p.acquire(ctx, len(art.Text)); err != nil {
			return "", err
		}
		defer release()
	}
	page = storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Status: r.Status, FetchedAt: r.FetchedAt}
	fp := p.engine.Fingerprint(art.Title, art.Text)
	if fp.Empty() {
		page.Outcome, page.Err, page.Permanent = storage.OutcomeNotArticle, "no article: empty text", true
		return p.commit(ctx, &storage.Commit{Page: page})
	}
	release() // deciding waits for the lock: the next page may be extracted meanwhile
	if err := p.leadImage(ctx, r, art, fp); err != nil {
		return "", err
	}
	out, err = p.decideAndCommitPages(ctx, page, art, fp, p.rawOf(r), mp)
	if err == nil && mp != nil {
		err = p.recordReached(ctx, reached, r.URL)
	}
	if err == nil && stub != nil {
		err = p.recordStub(ctx, stub, reached.URL)
	}
	return out, err
}

// warnSelectorMisses logs, once per site and selector in a run, a
// configured extract selector that matched nothing on a page: the generic
// rule was used instead, which is usually a sign that the site's markup
// changed.
func (p *Processor) warnSelectorMisses(r *crawler.Response, art *extract.Article) {
	for _, which := range art.SelectorMisses {
		if _, dup := p.selWarned.LoadOrStore(r.Site.Name+"/"+which, true); dup {
			continue
		}
		p.log.Warn("extract selector matched nothing: the generic rule was used (further pages of the site are not reported)",
			"site", r.Site.Name, "selector", "extract."+which, "url", r.URL)
	}
}

// rawOf is the response to keep with a stored article (fetch.keep_raw), or
// nil. The crawler hands over the body decompressed, so the encoding
// headers go and Content-Length is the kept body's.
func (p *Processor) rawOf(r *crawler.Response) *storage.RawResponse {
	if !p.keepRaw {
		return nil
	}
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Del("Content-Encoding")
	h.Del("Transfer-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(r.Body)))
	return &storage.RawResponse{Status: r.Status, Proto: "HTTP/1.1", Header: h, Body: r.Body}
}

func (p *Processor) decideAndCommit(ctx context.Context, page storage.Page, art *extract.Article, fp *dedup.Fingerprint, raw *storage.RawResponse) (storage.Outcome, error) {
	return p.decideAndCommitPages(ctx, page, art, fp, raw, nil)
}

// decideAndCommitPages is decideAndCommit of an article of several pages
// (mp; nil: one page): its page lists go with the article and its later
// pages are recorded as its parts in the same commit.
func (p *Processor) decideAndCommitPages(ctx context.Context, page storage.Page, art *extract.Article, fp *dedup.Fingerprint, raw *storage.RawResponse, mp *multiPage) (storage.Outcome, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	commitOf := func(v dedup.Verdict) *storage.Commit {
		c := p.commitOf(page, art, fp, raw, v)
		mp.apply(c)
		return c
	}
	if p.shared != nil {
		v, c, err := p.shared.decide(ctx, p.engine, fp, commitOf)
		if errors.Is(err, storage.ErrAlreadyDecided) {
			return p.decidedBefore(ctx, page.URL)
		}
		if err != nil {
			return "", err
		}
		if err := p.index(ctx, c, v, fp); err != nil {
			return "", fmt.Errorf("after deciding %s: %w", page.URL, err)
		}
		p.logDecision(c)
		return c.Page.Outcome, nil
	}
	v, err := p.engine.Decide(ctx, fp)
	if err != nil {
		return "", fmt.Errorf("decide %s: %w", page.URL, err)
	}
	c := commitOf(v)
	err = p.store.Commit(ctx, c) // fills in the duplicate's DupOfURL
	if errors.Is(err, storage.ErrAlreadyDecided) {
		return p.decidedBefore(ctx, page.URL)
	}
	if err != nil {
		return "", err // the store's error names the URL
	}
	if err := p.index(ctx, c, v, fp); err != nil {
		return "", fmt.Errorf("after deciding %s: %w", page.URL, err)
	}
	p.logDecision(c)
	return c.Page.Outcome, nil
}

// commitOf is the commit of page's verdict v: a stored article or a
// duplicate of v.DupOf (its URL left for the store to fill in).
func (p *Processor) commitOf(page storage.Page, art *extract.Article, fp *dedup.Fingerprint, raw *storage.RawResponse, v dedup.Verdict) *storage.Commit {
	if v.Duplicate {
		page.Outcome = storage.OutcomeDuplicate
		d := &storage.Duplicate{
			URL: page.URL, Site: page.Site, RunID: page.RunID, DupOf: int64(v.DupOf),
			Cluster: int64(v.Cluster), Merges: toInt64s(v.Merged), Distance: v.Distance, Jaccard: v.Jaccard, Containment: v.Containment, Reason: v.Reason,
			Title: art.Title, PublishedAt: art.PublishedAt, Source: art.Source, Author: art.Author,
			FetchedAt: page.FetchedAt, Simhash: fp.Simhash, Signature: fp.Signature,
			Prints: fp.PackedPrints(), ContentWords: fp.ContentWords,
			Image: imageString(fp.Image), ImageSimilarity: v.ImageSimilarity, Channel: art.Channel,
		}
		if p.keepDupTxt {
			d.Text = art.Text
		}
		return &storage.Commit{Page: page, Duplicate: d}
	}
	page.Outcome = storage.OutcomeStored
	a := &storage.Article{
		URL: page.URL, Site: page.Site, RunID: page.RunID, Title: art.Title, Text: art.Text,
		PublishedAt: art.PublishedAt, Source: art.Source, Author: art.Author, Editor: art.Editor, Channel: art.Channel,
		FetchedAt: page.FetchedAt, ContentHash: hex.EncodeToString(fp.Hash[:]),
		Fingerprint: storage.Fingerprint{Simhash: fp.Simhash, Signature: fp.Signature, Length: fp.Words, Image: imageString(fp.Image),
			Prints: fp.PackedPrints(), ContentWords: fp.ContentWords},
	}
	if v.Reason == "partial" {
		recordPartial(a, v)
	}
	return &storage.Commit{Page: page, Article: a, Terms: fp.Terms, Raw: raw}
}

// index adds a written commit of verdict v to the engine: a stored article
// as a cluster centre, a duplicate as a member (after its merges).
func (p *Processor) index(ctx context.Context, c *storage.Commit, v dedup.Verdict, fp *dedup.Fingerprint) error {
	switch {
	case c.Article != nil:
		fp.Time = dedup.WindowTime(c.Article.FetchedAt, c.Article.PublishedAt)
		return p.engine.Add(ctx, uint64(c.Article.ID), uint64(c.Article.Cluster), fp)
	case c.Duplicate != nil:
		if err := p.engine.MergeClusters(ctx, v.Cluster, v.Merged); err != nil {
			return err
		}
		fp.Time = dedup.WindowTime(c.Duplicate.FetchedAt, c.Duplicate.PublishedAt)
		return p.engine.AddMember(ctx, MemberID(c.Duplicate.URL), v.Cluster, fp)
	}
	return nil
}

// decidedBefore is the outcome of a URL whose commit found it decided by
// an earlier (possibly interrupted) attempt or another process: its first
// verdict stands, this one is not indexed, and the caller counts it as
// not decided here (crawler.OutcomeDecidedElsewhere), so that the
// summaries of a fleet's processes add up to what the store holds.
func (p *Processor) decidedBefore(ctx context.Context, url string) (storage.Outcome, error) {
	if _, _, err := p.store.Decided(ctx, url); err != nil {
		return "", err
	}
	return crawler.OutcomeDecidedElsewhere, nil
}

// recordPartial records a partial reprint's verdict on its article: the
// stored article it shares passages with (the matched page's cluster
// article when the page matched was one of its duplicates, whose text the
// passages' other starts then refer to), its own share and the passages.
func recordPartial(a *storage.Article, v dedup.Verdict) {
	a.PartialOf, a.OwnShare = int64(v.PartialOf), v.OwnShare
	if v.PartialOf >= 1<<63 { // a member (MemberID): name its cluster's article
		a.PartialOf = int64(v.PartialOfCluster)
	}
	for _, ps := range v.Passages {
		a.Passages = append(a.Passages, storage.Passage{Start: ps.StartA, OtherStart: ps.StartB, Len: ps.Len})
	}
}

// commit writes one outcome; a URL decided by an earlier (possibly
// interrupted) attempt is not an error: its first verdict stands.
func (p *Processor) commit(ctx context.Context, c *storage.Commit) (storage.Outcome, error) {
	err := p.store.Commit(ctx, c)
	if errors.Is(err, storage.ErrAlreadyDecided) {
		return p.decidedBefore(ctx, c.Page.URL)
	}
	if err != nil {
		return "", err // the store's error names the URL
	}
	p.logDecision(c)
	return c.Page.Outcome, nil
}

func (p *Processor) commitFailure(ctx context.Context, page storage.Page, kind string, err error) (storage.Outcome, error) {
	page.Outcome, page.ErrKind, page.Err, page.Permanent = storage.OutcomeError, kind, err.Error(), true
	p.log.Warn("page skipped", "url", page.URL, "kind", kind, "err", err)
	return p.commit(ctx, &storage.Commit{Page: page})
}

// MemberID is the index id of a duplicate (a cluster member): duplicates
// have no article id, so a 63-bit hash of the URL with the top bit set
// keeps them apart from article ids.
func MemberID(url string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(url))
	return h.Sum64() | 1<<63
}

// EngineOptions maps the config's dedup section to engine options (never
// the lab's dedup.Research).
func EngineOptions(d config.Dedup) (dedup.Options, error) {
	o := dedup.Options{Hamming: d.Hamming, Jaccard: d.Jaccard, PartialReprint: d.PartialReprints}
	if d.Antecedents != "" {
		a, err := segment.AntecedentsOf(segment.AntecedentSet(d.Antecedents))
		if err != nil {
			return o, fmt.Errorf("dedup.antecedents: %w", err)
		}
		o.Antecedents = append(a, dedup.EnglishAntecedents...)
	}
	if err := SetIndex(&o, d.Index); err != nil {
		return o, fmt.Errorf("dedup.index: %w", err)
	}
	return o, nil
}

func toInt64s(xs []uint64) []int64 {
	if len(xs) == 0 {
		return nil
	}
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// RunSettings records the dedup settings d as the engine applies them
// (defaults resolved), for the run's record.
func RunSettings(d config.Dedup) *storage.RunSettings {
	s := &storage.RunSettings{Index: d.Index, Hamming: d.Hamming, Jaccard: d.Jaccard, Antecedents: d.Antecedents,
		PartialReprints: d.PartialReprints, KeepDuplicateText: d.KeepDuplicateText}
	if s.Index == "" {
		s.Index = DefaultIndex
	}
	if s.Antecedents == "" {
		s.Antecedents = string(segment.AntecedentsLearned)
	}
	if w := d.Window.D(); w > 0 {
		s.Window = w.String()
	}
	return s
}
