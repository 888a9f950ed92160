package sqlcore

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

func TestReplace(t *testing.T) {
	tests := []struct {
		name, old   string
		replace     bool
		alreadyDone bool
	}{
		{"no record", "", false, false},
		{"transient error", string(storage.OutcomeError), true, false},
		{"not an article", string(storage.OutcomeNotArticle), true, false},
		{"stored", string(storage.OutcomeStored), false, true},
		{"duplicate", string(storage.OutcomeDuplicate), false, true},
		{"part", string(storage.OutcomePart), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			replace, err := Replace(tc.old)
			if replace != tc.replace || errors.Is(err, storage.ErrAlreadyDecided) != tc.alreadyDone {
				t.Fatalf("Replace(%q) = %v, %v; want %v, already decided %v", tc.old, replace, err, tc.replace, tc.alreadyDone)
			}
			if tc.alreadyDone && !strings.Contains(err.Error(), tc.old) {
				t.Errorf("error %q does not name the outcome %s", err, tc.old)
			}
			out, ok := Decided(tc.old)
			if ok != tc.alreadyDone || (ok && string(out) != tc.old) || (!ok && out != "") {
				t.Errorf("Decided(%q) = %q, %v", tc.old, out, ok)
			}
		})
	}
}

func TestDupTarget(t *testing.T) {
	tests := []struct {
		name        string
		d           storage.Duplicate
		wantURL     string
		wantCluster int64
	}{
		{"from the article", storage.Duplicate{DupOf: 3}, "http://a/3", 7},
		{"named by the commit", storage.Duplicate{DupOf: 3, DupOfURL: "http://b/", Cluster: 9}, "http://b/", 9},
		{"url only", storage.Duplicate{DupOf: 3, DupOfURL: "http://b/"}, "http://b/", 7},
		{"cluster only", storage.Duplicate{DupOf: 3, Cluster: 9}, "http://a/3", 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, c := DupTarget(&tc.d, "http://a/3", 7)
			if u != tc.wantURL || c != tc.wantCluster {
				t.Fatalf("DupTarget = %s, %d; want %s, %d", u, c, tc.wantURL, tc.wantCluster)
			}
		})
	}
}

func TestMerges(t *testing.T) {
	d := &storage.Duplicate{Merges: []int64{9, 2, 9, 5, 2}}
	if got, want := Merges(d), []int64{2, 5, 9}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Merges = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(d.Merges, []int64{9, 2, 9, 5, 2}) {
		t.Fatalf("Merges changed the commit's list: %v", d.Merges)
	}
}

func TestPartPageAndFill(t *testing.T) {
	now := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	c := &storage.Commit{Page: storage.Page{URL: "http://a/1", Site: "a", RunID: 4, Outcome: storage.OutcomeStored, Status: 200,
		ErrKind: "x", Err: "y", Permanent: true, FetchedAt: now, RetryAt: now}, Article: &storage.Article{}}
	want := storage.Page{URL: "http://a/1_2", Site: "a", RunID: 4, Outcome: storage.OutcomePart, Status: 200, FetchedAt: now, PartOf: "http://a/1"}
	if got := PartPage(c, "http://a/1_2"); !reflect.DeepEqual(got, want) {
		t.Fatalf("PartPage = %+v\nwant       %+v", got, want)
	}
	Assigned{ArticleID: 5, ArticleCluster: 2, DupOfURL: "ignored", DupCluster: 8}.Fill(c)
	if c.Article.ID != 5 || c.Article.Cluster != 2 {
		t.Fatalf("article after Fill: id %d cluster %d", c.Article.ID, c.Article.Cluster)
	}
	d := &storage.Commit{Duplicate: &storage.Duplicate{}}
	Assigned{ArticleID: 5, DupOfURL: "http://a/1", DupCluster: 8}.Fill(d)
	if d.Duplicate.DupOfURL != "http://a/1" || d.Duplicate.Cluster != 8 {
		t.Fatalf("duplicate after Fill: %+v", d.Duplicate)
	}
}

func TestOne(t *testing.T) {
	noRows := errors.New("no rows")
	other := errors.New("broken pipe")
	tests := []struct {
		name     string
		err      error
		want     int
		wantErr  error
		wantText string
	}{
		{"found", nil, 42, nil, ""},
		{"no rows", noRows, 0, storage.ErrNotFound, "article 7: "},
		{"other error", other, 0, other, "article 7: broken pipe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := One(42, tc.err, noRows, "article", int64(7))
			if got != tc.want || !errors.Is(err, tc.wantErr) || (err != nil && !strings.HasPrefix(err.Error(), tc.wantText)) {
				t.Fatalf("One = %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestNames(t *testing.T) {
	got := Names(ArticleCols)
	if len(got) != 25 || got[0] != "id" || got[1] != "url" || got[23] != "pages_missing" || got[24] != "channel" {
		t.Fatalf("Names(ArticleCols) = %q", got)
	}
	if n, args := len(Names(ArticleFields)), len(ArticleArgs("u", &storage.Article{})); n != args {
		t.Errorf("%d article fields, %d arguments", n, args)
	}
	if n, args := len(Names(DuplicateCols)), len(DuplicateArgs("u", &storage.Duplicate{}, "", 0, "")); n != args {
		t.Errorf("%d duplicate columns, %d arguments", n, args)
	}
	if n, args := len(Names(PageCols)), len(PageArgs(&storage.Page{})); n != args {
		t.Errorf("%d page columns, %d arguments", n, args)
	}
	if n, args := len(Names(SurfaceCols)), len(SurfaceArgs(&storage.SurfaceState{})); n != args {
		t.Errorf("%d surface columns, %d arguments", n, args)
	}
}

func TestPassages(t *testing.T) {
	ps := []storage.Passage{{Start: 1, OtherStart: 2, Len: 3}, {Start: 40, OtherStart: 0, Len: 12}}
	vs, err := UnpackSignature(packPassages(ps))
	if err != nil {
		t.Fatal(err)
	}
	got, err := unpackPassages(vs)
	if err != nil || !reflect.DeepEqual(got, ps) {
		t.Fatalf("round trip = %v, %v; want %v", got, err, ps)
	}
	for name, vs := range map[string][]uint64{"not triples": {1, 2}, "out of range": {1, 1 << 40, 3}} {
		if _, err := unpackPassages(vs); err == nil {
			t.Errorf("%s: %v accepted", name, vs)
		}
	}
}

func TestScanners(t *testing.T) {
	var tm time.Time
	if err := (nanos{&tm}).Scan(int64(1_700_000_000_000_000_123)); err != nil || tm.UnixNano() != 1_700_000_000_000_000_123 || tm.Location() != time.UTC {
		t.Fatalf("nanos scan = %v, %v", tm, err)
	}
	if err := (nanos{&tm}).Scan(nil); err != nil || !tm.IsZero() {
		t.Fatalf("nanos scan of NULL = %v, %v", tm, err)
	}
	if err := (nanos{&tm}).Scan("2026"); err == nil {
		t.Fatal("nanos scan of a string succeeded")
	}
	var sig []uint64
	d := uint64s{what: "prints", dst: &sig}
	if err := d.Scan([]byte{1, 2, 3}); err != nil || d.err == nil || !strings.HasPrefix(d.err.Error(), "prints blob of 3 bytes") {
		t.Fatalf("uint64s scan of 3 bytes: %v, kept %v", err, d.err)
	}
	if _ = d.Scan(PackSignature([]uint64{7, 8})); d.err != nil || !reflect.DeepEqual(sig, []uint64{7, 8}) {
		t.Fatalf("uint64s scan = %v, %v", sig, d.err)
	}
}
