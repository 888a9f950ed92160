package discovery

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// Sitemap is a parsed sitemap (urlset) or sitemap index.
type Sitemap struct {
	Index     bool   // a sitemapindex: Sitemaps holds its sitemaps
	Sitemaps  []Link // the sitemaps of an index (Time from lastmod)
	URLs      []Link // the pages of a urlset
	Truncated bool   // more than MaxURLs: first MaxURLs kept
	Skipped   int    // entries without a usable http(s) loc
}

// sitemapEntry holds the fields of a <url> or <sitemap> element that make
// a link. Elements are matched by local name, so news:news and
// news:publication_date are found whatever prefix the file binds to the
// Google News namespace.
type sitemapEntry struct {
	Loc, Lastmod string
	News         struct{ PublicationDate, Title string }
}

// gzipMagic starts every gzip stream (RFC 1952).
const gzipMagic = "\x1f\x8b"

// sniffLen is how much of a decompressed sitemap is looked at to tell XML
// from a text sitemap.
const sniffLen = 512

// ParseSitemap reads a sitemap (urlset) or sitemap index; gzip detected by
// magic bytes and decompressed under MaxBytes (gzip bomb -> ErrTooLarge).
// Google News tags (news:publication_date, news:title) and lastmod fill
// Time/Title (a date without a zone is read as China Standard Time, as
// ParseTime does). A text sitemap (one URL per line, as sitemaps.org
// allows) is read too. Anything else (HTML, a feed, a broken gzip stream)
// is ErrNotSitemap. More than
// lim.MaxURLs entries: the first MaxURLs are kept and Truncated is set.
// On an XML syntax error after some entries, those entries are returned
// with the error.
func ParseSitemap(body []byte, base *url.URL, lim Limits) (Sitemap, error) {
	lim = lim.orDefault()
	r, err := openDocument(body, lim.MaxBytes)
	if err != nil {
		return Sitemap{}, err
	}
	br := bufio.NewReaderSize(r, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, ErrTooLarge) {
			return Sitemap{}, err
		}
		return Sitemap{}, fmt.Errorf("%w: %v", ErrNotSitemap, err)
	}
	head = trimBOMSpace(head)
	if len(head) == 0 {
		return Sitemap{}, fmt.Errorf("%w: empty document", ErrNotSitemap)
	}
	var sm Sitemap
	if head[0] != '<' {
		sm, err = parseTextSitemap(br, lim, head)
	} else {
		sm, err = parseXMLSitemap(br, base, lim)
	}
	if errors.Is(err, ErrNotSitemap) && bytes.HasPrefix(body, []byte(gzipMagic)) {
		// A decompression bomb is reported as one whatever it inflates to.
		if _, derr := io.Copy(io.Discard, br); errors.Is(derr, ErrTooLarge) {
			err = derr
		}
	}
	if errors.Is(err, ErrTooLarge) {
		return Sitemap{}, err
	}
	return sm, err
}

// openDocument returns a reader of the document's bytes, gunzipped when
// they start with the gzip magic, that fails with ErrTooLarge past max
// bytes.
func openDocument(body []byte, max int64) (io.Reader, error) {
	if !bytes.HasPrefix(body, []byte(gzipMagic)) {
		if int64(len(body)) > max {
			return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(body), max)
		}
		return bytes.NewReader(body), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: bad gzip stream: %v", ErrNotSitemap, err)
	}
	return &capReader{r: zr, left: max, max: max}, nil
}

// capReader passes at most max bytes through and then fails with
// ErrTooLarge if there are more, so a decompression bomb stops at the
// limit instead of filling memory.
type capReader struct {
	r         io.Reader
	left, max int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var probe [1]byte
		n, err := io.ReadFull(c.r, probe[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes decompressed", ErrTooLarge, c.max)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// parseXMLSitemap streams the entries of a urlset or sitemapindex. It
// reads raw tokens and keeps only the few fields it needs: decoding each
// <url> by reflection was 2-3 times slower on a 50,000-URL news sitemap.
func parseXMLSitemap(r io.Reader, base *url.URL, lim Limits) (Sitemap, error) {
	d := xml.NewDecoder(r)
	d.Strict = false // unescaped & in URLs is a common sitemap mistake
	d.CharsetReader = charset.NewReaderLabel
	root, err := rootElement(d)
	if err != nil {
		return Sitemap{}, err
	}
	sc := sitemapScan{loc: chinaZone()}
	switch root.Name.Local {
	case "urlset":
		sc.child = "url"
	case "sitemapindex":
		sc.sm.Index, sc.child = true, "sitemap"
	default:
		return Sitemap{}, fmt.Errorf("%w: root element <%s>, want <urlset> or <sitemapindex>", ErrNotSitemap, root.Name.Local)
	}
	sc.stack = append(sc.stack, root.Name.Local)
	for len(sc.stack) > 0 {
		tok, err := d.RawToken()
		if err != nil {
			return sc.sm, sitemapReadError(err, sc.sm)
		}
		if more, err := sc.token(tok, base, lim); err != nil || !more {
			return sc.sm, err
		}
	}
	return sc.sm, nil
}

// maxXMLDepth bounds element nesting in a sitemap (sitemaps nest 4 deep
// with the news extension).
const maxXMLDepth = 32

// maxFieldLen bounds the text kept of one field (sitemaps.org: URLs under
// 2,048 characters).
const maxFieldLen = 8 * 1024

// sitemapScan is the state of a raw-token walk over a sitemap.
type sitemapScan struct {
	sm    Sitemap
	child string   // "url" or "sitemap"
	stack []string // local names of the open elements, root first
	entry sitemapEntry
	field *string // the entry field whose text is being read
	text  []byte
	loc   *time.Location // zone of times without one
}

// token handles one raw token; it reports false when the walk should end
// (the URL limit passed).
func (sc *sitemapScan) token(tok xml.Token, base *url.URL, lim Limits) (bool, error) {
	switch t := tok.(type) {
	case xml.StartElement:
		if len(sc.stack) >= maxXMLDepth {
			return false, fmt.Errorf("sitemap: elements nested deeper than %d", maxXMLDepth)
		}
		sc.stack = append(sc.stack, t.Name.Local)
		sc.startField(t.Name.Local)
	case xml.EndElement:
		depth := len(sc.stack)
		if sc.field != nil {
			*sc.field = string(sc.text)
			sc.field = nil
		}
		sc.stack = sc.stack[:depth-1]
		if depth == 2 && t.Name.Local == sc.child {
			if !sc.sm.add(sc.entry, base, lim, sc.loc) {
				return false, nil
			}
			sc.entry = sitemapEntry{}
		}
	case xml.CharData:
		if sc.field != nil && len(sc.text)+len(t) <= maxFieldLen {
			sc.text = append(sc.text, t...)
		}
	}
	return true, nil
}

// startField points field at the entry field the element just opened
// holds: loc and lastmod directly under the entry, publication_date and
// title directly under news:news.
func (sc *sitemapScan) startField(name string) {
	sc.field = nil
	depth := len(sc.stack)
	if depth < 3 || sc.stack[1] != sc.child {
		return
	}
	parent := sc.stack[depth-2]
	switch {
	case depth == 3 && name == "loc":
		sc.field = &sc.entry.Loc
	case depth == 3 && name == "lastmod":
		sc.field = &sc.entry.Lastmod
	case parent == "news" && name == "publication_date":
		sc.field = &sc.entry.News.PublicationDate
	case parent == "news" && name == "title":
		sc.field = &sc.entry.News.Title
	}
	sc.text = sc.text[:0]
}

// rootElement returns the first start element, skipping the prolog.
func rootElement(d *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := d.RawToken()
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return xml.StartElement{}, err
			}
			return xml.StartElement{}, fmt.Errorf("%w: no root element: %v", ErrNotSitemap, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se, nil
		}
	}
}

func sitemapReadError(err error, sm Sitemap) error {
	if errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("sitemap: after %d entries: %w", len(sm.URLs)+len(sm.Sitemaps)+sm.Skipped, err)
}

// add records one entry; it reports false once the URL limit is passed.
func (sm *Sitemap) add(e sitemapEntry, base *url.URL, lim Limits, loc *time.Location) bool {
	abs, ok := resolve(e.Loc, base)
	if !ok {
		sm.Skipped++
		return true
	}
	list := &sm.URLs
	if sm.Index {
		list = &sm.Sitemaps
	}
	if len(*list) >= lim.MaxURLs {
		sm.Truncated = true
		return false
	}
	l := Link{URL: abs, Title: strings.TrimSpace(e.News.Title)}
	if t, ok := ParseTime(e.News.PublicationDate, loc); ok {
		l.Time = t
	} else if t, ok := ParseTime(e.Lastmod, loc); ok {
		l.Time = t
	}
	*list = append(*list, l)
	return true
}

// maxTextLine bounds a text sitemap's line (sitemaps.org: URLs under
// 2,048 characters).
const maxTextLine = 64 * 1024

// parseTextSitemap reads a text sitemap: one absolute URL per line. A
// first line that is not an http(s) URL makes the document ErrNotSitemap
// (a JSON or plain-text answer); later bad lines are skipped and counted.
func parseTextSitemap(r io.Reader, lim Limits, head []byte) (Sitemap, error) {
	first, _, _ := bytes.Cut(head, []byte("\n"))
	if _, ok := resolve(string(bytes.TrimSpace(first)), nil); !ok {
		return Sitemap{}, fmt.Errorf("%w: starts %q", ErrNotSitemap, excerpt(head))
	}
	var sm Sitemap
	loc := chinaZone()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTextLine)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), utf8BOM))
		if line == "" {
			continue
		}
		if !sm.add(sitemapEntry{Loc: line}, nil, lim, loc) { // text sitemaps list absolute URLs only
			return sm, nil
		}
	}
	if err := sc.Err(); err != nil {
		return sm, sitemapReadError(err, sm)
	}
	return sm, nil
}
