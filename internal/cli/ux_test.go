package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// sampleDB writes the sample store (internal/sample) into a new SQLite file.
func sampleDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "news.db")
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.Fill(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

type result struct {
	code           int
	stdout, stderr string
}

func runMain(args ...string) result {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return result{code, out.String(), errb.String()}
}

func TestExportCommand(t *testing.T) {
	db := sampleDB(t)
	for _, tc := range []struct {
		name  string
		args  []string
		lines int // records (JSONL lines, CSV rows without the header)
	}{
		{"jsonl", nil, 11},
		{"kept only", []string{"--kept-only"}, 5},
		{"run", []string{"--run", "2"}, 3},
		{"since", []string{"--since", "2026-11-21"}, 3},
		{"since duration", []string{"--since", "1h"}, 0},
		{"csv", []string{"--format", "csv"}, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"export", "--db", db}, tc.args...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.Contains(strings.Join(tc.args, " "), "csv") {
				rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
				if err != nil || len(rows)-1 != tc.lines {
					t.Fatalf("%d rows, %v", len(rows)-1, err)
				}
				return
			}
			n := 0
			sc := bufio.NewScanner(strings.NewReader(r.stdout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"run_id", "editor", "reason", "distance", "dup_of"} {
					if _, ok := m[k]; !ok {
						t.Errorf("line without %q: %s", k, sc.Text())
					}
				}
				if m["kept"] == false && m["reason"] == nil {
					t.Errorf("duplicate without reason: %s", sc.Text())
				}
				n++
			}
			if n != tc.lines {
				t.Fatalf("%d lines, want %d", n, tc.lines)
			}
		})
	}
	t.Run("warc file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "corpus.warc.gz")
		r := runMain("export", "--db", db, "--format", "warc", "--out", out)
		if r.code != ExitOK || !strings.Contains(r.stderr, "11 records written") {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Fatalf("not a gzip file: %v", err)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad format", []string{"--format", "xml"}, `unknown --format "xml"`},
		{"bad since", []string{"--since", "yesterday"}, `since "yesterday"`},
		{"bad run", []string{"--run", "-1"}, "--run must be a run id"},
		{"bad channel", []string{"--channel", "portal"}, `unknown --channel "portal"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"export", "--db", db}, tc.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "export: export:") {
				t.Errorf("doubled prefix: %s", r.stderr)
			}
		})
	}
}

func TestExplainCommand(t *testing.T) {
	db := sampleDB(t)
	for _, tc := range []struct {
		url  string
		code int
		want string
	}{
		{"https://www.sohu.com/a/200", ExitOK, "reason containment"},
		{"https://www.sohu.com/a/200#comments", ExitOK, "reason containment"}, // canonical form tried
		{"https://news.sina.com.cn/c/2026-11-20/doc-0.shtml", ExitOK, "stored as article 1"},
		{"https://www.sohu.com/a/404", ExitOK, "http_404"},
		{"https://nowhere.example/x", ExitFailure, "no page with this URL"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			r := runMain("explain", "--db", db, tc.url)
			if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Fatalf("exit %d, want %d and %q:\n%s%s", r.code, tc.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
	if r := runMain("explain", "--db", db); r.code != ExitUsage {
		t.Errorf("no URL: exit %d", r.code)
	}
}

func TestReportCommand(t *testing.T) {
	db := sampleDB(t)
	out := filepath.Join(t.TempDir(), "report.html")
	r := runMain("report", "--db", db, "--out", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(b, []byte(`<figure id="jaccard">`)) {
		t.Fatalf("report: %v", err)
	}
	if r := runMain("report", "--db", filepath.Join(t.TempDir(), "missing.db")); r.code != ExitNoStore || !strings.Contains(r.stderr, "no newscrawl store at") {
		t.Errorf("missing store: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), "missing.db")); err == nil {
		t.Error("report created a store")
	}
}

func TestServeCommand(t *testing.T) {
	db := sampleDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdServe(ctx, []string{"--db", db, "--addr", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	u := regexp.MustCompile(`http://[0-9.:]+/`).FindString(line)
	if !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("not on loopback: %q", line)
	}
	resp, err := http.Get(u + "search?q=" + "%E5%9C%B0%E9%93%81")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "3 result(s)") {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
	resp, err = http.Post(u, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", resp.StatusCode)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestServeDefaultAddrIsLoopback(t *testing.T) {
	var b bytes.Buffer
	Main([]string{"serve", "-h"}, &b, io.Discard)
	if !strings.Contains(b.String(), `(default "127.0.0.1:8080")`) {
		t.Errorf("serve -h:\n%s", b.String())
	}
}

func TestHelpTexts(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			r := runMain(c.name, "-h")
			if r.code != ExitOK {
				t.Fatalf("exit %d", r.code)
			}
			for _, w := range []string{"usage: newscrawl " + c.name, "Examples:", "Flags:", "Exit codes: 0 done"} {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("missing %q in stdout:\n%s", w, r.stdout)
				}
			}
			if r.stderr != "" {
				t.Errorf("help on stderr:\n%s", r.stderr)
			}
			if docs[c.name].description == "" {
				t.Error("no description")
			}
		})
	}
	// The evaluations are the lab's (internal/labcli): newscrawl neither
	// lists nor runs them.
	t.Run("no lab commands", func(t *testing.T) {
		r := runMain("help")
		for _, lab := range []string{"eval", "learn-antecedents"} {
			if strings.Contains(r.stdout, "\n  "+lab+" ") {
				t.Errorf("help lists %s:\n%s", lab, r.stdout)
			}
			if r := runMain(lab, "-h"); r.code != ExitUsage || !strings.Contains(r.stderr, "unknown command") {
				t.Errorf("%s -h: exit %d: %s", lab, r.code, r.stderr)
			}
		}
	})
}

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := runMain(args...)
		if r.code != ExitOK || !strings.HasPrefix(r.stdout, "newscrawl ") || !strings.Contains(r.stdout, "go1.") {
			t.Errorf("%v: exit %d %q", args, r.code, r.stdout)
		}
	}
}

func TestDedupInputErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"missing text", `{"id":1,"text":"a"}` + "\n" + `{"id":2,"title":"t"}` + "\n", `in.jsonl:2: missing "text"`},
		{"unknown key", `{"id":1,"txt":"a"}` + "\n", `in.jsonl:1: unknown key "txt"`},
		{"duplicate id", `{"id":1,"text":"a"}` + "\n" + `{"id":1,"text":"b"}` + "\n", "in.jsonl:2: id 1 repeats line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runMain("dedup", "--in", p)
			if r.code != ExitFailure || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "dedup: dedup:") {
				t.Errorf("doubled prefix: %s", r.stderr)
			}
		})
	}
}

func TestDemoRemovesTempDir(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the fixture web")
	}
	t.Setenv("TMPDIR", t.TempDir())
	for _, tc := range []struct {
		name    string
		args    []string
		removed bool
	}{
		{"default", nil, true},
		{"keep", []string{"--keep"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"demo"}, tc.args...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
			}
			// The second run finds the article published meanwhile and
			// asks the portals' unchanged lists with validators only.
			if !regexp.MustCompile(`second run \(sina published one article meanwhile\): \d+ list requests, \d+ answered 304 Not Modified; 1 article page\(s\) fetched, 1 new URL\(s\) decided; 0 requests to known 404/410 URLs`).MatchString(r.stdout) {
				t.Errorf("demo's second run:\n%s", r.stdout)
			}
			m := regexp.MustCompile(`(?m)^(removed|kept) (/\S+)`).FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("demo does not say what became of its directory:\n%s", r.stdout)
			}
			_, err := os.Stat(m[2])
			if tc.removed != (m[1] == "removed") || tc.removed != os.IsNotExist(err) {
				t.Errorf("%s %s, stat: %v", m[1], m[2], err)
			}
		})
	}
}

// TestDedupHammingNeedsExhaustive: --hamming is the exhaustive index's
// radius; with any other index it would change nothing, which is an error.
func TestDedupHammingNeedsExhaustive(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"a","title":"t","text":"长江大桥今天通车。"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"lsh", []string{"--hamming", "4"}, 2},
		{"prefix", []string{"--index", "prefix", "--hamming", "4"}, 2},
		{"exhaustive", []string{"--index", "exhaustive", "--hamming", "4"}, 0},
		{"no_hamming", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append([]string{"dedup", "--in", in, "--out", filepath.Join(t.TempDir(), "out.jsonl")}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if tc.code == 2 && !strings.Contains(r.stderr, "--hamming changes nothing under --index") {
				t.Errorf("stderr does not say why:\n%s", r.stderr)
			}
		})
	}
}

// TestThresholdsShown: explain shows the thresholds of the site file the
// crawl used (--site), and --jaccard overrides them.
func TestThresholdsShown(t *testing.T) {
	db := sampleDB(t)
	site := filepath.Join(t.TempDir(), "sites.yaml")
	yaml := "dedup: {index: exhaustive, hamming: 4, jaccard: 0.45}\nsites:\n  - name: s\n    start_urls: [\"http://127.0.0.1:1/\"]\n    allowed_domains: [\"127.0.0.1:1\"]\n    article_url: 'x'\n"
	if err := os.WriteFile(site, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"defaults", nil, []string{"(candidate when <= 3)", "(duplicate when >= 0.35;"}},
		{"site file", []string{"--site", site}, []string{"(candidate when <= 4)", "(duplicate when >= 0.45;"}},
		{"override", []string{"--site", site, "--jaccard", "0.5"}, []string{"(candidate when <= 4)", "(duplicate when >= 0.50;"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(append(append([]string{"explain", "--db", db}, tc.args...), "https://www.sohu.com/a/100")...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("missing %q in\n%s", w, r.stdout)
				}
			}
		})
	}
	if r := runMain("explain", "--db", db, "--site", filepath.Join(t.TempDir(), "none.yaml"), "https://www.sohu.com/a/100"); r.code != ExitUsage {
		t.Errorf("missing site file: exit %d", r.code)
	}
}
