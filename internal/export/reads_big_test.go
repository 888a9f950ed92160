package export_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// countedMembers counts the cluster members an export reads.
type countedMembers struct {
	*sqlite.Store
	calls map[int64]int
	rows  int
}

func (c *countedMembers) ClusterMembers(ctx context.Context, id int64, fn func(storage.ClusterMember) error) error {
	c.calls[id]++
	return c.Store.ClusterMembers(ctx, id, func(m storage.ClusterMember) error { c.rows++; return fn(m) })
}

// TestClusterReadsBigCluster: a story with more copies than an export
// keeps at once, whose duplicates come in commit order between those of
// as many other clusters, is read about once, not once a copy: the
// member rows an export reads stay within a small multiple of the
// store's records.
func TestClusterReadsBigCluster(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "big.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := s.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	page := func(prefix string, outcome storage.Outcome) storage.Page {
		n++
		u := fmt.Sprintf("http://%s.example/%d", prefix, n)
		return storage.Page{URL: u, Site: "s", RunID: 1, Outcome: outcome, Status: 200, FetchedAt: at}
	}
	article := func() int64 {
		p := page("a", storage.OutcomeStored)
		a := &storage.Article{URL: p.URL, Site: "s", RunID: 1, Title: "t", Text: "t", ContentHash: fmt.Sprintf("%064x", n), FetchedAt: at}
		if err := b.Commit(ctx, &storage.Commit{Page: p, Article: a}); err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	duplicate := func(of int64) {
		p := page("d", storage.OutcomeDuplicate)
		if err := b.Commit(ctx, &storage.Commit{Page: p, Duplicate: &storage.Duplicate{URL: p.URL, Site: "s", RunID: 1, DupOf: of, Reason: "duplicate", FetchedAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	const others = 4200 // the big cluster has more copies than an export keeps
	big := article()
	ids := make([]int64, others)
	for i := range ids {
		ids[i] = article()
	}
	for _, id := range ids {
		duplicate(big)
		duplicate(id)
	}
	if err := b.End(); err != nil {
		t.Fatal(err)
	}
	c := &countedMembers{Store: s, calls: map[int64]int{}}
	records, err := export.JSONL(ctx, c, export.Filter{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 3*others; records != want {
		t.Fatalf("%d records, want %d", records, want)
	}
	if c.calls[big] > 2 {
		t.Errorf("the big cluster was read %d times", c.calls[big])
	}
	if c.rows > 3*records {
		t.Errorf("%d member rows read for %d records", c.rows, records)
	}
	t.Logf("%d records: %d member rows read, the big cluster read %d times", records, c.rows, c.calls[big])
}
