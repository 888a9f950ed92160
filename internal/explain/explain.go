// Package explain shows why the pipeline decided what it did about one URL:
// for a duplicate, the stored article it matched, the evidence (Simhash
// Hamming distance, SpotSigs Jaccard and containment, headline overlap), the
// thresholds that applied and the passages both texts share (see
// internal/passages); for a stored article, its cluster; for other pages,
// the recorded outcome and error.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/imgfp"
	"github.com/newsdedup/newscrawl/internal/passages"
	"github.com/newsdedup/newscrawl/storage"
)

// Store is what an explanation reads. storage.Store satisfies it.
type Store interface {
	PageOf(ctx context.Context, url string) (storage.Page, error)
	Article(ctx context.Context, id int64) (storage.Article, error)
	ArticleByURL(ctx context.Context, url string) (storage.Article, error)
	Articles(ctx context.Context, fn func(storage.Article) error) error
	Fingerprints(ctx context.Context, since time.Time, fn func(storage.Article) error) error
	Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error
	Runs(ctx context.Context) ([]storage.Run, error)
}

// Thresholds are the engine settings a verdict was taken with. A run
// records the settings it decided with (storage.RunStats.Settings):
// Explain uses those of the verdict's run unless the caller fixed them
// (Source not empty: a site file or flags). Default gives the engine's
// defaults, for runs that recorded none.
type Thresholds struct {
	// Source says where the values come from: "" (the verdict's run,
	// else the defaults), "run N", "defaults", or the caller's own
	// ("--site FILE", "flags").
	Source                string
	Hamming               int
	Jaccard               float64
	Containment           float64
	MinTitleOverlap       float64
	MinContainmentJaccard float64
	ShortJaccard          float64
	MinImageSimilarity    float64
}

// FromRun returns t with the thresholds run r recorded (and Source "run
// N"); ok is false when r recorded none.
func (t Thresholds) FromRun(r storage.Run) (Thresholds, bool) {
	s := r.Stats.Settings
	if s == nil {
		return t, false
	}
	t.Hamming, t.Jaccard, t.Source = s.Hamming, s.Jaccard, fmt.Sprintf("run %d", r.ID)
	return t, true
}

// forRun returns th unless the caller fixed its source: then the
// thresholds run id recorded, else the defaults.
func forRun(ctx context.Context, s Store, id int64, th Thresholds) (Thresholds, error) {
	if th.Source != "" {
		return th, nil
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		return th, fmt.Errorf("explain: runs: %w", err)
	}
	for _, r := range runs {
		if r.ID == id {
			if t, ok := th.FromRun(r); ok {
				return t, nil
			}
		}
	}
	th.Source = "defaults"
	return th, nil
}

// Default returns dedup's default thresholds.
func Default() Thresholds {
	return Thresholds{
		Hamming: dedup.DefaultHamming, Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment,
		MinTitleOverlap: dedup.MinTitleOverlap, MinContainmentJaccard: dedup.MinContainmentJaccard,
		ShortJaccard: dedup.ShortJaccard, MinImageSimilarity: dedup.MinImageSimilarity,
	}
}

// Explanation is the decision about one URL with its evidence.
type Explanation struct {
	Page      storage.Page
	Article   *storage.Article   // the page's stored article (Outcome stored)
	Duplicate *storage.Duplicate // the page's verdict (Outcome duplicate)
	Original  *storage.Article   // the stored article a duplicate matched
	// PartialOf is the stored article a partial reprint re-uses
	// (Article.PartialOf), nil otherwise; Shared and Coverage then compare
	// the article with it.
	PartialOf *storage.Article
	// Whole is, for a later page of a multi-page article (Outcome part),
	// that article when it was stored (nil when it was judged a
	// duplicate: Page.PartOf still names it).
	Whole      *storage.Article
	Members    int // articles and duplicates in the cluster (stored or duplicate)
	Thresholds Thresholds
	// TitleOverlap is the headlines' character-bigram overlap (shorter
	// one), the engine's test for briefs.
	TitleOverlap float64
	// Shared are the passages both texts share, in the duplicate's order;
	// nil when the duplicate's text was not kept.
	Shared []string
	// Coverage is the share of the duplicate's text found in the original.
	Coverage float64
	// TextKept reports whether the duplicate's text is in the store
	// (dedup.keep_duplicate_text).
	TextKept bool
	// Related are the other stored articles a stored article shares
	// passages with (FindRelated), the most shared first.
	Related []Related
	// MatchedImage is the lead-image fingerprint of the page an "image"
	// verdict matched: the original's, or the cluster member's with the
	// same image evidence ("" when neither kept one).
	MatchedImage string
}

// Explain builds the explanation of url (a canonical URL as stored).
func Explain(ctx context.Context, s Store, url string, th Thresholds) (*Explanation, error) {
	p, err := s.PageOf(ctx, url)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("explain %s: no page with this URL in the store (URLs are stored canonical: no fragment, tracking parameters removed, query sorted): %w", url, err)
	}
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	if th, err = forRun(ctx, s, p.RunID, th); err != nil {
		return nil, err
	}
	e := &Explanation{Page: p, Thresholds: th}
	var cluster int64
	switch p.Outcome {
	case storage.OutcomeStored:
		a, err := s.ArticleByURL(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("explain: %w", err)
		}
		e.Article, cluster = &a, a.Cluster
		if e.Related, err = FindRelated(ctx, s, &a); err != nil {
			return nil, err
		}
		if a.PartialOf != 0 {
			o, err := s.Article(ctx, a.PartialOf)
			if err != nil {
				return nil, fmt.Errorf("explain: partial_of of %s: %w", url, err)
			}
			e.PartialOf, e.TextKept = &o, true
			e.Shared = passages.Shared(a.Text, o.Text)
			e.Coverage = passages.Coverage(a.Text, o.Text)
		}
	case storage.OutcomeDuplicate:
		d, err := findDuplicate(ctx, s, url)
		if err != nil {
			return nil, err
		}
		o, err := s.Article(ctx, d.DupOf)
		if err != nil {
			return nil, fmt.Errorf("explain: original of %s: %w", url, err)
		}
		e.Duplicate, e.Original, cluster = d, &o, d.Cluster
		e.TitleOverlap = TitleOverlap(d.Title, o.Title)
		if d.Reason == "image" {
			if e.MatchedImage, err = matchedImage(ctx, s, d, o); err != nil {
				return nil, err
			}
		}
		if d.Text != "" {
			e.TextKept = true
			e.Shared = passages.Shared(d.Text, o.Text)
			e.Coverage = passages.Coverage(d.Text, o.Text)
		}
	case storage.OutcomePart:
		a, err := s.ArticleByURL(ctx, p.PartOf)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, fmt.Errorf("explain: article of %s: %w", url, err)
		}
		if err == nil {
			e.Whole = &a
		}
		return e, nil
	default:
		return e, nil
	}
	e.Members, err = members(ctx, s, cluster)
	return e, err
}

// matchedImage returns the lead image, among the original's and those of
// the other duplicates of d's cluster, most similar to d's (the store does
// not record which member an image verdict matched).
func matchedImage(ctx context.Context, s Store, d *storage.Duplicate, o storage.Article) (string, error) {
	mine, err := imgfp.Parse(d.Image)
	if err != nil || mine.IsZero() {
		return "", nil
	}
	best, bestSim := "", -1.0
	consider := func(img string) {
		if fp, err := imgfp.Parse(img); err == nil && !fp.IsZero() {
			if sim, err := imgfp.Similarity(mine, fp); err == nil && sim > bestSim {
				best, bestSim = img, sim
			}
		}
	}
	consider(o.Fingerprint.Image)
	err = s.Duplicates(ctx, func(m storage.Duplicate) error {
		if m.Cluster == d.Cluster && m.URL != d.URL {
			consider(m.Image)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	return best, nil
}

func findDuplicate(ctx context.Context, s Store, url string) (*storage.Duplicate, error) {
	var found *storage.Duplicate
	errStop := errors.New("found")
	err := s.Duplicates(ctx, func(d storage.Duplicate) error {
		if d.URL == url {
			found = &d
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("explain: %w", err)
	}
	if found == nil {
		return nil, fmt.Errorf("explain %s: page recorded as duplicate but no verdict found: %w", url, storage.ErrNotFound)
	}
	return found, nil
}

func members(ctx context.Context, s Store, cluster int64) (int, error) {
	n := 0
	err := s.Articles(ctx, func(a storage.Article) error {
		if a.Cluster == cluster {
			n++
		}
		return nil
	})
	if err == nil {
		err = s.Duplicates(ctx, func(d storage.Duplicate) error {
			if d.Cluster == cluster {
				n++
			}
			return nil
		})
	}
	if err != nil {
		return 0, fmt.Errorf("explain: cluster %d: %w", cluster, err)
	}
	return n, nil
}

// TitleOverlap is |A∩B| / min(|A|, |B|) of the headlines' bigram sets
// (dedup.TitleSet), as the engine computes it for briefs.
func TitleOverlap(a, b string) float64 {
	x, y := dedup.TitleSet(a), dedup.TitleSet(b)
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	n := 0
	for _, v := range x {
		if _, ok := slices.BinarySearch(y, v); ok {
			n++
		}
	}
	return float64(n) / float64(min(len(x), len(y)))
}

// Write prints e for a terminal.
func Write(w io.Writer, e *Explanation) error {
	var b strings.Builder
	p := e.Page
	fmt.Fprintf(&b, "url:      %s\nsite:     %s\nrun:      %d\nfetched:  %s\noutcome:  %s\n", p.URL, p.Site, p.RunID,
		p.FetchedAt.UTC().Format("2006-01-02 15:04:05Z"), p.Outcome)
	th := e.Thresholds
	switch {
	case e.Article != nil && e.PartialOf != nil:
		a, o := e.Article, e.PartialOf
		fmt.Fprintf(&b, "kept:     stored as article %d (%q), a partial reprint of article %d\n          %s\n          %q\n", a.ID, a.Title, o.ID, o.URL, o.Title)
		fmt.Fprintf(&b, "          it passed the near-duplicate thresholds against it, but both texts add text of their own:\n")
		fmt.Fprintf(&b, "          %.0f%% of its content words are outside the %d passage(s) they share (winnowing)\n", 100*a.OwnShare, len(a.Passages))
		fmt.Fprintf(&b, "cluster:  %d, %d member(s) (articles and duplicates)\n", a.Cluster, e.Members)
		fmt.Fprintf(&b, "shared passages (%.0f%% of its text is in article %d):\n", 100*e.Coverage, o.ID)
		for _, s := range e.Shared {
			fmt.Fprintf(&b, "  « %s »\n", s)
		}
	case e.Article != nil:
		a := e.Article
		fmt.Fprintf(&b, "kept:     stored as article %d (%q); no stored article before it passed the thresholds\n", a.ID, a.Title)
		fmt.Fprintf(&b, "cluster:  %d, %d member(s) (articles and duplicates)\n", a.Cluster, e.Members)
	case p.Outcome == storage.OutcomePart:
		fmt.Fprintf(&b, "part:     a later page of the multi-page article %s: its text is in that article, never an article of its own\n", p.PartOf)
		if w := e.Whole; w != nil {
			fmt.Fprintf(&b, "          stored as article %d (%q)\n", w.ID, w.Title)
		} else {
			fmt.Fprintf(&b, "          (that article was judged a duplicate, or is not stored)\n")
		}
	case e.Duplicate != nil:
		d, o := e.Duplicate, e.Original
		fmt.Fprintf(&b, "dropped:  near-duplicate (reason %s) of article %d\n          %s\n          %q\n", orUnknown(d.Reason), o.ID, o.URL, o.Title)
		fmt.Fprintf(&b, "cluster:  %d, %d member(s)\n", d.Cluster, e.Members)
		fmt.Fprintf(&b, "evidence (thresholds: %s):\n", thresholdSource(th))
		fmt.Fprintf(&b, "  simhash hamming distance  %d   (candidate when <= %d)\n", d.Distance, th.Hamming)
		fmt.Fprintf(&b, "  spotsigs jaccard          %.3f (duplicate when >= %.2f; short texts >= %.2f)\n", d.Jaccard, th.Jaccard, th.ShortJaccard)
		fmt.Fprintf(&b, "  spotsigs containment      %.3f (brief when >= %.2f and jaccard >= %.2f or title overlap >= %.2f)\n",
			d.Containment, th.Containment, th.MinContainmentJaccard, th.MinTitleOverlap)
		fmt.Fprintf(&b, "  title overlap             %.3f (%q vs %q)\n", e.TitleOverlap, d.Title, o.Title)
		writeImageEvidence(&b, e)
		if !e.TextKept {
			fmt.Fprintf(&b, "shared passages: the duplicate's text was not kept (set dedup.keep_duplicate_text: true to keep it)\n")
			break
		}
		fmt.Fprintf(&b, "shared passages (%.0f%% of the duplicate's text is in the original):\n", 100*e.Coverage)
		for _, s := range e.Shared {
			fmt.Fprintf(&b, "  « %s »\n", s)
		}
	default:
		if p.ErrKind != "" {
			fmt.Fprintf(&b, "error:    %s: %s (permanent %v)\n", p.ErrKind, p.Err, p.Permanent)
		} else if p.Err != "" {
			fmt.Fprintf(&b, "note:     %s\n", p.Err)
		}
	}
	writeRelated(&b, e)
	writePages(&b, e)
	_, err := io.WriteString(w, b.String())
	return err
}

// writePages prints the pages of a stored multi-page article (the page's
// own or the one a later page belongs to) and those that could not be
// fetched.
func writePages(b *strings.Builder, e *Explanation) {
	a := e.Article
	if a == nil {
		a = e.Whole
	}
	if a == nil || len(a.Pages) == 0 {
		return
	}
	fmt.Fprintf(b, "pages:    %d, text stitched in this order:\n", len(a.Pages))
	for i, u := range a.Pages {
		note := ""
		if slices.Contains(a.PagesMissing, u) {
			note = "  (could not be fetched: its text is missing)"
		}
		fmt.Fprintf(b, "  %2d %s%s\n", i+1, u, note)
	}
}

// writeImageEvidence prints the lead-image evidence of a duplicate whose
// text was too short to compare (reason "image"), or the duplicate's
// lead image when it had one.
func writeImageEvidence(b *strings.Builder, e *Explanation) {
	d := e.Duplicate
	switch {
	case d.Reason == "image":
		fmt.Fprintf(b, "  lead image blocks equal   %.3f (duplicate when both texts are too short to compare and >= %.2f)\n",
			d.ImageSimilarity, e.Thresholds.MinImageSimilarity)
		fmt.Fprintf(b, "  lead image fingerprints   %s\n                            %s (matched page)\n", d.Image, orNone(e.MatchedImage))
	case d.Image != "":
		fmt.Fprintf(b, "  lead image fingerprint    %s (not needed: the text decided)\n", d.Image)
	}
}

// thresholdSource says where the thresholds shown come from.
func thresholdSource(th Thresholds) string {
	switch th.Source {
	case "", "defaults":
		return "the engine's defaults; the run recorded none"
	}
	if strings.HasPrefix(th.Source, "run ") {
		return "recorded by " + th.Source
	}
	return "from " + th.Source
}

func orNone(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}
