package postgres_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

// envURL names the server the tests run against (.ci/services.sh prints it).
const envURL = pgtest.EnvURL

// Environment of the helper process of TestDeadOwnerLeasesReturn.
const (
	envHelperURL = "NEWSCRAWL_PG_HELPER_URL"
	envHelperPop = "NEWSCRAWL_PG_HELPER_POP"
)

func TestMain(m *testing.M) {
	if u := os.Getenv(envHelperURL); u != "" {
		os.Exit(helperProcess(u))
	}
	goleak.VerifyTestMain(m)
}

// helperProcess is a crawler stand-in: it opens the store, leases
// NEWSCRAWL_PG_HELPER_POP items, reports them on stdout and waits to be
// killed.
func helperProcess(u string) int {
	ctx := context.Background()
	s, err := postgres.Open(ctx, u)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	var n int
	fmt.Sscan(os.Getenv(envHelperPop), &n)
	items, err := s.Pop(ctx, "", n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	var urls []string
	for _, it := range items {
		urls = append(urls, it.URL)
	}
	fmt.Printf("popped %s\n", strings.Join(urls, " "))
	time.Sleep(time.Hour) // killed by the test
	return 0
}

// serverURL returns the test server's URL (pgtest.ServerURL).
func serverURL(t testing.TB) string { return pgtest.ServerURL(t) }

// freshSchema creates an empty schema on the test server, dropped at the
// end of the test, and returns a URL whose search_path selects it.
func freshSchema(t testing.TB) (schemaURL, schema string) {
	return pgtest.Schema(t, "nc_test_")
}

func withSearchPath(t testing.TB, base, schema string) string {
	return pgtest.WithSearchPath(t, base, schema)
}

// adminConn is a plain connection for setting up and inspecting schemas
// behind the store's back.
func adminConn(t testing.TB, u string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatalf("connect to %s: %v", envURL, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func openStore(t testing.TB, u string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	serverURL(t)
	storagetest.Run(t, func(t *testing.T) storage.Store {
		u, _ := freshSchema(t)
		return openStore(t, u)
	}, storagetest.SharedLock())
}

var when = time.Date(2024, 3, 5, 8, 30, 15, 123456789, time.UTC)

func storedCommit(u string, terms ...string) *storage.Commit {
	return &storage.Commit{
		Page: storage.Page{URL: u, Site: "qq", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: when},
		Article: &storage.Article{URL: u, Site: "qq", RunID: 1, Title: "标题", Text: "正文。", FetchedAt: when,
			ContentHash: "ab", Fingerprint: storage.Fingerprint{Simhash: 1, Signature: []uint64{1, 2}, Length: 2}},
		Terms: terms,
	}
}

func dupCommit(u string, of int64) *storage.Commit {
	return &storage.Commit{
		Page: storage.Page{URL: u, Site: "sohu", RunID: 1, Outcome: storage.OutcomeDuplicate, Status: 200, FetchedAt: when},
		Duplicate: &storage.Duplicate{URL: u, Site: "sohu", RunID: 1, DupOf: of, Distance: 2, Jaccard: 0.9,
			Title: "转", FetchedAt: when, Simhash: 7, Signature: []uint64{4}},
	}
}

// TestTwoProcessesCommitOneURL: two stores (two pools, as two processes
// have) commit the same URLs at the same moment, as a stored article or as
// a duplicate: every URL has exactly one winner, the other gets
// ErrAlreadyDecided and writes nothing.
func TestTwoProcessesCommitOneURL(t *testing.T) {
	u, _ := freshSchema(t)
	a, b := openStore(t, u), openStore(t, u)
	ctx := context.Background()
	base := storedCommit("http://base/")
	if err := a.Commit(ctx, base); err != nil {
		t.Fatal(err)
	}
	admin := adminConn(t, u)
	const urls = 20
	wins := [2]int{}
	for i := range urls {
		target := fmt.Sprintf("http://race/%d", i)
		stores := [2]*postgres.Store{a, b}
		var errs [2]error
		// Hold what every commit writes (the document-frequency log, the
		// article duplicates point to) until both commits wait inside
		// their transactions, so that they really overlap.
		gate, err := admin.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gate.Exec(ctx, `LOCK TABLE docfreq_log IN EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		if _, err := gate.Exec(ctx, `SELECT 1 FROM articles WHERE id = $1 FOR UPDATE`, base.Article.ID); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for k := range 2 {
			wg.Go(func() {
				c := storedCommit(target, "共同", fmt.Sprintf("p%d", k))
				if (i+k)%3 == 0 {
					c = dupCommit(target, base.Article.ID)
				}
				errs[k] = stores[k].Commit(ctx, c)
			})
		}
		waitForWaiters(t, admin, 2)
		if err := gate.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		switch {
		case errs[0] == nil && errors.Is(errs[1], storage.ErrAlreadyDecided):
			wins[0]++
		case errs[1] == nil && errors.Is(errs[0], storage.ErrAlreadyDecided):
			wins[1]++
		default:
			t.Fatalf("%s: commits returned %v and %v, want one nil and one ErrAlreadyDecided", target, errs[0], errs[1])
		}
	}
	t.Logf("wins: first store %d, second store %d", wins[0], wins[1])
	pages := 0
	if err := b.Pages(ctx, func(storage.Page) error { pages++; return nil }); err != nil {
		t.Fatal(err)
	}
	if pages != urls+1 {
		t.Fatalf("%d pages, want %d", pages, urls+1)
	}
	articles := 0
	if err := a.Articles(ctx, func(storage.Article) error { articles++; return nil }); err != nil {
		t.Fatal(err)
	}
	docs, err := a.DocFreqs(ctx, func(string, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if docs != articles {
		t.Fatalf("docs counter %d, %d articles", docs, articles)
	}
	if err := a.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitForWaiters waits until n lock requests of the server wait.
func waitForWaiters(t *testing.T, admin *pgx.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		// A row lock wait has no database in pg_locks: count the
		// server's waiters (the tests of this package run one at a time).
		if err := admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d lock waiters after 10 s, want %d", waiting, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTwoProcessesPop: workers of two stores pop one frontier until it is
// empty; every URL is leased to exactly one owner, once.
func TestTwoProcessesPop(t *testing.T) {
	u, _ := freshSchema(t)
	stores := []*postgres.Store{openStore(t, u), openStore(t, u)}
	ctx := context.Background()
	const n = 300
	var items []storage.FrontierItem
	for i := range n {
		items = append(items, storage.FrontierItem{URL: fmt.Sprintf("http://f/%03d", i), Site: []string{"sina", "qq"}[i%2]})
	}
	if added, err := stores[0].Push(ctx, items); err != nil || added != n {
		t.Fatalf("Push = %d, %v", added, err)
	}
	var mu sync.Mutex
	leased := map[string][]string{} // url -> owners
	var wg sync.WaitGroup
	for _, s := range stores {
		for w := range 3 {
			wg.Go(func() {
				site := []string{"", "sina", "qq"}[w]
				for {
					got, err := s.Pop(ctx, site, 4)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, it := range got {
						leased[it.URL] = append(leased[it.URL], s.Owner())
					}
					mu.Unlock()
					for _, it := range got {
						if err := s.Done(ctx, it.URL); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
	if len(leased) != n {
		t.Fatalf("%d URLs leased, want %d", len(leased), n)
	}
	per := map[string]int{}
	for u, owners := range leased {
		if len(owners) != 1 {
			t.Fatalf("%s leased %d times: %v", u, len(owners), owners)
		}
		per[owners[0]]++
	}
	t.Logf("leases per owner: %v", per)
	if left, err := stores[1].Pending(ctx, ""); err != nil || left != 0 {
		t.Fatalf("Pending = %d, %v", left, err)
	}
}

// TestDeadOwnerLeasesReturn: a process that leased URLs is killed with
// SIGKILL; its leases are pending again once its heartbeat is older than
// the lease timeout, in their original order, while a live process's
// leases stay with it.
func TestDeadOwnerLeasesReturn(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	const lease, beat = 5 * time.Second, 200 * time.Millisecond
	live, err := postgres.OpenWith(ctx, u, lease, beat, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { live.Close() })
	var items []storage.FrontierItem
	for i := range 10 {
		items = append(items, storage.FrontierItem{URL: fmt.Sprintf("http://d/%d", i), Site: "s"})
	}
	if _, err := live.Push(ctx, items); err != nil {
		t.Fatal(err)
	}

	// The helper leases the first four and is killed.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelperURL+"="+u, envHelperPop+"=4")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()
	dead := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "popped "))
	if want := []string{"http://d/0", "http://d/1", "http://d/2", "http://d/3"}; !reflect.DeepEqual(dead, want) {
		t.Fatalf("helper leased %v, want %v", dead, want)
	}
	killed := time.Now()

	// The live store leases two; nobody gets the dead process's four yet.
	mine := popURLs(t, live, 2)
	if want := []string{"http://d/4", "http://d/5"}; !reflect.DeepEqual(mine, want) {
		t.Fatalf("live store popped %v, want %v", mine, want)
	}
	other, err := postgres.OpenWith(ctx, u, lease, beat, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	if n, err := other.Requeue(ctx); err != nil || n != 0 {
		t.Fatalf("Requeue right after the kill = %d, %v; want 0 (the dead lease has not timed out)", n, err)
	}
	if got := popURLs(t, other, 1); !reflect.DeepEqual(got, []string{"http://d/6"}) {
		t.Fatalf("Pop right after the kill = %v, want d/6", got)
	}

	// After the timeout the dead leases come back, oldest first; the live
	// store's leases (heartbeat every 200 ms) do not.
	time.Sleep(time.Until(killed.Add(lease + 500*time.Millisecond)))
	got := popURLs(t, other, 10)
	if want := []string{"http://d/0", "http://d/1", "http://d/2", "http://d/3", "http://d/7", "http://d/8", "http://d/9"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Pop after the lease timeout = %v, want %v", got, want)
	}
	if n, err := other.Requeue(ctx); err != nil || n != 8 {
		t.Fatalf("Requeue = %d, %v; want 8 (its own leases only, not the live store's 2)", n, err)
	}
	if got := popURLs(t, live, 10); len(got) != 8 {
		t.Fatalf("live store popped %v after the other's Requeue, want its 8 items", got)
	}
}

func popURLs(t *testing.T, s *postgres.Store, n int) []string {
	t.Helper()
	items, err := s.Pop(context.Background(), "", n)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

// TestCloseReturnsLeases: a store closed cleanly hands its leases back at
// once instead of after the lease timeout.
func TestCloseReturnsLeases(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	a := openStore(t, u)
	b, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(ctx, []storage.FrontierItem{{URL: "http://c/1", Site: "s"}, {URL: "http://c/2", Site: "s"}}); err != nil {
		t.Fatal(err)
	}
	if got := popURLs(t, b, 5); len(got) != 2 {
		t.Fatalf("b popped %v", got)
	}
	if got := popURLs(t, a, 5); len(got) != 0 {
		t.Fatalf("a popped %v while b held the leases", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got := popURLs(t, a, 5); !reflect.DeepEqual(got, []string{"http://c/1", "http://c/2"}) {
		t.Fatalf("a popped %v after b closed", got)
	}
}

// TestSeveralCrawls: crawls share the lock; a schema migration takes it
// exclusively and gives up with ErrLocked while a crawl holds it.
func TestSeveralCrawls(t *testing.T) {
	u, schema := freshSchema(t)
	ctx := context.Background()
	// Closing fails once the schema is dropped below: closed without checks.
	var a, b *postgres.Store
	for _, p := range []**postgres.Store{&a, &b} {
		s, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		*p = s
	}
	relA, err := a.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	relB, err := b.Lock(ctx, false)
	if err != nil {
		t.Fatalf("second crawl's Lock = %v, want nil (several crawls share the store)", err)
	}
	// Make the schema need a migration behind the crawls' backs.
	admin := adminConn(t, u)
	if _, err := admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := postgres.OpenWith(ctx, u, time.Minute, time.Second, 500*time.Millisecond); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("Open needing a migration while crawls run = %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("migration waited %v, want about 500ms", d)
	}
	if err := relA(); err != nil {
		t.Fatal(err)
	}
	if err := relB(); err != nil {
		t.Fatal(err)
	}
	c, err := postgres.OpenWith(ctx, u, time.Minute, time.Second, 500*time.Millisecond)
	if err != nil {
		t.Fatalf("Open after the crawls released the lock: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMigrationHoldsOffCrawls: while a migration holds the crawl lock
// exclusively, Lock(wait=false) reports ErrLocked and Lock(wait=true)
// returns once it ends.
func TestMigrationHoldsOffCrawls(t *testing.T) {
	u, schema := freshSchema(t)
	ctx := context.Background()
	s := openStore(t, u)
	admin := adminConn(t, u)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(1, hashtext($1))`, schema); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock(ctx, false); !errors.Is(err, storage.ErrLocked) {
		tx.Rollback(ctx)
		t.Fatalf("Lock during a migration = %v, want ErrLocked", err)
	}
	got := make(chan error, 1)
	go func() {
		rel, err := s.Lock(ctx, true)
		if err == nil {
			err = rel()
		}
		got <- err
	}()
	select {
	case err := <-got:
		tx.Rollback(ctx)
		t.Fatalf("Lock(wait=true) returned %v during the migration", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Lock(wait=true) did not return after the migration ended")
	}
}

func TestSchemaVersion(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	admin := adminConn(t, u)
	var v int
	if err := admin.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != postgres.SchemaVersion {
		t.Fatalf("schema_version = %d, %v; want %d", v, err, postgres.SchemaVersion)
	}
	// Opening again is a no-op.
	s, err = postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := admin.Exec(ctx, `UPDATE schema_version SET version = $1`, postgres.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(ctx, u); !errors.Is(err, storage.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema = %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenErrors(t *testing.T) {
	base := serverURL(t)
	ctx := context.Background()
	tests := []struct {
		name string
		url  string
		want error
	}{
		{"unparsable", "postgres://user:secret@[::1", storage.ErrInvalid},
		{"missing schema", withSearchPath(t, base, "nc_no_such_schema"), storage.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := postgres.Open(ctx, tc.url)
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
			if strings.Contains(fmt.Sprint(err), "secret") {
				t.Fatalf("error shows the password: %v", err)
			}
		})
	}
}

// TestUnstorableText: text PostgreSQL cannot hold is rejected with
// ErrInvalid before anything is written.
func TestUnstorableText(t *testing.T) {
	u, _ := freshSchema(t)
	s := openStore(t, u)
	ctx := context.Background()
	tests := []struct {
		name string
		edit func(c *storage.Commit)
	}{
		{"nul in text", func(c *storage.Commit) { c.Article.Text = "a\x00b" }},
		{"invalid utf-8 title", func(c *storage.Commit) { c.Article.Title = "\xff\xfe" }},
		{"nul in term", func(c *storage.Commit) { c.Terms = []string{"ok", "\x00"} }},
		{"invalid utf-8 url", func(c *storage.Commit) { c.Page.URL, c.Article.URL = "http://x/\xff", "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := storedCommit("http://x/1", "ok")
			tc.edit(c)
			if err := s.Commit(ctx, c); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("Commit = %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{{URL: "http://x/\x00"}}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Push(nul) = %v, want ErrInvalid", err)
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{{URL: "http://x/2", Depth: -1}}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Push(depth -1) = %v, want ErrInvalid", err)
	}
	n := 0
	if err := s.Pages(ctx, func(storage.Page) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("%d pages written (%v)", n, err)
	}
}

// TestConcurrentDocFreqs: committers of two stores cross several
// document-frequency folds at once; every document and term is counted once.
func TestConcurrentDocFreqs(t *testing.T) {
	u, _ := freshSchema(t)
	stores := []*postgres.Store{openStore(t, u), openStore(t, u)}
	ctx := context.Background()
	const workers, per = 4, 200 // 800 articles: three folds or more
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				c := storedCommit(fmt.Sprintf("http://df/%d/%d", w, i), "共同", fmt.Sprintf("w%d", w), fmt.Sprintf("i%d", i))
				if err := stores[w%2].Commit(ctx, c); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := map[string]int{}
	docs, err := stores[0].DocFreqs(ctx, func(term string, df int) error { got[term] = df; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if docs != workers*per || got["共同"] != workers*per || got["w1"] != per || got["i7"] != workers || len(got) != 1+workers+per {
		t.Fatalf("docs %d, df 共同 %d w1 %d i7 %d, %d terms", docs, got["共同"], got["w1"], got["i7"], len(got))
	}
	admin := adminConn(t, u)
	var logged int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM docfreq_log`).Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if logged >= workers*per {
		t.Fatalf("%d documents still in the log: no fold ran", logged)
	}
	for _, s := range stores {
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunAlive: a run is alive while the store that began it is open (in
// any process), dead after it closes or stops beating.
func TestRunAlive(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	a := openStore(t, u)
	b, err := postgres.OpenWith(ctx, u, time.Second, 100*time.Millisecond, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := a.BeginRun(ctx, "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.BeginRun(ctx, "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{ra.ID, rb.ID} {
		if alive, err := a.RunAlive(ctx, id); err != nil || !alive {
			t.Fatalf("RunAlive(%d) = %v, %v while its store is open", id, alive, err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if alive, err := a.RunAlive(ctx, rb.ID); err != nil || alive {
		t.Fatalf("RunAlive(%d) = %v, %v after its store closed", rb.ID, alive, err)
	}
	if _, err := a.RunAlive(ctx, rb.ID+100); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("RunAlive(unknown) = %v, want ErrNotFound", err)
	}
}

// TestMigratesVersion2: a schema written at version 2 (lead images, but no
// winnowing prints, no partial-reprint records) is migrated on open; its
// rows read back with empty prints and no partial_of, and new rows keep
// both.
func TestMigratesVersion2(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	admin := adminConn(t, u)
	// The schema just before the migration that adds the prints (found by
	// its text, so that the test follows a renumbering); the lead-image
	// migration comes before it.
	before := slices.IndexFunc(postgres.Migrations[:], func(m string) bool { return strings.Contains(m, "ADD COLUMN prints") })
	image := slices.IndexFunc(postgres.Migrations[:], func(m string) bool { return strings.Contains(m, "ADD COLUMN image ") })
	if before < 0 || image < 0 || image > before {
		t.Fatalf("migration adding prints is %d, adding images %d; want images first", before, image)
	}
	qs := append([]string(nil), postgres.Migrations[:before]...)
	for _, q := range append(qs,
		`CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), version INTEGER NOT NULL)`,
		fmt.Sprintf(`INSERT INTO schema_version(version) VALUES (%d)`, before),
		`INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/1', 'qq', 1, 'stored', 200, '', '', false)`,
		`INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
			VALUES (1, 'http://a/1', 'qq', 1, 't', 'x', '', '', '', 'h', 1, 0, '\x0100000000000000', 1)`,
		`SELECT setval(pg_get_serial_sequence('articles', 'id'), 1)`,
	) {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s := openStore(t, u)
	var v int
	if err := admin.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != postgres.SchemaVersion {
		t.Fatalf("schema_version = %d, %v; want %d", v, err, postgres.SchemaVersion)
	}
	a, err := s.Article(ctx, 1)
	if err != nil || a.Fingerprint.Prints != nil || a.Fingerprint.ContentWords != 0 || a.PartialOf != 0 || a.Passages != nil {
		t.Fatalf("article 1 after migration: %+v, %v", a, err)
	}
	c := &storage.Commit{
		Page: storage.Page{URL: "http://a/2", Site: "qq", RunID: 1, Outcome: storage.OutcomeStored},
		Article: &storage.Article{Site: "qq", RunID: 1, Title: "t", Text: "y", ContentHash: "h2",
			Fingerprint: storage.Fingerprint{Prints: []uint64{7<<32 | 2}, ContentWords: 9},
			PartialOf:   1, OwnShare: 0.25, Passages: []storage.Passage{{Start: 0, OtherStart: 3, Len: 6}}},
	}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.ArticleByURL(ctx, "http://a/2")
	if err != nil || got.PartialOf != 1 || got.OwnShare != 0.25 || len(got.Passages) != 1 || got.Passages[0] != c.Article.Passages[0] ||
		len(got.Fingerprint.Prints) != 1 || got.Fingerprint.Prints[0] != 7<<32|2 || got.Fingerprint.ContentWords != 9 {
		t.Fatalf("article written after migration: %+v, %v", got, err)
	}
}

// TestMigratesVersion1 opens a store of schema 1 (before lead images, built
// here by removing what migrations 2 to 8 add): Open adds the image,
// partial-reprint and incremental-run columns and tables, old rows read
// with no image, and new ones keep theirs.
func TestMigratesVersion1(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	old := &storage.Commit{Page: storage.Page{URL: "http://m/1", Site: "qq", RunID: 1, Outcome: storage.OutcomeStored, Status: 200, FetchedAt: at},
		Article: &storage.Article{URL: "http://m/1", Site: "qq", RunID: 1, Title: "t", Text: "x", FetchedAt: at, ContentHash: "h",
			Fingerprint: storage.Fingerprint{Simhash: 1, Signature: []uint64{1}, Length: 1}}}
	if err := s.Commit(ctx, old); err != nil {
		t.Fatal(err)
	}
	s.Close()
	admin := adminConn(t, u)
	for _, q := range []string{`ALTER TABLE articles DROP COLUMN image`, `ALTER TABLE duplicates DROP COLUMN image`,
		`ALTER TABLE duplicates DROP COLUMN image_similarity`,
		`ALTER TABLE articles DROP COLUMN prints, DROP COLUMN content_words, DROP COLUMN partial_of, DROP COLUMN own_share, DROP COLUMN passages`,
		`ALTER TABLE duplicates DROP COLUMN prints, DROP COLUMN content_words`,
		`ALTER TABLE pages DROP COLUMN retry_at`, `DROP TABLE surfaces`,
		`ALTER TABLE pages DROP COLUMN part_of`, `ALTER TABLE articles DROP COLUMN pages, DROP COLUMN pages_missing`,
		`DROP FUNCTION title_grams CASCADE`, // and the title indexes
		`ALTER TABLE articles DROP COLUMN channel`, `ALTER TABLE duplicates DROP COLUMN channel`,
		`DROP TABLE host_pace`,
		`UPDATE schema_version SET version = 1`} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s, err = postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := admin.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != postgres.SchemaVersion {
		t.Fatalf("schema_version = %d, %v; want %d", v, err, postgres.SchemaVersion)
	}
	if a, err := s.ArticleByURL(ctx, "http://m/1"); err != nil || a.Fingerprint.Image != "" || a.Title != "t" {
		t.Fatalf("old article after migration: %+v, %v", a, err)
	}
	c := *old
	c.Page.URL, c.Article = "http://m/2", &storage.Article{URL: "http://m/2", Site: "qq", RunID: 1, Title: "p", Text: "y",
		FetchedAt: at, ContentHash: "h2", Fingerprint: storage.Fingerprint{Simhash: 2, Signature: []uint64{2}, Length: 1, Image: "1x2:CG"}}
	if err := s.Commit(ctx, &c); err != nil {
		t.Fatal(err)
	}
	if a, err := s.ArticleByURL(ctx, "http://m/2"); err != nil || a.Fingerprint.Image != "1x2:CG" {
		t.Fatalf("image after migration: %q, %v", a.Fingerprint.Image, err)
	}
}

// TestMigratesToMultiPage opens a store of the schema before multi-page
// articles (found by its text): the outcome part is allowed, old pages read
// with no part_of and old articles with no pages, and a multi-page article
// commits with its parts.
func TestMigratesToMultiPage(t *testing.T) {
	u, _ := freshSchema(t)
	ctx := context.Background()
	admin := adminConn(t, u)
	before := slices.IndexFunc(postgres.Migrations[:], func(m string) bool { return strings.Contains(m, "ADD COLUMN part_of") })
	if before < 0 {
		t.Fatal("no migration adds part_of")
	}
	qs := append([]string(nil), postgres.Migrations[:before]...)
	for _, q := range append(qs,
		`CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), version INTEGER NOT NULL)`,
		fmt.Sprintf(`INSERT INTO schema_version(version) VALUES (%d)`, before),
		`INSERT INTO pages(url, site, run_id, outcome, status, err_kind, err, permanent) VALUES ('http://a/1', 'qq', 1, 'stored', 200, '', '', false)`,
		`INSERT INTO articles(id, url, site, run_id, title, text, source, author, editor, content_hash, cluster, simhash, signature, sig_len)
			VALUES (1, 'http://a/1', 'qq', 1, 't', 'x', '', '', '', 'h', 1, 0, '\x0100000000000000', 1)`,
		`SELECT setval(pg_get_serial_sequence('articles', 'id'), 1)`,
	) {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s := openStore(t, u)
	if p, err := s.PageOf(ctx, "http://a/1"); err != nil || p.PartOf != "" || p.Outcome != storage.OutcomeStored {
		t.Fatalf("old page after migration: %+v, %v", p, err)
	}
	if a, err := s.Article(ctx, 1); err != nil || a.Pages != nil || a.PagesMissing != nil {
		t.Fatalf("old article after migration: %+v, %v", a, err)
	}
	c := &storage.Commit{
		Page: storage.Page{URL: "http://a/2.html", Site: "qq", RunID: 1, Outcome: storage.OutcomeStored},
		Article: &storage.Article{Site: "qq", RunID: 1, Title: "t", Text: "y", ContentHash: "h2",
			Pages: []string{"http://a/2.html", "http://a/2-2.html", "http://a/2-3.html"}, PagesMissing: []string{"http://a/2-3.html"}},
		Parts: []string{"http://a/2-2.html"},
	}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
	if p, err := s.PageOf(ctx, "http://a/2-2.html"); err != nil || p.Outcome != storage.OutcomePart || p.PartOf != "http://a/2.html" {
		t.Fatalf("part after migration: %+v, %v", p, err)
	}
}
