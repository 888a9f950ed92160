package discovery

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
)

// FeedResult is what one feed gave.
type FeedResult struct {
	Links      []Link
	Type       string // "rss", "atom" or "json"
	Charset    string // the charset the bytes were read in
	Note       string // a declared charset the bytes contradicted, or bad bytes replaced; "" when none
	Items      int
	Skipped    int  // items without a usable http(s) link
	Duplicates int  // items whose link an earlier item already gave
	Truncated  bool // more than MaxURLs links: the first MaxURLs kept
}

// jsonFeedVersionHost is in the version URL every JSON Feed carries
// ("https://jsonfeed.org/version/1.1"); other JSON is not a feed.
const jsonFeedVersionHost = "jsonfeed.org/version/"

// ParseFeed reads RSS 0.9-2.0, Atom or JSON Feed in any charset (declared
// in the XML prolog, the Content-Type, or neither; a feed declaring one
// charset and sending another is read in the charset its bytes are, or is
// ErrCharset when no candidate decodes them cleanly; see decodeFeed).
func ParseFeed(body []byte, contentType string, base *url.URL, lim Limits) ([]Link, error) {
	r, err := ParseFeedResult(body, contentType, base, lim)
	return r.Links, err
}

// ParseFeedResult is ParseFeed with counts and the charset decision. The
// bytes are decoded to UTF-8 here rather than by gofeed: gofeed applies
// only the XML prolog's encoding (never the Content-Type) and cannot tell
// when the declared charset is wrong, which turns a UTF-8 feed declaring
// GBK (as portal pages do) into mojibake without an error.
func ParseFeedResult(body []byte, contentType string, base *url.URL, lim Limits) (FeedResult, error) {
	lim = lim.orDefault()
	raw, err := readDocument(body, lim.MaxBytes)
	if err != nil {
		return FeedResult{}, err
	}
	dec, err := decodeFeed(raw, contentType)
	if err != nil {
		return FeedResult{}, err
	}
	text := trimBOMSpace(dec.text)
	var res FeedResult
	switch {
	case len(text) > 0 && text[0] == '<':
		err = checkXMLDepth(text, lim.MaxDepth)
	case len(text) > 0 && text[0] == '{':
		err = checkDepth(text, lim.MaxDepth)
	default:
		return FeedResult{}, fmt.Errorf("%w: starts %q", ErrNotFeed, excerpt(text))
	}
	if err != nil {
		return FeedResult{}, err
	}
	feed, err := parseGofeed(text)
	if err != nil {
		return FeedResult{}, fmt.Errorf("%w: %v; starts %q", ErrNotFeed, err, excerpt(text))
	}
	if feed.FeedType == "json" && !strings.Contains(feed.FeedVersion, jsonFeedVersionHost) {
		return FeedResult{}, fmt.Errorf("%w: json without a JSON Feed version; starts %q", ErrNotFeed, excerpt(text))
	}
	res = feedLinks(feed, base, lim)
	res.Charset, res.Note = dec.charset, dec.note
	return res, nil
}

// parseGofeed runs gofeed on UTF-8 text. gofeed is third-party code
// reading hostile input; should it panic, the feed is reported as not a
// feed rather than ending the crawl.
func parseGofeed(text []byte) (feed *gofeed.Feed, err error) {
	defer func() {
		if r := recover(); r != nil {
			feed, err = nil, fmt.Errorf("feed parser failed: %v", r)
		}
	}()
	return gofeed.NewParser().Parse(bytes.NewReader(text))
}

// readDocument returns the document's bytes, gunzipped when they start
// with the gzip magic, failing with ErrTooLarge past max bytes.
func readDocument(body []byte, max int64) ([]byte, error) {
	if !bytes.HasPrefix(body, []byte(gzipMagic)) {
		if int64(len(body)) > max {
			return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(body), max)
		}
		return body, nil
	}
	r, err := openDocument(body, max)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: bad gzip stream: %v", ErrNotFeed, err)
	}
	return b, nil
}

// feedLinks makes the links of the feed's items.
func feedLinks(feed *gofeed.Feed, base *url.URL, lim Limits) FeedResult {
	res := FeedResult{Type: feed.FeedType, Items: len(feed.Items)}
	seen := make(map[string]bool, len(feed.Items))
	for _, it := range feed.Items {
		if it == nil {
			res.Skipped++
			continue
		}
		raw := itemLink(it)
		abs, ok := resolve(raw, base)
		if !ok {
			res.Skipped++
			continue
		}
		if seen[abs] {
			res.Duplicates++
			continue
		}
		if len(res.Links) >= lim.MaxURLs {
			res.Truncated = true
			break
		}
		seen[abs] = true
		res.Links = append(res.Links, Link{URL: abs, Time: itemTime(it), Title: strings.TrimSpace(it.Title)})
	}
	return res
}

// itemLink is the item's link, else its first other link, else its id
// when that is an http(s) URL (RSS guid permalinks, JSON Feed ids).
func itemLink(it *gofeed.Item) string {
	if strings.TrimSpace(it.Link) != "" {
		return it.Link
	}
	for _, l := range it.Links {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	if g := strings.TrimSpace(it.GUID); strings.HasPrefix(g, "http://") || strings.HasPrefix(g, "https://") {
		return g
	}
	return ""
}

// itemTime prefers this package's reading of the published (else updated)
// string, which takes zone-less times as China Standard Time as the
// portals mean them, over gofeed's, which takes them as UTC.
func itemTime(it *gofeed.Item) (t0 time.Time) {
	for _, s := range []string{it.Published, it.Updated} {
		if t, ok := ParseTime(s, nil); ok {
			return t
		}
	}
	switch {
	case it.PublishedParsed != nil:
		return *it.PublishedParsed
	case it.UpdatedParsed != nil:
		return *it.UpdatedParsed
	}
	return t0
}
