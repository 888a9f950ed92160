package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decisionSite serves a list page linking an article, a reprint of it, a
// page without article text and a 404, and returns its site file.
func decisionSite(t *testing.T) string {
	t.Helper()
	para := "新华社北京11月20日电 国务院总理今天主持召开国务院常务会议，部署进一步稳定就业的措施，确定支持小微企业发展的政策。会议指出，就业是最大的民生，要加大对企业的支持力度。"
	article := func(extra string) string {
		return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>国务院常务会议</title></head><body><div class="article"><h1>国务院常务会议</h1><p>` +
			para + `</p><p>` + extra + para + `</p><p>` + para + `</p></div></body></html>`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	mux.HandleFunc("/art/3", http.NotFound)
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", page(`<html><body><a href="/art/1">a</a> <a href="/art/2">b</a> <a href="/art/3">c</a> <a href="/art/4">d</a></body></html>`))
	mux.HandleFunc("/art/1", page(article("")))
	mux.HandleFunc("/art/2", page(article("转载。")))
	mux.HandleFunc("/art/4", page(`<html><head><title>登录</title></head><body><form><input name="u"></form></body></html>`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	site := filepath.Join(dir, "sites.yaml")
	yaml := fmt.Sprintf("storage: %q\nsites:\n  - name: s\n    start_urls: [%q]\n    allowed_domains: [%q]\n    article_url: '/art/\\d+$'\n    delay: 0s\n",
		filepath.Join(dir, "news.db"), srv.URL+"/", strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(site, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return site
}

// TestCrawlDecisionLog: -v logs one line per decided URL (stored;
// duplicate of a URL with its reason and Jaccard; not an article and
// why), -vv every fetch as well; with --log-format json every line on
// stderr is one JSON object (progress, start-up status, warnings and log
// records alike).
func TestCrawlDecisionLog(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // each in some line of stderr
		not  []string
	}{
		{"-v text", []string{"-v"}, []string{"msg=stored", "msg=duplicate", "dup_of=http://", "jaccard=", "reason=", "msg=not_article", "why="}, []string{"msg=fetch"}},
		{"-vv text", []string{"-vv"}, []string{"msg=stored", "msg=fetch"}, nil},
		{"quiet", nil, nil, []string{"msg=stored", "msg=duplicate"}},
		{"-v json", []string{"-v", "--log-format", "json", "--progress", "1ms"}, []string{`"msg":"stored"`, `"msg":"duplicate"`, `"dup_of":"http://`, `"jaccard":`, `"msg":"not_article"`, `"msg":"progress"`, `"msg":"loading segmenter dictionary… ready in`}, []string{`"msg":"fetch"`}},
		{"-vv json", []string{"-vv", "--log-format=json"}, []string{`"msg":"fetch"`, `"msg":"duplicate"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"crawl", "--site", decisionSite(t)}, tc.args...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(r.stderr, w) {
					t.Errorf("stderr has %q:\n%s", w, r.stderr)
				}
			}
			json := strings.Contains(strings.Join(tc.args, " "), "json")
			for i, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
				if json && !isJSONObject(l) {
					t.Errorf("stderr line %d is not one JSON object: %q", i+1, l)
				}
				if !json && strings.Contains(l, "loading segmenter dictionary") && strings.Contains(l, "level=") {
					t.Errorf("log record glued to a status line: %q", l)
				}
			}
		})
	}
}

func isJSONObject(l string) bool {
	var v map[string]any
	return json.Unmarshal([]byte(l), &v) == nil
}

// TestJSONConsoleErrors: with --log-format json the lines Main writes
// itself (a failed command's error) are JSON objects too.
func TestJSONConsoleErrors(t *testing.T) {
	r := runMain("crawl", "--log-format", "json", "--site", filepath.Join(t.TempDir(), "none.yaml"))
	if r.code != ExitUsage {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
		if !isJSONObject(l) || !strings.Contains(l, `"level":"ERROR"`) {
			t.Errorf("not an ERROR object: %q", l)
		}
	}
}

// TestOneVocabulary: the crawl summary, the run record as report and
// serve show it, and the report's page counts name and count outcomes
// alike: a 404 is "gone", not one of the "errors".
func TestOneVocabulary(t *testing.T) {
	site := decisionSite(t)
	r := runMain("crawl", "--site", site, "--progress", "0")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var head, total []string
	for _, l := range strings.Split(r.stdout, "\n") {
		switch f := strings.Fields(l); {
		case len(f) > 0 && f[0] == "site":
			head = f
		case len(f) > 0 && f[0] == "total":
			total = f
		}
	}
	col := func(name string) string {
		for i, h := range head {
			if h == name && i < len(total) {
				return total[i]
			}
		}
		t.Fatalf("no column %q in the summary:\n%s", name, r.stdout)
		return ""
	}
	// The outcome columns carry the names report, serve and the metrics use.
	for _, name := range []string{"stored", "duplicates", "not_article"} {
		col(name)
	}
	if col("errors") != "0" || col("gone") != "1" {
		t.Fatalf("summary: errors %s, gone %s, want 0 and 1:\n%s", col("errors"), col("gone"), r.stdout)
	}
	db := filepath.Join(filepath.Dir(site), "news.db")
	out := filepath.Join(t.TempDir(), "r.html")
	if r := runMain("report", "--db", db, "--out", out); r.code != ExitOK {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	// Totals and runs tables: errors then gone, as in the summary (the
	// totals table then counts part pages, later pages of articles: none).
	for _, want := range []string{`<th>errors</th><th>gone</th>`, `<th class="n">0</th><th class="n">1</th><th class="n">0</th></tr>`, `<td class="n">0</td><td class="n">1</td></tr>`} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
