package warcexport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nlnwa/gowarc"

	"github.com/newsdedup/newscrawl/crawler"
)

// CrawlArchive writes every exchange of a crawl (crawler.Options.Archive)
// as WARC/1.1, a "response" record followed by its "request" record
// (WARC-Concurrent-To the response), as Heritrix and Browsertrix write a
// crawl, after a "warcinfo" record. A name ending in .gz compresses each
// record as its own gzip member. The body is the one the crawler read:
// decompressed, so Content-Encoding is dropped and Content-Length is the
// body's; a body cut at the crawler's limit (robots.txt) carries
// WARC-Truncated: length.
//
// Close writes the CDXJ index beside the file (FILE.cdxj): one line per
// response record, sorted, in pywb's form
// (https://github.com/webrecorder/cdxj-indexer: "SURT TIMESTAMP {json}"
// with url, mime, status, digest, length, offset, filename; a POST's key
// carries __wb_method=post and __wb_post_data, the base64 of its body, as
// pywb's indexer writes it). A run killed before Close leaves the WARC
// whole up to its last record and no index.
type CrawlArchive struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	path    string
	gz      bool
	off     int64 // bytes written so far: the next record's offset
	m       gowarc.Marshaler
	index   []string
	records int
	err     error // the first write error: every later Record returns it
}

// CreateCrawlArchive creates path (it must not exist: a cron run gets a
// name of its own) and writes its warcinfo record.
func CreateCrawlArchive(path, software string, now time.Time) (*CrawlArchive, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	a := &CrawlArchive{f: f, w: bufio.NewWriterSize(f, 1<<20), path: path, gz: strings.HasSuffix(path, ".gz"), m: gowarc.NewMarshaler()}
	info := "software: " + software + "\r\nformat: WARC File Format 1.1\r\n" +
		"conformsTo: " + SpecURI + "\r\n" +
		"description: every request and response of one newscrawl crawl run\r\n"
	rec, err := buildRecord(gowarc.Warcinfo, [][2]string{
		{gowarc.WarcRecordID, newRecordID()},
		{gowarc.WarcDate, warcDate(now)},
		{gowarc.WarcFilename, filepath.Base(path)},
		{gowarc.ContentType, "application/warc-fields"},
	}, []byte(info))
	if err == nil {
		_, err = a.put(rec)
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("warc: %w", err)
	}
	return a, nil
}

// Record writes one exchange; it is safe for concurrent use.
func (a *CrawlArchive) Record(e crawler.Exchange) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	if err := a.record(e); err != nil {
		a.err = fmt.Errorf("warc %s: %w", a.path, err)
		return a.err
	}
	return nil
}

func (a *CrawlArchive) record(e crawler.Exchange) error {
	date := warcDate(e.Started)
	respID, reqID := newRecordID(), newRecordID()
	digest := payloadDigest(e.Body)
	headers := [][2]string{
		{gowarc.WarcRecordID, respID},
		{gowarc.WarcDate, date},
		{gowarc.WarcTargetURI, e.URL},
		{gowarc.WarcPayloadDigest, "sha1:" + digest},
		{gowarc.ContentType, "application/http;msgtype=response"},
	}
	if e.Truncated {
		headers = append(headers, [2]string{gowarc.WarcTruncated, "length"})
	}
	rec, err := buildRecord(gowarc.Response, headers, responseMessage(e))
	if err != nil {
		return err
	}
	offset := a.off
	length, err := a.put(rec)
	if err != nil {
		return err
	}
	rec, err = buildRecord(gowarc.Request, [][2]string{
		{gowarc.WarcRecordID, reqID},
		{gowarc.WarcDate, date},
		{gowarc.WarcTargetURI, e.URL},
		{gowarc.WarcConcurrentTo, respID},
		{gowarc.ContentType, "application/http;msgtype=request"},
	}, requestMessage(e))
	if err != nil {
		return err
	}
	if _, err := a.put(rec); err != nil {
		return err
	}
	a.records++
	line, err := cdxjLine(e, digest, offset, length, filepath.Base(a.path))
	if err != nil {
		return err
	}
	a.index = append(a.index, line)
	return nil
}

// put writes rec (as a gzip member of its own when compressing) and
// returns the bytes it took.
func (a *CrawlArchive) put(rec gowarc.WarcRecord) (int64, error) {
	defer rec.Close()
	var b bytes.Buffer
	if a.gz {
		gz := gzip.NewWriter(&b)
		if _, _, err := a.m.Marshal(gz, rec, 0); err != nil {
			return 0, err
		}
		if err := gz.Close(); err != nil {
			return 0, err
		}
	} else if _, _, err := a.m.Marshal(&b, rec, 0); err != nil {
		return 0, err
	}
	n, err := a.w.Write(b.Bytes())
	a.off += int64(n)
	return int64(n), err
}

// Close flushes and syncs the WARC file and writes its sorted CDXJ index
// (FILE.cdxj, through a temporary file and a rename). It returns the
// number of exchanges written.
func (a *CrawlArchive) Close() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.err
	if ferr := a.w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if serr := a.f.Sync(); err == nil && serr != nil {
		err = serr
	}
	if cerr := a.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return a.records, fmt.Errorf("warc %s: %w", a.path, err)
	}
	slices.Sort(a.index)
	idx := a.path + ".cdxj"
	tmp := idx + ".tmp"
	var b strings.Builder
	for _, l := range a.index {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return a.records, fmt.Errorf("warc index: %w", err)
	}
	if err := os.Rename(tmp, idx); err != nil {
		os.Remove(tmp)
		return a.records, fmt.Errorf("warc index: %w", err)
	}
	return a.records, nil
}

func newRecordID() string { return "<urn:uuid:" + uuid.NewString() + ">" }

// payloadDigest is the base32 SHA-1 of a payload, as WARC-Payload-Digest
// and CDX indexes write it.
func payloadDigest(b []byte) string {
	sum := sha1.Sum(b)
	return base32.StdEncoding.EncodeToString(sum[:])
}

// responseMessage is e's response as an HTTP message: status line,
// headers, empty line, body.
func responseMessage(e crawler.Exchange) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %d %s\r\n", cmpOrString(e.StatusProto, "HTTP/1.1"), e.Status, http.StatusText(e.Status))
	_ = e.ResponseHeader.Write(&b) // a bytes.Buffer does not fail
	b.WriteString("\r\n")
	b.Write(e.Body)
	return b.Bytes()
}

// requestMessage is e's request as an HTTP message.
func requestMessage(e crawler.Exchange) []byte {
	var b bytes.Buffer
	target, host := e.URL, ""
	if u, err := url.Parse(e.URL); err == nil {
		target, host = u.RequestURI(), u.Host
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", e.Method, target, cmpOrString(e.Proto, "HTTP/1.1"))
	if host != "" {
		fmt.Fprintf(&b, "Host: %s\r\n", host)
	}
	h := e.RequestHeader.Clone()
	if len(e.RequestBody) > 0 {
		h.Set("Content-Length", strconv.Itoa(len(e.RequestBody)))
	}
	_ = h.Write(&b)
	b.WriteString("\r\n")
	b.Write(e.RequestBody)
	return b.Bytes()
}

// cdxjLine is the index line of a response record.
func cdxjLine(e crawler.Exchange, digest string, offset, length int64, filename string) (string, error) {
	key, err := SURT(e.URL)
	if err != nil {
		return "", err
	}
	if e.Method == http.MethodPost {
		sep := "?"
		if strings.Contains(key, "?") {
			sep = "&"
		}
		key += sep + "__wb_method=post&__wb_post_data=" + base64.StdEncoding.EncodeToString(e.RequestBody)
	}
	mime := e.ResponseHeader.Get("Content-Type")
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	fields := map[string]string{
		"url": e.URL, "mime": cmpOrString(strings.TrimSpace(mime), "unk"), "status": strconv.Itoa(e.Status),
		"digest": digest, "length": strconv.FormatInt(length, 10), "offset": strconv.FormatInt(offset, 10),
		"filename": filename,
	}
	if e.Method != http.MethodGet {
		fields["method"] = e.Method
	}
	j, err := json.Marshal(fields)
	if err != nil {
		return "", err
	}
	return key + " " + e.Started.UTC().Format("20060102150405") + " " + string(j), nil
}

// SURT is the Sort-friendly URI Reordering Transform of a URL as pywb's
// indexer keys it (the Internet Archive's canonicalisation): scheme and
// userinfo dropped, the host lower-cased with a leading "www." removed and
// its labels reversed and joined by commas, a port other than the
// scheme's default kept, then ")" and the path and query lower-cased, the
// query's parameters sorted, the fragment dropped:
// "http://www.Example.com:8080/A/b?z=1&a=2#x" is
// "com,example:8080)/a/b?a=2&z=1".
func SURT(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("surt of %q: %w", raw, errors.Join(err, errors.New("not an absolute URL")))
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	host = strings.TrimPrefix(host, "www.")
	labels := strings.Split(host, ".")
	slices.Reverse(labels)
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && !(p == "80" && u.Scheme == "http") && !(p == "443" && u.Scheme == "https") {
		key += ":" + p
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + strings.ToLower(path)
	if u.RawQuery != "" {
		params := strings.Split(strings.ToLower(u.RawQuery), "&")
		slices.Sort(params)
		key += "?" + strings.Join(params, "&")
	}
	return key, nil
}

func cmpOrString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// buildRecord builds a record with headers in the given order.
func buildRecord(t gowarc.RecordType, headers [][2]string, block []byte) (gowarc.WarcRecord, error) {
	rb := gowarc.NewRecordBuilder(t, gowarc.WithSpecViolationPolicy(gowarc.ErrFail), gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail))
	for _, h := range headers {
		rb.AddWarcHeader(h[0], h[1])
	}
	if _, err := rb.Write(block); err != nil {
		return nil, err
	}
	rec, v, err := rb.Build()
	if err != nil {
		return nil, err
	}
	if v != nil && !v.Valid() {
		rec.Close()
		return nil, fmt.Errorf("invalid %s record: %v", t, v)
	}
	return rec, nil
}
