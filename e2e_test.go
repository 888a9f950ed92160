package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// TestEndToEndCrawl crawls the bundled fixture web (robots.txt, a GBK
// portal with mislabelled pages, a redirect-only article, a 404, a
// tracking-parameter twin, reprints) and checks the stored corpus, then
// crawls again and checks that nothing is stored twice.
func TestEndToEndCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the segmenter dictionary")
	}
	sites, stop, err := fixture.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	db := filepath.Join(dir, "news.db")
	siteFile := filepath.Join(dir, "sites.yaml")
	if err := os.WriteFile(siteFile, fixture.SiteYAML(sites, db), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"crawl", "--site", siteFile, "--progress", "0"}, &out, &errb); code != exitOK {
		t.Fatalf("crawl exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "completed") {
		t.Errorf("summary does not report a completed run:\n%s", out.String())
	}

	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := fixture.Expected()
	var arts []storage.Article
	store.Articles(ctx, func(a storage.Article) error { arts = append(arts, a); return nil })
	var dups []storage.Duplicate
	store.Duplicates(ctx, func(d storage.Duplicate) error { dups = append(dups, d); return nil })
	pages := map[string]storage.Page{}
	store.Pages(ctx, func(p storage.Page) error { pages[p.URL] = p; return nil })
	if len(arts) != want.Stored || len(dups) != want.Duplicates {
		for _, a := range arts {
			t.Logf("stored %s %q", a.URL, a.Title)
		}
		for _, d := range dups {
			t.Logf("dup %s of %s j=%.2f", d.URL, d.DupOfURL, d.Jaccard)
		}
		t.Fatalf("stored %d duplicates %d, want %d and %d", len(arts), len(dups), want.Stored, want.Duplicates)
	}
	a, b := sites[0].URL, sites[1].URL
	byURL := map[string]storage.Article{}
	for _, x := range arts {
		byURL[x.URL] = x
		if strings.Contains(x.URL, "/private/") {
			t.Errorf("robots-disallowed page stored: %s", x.URL)
		}
		if strings.Contains(x.Text, "相关阅读") || strings.Contains(x.Text, "版权所有") {
			t.Errorf("%s: page chrome in the stored text:\n%s", x.URL, x.Text)
		}
	}
	// The redirect-only article is stored under its final URL.
	if _, ok := byURL[a+"/news/2024/1105/s6.html"]; !ok {
		t.Errorf("redirect target not stored; stored: %v", keys(byURL))
	}
	// The GBK brief (meta says utf-8) is decoded and clustered with the
	// UTF-8 original on the other portal, whichever was fetched first.
	cluster := map[string]int64{}
	for _, x := range arts {
		cluster[x.URL] = x.Cluster
	}
	for _, d := range dups {
		cluster[d.URL] = d.Cluster
	}
	for _, pair := range [][2]string{
		{b + "/a/20241102/0003.htm", a + "/news/2024/1102/s3.html"}, // GBK brief, meta says utf-8
		{b + "/a/20241101/0001.htm", a + "/news/2024/1101/s1.html"}, // GBK, one paragraph dropped
		{b + "/a/20241102/0002.htm", a + "/news/2024/1102/s2.html"}, // 相关阅读 block after the body
		{b + "/a/20241104/0005.htm", a + "/news/2024/1104/s5.html"},
	} {
		c0, ok0 := cluster[pair[0]]
		c1, ok1 := cluster[pair[1]]
		if !ok0 || !ok1 || c0 != c1 {
			t.Errorf("%s and %s not in one cluster (%d, %d)", pair[0], pair[1], c0, c1)
		}
	}
	// The GBK copies decode to the story text.
	for _, x := range arts {
		if strings.HasPrefix(x.URL, b) && !strings.Contains(x.Text, "本报讯") && !strings.Contains(x.Text, "新华社电") {
			t.Errorf("%s: GBK page badly decoded: %q", x.URL, x.Text)
		}
	}
	if p, ok := pages[a+"/news/2024/1106/gone.html"]; !ok || p.Outcome != storage.OutcomeError || !strings.Contains(p.ErrKind, "404") {
		t.Errorf("404 page recorded as %+v", p)
	}
	for u := range pages {
		if strings.Contains(u, "utm_") || strings.Contains(u, "#") {
			t.Errorf("tracking parameters kept in %s", u)
		}
	}
	if err := store.Check(ctx); err != nil {
		t.Error(err)
	}
	store.Close()

	// A second run stores nothing new and re-decides nothing.
	out.Reset()
	if code := run([]string{"crawl", "--site", siteFile, "--progress", "0"}, &out, &errb); code != exitOK {
		t.Fatalf("second crawl exit %d: %s", code, errb.String())
	}
	store, err = sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n := 0
	store.Articles(ctx, func(storage.Article) error { n++; return nil })
	if n != want.Stored {
		t.Errorf("second run changed the stored count to %d", n)
	}

	// export writes one line per decided article URL with the scorer's fields.
	exp := filepath.Join(dir, "corpus.jsonl")
	if code := run([]string{"export", "--db", db, "--out", exp}, &out, &errb); code != exitOK {
		t.Fatalf("export exit %d: %s", code, errb.String())
	}
	f, err := os.Open(exp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"url", "site", "kept", "dup_of", "cluster", "title", "text", "published_at", "source", "author", "fetched_at", "simhash"} {
			if _, ok := m[k]; !ok {
				t.Errorf("export line without %q: %s", k, sc.Text())
			}
		}
		if len(m["simhash"].(string)) != 16 {
			t.Errorf("simhash %v is not 16 hex digits", m["simhash"])
		}
	}
	if lines != want.Stored+want.Duplicates {
		t.Errorf("export has %d lines, want %d", lines, want.Stored+want.Duplicates)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestConfigDefaultsMatchEngine(t *testing.T) {
	if config.DefaultJaccard != dedup.DefaultJaccard || config.DefaultHamming != dedup.DefaultHamming {
		t.Errorf("config defaults (%g, %d) differ from the engine's (%g, %d)",
			config.DefaultJaccard, config.DefaultHamming, dedup.DefaultJaccard, dedup.DefaultHamming)
	}
}
