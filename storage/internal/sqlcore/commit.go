package sqlcore

import (
	"fmt"
	"slices"

	"github.com/newsdedup/newscrawl/storage"
)

// The rules of storage.Store's Commit, which every store applies in one
// transaction (or under one lock).

// Replace applies the already-decided rule to the outcome old a URL's page
// record has ("" when it has none): ErrAlreadyDecided when it is final;
// otherwise replace tells whether a non-final record is to be replaced.
func Replace(old string) (replace bool, err error) {
	switch {
	case old == "":
		return false, nil
	case storage.Outcome(old).Final():
		return false, fmt.Errorf("%w (%s)", storage.ErrAlreadyDecided, old)
	}
	return true, nil
}

// Decided is Store.Decided's answer for a page record's outcome o ("" when
// there is none): the outcome when it is final.
func Decided(o string) (storage.Outcome, bool) {
	if !storage.Outcome(o).Final() {
		return "", false
	}
	return storage.Outcome(o), true
}

// PartPage is the record of u, a later page of c's multi-page article
// (Commit.Parts): a page of outcome part pointing to c's page. A URL that
// already has a final record keeps it.
func PartPage(c *storage.Commit, u string) storage.Page {
	p := &c.Page
	return storage.Page{URL: u, Site: p.Site, RunID: p.RunID, Outcome: storage.OutcomePart, Status: p.Status,
		FetchedAt: p.FetchedAt, PartOf: p.URL}
}

// MissingDupOf is the error of a duplicate whose DupOf names no article.
func MissingDupOf(id int64) error { return fmt.Errorf("dup_of %d: %w", id, storage.ErrNotFound) }

// MissingPartialOf is the error of an article whose PartialOf names no
// article.
func MissingPartialOf(id int64) error {
	return fmt.Errorf("partial_of %d: %w", id, storage.ErrNotFound)
}

// DupTarget is the dup_of URL and cluster a duplicate is stored with: the
// ones the commit names, else those of the article it duplicates (url,
// cluster).
func DupTarget(d *storage.Duplicate, url string, cluster int64) (string, int64) {
	if d.DupOfURL != "" {
		url = d.DupOfURL
	}
	if d.Cluster != 0 {
		cluster = d.Cluster
	}
	return url, cluster
}

// Merges are the clusters a duplicate's commit merges into its own, in the
// order they are applied: ascending (one lock order for concurrent
// merges), each once. Every article and duplicate of a merged cluster
// moves into the duplicate's cluster, and each merge is logged for the
// change feed.
func Merges(d *storage.Duplicate) []int64 {
	merges := slices.Clone(d.Merges)
	slices.Sort(merges)
	return slices.Compact(merges)
}

// Assigned is what a commit's store assigned: the stored article's id and
// cluster, or the duplicate's dup_of URL and cluster.
type Assigned struct {
	ArticleID, ArticleCluster int64
	DupOfURL                  string
	DupCluster                int64
}

// Fill copies the assigned values into the committed article or
// duplicate, once its transaction has committed.
func (a Assigned) Fill(c *storage.Commit) {
	switch {
	case c.Article != nil:
		c.Article.ID, c.Article.Cluster = a.ArticleID, a.ArticleCluster
	case c.Duplicate != nil:
		c.Duplicate.DupOfURL, c.Duplicate.Cluster = a.DupOfURL, a.DupCluster
	}
}

// PageArgs are the values of p's PageCols.
func PageArgs(p *storage.Page) []any {
	return []any{p.URL, p.Site, p.RunID, string(p.Outcome), p.Status, p.ErrKind, p.Err, p.Permanent,
		NullTime(p.FetchedAt), NullTime(p.RetryAt), p.PartOf}
}

// ArticleArgs are the values of a's ArticleFields, stored for url.
func ArticleArgs(url string, a *storage.Article) []any {
	return []any{url, a.Site, a.RunID, a.Title, a.Text, NullTime(a.PublishedAt), a.Source, a.Author, a.Editor,
		NullTime(a.FetchedAt), a.ContentHash, a.Cluster, int64(a.Fingerprint.Simhash), PackSignature(a.Fingerprint.Signature),
		a.Fingerprint.Length, a.Fingerprint.Image, PackSignature(a.Fingerprint.Prints), a.Fingerprint.ContentWords,
		a.PartialOf, a.OwnShare, packPassages(a.Passages), joinLines(a.Pages), joinLines(a.PagesMissing), a.Channel}
}

// DuplicateArgs are the values of d's DuplicateCols, stored for url with
// that dup_of URL and cluster and its text encoded as text.
func DuplicateArgs(url string, d *storage.Duplicate, dupOfURL string, cluster int64, text any) []any {
	return []any{url, d.Site, d.RunID, d.DupOf, dupOfURL, cluster, d.Distance, d.Jaccard, d.Containment, d.Title, text,
		NullTime(d.PublishedAt), d.Source, d.Author, NullTime(d.FetchedAt), int64(d.Simhash), PackSignature(d.Signature),
		d.Reason, d.Image, d.ImageSimilarity, PackSignature(d.Prints), d.ContentWords, d.Channel}
}

// SurfaceArgs are the values of st's SurfaceCols.
func SurfaceArgs(st *storage.SurfaceState) []any {
	return []any{st.Key, st.Site, st.ETag, st.LastModified, NullTime(st.FetchedAt), st.Status, st.NewURLs, st.EmptyRuns,
		NullTime(st.NextDue), joinLines(st.Links)}
}
