package crawler

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrTooLarge is returned (wrapped in a *FetchError of kind "too_large") when
// a response body exceeds fetch.max_body after decompression. The body is
// never handed over truncated.
var ErrTooLarge = errors.New("too large")

// Error kinds recorded in storage.Page.ErrKind. HTTP status errors use
// "http_<status>" (see httpKind).
const (
	KindTimeout            = "timeout"             // connect, idle-read or overall timeout
	KindNetwork            = "network"             // refused, reset, unexpected EOF
	KindDNS                = "dns"                 // name resolution failed
	KindTooLarge           = "too_large"           // body above fetch.max_body after decompression
	KindContentEncoding    = "content_encoding"    // corrupt or unsupported Content-Encoding
	KindEmptyBody          = "empty_body"          // 2xx with no body
	KindNotHTML            = "not_html"            // 2xx whose content is not HTML
	KindRedirectLoop       = "redirect_loop"       // a redirect came back to a URL of its own chain
	KindTooManyRedirects   = "too_many_redirects"  // more than fetch.max_redirects hops
	KindRedirectDisallowed = "redirect_disallowed" // a hop left allowed_domains or is disallowed by robots.txt
	KindRedirectDecided    = "redirect_decided"    // a hop leads to an article decided by an earlier run: skipped, not recorded
	KindRobotsUnavailable  = "robots_unavailable"  // robots.txt unreachable (5xx, timeout, network): host not crawled
	KindCrawlDelay         = "crawl_delay_too_large"
	KindBadURL             = "bad_url" // the HTTP engine rejected the URL
	KindFetch              = "fetch"   // any other client error
	KindArchive            = "archive" // the exchange could not be written to the run's archive (the run stops)
)

// FetchError describes why a fetch failed and how the failure is treated.
type FetchError struct {
	Kind       string
	Status     int  // HTTP status of the last response, 0 when none
	Permanent  bool // recorded as permanent: later runs do not retry the URL
	Retry      bool // worth retrying within this run (bounded by fetch.retries)
	RetryAfter time.Duration
	Err        error
}

func (e *FetchError) Error() string {
	if e.Err == nil {
		return e.Kind
	}
	return e.Kind + ": " + e.Err.Error()
}

func (e *FetchError) Unwrap() error { return e.Err }

func httpKind(status int) string { return "http_" + strconv.Itoa(status) }

// statusError classifies a non-2xx final status. 429, 408 and 5xx are retried
// in the run and recorded as transient; other statuses are permanent.
func statusError(status int, h http.Header, now time.Time) *FetchError {
	e := &FetchError{Kind: httpKind(status), Status: status, Err: fmt.Errorf("http status %d", status)}
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		e.Retry = true
		e.RetryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	default:
		e.Permanent = true
	}
	return e
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP-date
// (RFC 9110 section 10.2.3). It returns 0 when absent or unparsable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Causes set on a request context when one of our timers fires.
var (
	errOverallTimeout = errors.New("request timeout")
	errIdleTimeout    = errors.New("idle read timeout: no data received")
)

// limitTransport is the crawler's HTTP wire layer, installed under colly
// with Collector.WithTransport. It does what colly v2.3.0 gets wrong for a
// polite, robust crawler:
//   - it asks for gzip itself and decompresses itself, enforcing maxBody on
//     the decompressed bytes (colly applies MaxBodySize before decoding, so
//     gzip bombs pass it, and it truncates silently); a body over the limit
//     fails with ErrTooLarge, never truncated;
//   - it bounds each request (per hop) by an overall timeout and an
//     idle-read timeout, so slow-loris servers that trickle bytes fail with
//     kind "timeout";
//   - it reads the whole body and, for crawler fetches, hands the raw
//     (decompressed, not charset-decoded) bytes to the crawler through the
//     fetchSlot in the request context, giving colly an empty body so that
//     colly's own charset conversion and gzip handling never touch it.
type limitTransport struct {
	next    http.RoundTripper
	maxBody int64
	timeout time.Duration // per hop, from request start to the last body byte
	idle    time.Duration // longest silence while reading the body
	// truncate: a body over maxBody is cut after maxBody+1 bytes instead of
	// failing (robots.txt: the first 500 KiB are parsed, the caller sees
	// from the extra byte that the file was longer).
	truncate bool
	// archive, when set, records every exchange whose body was read
	// (Options.Archive); its error fails the request.
	archive *archiver
}

type slotKey struct{}

// fetchSlot receives the outcome of every hop of one crawler fetch. Hops of
// one fetch run sequentially on the caller's goroutine (http.Client.Do calls
// RoundTrip and CheckRedirect synchronously), so no lock is needed.
type fetchSlot struct {
	site *siteState
	// maxBody, when > 0, replaces the transport's limit for this fetch
	// (lead images: fetch.max_image); inScope, when set, replaces the
	// site's page scope for redirect hops (lead images: image_domains too).
	maxBody int64
	inScope func(*url.URL) bool
	// refuse, when set, vetoes a redirect hop to a canonical URL (article
	// pages: a hop to a page the article already has is a loop).
	refuse func(target string) *FetchError
	hops   []*url.URL // request URL of every hop, in order
	status int
	header http.Header
	body   []byte
}

func slotFrom(ctx context.Context) *fetchSlot {
	s, _ := ctx.Value(slotKey{}).(*fetchSlot)
	return s
}

// withoutSlot returns ctx with the slot hidden, for requests made while a
// crawler fetch is in progress (robots.txt for a redirect hop).
func withoutSlot(ctx context.Context) context.Context {
	return context.WithValue(ctx, slotKey{}, (*fetchSlot)(nil))
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancelTimeout := context.WithTimeoutCause(req.Context(), t.timeout, errOverallTimeout)
	defer cancelTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	out := req.Clone(ctx)
	out.Header.Set("Accept-Encoding", "gzip")
	started := time.Now()
	var reqBody []byte
	if t.archive != nil {
		var err error
		if reqBody, err = requestBody(req); err != nil {
			return nil, &FetchError{Kind: KindArchive, Err: t.archive.fatal(err)}
		}
	}
	resp, err := t.next.RoundTrip(out)
	if err != nil {
		return nil, t.classify(ctx, err, 0)
	}
	limit := t.maxBody
	if slot := slotFrom(req.Context()); slot != nil && slot.maxBody > 0 {
		limit = slot.maxBody
	}
	body, err := t.readBody(ctx, cancel, resp, limit)
	if err != nil {
		return nil, t.classify(ctx, err, resp.StatusCode)
	}
	// The body is now decoded: drop the headers that described the wire form.
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.Uncompressed = true
	resp.ContentLength = int64(len(body))
	if t.archive != nil {
		if err := t.archive.put(exchangeOf(req, out, resp, body, reqBody, t.truncate && int64(len(body)) > limit, started)); err != nil {
			return nil, &FetchError{Kind: KindArchive, Status: resp.StatusCode, Err: err}
		}
	}
	if slot := slotFrom(req.Context()); slot != nil {
		slot.hops = append(slot.hops, req.URL)
		slot.status, slot.header, slot.body = resp.StatusCode, resp.Header, body
		resp.Body = http.NoBody
		resp.ContentLength = 0
	} else {
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

// readBody reads and decompresses the whole body, at most maxBody bytes after
// decompression, arming the idle timer between reads.
func (t *limitTransport) readBody(ctx context.Context, cancel context.CancelCauseFunc, resp *http.Response, maxBody int64) ([]byte, error) {
	defer resp.Body.Close()
	idle := time.AfterFunc(t.idle, func() { cancel(errIdleTimeout) })
	defer idle.Stop()
	var r io.Reader = &idleReader{r: resp.Body, timer: idle, d: t.idle}

	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	hint := int64(0)
	switch enc {
	case "", "identity":
		if resp.ContentLength > maxBody && !t.truncate {
			return nil, fmt.Errorf("%w: content-length %d exceeds %d bytes", ErrTooLarge, resp.ContentLength, maxBody)
		}
		hint = resp.ContentLength
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if errors.Is(err, io.EOF) {
			return nil, nil // empty body sent with Content-Encoding: gzip
		}
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	case "deflate": // RFC 9110: zlib format; some servers send raw deflate
		br := bufioPeek{r: r}
		if zr, err := zlib.NewReader(&br); err == nil {
			defer zr.Close()
			r = zr
		} else {
			r = flate.NewReader(br.replay())
		}
	default:
		return nil, &FetchError{Kind: KindContentEncoding, Status: resp.StatusCode, Permanent: true,
			Err: fmt.Errorf("unsupported content-encoding %q", enc)}
	}
	body, err := readBlocks(io.LimitReader(r, maxBody+1), hint)
	n := int64(len(body))
	if n > maxBody && t.truncate {
		return body, nil
	}
	if n > maxBody {
		return nil, fmt.Errorf("%w: body exceeds %d bytes after decompression", ErrTooLarge, maxBody)
	}
	if err != nil {
		return nil, err
	}
	return body, nil
}

// Body reading blocks: the first is the Content-Length (+1, to see the end)
// when known, else readBlockMin; each next one doubles, up to readBlockMax.
const (
	readBlockMin = 32 << 10
	readBlockMax = 1 << 20
)

// readBlocks reads r to its end into one slice of exactly the length read.
// Without a Content-Length (chunked or compressed bodies) a bytes.Buffer
// grows by doubling: for a 9.5 MB page it peaked at 24 MB and kept a 16 MB
// array for the whole time the page was processed. Reading into blocks and
// copying them once peaks at twice the body and keeps exactly the body.
func readBlocks(r io.Reader, hint int64) ([]byte, error) {
	size := int64(readBlockMin)
	if hint > 0 {
		size = hint + 1
	}
	var blocks [][]byte
	total := 0
	for {
		b := make([]byte, size)
		n := 0
		var err error
		for n < len(b) && err == nil {
			var m int
			m, err = r.Read(b[n:])
			n += m
		}
		blocks = append(blocks, b[:n])
		total += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(size*2, readBlockMax)
	}
	if len(blocks) == 1 {
		return blocks[0], nil
	}
	out := make([]byte, 0, total)
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out, nil
}

// idleReader re-arms the idle timer after every read that made progress.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.timer.Reset(ir.d)
	}
	return n, err
}

// bufioPeek records what zlib.NewReader consumed so that a raw-deflate body
// can be replayed from the start.
type bufioPeek struct {
	r    io.Reader
	seen []byte
}

func (b *bufioPeek) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.seen = append(b.seen, p[:n]...)
	return n, err
}

func (b *bufioPeek) replay() io.Reader { return io.MultiReader(bytes.NewReader(b.seen), b.r) }

// classify turns a transport or body error into a *FetchError. The context
// error of the caller (run cancelled) is returned unchanged so that the
// crawler can abandon the fetch instead of recording it.
func (t *limitTransport) classify(ctx context.Context, err error, status int) error {
	var fe *FetchError
	if errors.As(err, &fe) {
		return fe
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errOverallTimeout):
		return &FetchError{Kind: KindTimeout, Status: status, Retry: true, Err: fmt.Errorf("%w after %s", cause, t.timeout)}
	case errors.Is(cause, errIdleTimeout):
		return &FetchError{Kind: KindTimeout, Status: status, Retry: true, Err: fmt.Errorf("%w for %s", cause, t.idle)}
	case cause != nil:
		return cause // the caller's context ended
	}
	return classifyError(err, status)
}

// classifyError maps network and decoding errors to kinds.
func classifyError(err error, status int) *FetchError {
	if errors.Is(err, ErrTooLarge) {
		return &FetchError{Kind: KindTooLarge, Status: status, Permanent: true, Err: err}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return &FetchError{Kind: KindDNS, Status: status, Retry: dnsErr.IsTimeout || dnsErr.IsTemporary, Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &FetchError{Kind: KindTimeout, Status: status, Retry: true, Err: err}
	}
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zlib.ErrHeader) ||
		errors.Is(err, zlib.ErrChecksum) || isFlateError(err) {
		return &FetchError{Kind: KindContentEncoding, Status: status, Err: err}
	}
	// Resets, refusals, broken pipes and truncated bodies (unexpected EOF)
	// are transient network failures.
	return &FetchError{Kind: KindNetwork, Status: status, Retry: true, Err: err}
}

func isFlateError(err error) bool {
	var ce flate.CorruptInputError
	var ie flate.InternalError
	return errors.As(err, &ce) || errors.As(err, &ie)
}

// newNetTransport is the default network transport: connect timeout on the
// dialer and the TLS handshake, no transparent compression (limitTransport
// does it), keep-alive pooling per host.
func newNetTransport(connect, timeout time.Duration) *http.Transport {
	d := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   connect,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          128,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true,
	}
}
