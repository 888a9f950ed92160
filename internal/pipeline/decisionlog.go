package pipeline

import (
	"math"

	"github.com/newsdedup/newscrawl/storage"
)

// logDecision logs a committed outcome at Info level (-v): one line per
// decided URL, named by its outcome as the store, the summary and the
// report name it: "stored" (with the cluster, and for a partial reprint
// the article it shares passages with and its own share), "duplicate"
// (the stored article it duplicates, the reason, Hamming distance,
// Jaccard and containment), "not_article" (why) or "part" (a later page
// of a multi-page article reached alone, with the article it belongs to;
// the pages of an article committed with it are counted on its "stored"
// line). Errors are logged
// where they are recorded (commitFailure, the crawler).
func (p *Processor) logDecision(c *storage.Commit) {
	pg := c.Page
	switch {
	case c.Article != nil:
		a := c.Article
		args := []any{"site", pg.Site, "url", pg.URL, "article", a.ID, "cluster", a.Cluster}
		if a.PartialOf != 0 {
			args = append(args, "reason", "partial", "partial_of", a.PartialOf, "own_share", round3(a.OwnShare))
		}
		if len(a.Pages) > 0 {
			args = append(args, "pages", len(a.Pages), "pages_missing", len(a.PagesMissing))
		}
		p.log.Info(string(storage.OutcomeStored), args...)
	case c.Duplicate != nil:
		d := c.Duplicate
		var of any = d.DupOfURL
		if d.DupOfURL == "" {
			of = d.DupOf // the shared store names the URL at commit
		}
		p.log.Info(string(storage.OutcomeDuplicate), "site", pg.Site, "url", pg.URL, "dup_of", of, "reason", d.Reason,
			"hamming", d.Distance, "jaccard", round3(d.Jaccard), "containment", round3(d.Containment), "cluster", d.Cluster)
	case pg.Outcome == storage.OutcomeNotArticle:
		p.log.Info(string(storage.OutcomeNotArticle), "site", pg.Site, "url", pg.URL, "why", pg.Err)
	case pg.Outcome == storage.OutcomePart:
		p.log.Info(string(storage.OutcomePart), "site", pg.Site, "url", pg.URL, "part_of", pg.PartOf)
	}
}

// round3 rounds a similarity to 3 decimals for the log.
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
