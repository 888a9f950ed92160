// Package export writes the store's decisions as a corpus: one record per
// decided article URL (stored articles first, in id order, then duplicate
// verdicts in commit order), as JSON lines or CSV. Every record carries every
// key (null, or an empty CSV cell, where a key does not apply), so that a
// consumer never has to guess whether a key was dropped or empty.
//
// The JSONL form is the one ../shared/bench/score.py reads. Filters give an
// incremental export: only one run (--run) or only pages fetched at or after
// a time (--since), and only kept articles (--kept-only).
package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/storage"
)

// Source is what an export reads: the store's articles and duplicate
// verdicts, and an article by id (the article a partial reprint re-uses).
// storage.Store satisfies it.
type Source interface {
	Article(ctx context.Context, id int64) (storage.Article, error)
	Articles(ctx context.Context, fn func(storage.Article) error) error
	Duplicates(ctx context.Context, fn func(storage.Duplicate) error) error
}

// Filter selects the records of an export. The zero Filter selects all.
type Filter struct {
	KeptOnly bool      // only stored articles, no duplicate verdicts
	Since    time.Time // only records fetched at or after Since (zero: all)
	RunID    int64     // only records of this run (0: all)
	// Related adds each stored article's related articles (the related
	// key, LoadRelated); null on every record without it.
	Related bool
	// Channel keeps only records of this channel (newsroom, self_media,
	// unknown; see ValidChannel); "" keeps all. "unknown" also keeps the
	// records stored before channels were recorded.
	Channel string
}

// ValidChannel reports whether c is a channel a Filter can select.
func ValidChannel(c string) bool {
	return slices.Contains(extract.Channels, c)
}

func (f Filter) keep(run int64, fetched time.Time, channel string) bool {
	if f.RunID != 0 && run != f.RunID {
		return false
	}
	if f.Channel != "" && f.Channel != channel && !(f.Channel == extract.ChannelUnknown && channel == "") {
		return false
	}
	return f.Since.IsZero() || !fetched.Before(f.Since)
}

// Record is one exported line. Pointer fields are null when they do not
// apply: DupOf, Distance, Jaccard, Containment and Reason on kept articles,
// PublishedAt when no time was found, PartialOf, OwnShare and Passages
// unless the article is a partial reprint (reason "partial": it passed
// the near-duplicate test against PartialOf, but both add text of their
// own); Passages are the shared runs of content words, [start here, start
// there, length]. Pages and PagesMissing are null unless the article was
// stitched from several pages: then Pages lists every page in order (its
// URL first) and PagesMissing those that could not be fetched ([] when
// none), whose text the article lacks.
type Record struct {
	RunID        int64    `json:"run_id"`
	URL          string   `json:"url"`
	Site         string   `json:"site"`
	Kept         bool     `json:"kept"`
	DupOf        *string  `json:"dup_of"`
	Cluster      int64    `json:"cluster"`
	Title        string   `json:"title"`
	Text         string   `json:"text"`
	PublishedAt  *string  `json:"published_at"`
	Source       string   `json:"source"`
	Author       string   `json:"author"`
	Editor       string   `json:"editor"`
	FetchedAt    string   `json:"fetched_at"`
	Simhash      string   `json:"simhash"`
	Distance     *int     `json:"distance"`
	Jaccard      *float64 `json:"jaccard"`
	Containment  *float64 `json:"containment"`
	Reason       *string  `json:"reason"`
	PartialOf    *string  `json:"partial_of"`
	OwnShare     *float64 `json:"own_share"`
	Passages     [][3]int `json:"passages"`
	Pages        []string `json:"pages"`
	PagesMissing []string `json:"pages_missing"`
	// Representative is true on the cluster's original (clusters.go:
	// Representative), OriginalSource the cluster's 来源 (null when no
	// copy names one), Copies every copy of the cluster, on the
	// representative's record only (null elsewhere, and on a copy alone
	// in its cluster). All three are null without a cluster view.
	Representative *bool   `json:"representative"`
	OriginalSource *string `json:"original_source"`
	Copies         []Copy  `json:"copies"`
	// Related are the stored articles a stored article shares passages
	// with (Filter.Related; null without it, and on duplicate verdicts).
	Related []RelatedLink `json:"related"`
	// Channel is whose article the page is (newsroom, self_media,
	// unknown: extract.Article.Channel); null for a record stored before
	// channels were recorded.
	Channel *string `json:"channel"`
}

// Columns are the CSV header, in the order of Record's JSON keys.
var Columns = []string{"run_id", "url", "site", "kept", "dup_of", "cluster", "title", "text",
	"published_at", "source", "author", "editor", "fetched_at", "simhash",
	"distance", "jaccard", "containment", "reason", "partial_of", "own_share", "passages", "pages", "pages_missing",
	"representative", "original_source", "copies", "related", "channel"}

// FromArticle is the record of a stored article; partialOfURL is the URL
// of the article a partial reprint re-uses (a.PartialOf), "" otherwise.
func FromArticle(a storage.Article, partialOfURL string) Record {
	r := Record{
		RunID: a.RunID, URL: a.URL, Site: a.Site, Kept: true, Cluster: a.Cluster,
		Title: a.Title, Text: a.Text, PublishedAt: timePtr(a.PublishedAt),
		Source: a.Source, Author: a.Author, Editor: a.Editor,
		FetchedAt: formatTime(a.FetchedAt), Simhash: fmt.Sprintf("%016x", a.Fingerprint.Simhash),
		Channel: channelPtr(a.Channel),
	}
	if len(a.Pages) > 0 {
		r.Pages, r.PagesMissing = slices.Clone(a.Pages), append([]string{}, a.PagesMissing...)
	}
	if a.PartialOf != 0 {
		reason, own := "partial", a.OwnShare
		r.Reason, r.PartialOf, r.OwnShare = &reason, &partialOfURL, &own
		r.Passages = [][3]int{}
		for _, p := range a.Passages {
			r.Passages = append(r.Passages, [3]int{p.Start, p.OtherStart, p.Len})
		}
	}
	return r
}

// FromDuplicate is the record of a duplicate verdict. Reason is the
// engine's reason (dedup.Verdict.Reason: exact, jaccard, containment,
// short, hamming); stores written before reasons were kept give "".
func FromDuplicate(d storage.Duplicate) Record {
	dupOf, dist, jac, cont, reason := d.DupOfURL, d.Distance, d.Jaccard, d.Containment, d.Reason
	return Record{
		RunID: d.RunID, URL: d.URL, Site: d.Site, Kept: false, DupOf: &dupOf, Cluster: d.Cluster,
		Title: d.Title, Text: d.Text, PublishedAt: timePtr(d.PublishedAt),
		Source: d.Source, Author: d.Author, Editor: "",
		FetchedAt: formatTime(d.FetchedAt), Simhash: fmt.Sprintf("%016x", d.Simhash),
		Distance: &dist, Jaccard: &jac, Containment: &cont, Reason: &reason, Channel: channelPtr(d.Channel),
	}
}

// channelPtr is a record's channel: nil when none was recorded.
func channelPtr(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

// Each calls fn for every record f selects: stored articles in id order,
// then duplicate verdicts in commit order.
func Each(ctx context.Context, src Source, f Filter, fn func(Record) error) error {
	var cs *Clusters
	var reads *clusterReads
	var related map[int64][]RelatedLink
	if c, ok := src.(ClusterSource); ok {
		var err error
		if l, ok := src.(ClusterLookup); ok {
			if reads, err = newClusterReads(ctx, l, c); err == nil {
				defer reads.close()
			}
		} else {
			cs, err = LoadClusters(ctx, c)
		}
		if err != nil {
			return err
		}
		if f.Related {
			if related, err = LoadRelated(ctx, c); err != nil {
				return err
			}
		}
	}
	err := src.Articles(ctx, func(a storage.Article) error {
		if !f.keep(a.RunID, a.FetchedAt, a.Channel) {
			return nil
		}
		var of string
		if a.PartialOf != 0 {
			o, err := src.Article(ctx, a.PartialOf)
			if err != nil {
				return fmt.Errorf("partial_of of %s: %w", a.URL, err)
			}
			of = o.URL
		}
		r := FromArticle(a, of)
		if err := annotate(ctx, &r, cs, reads, a.ID, a.Source); err != nil {
			return err
		}
		if related != nil {
			r.Related = append([]RelatedLink{}, related[a.ID]...)
		}
		return fn(r)
	})
	if err != nil || f.KeptOnly {
		return err
	}
	if reads != nil {
		// The duplicates need no cluster counts: end their read (an open
		// read holds back SQLite's checkpoints and PostgreSQL's vacuum).
		reads.close()
	}
	return src.Duplicates(ctx, func(d storage.Duplicate) error {
		if !f.keep(d.RunID, d.FetchedAt, d.Channel) {
			return nil
		}
		r := FromDuplicate(d)
		if err := annotate(ctx, &r, cs, reads, 0, d.Source); err != nil {
			return err
		}
		return fn(r)
	})
}

// annotate sets r's cluster fields from the cluster view an export has:
// the whole store's (cs), one cluster at a time (reads), or none. article
// is the stored article's id, 0 for a duplicate.
func annotate(ctx context.Context, r *Record, cs *Clusters, reads *clusterReads, article int64, ownSource string) error {
	switch {
	case reads != nil:
		c, err := reads.of(ctx, r.Cluster, article, r.URL)
		if err != nil {
			return err
		}
		c.annotate(r, ownSource)
	case cs != nil:
		cs.annotate(r, ownSource)
	}
	return nil
}

// JSONL writes one JSON object per record and returns how many it wrote.
func JSONL(ctx context.Context, src Source, f Filter, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	err := Each(ctx, src, f, func(r Record) error {
		n++
		return enc.Encode(r)
	})
	if err != nil {
		return n, fmt.Errorf("export jsonl: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("export jsonl: %w", err)
	}
	return n, nil
}

// CSV writes a header row (Columns) and one row per record (RFC 4180
// quoting; texts keep their newlines inside quoted cells) and returns how
// many records it wrote. Null values are empty cells.
func CSV(ctx context.Context, src Source, f Filter, w io.Writer) (int, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(Columns); err != nil {
		return 0, fmt.Errorf("export csv: %w", err)
	}
	n := 0
	err := Each(ctx, src, f, func(r Record) error {
		n++
		return cw.Write(r.row())
	})
	if err != nil {
		return n, fmt.Errorf("export csv: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return n, fmt.Errorf("export csv: %w", err)
	}
	return n, nil
}

func (r Record) row() []string {
	return []string{
		strconv.FormatInt(r.RunID, 10), r.URL, r.Site, strconv.FormatBool(r.Kept), str(r.DupOf),
		strconv.FormatInt(r.Cluster, 10), r.Title, r.Text, str(r.PublishedAt), r.Source, r.Author,
		r.Editor, r.FetchedAt, r.Simhash, intStr(r.Distance), floatStr(r.Jaccard), floatStr(r.Containment),
		str(r.Reason), str(r.PartialOf), floatStr(r.OwnShare), passagesStr(r.Passages),
		listStr(r.Pages), listStr(r.PagesMissing), boolStr(r.Representative), str(r.OriginalSource), jsonStr(r.Copies), jsonStr(r.Related),
		str(r.Channel),
	}
}

// listStr is the CSV cell of a URL list: its JSON, empty when null.
func listStr(us []string) string {
	if us == nil {
		return ""
	}
	b, _ := json.Marshal(us) // []string always marshals
	return string(b)
}

// boolStr is the CSV cell of a nullable bool.
func boolStr(p *bool) string {
	if p == nil {
		return ""
	}
	return strconv.FormatBool(*p)
}

// jsonStr is the CSV cell of a list (Copies, Related): its JSON, empty
// when null.
func jsonStr[T any](xs []T) string {
	if xs == nil {
		return ""
	}
	b, _ := json.Marshal(xs) // Copy and RelatedLink always marshal
	return string(b)
}

// passagesStr is the CSV cell of Passages: their JSON, empty when null.
func passagesStr(ps [][3]int) string {
	if ps == nil {
		return ""
	}
	b, _ := json.Marshal(ps) // [][3]int always marshals
	return string(b)
}

// ParseSince reads a --since value: an RFC 3339 time, a date (2006-01-02,
// UTC) or a duration before now (e.g. 24h).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("since %q: negative duration", s)
		}
		return now.Add(-d), nil
	}
	return time.Time{}, errors.New("since " + strconv.Quote(s) + ": want an RFC 3339 time (2026-11-23T08:00:00Z), a date (2026-11-23) or a duration (24h)")
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func intStr(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func floatStr(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}
