package storage

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/imgfp"
)

// Time limits. Stores keep times as Unix nanoseconds in an int64, which spans
// 1677-09-21 to 2262-04-11 (math.MinInt64/MaxInt64 ns around 1970); the
// bounds below are whole years inside that range so that every non-zero time
// a store accepts round-trips exactly.
var (
	minStoreTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	maxStoreTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC) // exclusive
)

// TimeBounds returns the storable time range [lo, hi): times outside it are
// invalid (ValidTime), and range bounds outside it can be clamped to it.
func TimeBounds() (lo, hi time.Time) { return minStoreTime, maxStoreTime }

// ValidTime reports an error (wrapping ErrInvalid) for a non-zero time a
// store cannot represent. Implementations check times they store with it.
func ValidTime(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if t.Before(minStoreTime) || !t.Before(maxStoreTime) {
		return fmt.Errorf("%w: %s %s outside %d..%d", ErrInvalid, field,
			t.UTC().Format(time.RFC3339), minStoreTime.Year(), maxStoreTime.Year()-1)
	}
	return nil
}

// validUTF8 rejects text fields that are not valid UTF-8: the pipeline
// stores only decoded text, so a store can treat invalid UTF-8 it reads back
// as damage.
func validUTF8(what, url string, fields ...string) error {
	for _, f := range append(fields, url) {
		if !utf8.ValidString(f) {
			return fmt.Errorf("%w: %s %q has text that is not valid UTF-8", ErrInvalid, what, url)
		}
	}
	return nil
}

// Validate checks that a Commit is well formed: a non-empty URL, a known
// outcome, exactly the payload the outcome calls for, payload URLs matching
// the page URL (an empty payload URL is taken to be the page URL), a
// positive DupOf, a non-negative Fingerprint.Length, representable times and
// text fields in valid UTF-8.
// Every error wraps ErrInvalid. Validate does not modify c.
func (c *Commit) Validate() error {
	if c == nil {
		return fmt.Errorf("%w: nil commit", ErrInvalid)
	}
	p := &c.Page
	if p.URL == "" {
		return fmt.Errorf("%w: empty page url", ErrInvalid)
	}
	if err := c.validRaw(); err != nil {
		return err
	}
	if err := cmp.Or(ValidTime("page fetched_at", p.FetchedAt), ValidTime("page retry_at", p.RetryAt)); err != nil {
		return err
	}
	if err := c.validPages(); err != nil {
		return err
	}
	switch p.Outcome {
	case OutcomeStored:
		if c.Article == nil || c.Duplicate != nil {
			return fmt.Errorf("%w: outcome %s of %s needs an article and no duplicate", ErrInvalid, p.Outcome, p.URL)
		}
		a := c.Article
		if a.URL != "" && a.URL != p.URL {
			return fmt.Errorf("%w: article url %q differs from page url %q", ErrInvalid, a.URL, p.URL)
		}
		if a.Fingerprint.Length < 0 {
			return fmt.Errorf("%w: negative fingerprint length %d", ErrInvalid, a.Fingerprint.Length)
		}
		if err := validClusterImage(p.URL, a.Cluster, a.Fingerprint.Image, 0); err != nil {
			return err
		}
		if err := validPrints(p.URL, a.Fingerprint.Prints, a.Fingerprint.ContentWords); err != nil {
			return err
		}
		if err := validPartial(p.URL, a); err != nil {
			return err
		}
		if err := validUTF8("article", p.URL, a.Title, a.Text, a.Source, a.Author, a.Editor); err != nil {
			return err
		}
		if err := ValidTime("article published_at", a.PublishedAt); err != nil {
			return err
		}
		if err := ValidTime("article fetched_at", a.FetchedAt); err != nil {
			return err
		}
	case OutcomeDuplicate:
		if c.Duplicate == nil || c.Article != nil {
			return fmt.Errorf("%w: outcome %s of %s needs a duplicate and no article", ErrInvalid, p.Outcome, p.URL)
		}
		d := c.Duplicate
		if d.URL != "" && d.URL != p.URL {
			return fmt.Errorf("%w: duplicate url %q differs from page url %q", ErrInvalid, d.URL, p.URL)
		}
		if err := validUTF8("duplicate", p.URL, d.Title, d.Text, d.Source, d.Author); err != nil {
			return err
		}
		if d.DupOf <= 0 {
			return fmt.Errorf("%w: duplicate %s has dup_of %d", ErrInvalid, p.URL, d.DupOf)
		}
		if err := validPrints(p.URL, d.Prints, d.ContentWords); err != nil {
			return err
		}
		if err := validClusterImage(p.URL, d.Cluster, d.Image, d.ImageSimilarity); err != nil {
			return err
		}
		if len(d.Merges) > 0 && d.Cluster == 0 {
			return fmt.Errorf("%w: duplicate %s merges clusters but names no cluster", ErrInvalid, p.URL)
		}
		for _, m := range d.Merges {
			if m <= 0 || m == d.Cluster {
				return fmt.Errorf("%w: duplicate %s merges cluster %d into %d", ErrInvalid, p.URL, m, d.Cluster)
			}
		}
		if math.IsNaN(d.Jaccard) || math.IsInf(d.Jaccard, 0) {
			return fmt.Errorf("%w: duplicate %s has jaccard %v", ErrInvalid, p.URL, d.Jaccard)
		}
		if math.IsNaN(d.Containment) || math.IsInf(d.Containment, 0) {
			return fmt.Errorf("%w: duplicate %s has containment %v", ErrInvalid, p.URL, d.Containment)
		}
		if err := ValidTime("duplicate published_at", d.PublishedAt); err != nil {
			return err
		}
		if err := ValidTime("duplicate fetched_at", d.FetchedAt); err != nil {
			return err
		}
	case OutcomeNotArticle, OutcomeError, OutcomePart:
		if c.Article != nil || c.Duplicate != nil {
			return fmt.Errorf("%w: outcome %s of %s takes no article or duplicate", ErrInvalid, p.Outcome, p.URL)
		}
	default:
		return fmt.Errorf("%w: unknown outcome %q for %s", ErrInvalid, p.Outcome, p.URL)
	}
	return nil
}

// validClusterImage checks a cluster id (>= 0), a lead-image fingerprint
// (imgfp's form, "" for none) and its similarity, in [0, 1].
func validClusterImage(url string, cluster int64, fp string, sim float64) error {
	if cluster < 0 {
		return fmt.Errorf("%w: negative cluster %d", ErrInvalid, cluster)
	}
	if _, err := imgfp.Parse(fp); err != nil {
		return fmt.Errorf("%w: %s: lead image fingerprint: %w", ErrInvalid, url, err)
	}
	if !(sim >= 0 && sim <= 1) {
		return fmt.Errorf("%w: %s: lead image similarity %v outside [0, 1]", ErrInvalid, url, sim)
	}
	return nil
}

// DistinctTerms returns terms without repeats, in first-seen order. Stores use
// it so that a term listed twice in Commit.Terms counts once.
func DistinctTerms(terms []string) []string {
	seen := make(map[string]struct{}, len(terms))
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if _, ok := seen[t]; ok {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}

// CheckFailed builds a store's Check error from its violations, listing at most
// maxCheckReport of them.
func CheckFailed(bad []string) error {
	n := len(bad)
	if n > maxCheckReport {
		bad = append(bad[:maxCheckReport:maxCheckReport], fmt.Sprintf("... and %d more", n-maxCheckReport))
	}
	return fmt.Errorf("store check failed: %d problem(s): %s", n, strings.Join(bad, "; "))
}

// maxCheckReport bounds the violations Check spells out in its error; the
// count of all of them is always reported.
const maxCheckReport = 10

// validPrints checks winnowing fingerprints: a non-negative content-word
// count, and every print's position (its low 32 bits) inside the text.
func validPrints(url string, prints []uint64, words int) error {
	if words < 0 {
		return fmt.Errorf("%w: %s has %d content words", ErrInvalid, url, words)
	}
	for _, p := range prints {
		if pos := p & (1<<32 - 1); pos >= uint64(words) {
			return fmt.Errorf("%w: %s has a winnowing print at word %d of %d", ErrInvalid, url, pos, words)
		}
	}
	return nil
}

// validPartial checks a partial reprint's record: PartialOf, OwnShare and
// Passages come together, the share is in [0, 1] and passages have
// non-negative starts and positive lengths.
func validPartial(url string, a *Article) error {
	if a.PartialOf < 0 {
		return fmt.Errorf("%w: article %s has partial_of %d", ErrInvalid, url, a.PartialOf)
	}
	if a.PartialOf == 0 {
		if a.OwnShare != 0 || len(a.Passages) > 0 {
			return fmt.Errorf("%w: article %s has shared passages or an own share but no partial_of", ErrInvalid, url)
		}
		return nil
	}
	if math.IsNaN(a.OwnShare) || a.OwnShare < 0 || a.OwnShare > 1 {
		return fmt.Errorf("%w: article %s has own share %g outside [0, 1]", ErrInvalid, url, a.OwnShare)
	}
	for _, p := range a.Passages {
		if p.Start < 0 || p.OtherStart < 0 || p.Len <= 0 || p.Start > math.MaxInt32 || p.OtherStart > math.MaxInt32 || p.Len > math.MaxInt32 {
			return fmt.Errorf("%w: article %s has a shared passage %+v", ErrInvalid, url, p)
		}
	}
	return nil
}

// validRaw checks a raw response: only with a stored article, and with an
// HTTP status of three digits.
func (c *Commit) validRaw() error {
	p := &c.Page
	if c.Raw == nil {
		return nil
	}
	if p.Outcome != OutcomeStored {
		return fmt.Errorf("%w: raw response of %s with outcome %s (only stored articles keep theirs)", ErrInvalid, p.URL, p.Outcome)
	}
	if c.Raw.Status < 100 || c.Raw.Status > 999 {
		return fmt.Errorf("%w: raw response of %s has status %d", ErrInvalid, p.URL, c.Raw.Status)
	}
	return nil
}

// validPages checks the records of multi-page articles: a Part page names
// another URL as its article and carries nothing else; PartOf is set only
// on Part pages; Parts come only with a stored or duplicate verdict, are
// distinct and differ from the page; an article's Pages start with its URL
// and hold PagesMissing; no URL is empty, holds a line break or is not
// UTF-8.
func (c *Commit) validPages() error {
	p := &c.Page
	switch {
	case p.Outcome == OutcomePart && (p.PartOf == "" || p.PartOf == p.URL):
		return fmt.Errorf("%w: part page %s names article %q", ErrInvalid, p.URL, p.PartOf)
	case p.Outcome != OutcomePart && p.PartOf != "":
		return fmt.Errorf("%w: page %s with outcome %s names part_of %q", ErrInvalid, p.URL, p.Outcome, p.PartOf)
	case len(c.Parts) > 0 && p.Outcome != OutcomeStored && p.Outcome != OutcomeDuplicate:
		return fmt.Errorf("%w: parts of %s with outcome %s", ErrInvalid, p.URL, p.Outcome)
	}
	if err := pageURLs("part_of", p.URL, []string{p.PartOf}, true); err != nil {
		return err
	}
	if err := pageURLs("parts", p.URL, c.Parts, false); err != nil {
		return err
	}
	if a := c.Article; a != nil && len(a.Pages)+len(a.PagesMissing) > 0 {
		if len(a.Pages) < 2 || a.Pages[0] != p.URL {
			return fmt.Errorf("%w: article %s has pages %q (page 1 must be the article)", ErrInvalid, p.URL, a.Pages)
		}
		if err := pageURLs("pages", "", a.Pages, false); err != nil {
			return err
		}
		for _, m := range a.PagesMissing {
			if m == p.URL || !slices.Contains(a.Pages, m) {
				return fmt.Errorf("%w: article %s: missing page %q is not one of its later pages", ErrInvalid, p.URL, m)
			}
		}
	}
	return nil
}

// pageURLs checks a list of page URLs: distinct, other than self, not
// empty (unless emptyOK), one line of valid UTF-8 each.
func pageURLs(what, self string, urls []string, emptyOK bool) error {
	seen := make(map[string]bool, len(urls))
	for _, u := range urls {
		switch {
		case u == "" && emptyOK:
			continue
		case u == "" || strings.ContainsAny(u, "\r\n") || !utf8.ValidString(u):
			return fmt.Errorf("%w: %s of %s: bad url %q", ErrInvalid, what, self, u)
		case u == self || seen[u]:
			return fmt.Errorf("%w: %s of %s: %q repeated", ErrInvalid, what, self, u)
		}
		seen[u] = true
	}
	return nil
}
