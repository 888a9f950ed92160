package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// selectorList is a repeatable string flag (--remove SEL --remove SEL).
type selectorList []string

func (s *selectorList) String() string     { return strings.Join(*s, ", ") }
func (s *selectorList) Set(v string) error { *s = append(*s, v); return nil }

// extractOutput is the JSON printed by `extract`.
type extractOutput struct {
	Title         string `json:"title"`
	Text          string `json:"text"`
	PublishedAt   string `json:"published_at,omitempty"` // RFC 3339
	Source        string `json:"source,omitempty"`
	Author        string `json:"author,omitempty"`
	Editor        string `json:"editor,omitempty"`
	Method        string `json:"method"`
	SecondOpinion string `json:"second_opinion,omitempty"`
	LeadImage     string `json:"lead_image,omitempty"`
	Truncated     bool   `json:"truncated,omitempty"` // a stub: the text is the start of the article
	Canonical     string `json:"canonical,omitempty"` // the page's canonical variant, when another URL
	// Notes say what a limit kept extraction from reading.
	Notes []string `json:"notes,omitempty"`
	// SelectorMisses names the selectors given (--body, the site's
	// extract.*) that matched nothing: the generic rule was used.
	SelectorMisses []string `json:"selector_misses,omitempty"`
	Charset        string   `json:"charset"`
	CharsetFrom    string   `json:"charset_from"`
	// Pages are, for a URL whose pager names other pages (a multi-page
	// article: the crawl stitches them), the article's page URLs in order,
	// and Page this one's number (1: page 1); absent otherwise. The pager
	// is read by the generic rule, or by the extract.pager selector of the
	// --site entry covering the URL.
	Pages []string `json:"pages,omitempty"`
	Page  int      `json:"page,omitempty"`
}

// cmdExtract prints the article of one page as JSON:
//
//	newscrawl extract FILE_OR_URL [--site FILE] [--charset X] [--remove SEL]...
//
// A URL is fetched as the crawler fetches a page (crawler.FetchPage): the
// configured user agent, robots.txt, the body limit, and redirects and meta
// refreshes kept on the URL's host (or the allowed_domains of the site of
// --site that covers it) within fetch.max_redirects.
func cmdExtract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("extract", stderr)
	charsetFlag := fs.String("charset", "", "decode with this charset instead of detecting it (a site override)")
	var remove selectorList
	fs.Var(&remove, "remove", "CSS selector of elements to delete before extraction (repeatable)")
	bodySel := fs.String("body", "", "CSS selector of the article body (skips detection)")
	site := fs.String("site", "", "site file whose user agent, fetch limits and site scope apply to a URL (default: the built-in defaults)")
	// Flags may come before or after the positional argument.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usageError{err}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return usagef("want exactly one FILE_OR_URL, got %d", len(pos))
	}
	if *charsetFlag != "" && decode.Lookup(*charsetFlag) == "" {
		return usagef("unknown charset %q", *charsetFlag)
	}
	ex, err := extract.New(extract.Options{Remove: remove, BodySelector: *bodySel})
	if err != nil {
		return usageError{err}
	}
	target := pos[0]
	var body []byte
	contentType := ""
	pageURL, pagerSel := "", ""
	var fetchedAt time.Time
	charset := *charsetFlag
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		cfg := config.Default()
		if *site != "" {
			if cfg, err = config.Load(*site); err != nil {
				return usageError{err}
			}
		}
		resp, err := crawler.FetchPage(ctx, &cfg, memory.New(), target)
		if err != nil {
			return fmt.Errorf("fetch %s: %w", target, err)
		}
		pageURL, body, contentType, fetchedAt = resp.URL, resp.Body, resp.Header.Get("Content-Type"), resp.FetchedAt
		pagerSel = resp.Site.Extract.Pager
		if charset == "" {
			charset = resp.Site.Charset
		}
	} else {
		body, err = pipeline.ReadLimited(target, pipeline.MaxPageBytes)
	}
	if err != nil {
		return err
	}
	art, dec, err := pipeline.ExtractPage(ex, pipeline.Page{URL: pageURL, Body: body, ContentType: contentType, Charset: charset, FetchedAt: fetchedAt})
	var de *pipeline.DecodeError
	if errors.As(err, &de) {
		return de.Err
	}
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	out := extractOutput{
		Title: art.Title, Text: art.Text, Source: art.Source, Author: art.Author, Editor: art.Editor,
		Method: art.Method, SecondOpinion: art.SecondOpinion, LeadImage: art.LeadImage, SelectorMisses: art.SelectorMisses,
		Charset: dec.Charset, CharsetFrom: dec.Source,
		Truncated: art.Truncated, Canonical: art.Canonical, Notes: art.Notes,
	}
	if !art.PublishedAt.IsZero() {
		out.PublishedAt = art.PublishedAt.Format(time.RFC3339)
	}
	if pageURL != "" {
		if pg, err := extract.FindPager(pageURL, dec.Body, pagerSel); err == nil && pg.Multi() {
			out.Pages, out.Page = pg.Pages, pg.Current+1
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
