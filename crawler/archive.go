package crawler

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Exchange is one HTTP request the crawler made and the response it read,
// handed to Options.Archive: every fetch of a run (pages, list surfaces,
// robots.txt, lead images, redirect hops), so that a run can be kept as a
// web archive. The body is the one the crawler read: decompressed, so
// Content-Encoding is gone from ResponseHeader and Content-Length is the
// body's.
type Exchange struct {
	Method        string
	URL           string
	Proto         string // the request's protocol, "HTTP/1.1"
	RequestHeader http.Header
	RequestBody   []byte // POST bodies; nil otherwise
	Status        int
	// StatusProto is the response's protocol ("HTTP/1.1", "HTTP/2.0").
	StatusProto    string
	ResponseHeader http.Header
	Body           []byte
	// Truncated is set when the body was cut at the crawler's limit
	// (robots.txt: its first 500 KiB are read).
	Truncated bool
	Started   time.Time
}

// archiver records a run's exchanges (Options.Archive); an error stops the
// run (a run that was asked to archive everything must not lose records
// silently).
type archiver struct {
	record func(Exchange) error
	fatal  func(error) error // stops the run and returns its error
}

// put records e, stopping the run when that fails.
func (a *archiver) put(e Exchange) error {
	if err := a.record(e); err != nil {
		return a.fatal(fmt.Errorf("archive %s: %w", e.URL, err))
	}
	return nil
}

// requestBody returns a copy of req's body for the archive, leaving req
// able to send it. A body that cannot be read again, or is over
// maxArchivedRequestBody, is an error: the archive must not keep a
// request other than the one sent.
func requestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody == nil {
		return nil, fmt.Errorf("archive %s: the request body cannot be read again", req.URL)
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("archive %s: request body: %w", req.URL, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxArchivedRequestBody+1))
	if err != nil {
		return nil, fmt.Errorf("archive %s: request body: %w", req.URL, err)
	}
	if len(b) > maxArchivedRequestBody {
		return nil, fmt.Errorf("archive %s: request body over %d bytes", req.URL, maxArchivedRequestBody)
	}
	return b, nil
}

// maxArchivedRequestBody bounds the request body kept with an exchange
// (the crawler's POST bodies are API parameters of a few hundred bytes).
const maxArchivedRequestBody = 1 << 20

// exchangeOf builds the archived form of a request and its read response.
func exchangeOf(req, sent *http.Request, resp *http.Response, body, reqBody []byte, truncated bool, started time.Time) Exchange {
	h := resp.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	proto := resp.Proto
	if proto == "" {
		proto = fmt.Sprintf("HTTP/%d.%d", max(resp.ProtoMajor, 1), resp.ProtoMinor)
	}
	return Exchange{Method: cmpOr(req.Method, http.MethodGet), URL: req.URL.String(), Proto: "HTTP/1.1",
		RequestHeader: sent.Header.Clone(), RequestBody: reqBody, Status: resp.StatusCode, StatusProto: proto,
		ResponseHeader: h, Body: bytes.Clone(body), Truncated: truncated, Started: started}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
