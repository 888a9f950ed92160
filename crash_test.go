package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/devdata"
	"github.com/newsdedup/newscrawl/internal/evalcrash"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// fileSizeEnv, with mainEnv, limits the size of every file the child
// process writes (RLIMIT_FSIZE): a write past the limit fails with EFBIG,
// as a write to a full disk fails with ENOSPC. Go ignores SIGXFSZ, so the
// write returns the error instead of killing the process.
const fileSizeEnv = "NEWSCRAWL_TEST_MAX_FILE_SIZE"

// TestMain lets the test binary act as the newscrawl command when mainEnv
// is set: tests start it as a child process to signal or kill a real crawl.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		if v := os.Getenv(fileSizeEnv); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err == nil {
				err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s=%s: %v\n", fileSizeEnv, v, err)
				os.Exit(exitFailure)
			}
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestCrashRecovery is the short form of `newscrawl-lab eval crash`: two sites
// of the reprint web are crawled by child processes that are killed with
// SIGKILL at random moments and restarted until the crawl completes; the
// store must then hold exactly what an uninterrupted crawl stores (checks
// (a)-(d) in internal/evalcrash). It needs ../shared/bench.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the bench web several times (about 40 s)")
	}
	shared := crashSharedDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const minKills = 5
	command := commandProcess
	if raceEnabled() {
		// A race-instrumented crawler is about four times slower; this test
		// is about process crashes, so the crawler is built without -race.
		bin := filepath.Join(t.TempDir(), "newscrawl")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
		build.Env = append(os.Environ(), "GOFLAGS=")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		command = func(args ...string) *exec.Cmd { return exec.Command(bin, args...) }
	}
	var log bytes.Buffer
	opts := evalcrash.Config{
		Shared: shared, SiteFile: filepath.Join("configs", "bench-dev.yaml"), Sites: []string{"qq", "ifeng"},
		MinKills: minKills, Series: 3, Seed: 1, MinKill: evalcrash.DefaultMinKill, MaxKill: evalcrash.DefaultMaxKill,
		WorkDir: t.TempDir(), Command: command, Log: &log,
	}
	rep, err := evalcrash.Run(ctx, opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.WriteTable(&out, opts, "go test -run TestCrashRecovery")
	t.Log(out.String())
	if rep.Failed() {
		t.Fatal("a crash check failed; see the table")
	}
	if rep.Kills() < minKills {
		t.Fatalf("only %d kills in %d series, want >= %d", rep.Kills(), len(rep.Series), minKills)
	}
	if ref := rep.Reference; ref.Decided == 0 || ref.Stored == 0 || ref.Dups == 0 {
		t.Fatalf("the reference crawl decided %d URLs (%d stored, %d duplicates): nothing to compare", ref.Decided, ref.Stored, ref.Dups)
	}
}

// crashSharedDir is ../shared beside the repository root. Absent, the test
// is skipped, or fails when CI is set.
func crashSharedDir(t *testing.T) string {
	t.Helper()
	root, err := devdata.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "bench", "dev", "truth.jsonl")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but the shared bench data is missing: %v", err)
		}
		t.Skipf("shared bench data not found (%v); it lives in ../shared beside the repository", err)
	}
	return dir
}

// TestCrashChecksDetectDamage runs the checks of eval crash on a fixture
// store, untouched and with planted damage, to show that each check can
// fail.
func TestCrashChecksDetectDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	sites := fixtureWeb(t, nil, nil)
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	siteFile := writeSiteFile(t, sites, db, nil)
	if res := runCrawl(siteFile); res.code != exitOK {
		t.Fatalf("crawl: %v", res)
	}
	ctx := context.Background()
	cfg, err := config.Load(siteFile)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := pipeline.NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	ref := readCorpus(t, db)
	truth := evalcrash.Truth{Allowed: map[string]bool{}, Disallowed: map[string]bool{sites[0].URL + "/private/news/s1.html": true}}
	refDecided := map[string]bool{}
	for _, u := range ref.decided() {
		truth.Allowed[u] = true
		refDecided[u] = true
	}
	refExport, err := evalcrash.ExportNormalised(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage []string // SQL run on a copy of the store
		want   []string // check prefixes that must report a problem
	}{
		{"untouched", nil, nil},
		{"simhash changed", []string{`UPDATE articles SET simhash = ~simhash WHERE id = 1`}, []string{"(c)"}},
		{"signature cut", []string{`UPDATE articles SET signature = substr(signature, 1, 8) WHERE id = 2`}, []string{"(c)"}},
		{"title changed", []string{`UPDATE articles SET title = title || '！' WHERE id = 3`}, []string{"(d)"}},
		{"text cut", []string{`UPDATE articles SET text = substr(text, 1, length(text) / 2) WHERE id = 3`}, []string{"(c)", "(d)"}},
		{"stored and duplicate", []string{
			`INSERT INTO duplicates(url, site, run_id, dup_of, dup_of_url, cluster, distance, jaccard, title, text, published_at, source, author, fetched_at, simhash)
			 SELECT a.url, a.site, a.run_id, b.id, b.url, b.cluster, 0, 1, a.title, '', NULL, '', '', NULL, a.simhash
			 FROM articles a, articles b WHERE a.id = 4 AND b.id = 1`}, []string{"(a)", "(b)", "(d)"}},
		{"verdict lost", []string{`DELETE FROM duplicates WHERE seq = (SELECT min(seq) FROM duplicates)`}, []string{"(a)", "(b)", "(d)"}},
		{"frontier left", []string{`INSERT INTO frontier(url, site, depth, referer, state) VALUES ('http://127.0.0.1:1/x', 'jiangcheng', 1, '', 'pending')`}, []string{"(b)"}},
		{"disallowed fetched", []string{`INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent, fetched_at)
			VALUES ('` + sites[0].URL + `/private/news/s1.html', 'jiangcheng', 1, 'not_article', 200, '', '', 0, NULL)`}, []string{"(a)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			copyDB := filepath.Join(t.TempDir(), "copy.db")
			if err := os.WriteFile(copyDB, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			conn := sqlConn(t, copyDB)
			for _, q := range tc.damage {
				if _, err := conn.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			conn.Close()
			c := evalcrash.CheckStore(ctx, copyDB, &cfg, seg, truth, refDecided, refExport)
			if len(tc.want) == 0 && len(c.Problems) > 0 {
				t.Fatalf("problems in an untouched store: %q", c.Problems)
			}
			for _, w := range tc.want {
				if c.Verdict(w, "ok") == "ok" {
					t.Errorf("check %s did not notice; problems: %q", w, c.Problems)
				}
			}
		})
	}
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
