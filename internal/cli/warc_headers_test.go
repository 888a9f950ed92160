package cli

import (
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeepRawWARCHeaders: a stored article's response record holds every
// header the server sent (cookies twice, caching and custom headers), with
// only the wire-form headers changed: the body is kept decompressed, so
// Content-Encoding goes and Content-Length is the kept body's.
func TestKeepRawWARCHeaders(t *testing.T) {
	para := "新华社北京11月20日电 国务院总理今天主持召开国务院常务会议，部署进一步稳定就业的措施，确定支持小微企业发展的政策。会议指出，就业是最大的民生，要加大对企业的支持力度。"
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>国务院常务会议</title></head><body><div class="article"><h1>国务院常务会议</h1><p>` +
		para + `</p><p>` + para + `</p><p>` + para + `</p></div></body></html>`
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><a href="/art/1">a</a></body></html>`)
	})
	mux.HandleFunc("/art/1", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Server", "nginx/1.18.0")
		h.Set("ETag", `"5f3c-61a2b"`)
		h.Set("Last-Modified", "Fri, 20 Nov 2026 02:00:00 GMT")
		h.Set("Cache-Control", "max-age=60")
		h.Set("Vary", "Accept-Encoding")
		h.Add("Set-Cookie", "a=1; Path=/")
		h.Add("Set-Cookie", "b=2; Path=/")
		h.Set("X-Via", "cache17")
		h.Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		fmt.Fprint(gz, page)
		gz.Close()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	site := filepath.Join(dir, "sites.yaml")
	yaml := fmt.Sprintf("storage: %q\nfetch: {keep_raw: true}\nsites:\n  - name: s\n    start_urls: [%q]\n    allowed_domains: [%q]\n    article_url: '/art/\\d+$'\n    delay: 0s\n",
		db, srv.URL+"/", strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(site, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runMain("crawl", "--site", site, "--progress", "0"); r.code != ExitOK {
		t.Fatalf("crawl: exit %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "c.warc")
	if r := runMain("export", "--db", db, "--format", "warc", "--out", out); r.code != ExitOK {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, resp, ok := strings.Cut(string(b), "WARC-Type: response\r\n")
	if !ok {
		t.Fatal("no response record")
	}
	_, resp, _ = strings.Cut(resp, "\r\n\r\n") // the WARC header
	head, body, _ := strings.Cut(resp, "\r\n\r\n")
	for _, want := range []string{"HTTP/1.1 200 OK\r\n", "Server: nginx/1.18.0\r\n", "Etag: \"5f3c-61a2b\"\r\n",
		"Last-Modified: Fri, 20 Nov 2026 02:00:00 GMT\r\n", "Cache-Control: max-age=60\r\n", "Vary: Accept-Encoding\r\n",
		"Set-Cookie: a=1; Path=/\r\n", "Set-Cookie: b=2; Path=/\r\n", "X-Via: cache17\r\n", "Date: ",
		"Content-Type: text/html; charset=utf-8\r\n", fmt.Sprintf("Content-Length: %d\r\n", len(page))} {
		if !strings.Contains(head+"\r\n", want) {
			t.Errorf("response record lacks %q:\n%s", want, head)
		}
	}
	if strings.Contains(head, "Content-Encoding") {
		t.Errorf("Content-Encoding kept for a decompressed body:\n%s", head)
	}
	if !strings.HasPrefix(body, page) {
		t.Errorf("body is not the page as served (decompressed)")
	}
}
