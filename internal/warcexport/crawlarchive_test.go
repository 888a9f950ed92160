package warcexport_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/internal/warcexport"
)

func TestSURT(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://www.Example.com:8080/A/b?z=1&a=2#x", "com,example:8080)/a/b?a=2&z=1"},
		{"https://news.sina.com.cn/c/2024-05-20/doc-inaxyz.shtml", "cn,com,sina,news)/c/2024-05-20/doc-inaxyz.shtml"},
		{"https://news.qq.com:443/", "com,qq,news)/"},
		{"http://example.com", "com,example)/"},
		{"http://127.0.0.1:8080/robots.txt", "1,0,0,127:8080)/robots.txt"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := warcexport.SURT(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("SURT = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := warcexport.SURT("/relative"); err == nil {
		t.Error("SURT of a relative URL succeeded")
	}
}

// TestCrawlArchive: exchanges become response and request records a
// reader written from the WARC specification accepts (digests checked),
// and the CDXJ index points at each response record's gzip member.
func TestCrawlArchive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.warc.gz")
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	a, err := warcexport.CreateCrawlArchive(path, "newscrawl-test", at)
	if err != nil {
		t.Fatal(err)
	}
	html := []byte("<html><body><p>新闻正文</p></body></html>")
	exchanges := []crawler.Exchange{
		{Method: "GET", URL: "https://news.example.cn/a/1.html", RequestHeader: http.Header{"User-Agent": {"newscrawl-test"}},
			Status: 200, StatusProto: "HTTP/1.1", ResponseHeader: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: html, Started: at},
		{Method: "POST", URL: "https://api.example.cn/feed", RequestHeader: http.Header{"Content-Type": {"application/json"}},
			RequestBody: []byte(`{"page":1}`), Status: 200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
			Body: []byte(`{"data":[]}`), Started: at.Add(time.Second)},
		{Method: "GET", URL: "https://news.example.cn/robots.txt", Status: 200, ResponseHeader: http.Header{},
			Body: bytes.Repeat([]byte("#"), 100), Truncated: true, Started: at.Add(2 * time.Second)},
	}
	for _, e := range exchanges {
		if err := a.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := a.Close(); err != nil || n != 3 {
		t.Fatalf("Close = %d, %v", n, err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := readWARC(zr)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range recs {
		types = append(types, r.get("WARC-Type"))
		if err := checkDigest(r); err != nil {
			t.Error(err)
		}
	}
	if want := []string{"warcinfo", "response", "request", "response", "request", "response", "request"}; !slices.Equal(types, want) {
		t.Fatalf("record types %q, want %q", types, want)
	}
	if recs[2].get("WARC-Concurrent-To") != recs[1].get("WARC-Record-ID") {
		t.Error("the request record does not point at its response")
	}
	if !bytes.HasPrefix(recs[4].Block, []byte("POST /feed HTTP/1.1\r\nHost: api.example.cn\r\n")) || !bytes.HasSuffix(recs[4].Block, []byte(`{"page":1}`)) {
		t.Errorf("POST request block %q", recs[4].Block)
	}
	if recs[5].get("WARC-Truncated") != "length" || recs[1].get("WARC-Truncated") != "" {
		t.Error("WARC-Truncated not on the truncated response only")
	}

	idx, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
	if len(lines) != 3 || !slices.IsSorted(lines) {
		t.Fatalf("index lines %q: want 3, sorted", lines)
	}
	for _, l := range lines {
		parts := strings.SplitN(l, " ", 3)
		var f map[string]string
		if len(parts) != 3 || json.Unmarshal([]byte(parts[2]), &f) != nil {
			t.Fatalf("line %q is not SURT TIMESTAMP JSON", l)
		}
		off, _ := strconv.Atoi(f["offset"])
		n, _ := strconv.Atoi(f["length"])
		member, err := gzip.NewReader(bytes.NewReader(file[off : off+n]))
		if err != nil {
			t.Fatalf("%s: offset %d is not a gzip member: %v", f["url"], off, err)
		}
		member.Multistream(false)
		got, err := readWARC(member)
		if err != nil || len(got) != 1 || got[0].get("WARC-Type") != "response" || got[0].get("WARC-Target-URI") != f["url"] {
			t.Fatalf("%s: the member at %d holds %d records (%v)", f["url"], off, len(got), err)
		}
		body := got[0].Block[bytes.Index(got[0].Block, []byte("\r\n\r\n"))+4:]
		sum := sha1.Sum(body)
		if d := base32.StdEncoding.EncodeToString(sum[:]); f["digest"] != d || got[0].get("WARC-Payload-Digest") != "sha1:"+d {
			t.Errorf("%s: digest %s, payload %s, want %s", f["url"], f["digest"], got[0].get("WARC-Payload-Digest"), d)
		}
		if f["filename"] != "run.warc.gz" || len(parts[1]) != 14 {
			t.Errorf("line %q: filename or timestamp", l)
		}
		if strings.Contains(f["url"], "/feed") != strings.Contains(parts[0], "__wb_method=post&__wb_post_data=eyJwYWdlIjoxfQ==") {
			t.Errorf("POST key %q", parts[0])
		}
	}
	if _, err := warcexport.CreateCrawlArchive(path, "x", at); err == nil {
		t.Error("an existing file was overwritten")
	}
	if _, err := io.ReadAll(zr); err != nil {
		t.Error(err)
	}
}
