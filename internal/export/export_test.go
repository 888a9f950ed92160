package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// corpus builds a store with two runs: run 1 stores a1 and records d1 as
// its duplicate; run 2 (a day later) stores a2 and records d2.
func corpus(t *testing.T) storage.Store {
	t.Helper()
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	add := func(c *storage.Commit) {
		t.Helper()
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	page := func(url string, run int64, o storage.Outcome, at time.Time) storage.Page {
		return storage.Page{URL: url, Site: "sina", RunID: run, Outcome: o, Status: 200, FetchedAt: at}
	}
	art := func(url string, run int64, at time.Time) *storage.Commit {
		return &storage.Commit{Page: page(url, run, storage.OutcomeStored, at), Article: &storage.Article{
			URL: url, Site: "sina", RunID: run, Title: "标题 " + url, Text: "第一段\n第二段, \"引号\"", Author: "作者",
			FetchedAt: at, ContentHash: "00", Fingerprint: storage.Fingerprint{Simhash: 0xabc, Signature: []uint64{1, 2}, Length: 2},
		}}
	}
	dup := func(url string, run int64, of int64, at time.Time) *storage.Commit {
		return &storage.Commit{Page: page(url, run, storage.OutcomeDuplicate, at), Duplicate: &storage.Duplicate{
			URL: url, Site: "sina", RunID: run, DupOf: of, Distance: 2, Jaccard: 0.5, Containment: 0.9,
			Reason: "jaccard", Title: "转载", FetchedAt: at, Simhash: 0xabd, Signature: []uint64{1, 2},
		}}
	}
	// Channels: a self-media post, a newsroom article and its newsroom
	// copy, and a verdict recorded before channels were (d/1: "").
	a1, a2, d2 := art("http://a/1", 1, t0), art("http://a/2", 2, t0.Add(24*time.Hour)), dup("http://d/2", 2, 2, t0.Add(25*time.Hour))
	a1.Article.Channel, a2.Article.Channel, d2.Duplicate.Channel = "self_media", "newsroom", "newsroom"
	add(a1)
	add(dup("http://d/1", 1, 1, t0.Add(time.Minute)))
	add(a2)
	add(d2)
	return s
}

func TestJSONL(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filter export.Filter
		want   []string
	}{
		{"all", export.Filter{}, []string{"http://a/1", "http://a/2", "http://d/1", "http://d/2"}},
		{"kept only", export.Filter{KeptOnly: true}, []string{"http://a/1", "http://a/2"}},
		{"run 2", export.Filter{RunID: 2}, []string{"http://a/2", "http://d/2"}},
		{"since", export.Filter{Since: t0.Add(time.Minute)}, []string{"http://a/2", "http://d/1", "http://d/2"}},
		{"run and kept", export.Filter{RunID: 1, KeptOnly: true}, []string{"http://a/1"}},
		{"none", export.Filter{RunID: 9}, nil},
		{"newsroom", export.Filter{Channel: "newsroom"}, []string{"http://a/2", "http://d/2"}},
		{"self-media", export.Filter{Channel: "self_media"}, []string{"http://a/1"}},
		{"unknown, and recorded before channels", export.Filter{Channel: "unknown"}, []string{"http://d/1"}},
		{"newsroom kept", export.Filter{Channel: "newsroom", KeptOnly: true}, []string{"http://a/2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := export.JSONL(context.Background(), corpus(t), tc.filter, &buf)
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for line := range strings.Lines(buf.String()) {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				// Every key on every line, kept or not.
				var keys []string
				for k := range m {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				want := slices.Clone(export.Columns)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("keys %v, want %v", keys, want)
				}
				kept := m["kept"].(bool)
				if kept && (m["reason"] != nil || m["dup_of"] != nil || m["jaccard"] != nil) {
					t.Errorf("kept line with verdict fields: %s", line)
				}
				if !kept && (m["reason"] != "jaccard" || m["dup_of"] == nil || m["distance"] != 2.0) {
					t.Errorf("duplicate line without its verdict: %s", line)
				}
				if c, ok := m["channel"]; !ok || (m["url"] == "http://d/1") != (c == nil) {
					t.Errorf("channel %v: null only on the record stored without one: %s", c, line)
				}
				if m["run_id"] == 0.0 {
					t.Errorf("run_id missing: %s", line)
				}
				urls = append(urls, m["url"].(string))
			}
			if n != len(urls) || !slices.Equal(urls, tc.want) {
				t.Fatalf("n=%d urls %v, want %v", n, urls, tc.want)
			}
		})
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	n, err := export.CSV(context.Background(), corpus(t), export.Filter{}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 || len(rows) != 5 || !slices.Equal(rows[0], export.Columns) {
		t.Fatalf("n=%d rows=%d header %v", n, len(rows), rows[0])
	}
	col := func(row []string, name string) string { return row[slices.Index(export.Columns, name)] }
	kept, dup := rows[1], rows[3]
	for _, tc := range []struct{ name, got, want string }{
		{"text keeps newline and quotes", col(kept, "text"), "第一段\n第二段, \"引号\""},
		{"kept reason empty", col(kept, "reason"), ""},
		{"kept dup_of empty", col(kept, "dup_of"), ""},
		{"dup reason", col(dup, "reason"), "jaccard"},
		{"dup of", col(dup, "dup_of"), "http://a/1"},
		{"dup jaccard", col(dup, "jaccard"), "0.5"},
		{"run id", col(dup, "run_id"), "1"},
		{"fetched", col(kept, "fetched_at"), "2026-11-20T08:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"2026-11-20T08:00:00Z", t0, false},
		{"2026-11-20", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), false},
		{"24h", now.Add(-24 * time.Hour), false},
		{"-1h", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := export.ParseSince(tc.in, now)
			if (err != nil) != tc.wantErr || !got.Equal(tc.want) {
				t.Fatalf("ParseSince(%q) = %v, %v", tc.in, got, err)
			}
		})
	}
}

func FuzzParseSince(f *testing.F) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"", "24h", "2026-11-20", "2026-11-20T08:00:00Z", "-1h", "1e9h", "30d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := export.ParseSince(s, now)
		if err != nil {
			return
		}
		if d, derr := time.ParseDuration(s); derr == nil && d >= 0 && got.After(now) {
			t.Fatalf("ParseSince(%q) = %v, after now", s, got)
		}
	})
}

// TestExportPartialReprint: a partial reprint's record names the article it
// re-uses (partial_of, by URL), its own share and the shared passages, in
// JSONL and CSV; other records carry those keys as null.
func TestExportPartialReprint(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	for i, c := range []*storage.Commit{
		{Page: storage.Page{URL: "http://a/1", Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, FetchedAt: t0},
			Article: &storage.Article{Site: "sina", RunID: 1, Title: "t", Text: "x", FetchedAt: t0, ContentHash: "00"}},
		{Page: storage.Page{URL: "http://a/2", Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, FetchedAt: t0},
			Article: &storage.Article{Site: "sina", RunID: 1, Title: "t", Text: "y", FetchedAt: t0, ContentHash: "01",
				PartialOf: 1, OwnShare: 0.3125, Passages: []storage.Passage{{Start: 0, OtherStart: 4, Len: 9}}}},
	} {
		if err := s.Commit(ctx, c); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	var j, c bytes.Buffer
	if _, err := export.JSONL(ctx, s, export.Filter{}, &j); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(j.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), j.String())
	}
	for _, tc := range []struct {
		name, line string
		want       []string
	}{
		{"plain article", lines[0], []string{`"reason":null`, `"partial_of":null`, `"own_share":null`, `"passages":null`}},
		{"partial reprint", lines[1], []string{`"reason":"partial"`, `"partial_of":"http://a/1"`, `"own_share":0.3125`, `"passages":[[0,4,9]]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.line, w) {
					t.Errorf("missing %s in %s", w, tc.line)
				}
			}
		})
	}
	if _, err := export.CSV(ctx, s, export.Filter{}, &c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(row []string, name string) string { return row[slices.Index(export.Columns, name)] }
	if got := []string{col(rows[2], "partial_of"), col(rows[2], "own_share"), col(rows[2], "passages")}; !slices.Equal(got, []string{"http://a/1", "0.3125", "[[0,4,9]]"}) {
		t.Errorf("CSV partial reprint cells %q", got)
	}
}

// TestExportPages: an article stitched from several pages lists them
// (pages) and those that could not be fetched (pages_missing) in JSONL
// and CSV; an article of one page carries both keys as null.
func TestExportPages(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	pages := []string{"http://a/1.html", "http://a/1-2.html", "http://a/1-3.html"}
	for i, c := range []*storage.Commit{
		{Page: storage.Page{URL: "http://a/0.html", Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, FetchedAt: t0},
			Article: &storage.Article{Site: "sina", RunID: 1, Title: "t", Text: "x", FetchedAt: t0, ContentHash: "00"}},
		{Page: storage.Page{URL: pages[0], Site: "sina", RunID: 1, Outcome: storage.OutcomeStored, FetchedAt: t0},
			Article: &storage.Article{Site: "sina", RunID: 1, Title: "t", Text: "y\nz", FetchedAt: t0, ContentHash: "01",
				Pages: pages, PagesMissing: pages[2:]}, Parts: pages[1:2]},
	} {
		if err := s.Commit(ctx, c); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	var j, c bytes.Buffer
	if _, err := export.JSONL(ctx, s, export.Filter{}, &j); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(j.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines (a page of an article exported as a record?): %s", len(lines), j.String())
	}
	for _, tc := range []struct {
		name, line string
		want       []string
	}{
		{"one page", lines[0], []string{`"pages":null`, `"pages_missing":null`}},
		{"three pages", lines[1], []string{`"pages":["http://a/1.html","http://a/1-2.html","http://a/1-3.html"]`, `"pages_missing":["http://a/1-3.html"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.line, w) {
					t.Errorf("missing %s in %s", w, tc.line)
				}
			}
		})
	}
	if _, err := export.CSV(ctx, s, export.Filter{}, &c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(row []string, name string) string { return row[slices.Index(export.Columns, name)] }
	if got := []string{col(rows[1], "pages"), col(rows[2], "pages"), col(rows[2], "pages_missing")}; !slices.Equal(got,
		[]string{"", `["http://a/1.html","http://a/1-2.html","http://a/1-3.html"]`, `["http://a/1-3.html"]`}) {
		t.Errorf("CSV page cells %q", got)
	}
}
