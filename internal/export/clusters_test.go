package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

// reprint is one copy of an agency story on a portal.
type reprint struct {
	site, url, source string
	published         time.Time
}

// permutations returns every order of n items (as index lists).
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// exportCluster crawls the copies in the given order into a memory store
// (the first stored, the others its duplicates, their texts kept, as
// with keep_duplicate_text) under a run that recorded names, and returns
// the JSONL records by URL.
func exportCluster(t *testing.T, copies []reprint, order []int, names map[string][]string) map[string]map[string]any {
	t.Helper()
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	run, err := s.BeginRun(ctx, "sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range order {
		c := copies[k]
		at := t0.Add(time.Duration(i) * time.Minute)
		pg := storage.Page{URL: c.url, Site: c.site, RunID: run.ID, Status: 200, FetchedAt: at}
		text := "正文 " + c.url
		if i == 0 {
			pg.Outcome = storage.OutcomeStored
			err = s.Commit(ctx, &storage.Commit{Page: pg, Article: &storage.Article{URL: c.url, Site: c.site, RunID: run.ID,
				Title: "标题", Text: text, Source: c.source, PublishedAt: c.published, FetchedAt: at, ContentHash: "00",
				Fingerprint: storage.Fingerprint{Simhash: 1, Signature: []uint64{1}, Length: 1}}})
		} else {
			pg.Outcome = storage.OutcomeDuplicate
			err = s.Commit(ctx, &storage.Commit{Page: pg, Duplicate: &storage.Duplicate{URL: c.url, Site: c.site, RunID: run.ID,
				DupOf: 1, Reason: "jaccard", Title: "标题", Text: text, Source: c.source, PublishedAt: c.published,
				FetchedAt: at, Simhash: 1, Signature: []uint64{1}}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	run.Status, run.Stats.Settings = storage.RunCompleted, &storage.RunSettings{SourceNames: names}
	if err := s.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := export.JSONL(ctx, s, export.Filter{}, &b); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		out[r["url"].(string)] = r
	}
	return out
}

// TestRepresentative: the cluster's original is the copy whose site
// publishes under the cluster's 来源 (source_names), else the earliest
// published, else the smallest URL, whichever copy was crawled (and
// stored) first: every crawl order of four copies gives the same
// representative, the same copies list and the representative's own text.
func TestRepresentative(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 11, 20, h, m, 0, 0, time.UTC) }
	xinhua := reprint{"xinhua", "http://www.news.cn/1", "新华网", at(10, 5)}
	sina := reprint{"sina", "http://news.sina.com.cn/1", "新华社", at(10, 0)}
	qq := reprint{"qq", "http://news.qq.com/1", "新华社", at(10, 30)}
	sohu := reprint{"sohu", "http://www.sohu.com/1", "", time.Time{}}
	noTimes := func(rs ...reprint) []reprint {
		for i := range rs {
			rs[i].published = time.Time{}
		}
		return rs
	}
	agency := map[string][]string{"xinhua": {"新华社", "新华网"}}
	for _, tc := range []struct {
		name   string
		copies []reprint
		names  map[string][]string
		rep    string
		source string
	}{
		{"the agency's own site, though a reprint shows an earlier time", []reprint{xinhua, sina, qq, sohu}, agency, xinhua.url, "新华社"},
		{"no source_names: the earliest published", []reprint{xinhua, sina, qq, sohu}, nil, sina.url, "新华社"},
		{"no source_names, no times: the smallest URL", noTimes(xinhua, sina, qq, sohu), nil, qq.url, "新华社"},
		{"no 来源 at all", []reprint{{"a", "http://a/1", "", at(9, 0)}, {"b", "http://b/1", "", at(8, 0)}}, agency, "http://b/1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first []string
			for _, order := range permutations(len(tc.copies)) {
				recs := exportCluster(t, tc.copies, order, tc.names)
				var reps []string
				for u, r := range recs {
					if r["representative"] == true {
						reps = append(reps, u)
					}
					if got := fmt.Sprint(r["original_source"]); tc.source != "" && got != tc.source {
						t.Errorf("order %v: %s original_source %s, want %s", order, u, got, tc.source)
					}
				}
				if !slices.Equal(reps, []string{tc.rep}) {
					t.Fatalf("order %v: representatives %v, want %s", order, reps, tc.rep)
				}
				rep := recs[tc.rep]
				if rep["text"] != "正文 "+tc.rep {
					t.Errorf("order %v: the representative's record has text %q", order, rep["text"])
				}
				list, _ := rep["copies"].([]any)
				if len(list) != len(tc.copies) {
					t.Fatalf("order %v: copies %v", order, rep["copies"])
				}
				// The verdicts depend on which copy was stored; the copies
				// and their order do not.
				var copies []string
				for _, c := range list {
					m := c.(map[string]any)
					copies = append(copies, fmt.Sprint(m["site"], m["url"], m["source"], m["published_at"]))
				}
				if first == nil {
					first = copies
				} else if !slices.Equal(copies, first) {
					t.Errorf("order %v: copies %v, first order gave %v", order, copies, first)
				}
				for u, r := range recs {
					if u != tc.rep && r["copies"] != nil {
						t.Errorf("order %v: copies on %s, not the representative", order, u)
					}
				}
			}
		})
	}
}
