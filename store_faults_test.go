package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// Store faults (docs/FAULTS.md), end to end through the command.

// smallStore writes n stored articles into a new store at db.
func smallStore(t *testing.T, db string, n int) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	when := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		u := fmt.Sprintf("http://news.example/a/%d.html", i)
		c := &storage.Commit{
			Page: storage.Page{URL: u, Site: "news", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: when},
			Article: &storage.Article{URL: u, Site: "news", RunID: 1, Title: fmt.Sprintf("第%d条新闻", i),
				Text:      strings.Repeat(fmt.Sprintf("第%d条新闻的正文，讲述两岸经贸文化论坛在长沙开幕的经过。", i), 8),
				FetchedAt: when, ContentHash: fmt.Sprintf("%064x", i),
				Fingerprint: storage.Fingerprint{Simhash: uint64(i), Signature: []uint64{uint64(i), 1 << 40}, Length: 20}},
		}
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
}

// damagePages overwrites the header of every 5th page after the first: the
// B-tree structure is broken (what quick_check finds).
func damagePages(t *testing.T, db string) {
	t.Helper()
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	for p := 2; p*pageSize < len(b); p += 5 {
		copy(b[p*pageSize:], bytes.Repeat([]byte{0xff}, 8))
	}
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// invertTextByte inverts one byte inside an article text: the page
// structure is intact, the text is not valid UTF-8 any more.
func invertTextByte(t *testing.T, db string) {
	t.Helper()
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("第7条新闻的正文"))
	if i < 0 {
		t.Fatal("article text not found in the file")
	}
	b[i+4] ^= 0xff
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func runExport(args ...string) crawlResult {
	var out, errb bytes.Buffer
	code := run(append([]string{"export"}, args...), &out, &errb)
	return crawlResult{code, out.String(), errb.String()}
}

// TestFaultDamagedStore: crawl and export stop with a clear message on a
// damaged store, write nothing to it, and export leaves --out as it was
// (before, 200 flipped bytes gave an export with exit 0 and damaged lines).
func TestFaultDamagedStore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, db string)
	}{
		{"broken pages", damagePages},
		{"a text byte inverted", invertTextByte},
		{"broken pages recorded sound an hour ago", func(t *testing.T, db string) {
			t.Helper()
			s, err := sqlite.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.RecordQuickCheck(context.Background(), time.Now().Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			damagePages(t, db)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFaultSite(t, nil, nil)
			smallStore(t, s.db, 200)
			tc.damage(t, s.db)
			before := fileSum(t, s.db)

			out := filepath.Join(filepath.Dir(s.db), "corpus.jsonl")
			if err := os.WriteFile(out, []byte("previous export\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := runExport("--db", s.db, "--out", out)
			if res.code != exitFailure || !strings.Contains(res.stderr, "store file is damaged") {
				t.Fatalf("export of a damaged store: %v; want exit %d and \"store file is damaged\"", res, exitFailure)
			}
			if b, _ := os.ReadFile(out); string(b) != "previous export\n" {
				t.Errorf("--out changed by a failed export: %q", b)
			}
			res = runExport("--db", s.db)
			if res.code != exitFailure || res.stdout != "" {
				t.Errorf("export to stdout of a damaged store: exit %d, %d bytes on stdout", res.code, len(res.stdout))
			}
			if tc.name == "broken pages" { // text damage is found when the text is read, which crawl does not do
				res = runCrawl(s.siteFile)
				if res.code != exitFailure || !strings.Contains(res.stderr, "store file is damaged") {
					t.Fatalf("crawl of a damaged store: %v; want exit %d and \"store file is damaged\"", res, exitFailure)
				}
			}
			if tc.name == "broken pages recorded sound an hour ago" {
				// Only the small tables are checked; the index rebuild reads
				// every article before anything is written, and SQLite
				// reports the broken pages it meets.
				res = runCrawl(s.siteFile)
				if res.code != exitFailure || !strings.Contains(res.stderr, "damaged") {
					t.Fatalf("crawl of a store damaged after its last full check: %v; want exit %d and \"damaged\"", res, exitFailure)
				}
			}
			if fileSum(t, s.db) != before {
				t.Error("the damaged store was written to")
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".corpus.jsonl*"))
			if len(left) > 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

// TestExportOutputIsReplacedAtomically: --out is written through a
// temporary file and a rename, so it is whole or untouched; a symlink at
// --out is replaced, its target never written.
func TestExportOutputIsReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	smallStore(t, db, 30)
	t.Run("replaces a previous export", func(t *testing.T) {
		out := filepath.Join(dir, "a.jsonl")
		if err := os.WriteFile(out, bytes.Repeat([]byte("x"), 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
		if res := runExport("--db", db, "--out", out); res.code != exitOK {
			t.Fatal(res)
		}
		b, _ := os.ReadFile(out)
		if n := bytes.Count(b, []byte("\n")); n != 30 || bytes.Contains(b, []byte("xxx")) {
			t.Errorf("--out holds %d lines (want 30) or old bytes", n)
		}
	})
	t.Run("symlink at --out", func(t *testing.T) {
		target := filepath.Join(dir, "precious.txt")
		if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "link.jsonl")
		if err := os.Symlink(target, out); err != nil {
			t.Fatal(err)
		}
		if res := runExport("--db", db, "--out", out); res.code != exitOK {
			t.Fatal(res)
		}
		if b, _ := os.ReadFile(target); string(b) != "precious\n" {
			t.Errorf("export wrote through the symlink: %q", b)
		}
		if fi, err := os.Lstat(out); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("--out is not a regular file after export: %v %v", fi, err)
		}
	})
	// A pipe or a device at --out (or a symlink to one: /dev/stdout) is
	// written into, never replaced by a regular file (before: the rename
	// put a file in place of the pipe, and as root of /dev/null itself).
	t.Run("named pipe at --out", func(t *testing.T) {
		out := filepath.Join(dir, "pipe.jsonl")
		if err := syscall.Mkfifo(out, 0o644); err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			f, err := os.Open(out)
			if err != nil {
				got <- nil
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- b
		}()
		if res := runExport("--db", db, "--out", out); res.code != exitOK {
			t.Fatal(res)
		}
		select {
		case b := <-got:
			if n := bytes.Count(b, []byte("\n")); n != 30 {
				t.Errorf("the reader of the pipe got %d lines, want 30", n)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the reader of the pipe got nothing")
		}
		if fi, err := os.Lstat(out); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the pipe was replaced: %v %v", fi, err)
		}
	})
	t.Run("symlink to a device at --out", func(t *testing.T) {
		out := filepath.Join(dir, "null.jsonl")
		if err := os.Symlink(os.DevNull, out); err != nil {
			t.Fatal(err)
		}
		if res := runExport("--db", db, "--out", out); res.code != exitOK {
			t.Fatal(res)
		}
		if to, err := os.Readlink(out); err != nil || to != os.DevNull {
			t.Errorf("the symlink to %s was replaced: %q %v", os.DevNull, to, err)
		}
		if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a device: %v %v", os.DevNull, fi, err)
		}
	})
	t.Run("directory at --out", func(t *testing.T) {
		out := filepath.Join(dir, "outdir")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		res := runExport("--db", db, "--out", out)
		if res.code != exitFailure || !strings.Contains(res.stderr, "is a directory") {
			t.Fatalf("export to a directory: %+v", res)
		}
		if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
			t.Errorf("the directory was replaced: %v %v", fi, err)
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		out := filepath.Join(dir, "none", "c.jsonl")
		if res := runExport("--db", db, "--out", out); res.code != exitFailure {
			t.Fatalf("export into a missing directory: %v", res)
		}
	})
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestEmptyDBFlag: --db "" is a usage error (before, crawl fell back to the
// site file's storage without a word).
func TestEmptyDBFlag(t *testing.T) {
	s := newFaultSite(t, nil, nil)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"crawl", []string{"crawl", "--site", s.siteFile, "--db", ""}},
		{"crawl, blank", []string{"crawl", "--site", s.siteFile, "--db", " "}},
		{"export", []string{"export", "--db", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "--db must name a file") {
				t.Fatalf("exit %d, stderr %q; want exit %d", code, errb.String(), exitUsage)
			}
			if _, err := os.Stat(s.db); err == nil {
				t.Error("a store was created")
			}
		})
	}
}

// TestExportReadOnlyStore: export reads a store in a directory and file the
// process cannot write (run as user nobody when the tests run as root, for
// whom permissions do not apply), and leaves it unchanged.
func TestExportReadOnlyStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	root := t.TempDir()
	if err := os.Chmod(filepath.Dir(root), 0o755); err != nil { // t.TempDir's parent is 0700
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(root, 0o755))
	storeDir, outDir := filepath.Join(root, "store"), filepath.Join(root, "out")
	must(os.Mkdir(storeDir, 0o755))
	must(os.Mkdir(outDir, 0o755))
	must(os.Chmod(outDir, 0o777)) // writable by nobody
	db := filepath.Join(storeDir, "news.db")
	smallStore(t, db, 20)
	must(os.Chmod(db, 0o444))
	must(os.Chmod(storeDir, 0o555))
	t.Cleanup(func() { os.Chmod(storeDir, 0o755) })
	before := fileSum(t, db)

	cmd := commandProcess("export", "--db", db, "--out", filepath.Join(outDir, "corpus.jsonl"))
	if os.Geteuid() == 0 {
		// The test binary must be executable by nobody: copy it out of
		// the build cache (whose directories are private).
		bin := filepath.Join(root, "newscrawl.test")
		src, err := os.Open(os.Args[0])
		must(err)
		dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		must(err)
		_, err = io.Copy(dst, src)
		src.Close()
		must(errors.Join(err, dst.Close()))
		cmd.Path, cmd.Args[0] = bin, bin
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Dir = outDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("export of a read-only store: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(outDir, "corpus.jsonl"))
	must(err)
	if n := bytes.Count(b, []byte("\n")); n != 20 {
		t.Errorf("export has %d lines, want 20", n)
	}
	if fileSum(t, db) != before {
		t.Error("the store changed")
	}
	if _, err := os.Stat(db + "-wal"); err == nil {
		t.Error("a WAL file was created next to the read-only store")
	}
}
