// Package storage keeps what the crawler decided: runs, the outcome of every
// fetched URL, stored articles, duplicate verdicts, the fingerprints the
// near-duplicate engine rebuilds its indexes from, document frequencies for
// TF-IDF weights, and the persisted crawl frontier.
//
// This package holds only the records, the interfaces and the errors. The
// Store interface is the seam between the pipeline and a backend; each
// implementation is its own subpackage: storage/sqlite (the embedded
// default), storage/memory (in memory, for tests) and storage/postgres (one
// corpus shared by several crawler processes); storage/redisfrontier is a
// Frontier shared through Redis. Every implementation must pass the
// conformance suite in storage/storagetest.
//
// Commit is idempotent and keyed by URL: committing a URL that is already
// decided is a no-op that reports ErrAlreadyDecided. Together with the rule
// "mark a frontier item done only after its page is committed" this gives
// exactly-once storage over an at-least-once fetch, on one machine or many.
package storage

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Errors returned by stores. Callers test them with errors.Is.
var (
	// ErrAlreadyDecided: the URL already has a final outcome; nothing was written.
	ErrAlreadyDecided = errors.New("url already decided")
	// ErrNotFound: no record with that key.
	ErrNotFound = errors.New("not found")
	// ErrNoStore: a reading open found no store (an empty database or
	// schema, a missing file); nothing was created.
	ErrNoStore = errors.New("no newscrawl store")
	// ErrSchemaTooNew: the store was written by a newer version of the program.
	ErrSchemaTooNew = errors.New("store schema is newer than this program supports")
	// ErrLocked: another process holds the store's run lock.
	ErrLocked = errors.New("store is locked by another run")
	// ErrInvalid: a Commit (or other argument) is malformed; nothing was
	// written. See Commit.Validate.
	ErrInvalid = errors.New("invalid argument")
)

// Outcome is the final (or transient) result recorded for a fetched URL.
type Outcome string

// Outcomes. Stored and Duplicate are verdicts on articles; NotArticle marks
// pages that were fetched and parsed but hold no article (list, video,
// gallery pages); Error marks a failure with an error kind; Part marks a
// later page of a multi-page article (page 2, 3, …), whose text is part of
// the article named by Page.PartOf: it is never an article of its own.
const (
	OutcomeStored     Outcome = "stored"
	OutcomeDuplicate  Outcome = "duplicate"
	OutcomeNotArticle Outcome = "not_article"
	OutcomeError      Outcome = "error"
	OutcomePart       Outcome = "part"
)

// Final reports whether a URL with this outcome is never fetched again by a
// later run. Errors are final only when their kind is permanent (see
// Page.Permanent); list pages are re-fetched by every run and are therefore
// recorded as NotArticle but not treated as decided by the frontier. The
// pages of a multi-page article (Part) are decided with their article.
func (o Outcome) Final() bool {
	return o == OutcomeStored || o == OutcomeDuplicate || o == OutcomePart
}

// Page is the record of one fetched URL.
type Page struct {
	URL       string // canonical URL
	Site      string
	RunID     int64
	Outcome   Outcome
	Status    int    // HTTP status, 0 when no response
	ErrKind   string // e.g. "too_large", "robots", "timeout", "http_404"; empty unless Outcome==Error
	Err       string // human-readable message
	Permanent bool   // for errors: do not retry in later runs
	FetchedAt time.Time
	// PartOf is, for Outcome Part, the URL of the article (its page 1)
	// this page belongs to; "" otherwise.
	PartOf string
	// RetryAt, for a permanent error, is when a later run may fetch the
	// URL again (a page that was gone may come back); zero: never.
	RetryAt time.Time
}

// Skipped reports whether a frontier Push at now ignores the page's URL: its
// outcome is final, or its error is permanent and not due again yet.
func (p *Page) Skipped(now time.Time) bool {
	if p.Outcome.Final() {
		return true
	}
	return p.Outcome == OutcomeError && p.Permanent && (p.RetryAt.IsZero() || p.RetryAt.After(now))
}

// Article is a stored (kept) article with its fingerprints.
type Article struct {
	ID          int64 // assigned by the store on Commit
	URL         string
	Site        string
	RunID       int64
	Title       string
	Text        string // paragraphs separated by "\n"
	PublishedAt time.Time
	Source      string // 来源
	Author      string // 作者
	Editor      string // 责任编辑
	FetchedAt   time.Time
	ContentHash string // hex SHA-256 of the normalised text
	Cluster     int64  // cluster id (the id of the cluster's first article); 0 means "own id"
	Fingerprint Fingerprint
	// PartialOf is, for a partial reprint (an article that passed the
	// near-duplicate test against a stored one but that both add text of
	// their own, dedup.Verdict.PartialOf), the stored article it shares
	// Passages with (the article of its cluster when the page it matched
	// was one of its duplicates, whose text the passages' OtherStart then
	// refers to), and OwnShare the share of its content words outside
	// them; 0, nil and 0 otherwise. PartialOf must name a stored article.
	PartialOf int64
	OwnShare  float64
	Passages  []Passage
	// Pages are, for an article of several pages, the URLs of all its
	// pages in order (URL first), whose texts Text joins; nil for an
	// article of one page. PagesMissing are those of them that could not
	// be fetched (an error, a 404): Text lacks their text. Both are
	// canonical URLs without line breaks.
	Pages        []string
	PagesMissing []string
	// Channel is whose article the page is: "newsroom", "self_media" or
	// "unknown" (extract.Article.Channel); "" for an article stored
	// before channels were recorded.
	Channel string
}

// Passage is a run of content words a partial reprint shares with the
// article it re-uses: Len words from Start in this article and from
// OtherStart in the other (dedup.Verdict.Passages).
type Passage struct {
	Start, OtherStart, Len int
}

// Fingerprint is what the near-duplicate engine needs to rebuild its indexes.
type Fingerprint struct {
	Simhash   uint64
	Signature []uint64 // SpotSigs signature: sorted spot hashes, repeats kept (a multiset)
	Length    int      // number of tokens the signature was built from
	// Prints are the winnowing fingerprints of the text's content words as
	// the engine indexes them (dedup.PackPrints: sorted, a hash's high 32
	// bits over the word position), ContentWords the number of content
	// words: the partial-reprint rule needs both to compare a new page
	// with an article restored from the store. nil and 0 when the rule
	// was off when the article was stored.
	Prints       []uint64
	ContentWords int
	// Image is the lead image's colour-block fingerprint in imgfp's
	// "COLSxROWS:BLOCKS" form, kept for articles whose text is too short
	// to compare (photo pages); "" when none.
	Image string
}

// Duplicate is the verdict for a page dropped as a near-duplicate of a stored article.
type Duplicate struct {
	URL         string
	Site        string
	RunID       int64
	DupOf       int64   // id of the stored article it duplicates; must exist
	DupOfURL    string  // filled in by the store from DupOf when empty
	Cluster     int64   // 0 means "the cluster of DupOf"; filled in on Commit
	Distance    int     // Hamming distance of the Simhashes
	Jaccard     float64 // SpotSigs multiset Jaccard with DupOf (or the cluster member that matched)
	Containment float64 // SpotSigs containment of the shorter signature in the longer
	// Reason is the engine's reason for the verdict (dedup.Verdict.Reason:
	// "exact", "jaccard", "containment", "short", "hamming"); "" for
	// verdicts recorded before reasons were kept.
	Reason      string
	Title       string
	Text        string // may be empty: kept only when the pipeline chooses to
	PublishedAt time.Time
	Source      string
	Author      string
	FetchedAt   time.Time
	Simhash     uint64
	// Signature is the page's SpotSigs signature (sorted spot hashes,
	// repeats kept, like Fingerprint.Signature): the engine indexes a
	// duplicate as a member of its cluster and rebuilds that index from
	// DuplicateFingerprints at start-up.
	Signature []uint64
	// Prints and ContentWords are the duplicate's winnowing fingerprints
	// and content-word count (as in Fingerprint), for the same reason.
	Prints       []uint64
	ContentWords int
	// Image is the page's lead-image fingerprint (as Fingerprint.Image)
	// and ImageSimilarity the share of its blocks equal to the matched
	// page's (Reason "image"); "" and 0 otherwise.
	Image           string
	ImageSimilarity float64
	// Merges are clusters this duplicate bridges (dedup.Verdict.Merged):
	// in the same transaction every article and duplicate of these
	// clusters moves to Cluster, which must then be set. Stores do not
	// keep the list itself (reads return nil).
	Merges []int64
	// Channel is the duplicate page's channel, as Article.Channel.
	Channel string
}

// Commit is one atomic write: a page outcome plus, for articles, the article
// or the duplicate verdict, and the document-frequency update for TF-IDF.
// Exactly one of Article and Duplicate is set when Page.Outcome is Stored or
// Duplicate respectively; both are nil otherwise. Times are stored with
// nanosecond precision in UTC; a zero time round-trips as zero, and a
// non-zero time outside the years 1678..2261 is rejected (ErrInvalid).
type Commit struct {
	Page      Page
	Article   *Article
	Duplicate *Duplicate
	// Terms are the distinct terms of the article, added to document
	// frequencies when the article is stored (ignored otherwise).
	Terms []string
	// Raw is the HTTP response of a stored article, kept (compressed) in
	// the same transaction by stores that implement RawStore, when the
	// crawl keeps raw responses (fetch.keep_raw). Only allowed with
	// Outcome Stored. The pipeline refuses fetch.keep_raw with a store
	// that is not a RawStore, so it is never dropped silently.
	Raw *RawResponse
	// Parts are the later pages of a multi-page article (Outcome Stored or
	// Duplicate): in the same transaction each is recorded as a Page of
	// Outcome Part with PartOf set to Page.URL (and Page's site, run and
	// fetch time), so that no later run fetches it again; a URL that
	// already has a final outcome keeps it.
	Parts []string
}

// RawResponse is an HTTP response as the crawler received it, with the
// body decompressed (Content-Encoding removed from Header).
type RawResponse struct {
	Status int
	Proto  string // "HTTP/1.1"; empty reads as HTTP/1.1
	Header http.Header
	Body   []byte
}

// RawStore is a Store that keeps raw responses (Commit.Raw).
type RawStore interface {
	// Raw returns the raw response kept for url, or an error wrapping
	// ErrNotFound when none was kept.
	Raw(ctx context.Context, url string) (RawResponse, error)
}

// Run describes one crawl invocation.
type Run struct {
	ID         int64
	StartedAt  time.Time
	FinishedAt time.Time // zero while running or after a crash
	Status     string    // RunRunning, RunCompleted, RunInterrupted, RunFailed
	Config     string    // path of the site file
	Stats      RunStats
}

// Run statuses.
const (
	RunRunning     = "running"
	RunCompleted   = "completed"
	RunInterrupted = "interrupted"
	RunFailed      = "failed"
)

// RunStats are counters kept per run.
type RunStats struct {
	Fetched    int `json:"fetched"`
	Stored     int `json:"stored"`
	Duplicates int `json:"duplicates"`
	NotArticle int `json:"not_article"`
	Errors     int `json:"errors"`
	// Parts are article pages recorded as a later page of a multi-page
	// article (Outcome Part) rather than an article of their own.
	Parts int `json:"parts,omitempty"`
	// Sites keeps every counter the crawler kept per site in this run
	// (requests, bytes, robots blocks, retries, skipped links, gone pages,
	// …, by the crawler's JSON names), so that a run's record tells what
	// happened without its log. Stores persist it with the other counters.
	Sites []SiteCounters `json:"sites,omitempty"`
	// Settings are the dedup settings the run decided with (nil for runs
	// recorded before they were kept, and for a run whose process died
	// before it finished), so that explain, report and serve show the
	// thresholds that applied without the site file.
	Settings *RunSettings `json:"settings,omitempty"`
}

// RunSettings are a run's dedup settings as the engine applied them
// (defaults resolved).
type RunSettings struct {
	Index             string  `json:"index"`
	Hamming           int     `json:"hamming"`
	Jaccard           float64 `json:"jaccard"`
	Window            string  `json:"window,omitempty"` // "" when everything stored is compared
	Antecedents       string  `json:"antecedents"`
	PartialReprints   bool    `json:"partial_reprints"`
	KeepDuplicateText bool    `json:"keep_duplicate_text"`
	// SourceNames are the crawl's sites' source_names (site name → the
	// 来源 names it publishes under): export chooses a cluster's
	// representative with them. Absent when no site lists any.
	SourceNames map[string][]string `json:"source_names,omitempty"`
}

// SiteCounters are one site's counters of a run.
type SiteCounters struct {
	Site     string           `json:"site"`
	Counters map[string]int64 `json:"counters"`
}

// FrontierItem is a URL waiting to be fetched.
type FrontierItem struct {
	URL     string // canonical URL
	Site    string
	Depth   int
	Referer string
}

// Frontier is the persisted queue of URLs to fetch. Push ignores URLs already
// queued in the current crawl and URLs already decided in any run: article
// URLs with a final outcome (Stored, Duplicate) and URLs whose recorded error
// is permanent (Page.Permanent) and not yet due again (Page.RetryAt zero or
// after the time of the Push). Push returns how many items it added. A
// pending URL pushed again at a smaller depth takes that depth and referer
// (keeping its place in the queue): processes sharing a frontier do not pop
// in breadth-first order, and a URL first queued through a long path must
// not lose its links to max_depth.
// Done removes an item after its page was committed (or its failure recorded);
// Done on a URL that is not queued is a no-op, so that it can be retried.
// A crawl that ends with an empty frontier calls Reset so that the next run
// starts again from the start URLs; after a crash the pending items survive
// and the next run resumes them.
type Frontier interface {
	Push(ctx context.Context, items []FrontierItem) (added int, err error)
	// Pop leases up to n pending items of the site (all sites when site is
	// empty), oldest first, and marks them in flight. Items in flight that are
	// never Done are pending again after Requeue (called at run start).
	Pop(ctx context.Context, site string, n int) ([]FrontierItem, error)
	Done(ctx context.Context, url string) error
	// Requeue makes every in-flight item pending again (crash recovery).
	Requeue(ctx context.Context) (int, error)
	// Pending counts items not yet done (pending or in flight).
	Pending(ctx context.Context, site string) (int, error)
	// Reset forgets every frontier item (the crawl completed).
	Reset(ctx context.Context) error
}

// Store is the persistent record of the corpus.
type Store interface {
	Frontier
	SurfaceStore

	BeginRun(ctx context.Context, config string) (Run, error)
	FinishRun(ctx context.Context, r Run) error
	Runs(ctx context.Context) ([]Run, error)

	// Commit writes one page outcome atomically. It returns ErrAlreadyDecided
	// (and writes nothing) when the URL already has a final outcome, and an
	// error wrapping ErrInvalid (writing nothing) when c.Validate fails. A
	// non-final earlier record of the URL (error, not_article) is replaced,
	// and the page moves to the end of the commit order. On success an
	// Article's ID (and Cluster, when 0) and a Duplicate's DupOfURL and
	// Cluster (when empty) are filled in.
	Commit(ctx context.Context, c *Commit) error

	// Decided reports the final outcome of a URL, or ok=false.
	Decided(ctx context.Context, url string) (o Outcome, ok bool, err error)
	PageOf(ctx context.Context, url string) (Page, error)

	Article(ctx context.Context, id int64) (Article, error)
	ArticleByURL(ctx context.Context, url string) (Article, error)
	// Articles calls fn for every stored article in id order.
	Articles(ctx context.Context, fn func(Article) error) error
	// Duplicates calls fn for every duplicate verdict in commit order.
	Duplicates(ctx context.Context, fn func(Duplicate) error) error
	// Pages calls fn for every page record in commit order.
	Pages(ctx context.Context, fn func(Page) error) error
	// Fingerprints calls fn for every stored article fetched or published at
	// or after since (zero: all), with Text left empty, for index rebuilds.
	Fingerprints(ctx context.Context, since time.Time, fn func(Article) error) error
	// DuplicateFingerprints calls fn, in commit order, for every duplicate
	// verdict fetched or published at or after since (zero: all), with Text
	// left empty, for index rebuilds.
	DuplicateFingerprints(ctx context.Context, since time.Time, fn func(Duplicate) error) error

	// DocFreqs calls fn for every term with its document frequency (the
	// number of stored articles containing it) and returns the number of
	// stored articles. The engine loads them once at start-up.
	DocFreqs(ctx context.Context, fn func(term string, df int) error) (docs int, err error)

	// Lock takes the store's run lock. A single-writer store (SQLite)
	// makes it exclusive, so that two crawls never write one store at
	// once; a store written by several processes (storage/postgres) makes
	// it shared among crawls and exclusive only against its schema
	// migrations. With wait=false it returns ErrLocked at once when a
	// conflicting holder has it; with wait=true it blocks until the lock
	// is free or ctx ends. release frees the lock.
	Lock(ctx context.Context, wait bool) (release func() error, err error)

	// Check verifies internal consistency (SQLite: integrity_check plus
	// cross-table invariants) and returns a descriptive error on failure.
	Check(ctx context.Context) error
	Close() error
}

// Cursor is a position in a store's commit history: the last article id,
// duplicate sequence number and cluster merge sequence number seen. Each
// of the three grows with every commit and is never reused, so the
// commits after a cursor are exactly the rows with larger numbers. Stores
// that keep this history (every store in this module) offer Head, the
// cursor after everything committed, and Changes, the commits after a
// cursor; consumers declare that interface themselves.
type Cursor struct {
	Article, Duplicate, Merge int64
}

// Before reports whether c is at or before d on every axis (d includes
// everything c does).
func (c Cursor) Before(d Cursor) bool {
	return c.Article <= d.Article && c.Duplicate <= d.Duplicate && c.Merge <= d.Merge
}

// Change is one entry of a store's change feed: exactly one field is set.
type Change struct {
	Article   *Article   // stored after the cursor, without its text
	Duplicate *Duplicate // recorded after the cursor, without its text
	// Merge: the cluster From was merged into Into after the cursor.
	Merge *Merge
}

// Merge is a cluster merge applied by a duplicate's commit
// (Duplicate.Merges): every article and duplicate of cluster From moved to
// cluster Into.
type Merge struct{ Into, From int64 }
