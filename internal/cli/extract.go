package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/decode"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// extractFetchTimeout bounds `extract URL`: a plain GET, refused (not
// truncated) when the body is larger than pipeline.MaxPageBytes after
// transfer decoding.
const extractFetchTimeout = 20 * time.Second

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
	Charset       string `json:"charset"`
	CharsetFrom   string `json:"charset_from"`
}

// cmdExtract prints the article of one page as JSON:
//
//	newscrawl extract FILE_OR_URL [--charset X] [--remove SEL]...
func cmdExtract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("extract", stderr)
	charsetFlag := fs.String("charset", "", "decode with this charset instead of detecting it (a site override)")
	var remove selectorList
	fs.Var(&remove, "remove", "CSS selector of elements to delete before extraction (repeatable)")
	bodySel := fs.String("body", "", "CSS selector of the article body (skips detection)")
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
		fs.Usage()
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
	pageURL := ""
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		pageURL = target
		body, contentType, err = fetchPage(ctx, target)
	} else {
		body, err = pipeline.ReadLimited(target, pipeline.MaxPageBytes)
	}
	if err != nil {
		return err
	}
	art, dec, err := pipeline.ExtractPage(ex, pipeline.Page{URL: pageURL, Body: body, ContentType: contentType, Charset: *charsetFlag})
	var de *pipeline.DecodeError
	if errors.As(err, &de) {
		return de.Err
	}
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	out := extractOutput{
		Title: art.Title, Text: art.Text, Source: art.Source, Author: art.Author, Editor: art.Editor,
		Method: art.Method, SecondOpinion: art.SecondOpinion, Charset: dec.Charset, CharsetFrom: dec.Source,
	}
	if !art.PublishedAt.IsZero() {
		out.PublishedAt = art.PublishedAt.Format(time.RFC3339)
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// fetchPage GETs url with a timeout and returns the body (after transfer
// decoding) and its Content-Type; a body over pipeline.MaxPageBytes is an error.
func fetchPage(ctx context.Context, url string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, extractFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, pipeline.MaxPageBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("GET %s: %w", url, err)
	}
	if len(body) > pipeline.MaxPageBytes {
		return nil, "", fmt.Errorf("GET %s: %w: body larger than %d bytes", url, pipeline.ErrTooLarge, pipeline.MaxPageBytes)
	}
	return body, resp.Header.Get("Content-Type"), nil
}
