// Package warcexport writes the store's corpus as a WARC/1.1 file (ISO
// 28500:2017, https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/)
// with github.com/nlnwa/gowarc, so that it can be archived and replayed
// with the tools of web archives.
//
// A stored article whose raw HTTP response the store kept (fetch.keep_raw,
// storage.RawStore) is a "response" record (application/http;
// msgtype=response: status line, headers, body; the body is kept
// decompressed, so Content-Encoding is gone and Content-Length is the
// kept body's) followed by a "conversion" record of the extracted title and
// text (WARC-Refers-To the response). Without a raw response, the article
// is a "resource" record of its title and text (text/plain;
// charset=utf-8). Either way a "metadata" record follows
// (WARC-Concurrent-To the article's record) holding the export record as
// JSON (source, author, times, cluster, fingerprint). A page dropped as a near-duplicate is a
// "revisit" record pointing at the stored original (WARC-Refers-To,
// WARC-Refers-To-Target-URI, WARC-Refers-To-Date) as Heritrix does for
// identical payloads; since a near-duplicate's payload is not identical,
// its WARC-Profile is NearDuplicateProfile, and its block is the verdict
// (application/warc-fields: reason, distance, jaccard, containment).
//
// Record ids are name-based UUIDs (RFC 9562 version 5) of the URL, so an
// incremental export (one run, or since a time) can refer to an original
// written by an earlier export.
package warcexport

import (
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/nlnwa/gowarc"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/storage"
)

// SpecURI is the WARC 1.1 specification (IIPC's published text of ISO
// 28500:2017).
const SpecURI = "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"

// NearDuplicateProfile is the WARC-Profile of a revisit record for a page
// dropped as a near-duplicate of the record it refers to. WARC 1.1 defines
// two profiles, http://netpreserve.org/warc/1.1/revisit/identical-payload-digest
// (the payload's digest equals the original's) and .../server-not-modified
// (a 304), and neither holds for a near-duplicate: its payload differs
// from the original's. Its section "Other profiles" allows further
// profiles "recording the apparent magnitude of difference from the
// previous visit", which is what this record does (distance, Jaccard,
// containment), so the profile is named by that section's URI: a reader
// that does not know it must not interpret the record (section 6.7), and
// never mistakes it for an identical copy.
const NearDuplicateProfile = SpecURI + "#other-profiles"

// Options control an export.
type Options struct {
	Filter export.Filter
	// Gzip compresses every record as its own gzip member (the .warc.gz
	// convention that lets readers seek to a record).
	Gzip bool
	// Software names the writer in the warcinfo record.
	Software string
	// Now stamps the warcinfo record.
	Now time.Time
}

// Counts are the records written, by type.
type Counts struct {
	Response, Conversion, Resource, Metadata, Revisit int
}

// Articles is the number of stored articles written (a response or a
// resource record each).
func (c Counts) Articles() int { return c.Response + c.Resource }

// RecordID is the WARC-Record-ID of the record of kind for url: "article"
// (the response or resource record of a stored article, which revisit
// records refer to), "conversion", "metadata" or "revisit".
func RecordID(kind, url string) string {
	return "<urn:uuid:" + uuid.NewSHA1(uuid.NameSpaceURL, []byte("newscrawl:"+kind+":"+url)).String() + ">"
}

// Write writes a warcinfo record and then, for every record the filter
// selects, the records described in the package comment.
func Write(ctx context.Context, src export.Source, w io.Writer, o Options) (Counts, error) {
	var c Counts
	m := gowarc.NewMarshaler()
	put := func(rec gowarc.WarcRecord) error {
		defer rec.Close()
		if !o.Gzip {
			_, _, err := m.Marshal(w, rec, 0)
			return err
		}
		gz := gzip.NewWriter(w)
		if _, _, err := m.Marshal(gz, rec, 0); err != nil {
			return err
		}
		return gz.Close()
	}
	software := o.Software
	if software == "" {
		software = "newscrawl"
	}
	info := "software: " + software + "\r\nformat: WARC File Format 1.1\r\nconformsTo: " + SpecURI + "\r\n" +
		"description: newscrawl corpus export: stored articles as resource records (extracted text) or response records (as fetched), near-duplicates as revisit records whose block gives the reason, Hamming distance, SpotSigs Jaccard and containment against the original they refer to\r\n"
	rec, err := build(gowarc.Warcinfo, map[string]string{
		gowarc.WarcRecordID: "<urn:uuid:" + uuid.NewString() + ">",
		gowarc.WarcDate:     warcDate(cmp.Or(o.Now, time.Now())),
		gowarc.ContentType:  "application/warc-fields",
	}, info)
	if err == nil {
		err = put(rec)
	}
	if err != nil {
		return c, fmt.Errorf("warc export: warcinfo: %w", err)
	}
	raws, _ := src.(storage.RawStore)
	err = export.Each(ctx, src, o.Filter, func(r export.Record) error {
		if r.Kept {
			var raw *storage.RawResponse
			if raws != nil {
				x, err := raws.Raw(ctx, r.URL)
				switch {
				case err == nil:
					raw = &x
				case !errors.Is(err, storage.ErrNotFound):
					return err
				}
			}
			if err := writeArticle(put, r, raw); err != nil {
				return fmt.Errorf("%s: %w", r.URL, err)
			}
			if raw != nil {
				c.Response++
				c.Conversion++
			} else {
				c.Resource++
			}
			c.Metadata++
			return nil
		}
		if err := writeRevisit(ctx, put, src, r); err != nil {
			return fmt.Errorf("%s: %w", r.URL, err)
		}
		c.Revisit++
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("warc export: %w", err)
	}
	return c, nil
}

func writeArticle(put func(gowarc.WarcRecord) error, r export.Record, raw *storage.RawResponse) error {
	date := r.FetchedAt
	if date == "" {
		return fmt.Errorf("no fetch time")
	}
	resID := RecordID("article", r.URL)
	text := r.Title + "\n\n" + r.Text + "\n"
	if raw != nil {
		rec, err := build(gowarc.Response, map[string]string{
			gowarc.WarcRecordID:  resID,
			gowarc.WarcDate:      date,
			gowarc.WarcTargetURI: r.URL,
			gowarc.ContentType:   "application/http;msgtype=response",
		}, httpMessage(raw))
		if err != nil {
			return err
		}
		if err := put(rec); err != nil {
			return err
		}
		rec, err = build(gowarc.Conversion, map[string]string{
			gowarc.WarcRecordID:  RecordID("conversion", r.URL),
			gowarc.WarcDate:      date,
			gowarc.WarcTargetURI: r.URL,
			gowarc.WarcRefersTo:  resID,
			gowarc.ContentType:   "text/plain; charset=utf-8",
		}, text)
		if err != nil {
			return err
		}
		if err := put(rec); err != nil {
			return err
		}
	} else {
		rec, err := build(gowarc.Resource, map[string]string{
			gowarc.WarcRecordID:  resID,
			gowarc.WarcDate:      date,
			gowarc.WarcTargetURI: r.URL,
			gowarc.ContentType:   "text/plain; charset=utf-8",
		}, text)
		if err != nil {
			return err
		}
		if err := put(rec); err != nil {
			return err
		}
	}
	meta, err := json.Marshal(r)
	if err != nil {
		return err
	}
	rec, err := build(gowarc.Metadata, map[string]string{
		gowarc.WarcRecordID:     RecordID("metadata", r.URL),
		gowarc.WarcDate:         date,
		gowarc.WarcTargetURI:    r.URL,
		gowarc.WarcConcurrentTo: resID,
		gowarc.ContentType:      "application/json",
	}, string(meta)+"\n")
	if err != nil {
		return err
	}
	return put(rec)
}

// originalStore is what a revisit record needs of the stored original: its
// fetch time (WARC-Refers-To-Date). storage.Store has it.
type originalStore interface {
	ArticleByURL(ctx context.Context, url string) (storage.Article, error)
}

func writeRevisit(ctx context.Context, put func(gowarc.WarcRecord) error, src export.Source, r export.Record) error {
	origURL := *r.DupOf
	h := map[string]string{
		gowarc.WarcRecordID:          RecordID("revisit", r.URL),
		gowarc.WarcDate:              r.FetchedAt,
		gowarc.WarcTargetURI:         r.URL,
		gowarc.WarcProfile:           NearDuplicateProfile,
		gowarc.WarcRefersTo:          RecordID("article", origURL),
		gowarc.WarcRefersToTargetURI: origURL,
		gowarc.ContentType:           "application/warc-fields",
	}
	if os, ok := src.(originalStore); ok {
		a, err := os.ArticleByURL(ctx, origURL)
		if err != nil {
			return fmt.Errorf("original %s: %w", origURL, err)
		}
		if !a.FetchedAt.IsZero() {
			h[gowarc.WarcRefersToDate] = warcDate(a.FetchedAt)
		}
	}
	var b strings.Builder
	field := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	field("verdict", "near-duplicate")
	field("reason", *r.Reason)
	field("dup-of", origURL)
	field("cluster", strconv.FormatInt(r.Cluster, 10))
	field("hamming-distance", strconv.Itoa(*r.Distance))
	field("spotsigs-jaccard", strconv.FormatFloat(*r.Jaccard, 'g', -1, 64))
	field("spotsigs-containment", strconv.FormatFloat(*r.Containment, 'g', -1, 64))
	field("simhash", r.Simhash)
	rec, err := build(gowarc.Revisit, h, b.String())
	if err != nil {
		return err
	}
	return put(rec)
}

func build(t gowarc.RecordType, headers map[string]string, block string) (gowarc.WarcRecord, error) {
	var ordered [][2]string
	for _, k := range []string{gowarc.WarcRecordID, gowarc.WarcDate, gowarc.WarcTargetURI, gowarc.WarcProfile,
		gowarc.WarcRefersTo, gowarc.WarcRefersToTargetURI, gowarc.WarcRefersToDate, gowarc.WarcConcurrentTo, gowarc.ContentType} {
		if v, ok := headers[k]; ok {
			ordered = append(ordered, [2]string{k, v})
		}
	}
	return buildRecord(t, ordered, []byte(block))
}

func warcDate(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// httpMessage is raw as an HTTP/1.1 response message: status line,
// headers (sorted, as http.Header.Write writes them), empty line, body.
func httpMessage(raw *storage.RawResponse) string {
	var b strings.Builder
	proto := raw.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", proto, raw.Status, http.StatusText(raw.Status))
	_ = raw.Header.Write(&b) // a strings.Builder does not fail
	b.WriteString("\r\n")
	b.Write(raw.Body)
	return b.String()
}
