package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

func runCheck(args ...string) crawlResult {
	var out, errb bytes.Buffer
	code := run(append([]string{"check"}, args...), &out, &errb)
	return crawlResult{code, out.String(), errb.String()}
}

// TestCheckCommand: `check` reads the whole store and its index snapshot
// and records the full check, after which a crawl no longer calls it
// overdue; a crawl never runs the full check itself; a damaged store is
// exit 1, a missing one exit 5.
func TestCheckCommand(t *testing.T) {
	t.Run("sound store", func(t *testing.T) {
		s := newFaultSite(t, nil, nil)
		res := runCrawl(s.siteFile, "-v")
		if res.code != exitOK {
			t.Fatal(res)
		}
		if !strings.Contains(res.stdout+res.stderr, "no full check recorded: run `newscrawl check`") {
			t.Errorf("first crawl does not say the full check is missing:\n%s", res)
		}
		res = runCheck("--db", s.db)
		if res.code != exitOK || !strings.Contains(res.stdout, "sound (whole file") {
			t.Fatalf("check of a sound store: %v", res)
		}
		if !strings.Contains(res.stdout, "index snapshot: usable") {
			t.Errorf("check does not find the crawl's snapshot usable:\n%s", res.stdout)
		}
		// The snapshot names its store by absolute path: a relative --db
		// from another directory is the same store.
		wd, _ := os.Getwd()
		t.Cleanup(func() { os.Chdir(wd) })
		if err := os.Chdir(filepath.Dir(s.db)); err != nil {
			t.Fatal(err)
		}
		res = runCheck("--db", "./"+filepath.Base(s.db))
		if res.code != exitOK || !strings.Contains(res.stdout, "index snapshot: usable") {
			t.Errorf("check through a relative path: %v", res)
		}
		os.Chdir(wd)
		res = runCrawl(s.siteFile)
		if res.code != exitOK {
			t.Fatal(res)
		}
		if out := res.stdout + res.stderr; !strings.Contains(out, "small tables; last full check") || strings.Contains(out, "overdue") {
			t.Errorf("crawl after check does not name the recorded check or calls it overdue:\n%s", res)
		}
	})
	t.Run("damaged store", func(t *testing.T) {
		s := newFaultSite(t, nil, nil)
		smallStore(t, s.db, 200)
		damagePages(t, s.db)
		before := fileSum(t, s.db)
		res := runCheck("--db", s.db)
		if res.code != exitFailure || !strings.Contains(res.stderr, "damaged") {
			t.Fatalf("check of a damaged store: %v; want exit %d and \"damaged\"", res, exitFailure)
		}
		if fileSum(t, s.db) != before {
			t.Error("check wrote to a damaged store")
		}
	})
	t.Run("no store", func(t *testing.T) {
		res := runCheck("--db", filepath.Join(t.TempDir(), "none.db"))
		if res.code != exitNoStore {
			t.Fatalf("check of a missing store: %v; want exit %d", res, exitNoStore)
		}
	})
}

// TestRunRecordsSettings: a crawl records the dedup settings it decided
// with (defaults resolved) in its run, for explain, report and serve.
func TestRunRecordsSettings(t *testing.T) {
	s := newFaultSite(t, nil, func(y string) string {
		return strings.Replace(y, "sites:\n", "dedup:\n  jaccard: 0.41\n  window: 30d\nsites:\n", 1)
	})
	if res := runCrawl(s.siteFile); res.code != exitOK {
		t.Fatal(res)
	}
	st, err := sqlite.Open(context.Background(), s.db, sqlite.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	want := storage.RunSettings{Index: "lsh", Hamming: 3, Jaccard: 0.41, Window: "720h0m0s", Antecedents: "learned", PartialReprints: true, KeepDuplicateText: true}
	if got := runs[0].Stats.Settings; got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("recorded settings %+v, want %+v", got, want)
	}
}

// TestSelectorMissWarned: a site's extract.body selector that matches
// nothing is warned about once per run (the generic rule still stores the
// article), not silently ignored.
func TestSelectorMissWarned(t *testing.T) {
	title, paras := story(t, "s1")
	title2, paras2 := story(t, "s2")
	pages := []faultPage{
		{"text/html; charset=utf-8", []byte(articleHTML("", title, paras))},
		{"text/html; charset=utf-8", []byte(articleHTML("", title2, paras2))},
	}
	s := newFaultSite(t, pages, func(y string) string {
		return y + "    extract: {body: \"div.gone-after-redesign\"}\n"
	})
	res := runCrawl(s.siteFile)
	if res.code != exitOK {
		t.Fatal(res)
	}
	if n := strings.Count(res.stderr, "extract selector matched nothing"); n != 1 {
		t.Errorf("%d warnings about the selector, want 1:\n%s", n, res.stderr)
	}
	if !strings.Contains(res.stderr, "extract.body") {
		t.Errorf("the warning does not name extract.body:\n%s", res.stderr)
	}
	c := readCorpus(t, s.db)
	if len(c.stored) != 2 {
		t.Errorf("%d articles stored, want 2 (the generic rule)", len(c.stored))
	}
}

// TestCrawlWARC: crawl --warc writes every exchange of the run (robots.txt,
// the list page, the articles) with a CDXJ index, and refuses to overwrite
// an existing file.
func TestCrawlWARC(t *testing.T) {
	title, paras := story(t, "s1")
	s := newFaultSite(t, []faultPage{{"text/html; charset=utf-8", []byte(articleHTML("", title, paras))}}, nil)
	path := filepath.Join(t.TempDir(), "run.warc.gz")
	res := runCrawl(s.siteFile, "--warc", path)
	if res.code != exitOK {
		t.Fatal(res)
	}
	idx, err := os.ReadFile(path + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{")/robots.txt ", ")/ ", ")/a/1.html "} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("index has no line for %q:\n%s", want, idx)
		}
	}
	if res := runCrawl(s.siteFile, "--warc", path); res.code != exitUsage || !strings.Contains(res.stderr, "exists") {
		t.Errorf("second crawl onto the same --warc: %v", res)
	}
}
