package warcexport_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/internal/warcexport"
	"github.com/newsdedup/newscrawl/storage"
)

func TestWrite(t *testing.T) {
	ctx := context.Background()
	s, err := sample.Store(ctx)
	if err != nil {
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
					if id != warcexport.RecordID("resource", uri) || rec.get("Content-Type") != "text/plain; charset=utf-8" ||
						string(rec.Block) != a.Title+"\n\n"+a.Text+"\n" || rec.get("WARC-Date") != a.FetchedAt.UTC().Format(time.RFC3339) {
						t.Errorf("resource %d: %v %q", i, rec.Fields, rec.Block)
					}
				case "metadata":
					var m export.Record
					if err := json.Unmarshal(rec.Block, &m); err != nil || m.URL != uri || !m.Kept ||
						rec.get("WARC-Concurrent-To") != warcexport.RecordID("resource", uri) {
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
						rec.get("WARC-Refers-To") != warcexport.RecordID("resource", d.DupOfURL) ||
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
	s, err := sample.Store(ctx)
	if err != nil {
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
