package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/internal/fixture/fixturetest"
)

func readResults(t *testing.T, path string) map[string]dedupResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]dedupResult{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r dedupResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var id string
		json.Unmarshal(r.ID, &id)
		out[id] = r
	}
	return out
}

func TestDedupCommandJSONL(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var b bytes.Buffer
	st := fixture.Stories()
	for _, s := range st {
		json.NewEncoder(&b).Encode(map[string]string{"id": s.ID, "title": s.Title, "text": strings.Join(s.Paragraphs, "\n")})
	}
	// a reprint with one paragraph left out, and an empty document
	json.NewEncoder(&b).Encode(map[string]string{"id": "s1-copy", "title": st[0].Title, "text": strings.Join(st[0].Paragraphs[1:], "\n")})
	json.NewEncoder(&b).Encode(map[string]string{"id": "empty", "text": ""})
	os.WriteFile(in, b.Bytes(), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	var so, se bytes.Buffer
	if code := run([]string{"dedup", "--in", in, "--out", out}, &so, &se); code != exitOK {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	res := readResults(t, out)
	if len(res) != len(st)+2 {
		t.Fatalf("%d results", len(res))
	}
	for _, s := range st {
		if !res[s.ID].Kept {
			t.Errorf("%s not kept: %+v", s.ID, res[s.ID])
		}
	}
	c := res["s1-copy"]
	if c.Kept || string(c.DupOf) != `"s1"` || string(c.Cluster) != `"s1"` {
		t.Errorf("copy: %+v", c)
	}
	if e := res["empty"]; !e.Kept || string(e.DupOf) != "null" {
		t.Errorf("empty document: %+v", e)
	}
	if !strings.Contains(se.String(), "docs/s") {
		t.Errorf("no throughput line: %s", se.String())
	}
	// Bad input is an error naming the line.
	os.WriteFile(in, []byte("{\"id\": 1, \"text\": \"a\"}\nnot json\n"), 0o644)
	if code := run([]string{"dedup", "--in", in}, &so, &se); code != exitFailure || !strings.Contains(se.String(), "in.jsonl:2") {
		t.Errorf("bad line: exit %d, %s", code, se.String())
	}
}

func TestDedupCommandHTMLDir(t *testing.T) {
	srv := httptest.NewServer(fixture.Handlers()["nanfang"])
	defer srv.Close()
	srvA := httptest.NewServer(fixture.Handlers()["jiangcheng"])
	defer srvA.Close()
	dir := t.TempDir()
	get := func(base, path, name string) {
		resp, err := srv.Client().Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
	}
	get(srvA.URL, "/news/2024/1101/s1.html", "a-s1.html")     // UTF-8
	get(srv.URL, "/a/20241101/0001.htm", "b-s1.htm")          // GBK reprint, meta gb2312, no header
	get(srvA.URL, "/news/2024/1103/s4.html", "c-s4.html")     // another story
	get(srvA.URL, "/video/2024/1101/v1.html", "d-video.html") // no article
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	var so, se bytes.Buffer
	if code := run([]string{"dedup", "--in", dir, "--out", out}, &so, &se); code != exitOK {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	res := readResults(t, out)
	if len(res) != 4 {
		t.Fatalf("results %v", res)
	}
	if r := res["b-s1.htm"]; r.Kept || string(r.DupOf) != `"a-s1.html"` {
		t.Errorf("GBK reprint: %+v", r)
	}
	if !res["c-s4.html"].Kept || !res["d-video.html"].Kept {
		t.Errorf("distinct pages merged: %+v", res)
	}
	if !strings.Contains(se.String(), "no extractable article") {
		t.Errorf("video page not reported: %s", se.String())
	}
}

// TestDedupCommandHTMLDirSpecialFiles: names under --in DIR that are not
// regular files are skipped with a message and no document (before: a
// named pipe "x.html" blocked the read for ever, and SIGTERM could not end
// it).
func TestDedupCommandHTMLDirSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	page := "<html><head><meta charset=utf-8><title>标题</title></head><body><p>" + strings.Repeat("中国新闻网北京报道今天的天气非常好，市民纷纷外出游玩。", 10) + "</p></body></html>"
	if err := os.WriteFile(filepath.Join(dir, "a.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.html"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "dir.html")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.DevNull, filepath.Join(dir, "sub", "null.htm")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var so, se bytes.Buffer
		code := run([]string{"dedup", "--in", dir, "--out", out}, &so, &se)
		done <- result{code, se.String()}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("dedup --in DIR blocked on a named pipe")
	}
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResults(t, out)
	if len(res) != 1 || !res["a.html"].Kept {
		t.Errorf("results %v, want a.html alone", res)
	}
	for _, want := range []string{
		"pipe.html: skipped: not a regular file: named pipe",
		"dir.html: skipped: not a regular file: directory",
		"null.htm: skipped: not a regular file: device",
		"3 names were not regular files",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q does not say %q", r.stderr, want)
		}
	}
}

// TestDedupCommandPartial: by default (--partial) a story that arrives
// after the longer follow-up that re-used most of it is kept as a partial
// reprint; with --partial=false it is a duplicate.
func TestDedupCommandPartial(t *testing.T) {
	title, story, followup := fixturetest.FollowUp()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(map[string]string{"id": "followup", "title": fixture.FollowUpTitle, "text": followup})
	json.NewEncoder(&b).Encode(map[string]string{"id": "story", "title": title, "text": story})
	os.WriteFile(in, b.Bytes(), 0o644)
	tests := []struct {
		name    string
		args    []string
		kept    bool
		reason  string
		partial string
	}{
		{"default", nil, true, "partial", `"followup"`},
		{"--partial=false", []string{"--partial=false"}, false, "jaccard", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.jsonl")
			var so, se bytes.Buffer
			if code := run(append([]string{"dedup", "--in", in, "--out", out}, tt.args...), &so, &se); code != exitOK {
				t.Fatalf("exit %d: %s", code, se.String())
			}
			r := readResults(t, out)["story"]
			if r.Kept != tt.kept || r.Reason != tt.reason || string(r.PartialOf) != tt.partial {
				t.Errorf("got %+v", r)
			}
		})
	}
}
