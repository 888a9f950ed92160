package warcexport_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/internal/warcexport"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
)

func TestWrite(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	if err := sample.Fill(ctx, s); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	articles := map[string]storage.Article{}
	if err := s.Articles(ctx, func(a storage.Article) error { articles[a.URL] = a; return nil }); err != nil {
		t.Fatal(err)
	}
	var dups []storage.Duplicate
	if err := s.Duplicates(ctx, func(d storage.Duplicate) error { dups = append(dups, d); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                string
		opts                warcexport.Options
		resources, revisits int
	}{
		{"all", warcexport.Options{}, len(articles), len(dups)},
		{"gzip", warcexport.Options{Gzip: true}, len(articles), len(dups)},
		{"kept only", warcexport.Options{Filter: export.Filter{KeptOnly: true}}, len(articles), 0},
		{"run 2", warcexport.Options{Filter: export.Filter{RunID: 2}}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Now = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
			var buf bytes.Buffer
			c, err := warcexport.Write(ctx, s, &buf, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var r io.Reader = &buf
			if tc.opts.Gzip {
				if !bytes.HasPrefix(buf.Bytes(), []byte{0x1f, 0x8b}) {
					t.Fatal("not gzip")
				}
				// Every record is its own gzip member.
				br := bytes.NewReader(buf.Bytes())
				zr, err := gzip.NewReader(br)
				if err != nil {
					t.Fatal(err)
				}
				members := 0
				for {
					zr.Multistream(false)
					if _, err := io.Copy(io.Discard, zr); err != nil {
						t.Fatal(err)
					}
					members++
					if err := zr.Reset(br); err == io.EOF {
						break
					} else if err != nil {
						t.Fatal(err)
					}
				}
				if members != 1+2*tc.resources+tc.revisits {
					t.Errorf("%d gzip members", members)
				}
				gz, err := gzip.NewReader(&buf)
				if err != nil {
					t.Fatal(err)
				}
				r = gz
			}
			recs, err := readWARC(r)
			if err != nil {
				t.Fatal(err)
			}
			if c.Resource != tc.resources || c.Metadata != tc.resources || c.Revisit != tc.revisits {
				t.Fatalf("counts %+v, want %d resources, %d revisits", c, tc.resources, tc.revisits)
			}
			if len(recs) != 1+2*tc.resources+tc.revisits {
				t.Fatalf("%d records read back", len(recs))
			}
			if recs[0].get("WARC-Type") != "warcinfo" || !strings.Contains(string(recs[0].Block), "format: WARC File Format 1.1") {
				t.Fatalf("first record %+v", recs[0].Fields)
			}
			ids := map[string]bool{}
			for i, rec := range recs[1:] {
				id := rec.get("WARC-Record-ID")
				if ids[id] {
					t.Errorf("record id %s repeated", id)
				}
				ids[id] = true
				uri := rec.get("WARC-Target-URI")
				switch typ := rec.get("WARC-Type"); typ {
				case "resource":
					a, ok := articles[uri]
					if !ok {
						t.Fatalf("resource for unknown %s", uri)
					}
					if id != warcexport.RecordID("article", uri) || rec.get("Content-Type") != "text/plain; charset=utf-8" ||
						string(rec.Block) != a.Title+"\n\n"+a.Text+"\n" || rec.get("WARC-Date") != a.FetchedAt.UTC().Format(time.RFC3339) {
						t.Errorf("resource %d: %v %q", i, rec.Fields, rec.Block)
					}
				case "metadata":
					var m export.Record
					if err := json.Unmarshal(rec.Block, &m); err != nil || m.URL != uri || !m.Kept ||
						rec.get("WARC-Concurrent-To") != warcexport.RecordID("article", uri) {
						t.Errorf("metadata %d: %v %s (%v)", i, rec.Fields, rec.Block, err)
					}
				case "revisit":
					var d *storage.Duplicate
					for j := range dups {
						if dups[j].URL == uri {
							d = &dups[j]
						}
					}
					if d == nil {
						t.Fatalf("revisit for unknown %s", uri)
					}
					orig := articles[d.DupOfURL]
					if rec.get("WARC-Profile") != warcexport.NearDuplicateProfile ||
						rec.get("WARC-Refers-To") != warcexport.RecordID("article", d.DupOfURL) ||
						rec.get("WARC-Refers-To-Target-URI") != d.DupOfURL ||
						rec.get("WARC-Refers-To-Date") != orig.FetchedAt.UTC().Format(time.RFC3339) ||
						!strings.Contains(string(rec.Block), "reason: "+d.Reason+"\r\n") {
						t.Errorf("revisit %d: %v %q", i, rec.Fields, rec.Block)
					}
				default:
					t.Errorf("record %d of type %q", i, typ)
				}
			}
		})
	}
}

// TestReaderRejects: the spec reader is a real check (it fails on a
// corrupted block, a wrong length, a missing field).
func TestReaderRejects(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	if err := sample.Fill(ctx, s); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var buf bytes.Buffer
	if _, err := warcexport.Write(ctx, s, &buf, warcexport.Options{Filter: export.Filter{RunID: 2}}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct {
		name   string
		mutate func(string) string
	}{
		{"block changed", func(s string) string {
			return strings.Replace(s, "format: WARC File Format 1.1", "format: WARC File Format 1.0", 1)
		}},
		{"length off", func(s string) string { return strings.Replace(s, "\r\n\r\nWARC/1.1", "\r\n\r\n\r\nWARC/1.1", 1) }},
		{"field missing", func(s string) string { return strings.Replace(s, "WARC-Date:", "X-Date:", 1) }},
		{"version", func(s string) string { return strings.Replace(s, "WARC/1.1", "WARC/1.0", 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := tc.mutate(good)
			if bad == good {
				t.Fatal("mutation did not apply")
			}
			if _, err := readWARC(strings.NewReader(bad)); err == nil {
				t.Fatal("corrupted file read without error")
			}
		})
	}
}

// TestWriteRaw: an article whose raw response the store kept is a response
// record (the HTTP message as kept) plus a conversion record of its text.
func TestWriteRaw(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	defer s.Close()
	at := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	body := []byte("<html><head><meta charset=\"gbk\"></head><body>\xd6\xd0\xce\xc4</body></html>")
	commits := []*storage.Commit{
		{Page: storage.Page{URL: "http://a/1", Site: "s", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: at},
			Article: &storage.Article{URL: "http://a/1", Site: "s", RunID: 1, Title: "标题", Text: "正文", FetchedAt: at, ContentHash: "00"},
			Raw: &storage.RawResponse{Status: 200, Proto: "HTTP/1.1", Header: http.Header{"Content-Type": {"text/html; charset=gbk"},
				"Content-Length": {fmt.Sprint(len(body))}}, Body: body}},
		{Page: storage.Page{URL: "http://a/2", Site: "s", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: at},
			Article: &storage.Article{URL: "http://a/2", Site: "s", RunID: 1, Title: "无原文", Text: "正文二", FetchedAt: at, ContentHash: "01"}},
		{Page: storage.Page{URL: "http://b/1", Site: "s", RunID: 1, Outcome: storage.OutcomeDuplicate, Status: 200, FetchedAt: at},
			Duplicate: &storage.Duplicate{URL: "http://b/1", Site: "s", RunID: 1, DupOf: 1, Jaccard: 0.9, Reason: "jaccard", FetchedAt: at}},
	}
	for _, c := range commits {
		if err := s.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	c, err := warcexport.Write(ctx, s, &buf, warcexport.Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	if c != (warcexport.Counts{Response: 1, Conversion: 1, Resource: 1, Metadata: 2, Revisit: 1}) {
		t.Fatalf("counts %+v", c)
	}
	recs, err := readWARC(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range recs {
		types = append(types, r.get("WARC-Type"))
	}
	if got := strings.Join(types, " "); got != "warcinfo response conversion metadata resource metadata revisit" {
		t.Fatalf("record types %s", got)
	}
	resp := recs[1]
	if resp.get("Content-Type") != "application/http;msgtype=response" || resp.get("WARC-Record-ID") != warcexport.RecordID("article", "http://a/1") {
		t.Errorf("response fields %v", resp.Fields)
	}
	hr, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(resp.Block)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(hr.Body)
	if hr.StatusCode != 200 || hr.Header.Get("Content-Type") != "text/html; charset=gbk" || !bytes.Equal(got, body) {
		t.Errorf("response block: %d %v %q", hr.StatusCode, hr.Header, got)
	}
	conv := recs[2]
	if conv.get("WARC-Refers-To") != warcexport.RecordID("article", "http://a/1") || string(conv.Block) != "标题\n\n正文\n" {
		t.Errorf("conversion %v %q", conv.Fields, conv.Block)
	}
	if recs[6].get("WARC-Refers-To") != warcexport.RecordID("article", "http://a/1") {
		t.Errorf("revisit refers to %s", recs[6].get("WARC-Refers-To"))
	}
}

// TestNearDuplicateProfile: the revisit profile of a near-duplicate is a
// URI of the WARC 1.1 specification (its "Other profiles" section: the
// two profiles it defines claim an identical payload or a 304, which a
// near-duplicate is not), never a page of this project that may not exist.
func TestNearDuplicateProfile(t *testing.T) {
	identical := []string{"http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", "http://netpreserve.org/warc/1.1/revisit/server-not-modified"}
	p := warcexport.NearDuplicateProfile
	if !strings.HasPrefix(p, warcexport.SpecURI+"#") || slices.Contains(identical, p) {
		t.Errorf("profile %q is not a section of the WARC 1.1 specification %s", p, warcexport.SpecURI)
	}
	if strings.Contains(p, "newscrawl") {
		t.Errorf("profile %q points at this project", p)
	}
}
