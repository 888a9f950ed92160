package pipeline

import (
	"bytes"
	"context"
	"errors"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/fixture"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

func TestStoreName(t *testing.T) {
	tests := []struct{ name, db, want string }{
		{"sqlite path", "data/news.db", "data/news.db"},
		{"url with password", "postgres://news:s3cret@db.internal:5432/news?sslmode=disable", "postgres://news:xxxxx@db.internal:5432/news?sslmode=disable"},
		{"url without password", "postgresql://db.internal/news", "postgresql://db.internal/news"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StoreName(tc.db); got != tc.want {
				t.Fatalf("StoreName(%q) = %q, want %q", tc.db, got, tc.want)
			}
		})
	}
}

// pgSchema returns a URL selecting a fresh schema of the test server,
// dropped after the test (pgtest.Schema).
func pgSchema(t *testing.T) string {
	u, _ := pgtest.Schema(t, "nc_pipe_")
	return u
}

// redisURL is the test Redis server's URL (NEWSCRAWL_TEST_REDIS); without
// one the test skips, or fails when CI is set.
func redisURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("NEWSCRAWL_TEST_REDIS")
	if u == "" {
		msg := "NEWSCRAWL_TEST_REDIS is not set: no Redis server to test against (start one with `eval \"$(.ci/services.sh)\"`)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

// fixtureConfig is the demo's configuration of the fixture web, storing
// into db.
func fixtureConfig(t *testing.T, db string) *config.Config {
	t.Helper()
	sites, stop, err := fixture.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	cfg, err := config.Parse(bytes.NewReader(fixture.SiteYAML(sites, "unused.db")))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage = db
	return &cfg
}

// TestCrawlPostgres: the crawl and export run on a postgres:// store as on
// SQLite: the fixture web's stories are stored once, reprints recorded as
// duplicates, and a second run adds nothing.
func TestCrawlPostgres(t *testing.T) {
	db := pgSchema(t)
	cfg := fixtureConfig(t, db)
	ctx := context.Background()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		res, err := Crawl(ctx, cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		tot := res.Summary.Totals()
		want := fixture.Expected()
		if run == 1 && (tot.Stored != want.Stored || tot.Duplicates != want.Duplicates) {
			t.Fatalf("run 1 stored %d, duplicates %d; want %d, %d", tot.Stored, tot.Duplicates, want.Stored, want.Duplicates)
		}
		if run == 2 && (tot.Stored != 0 || tot.Duplicates != 0) {
			t.Fatalf("run 2 stored %d, duplicates %d; want nothing new", tot.Stored, tot.Duplicates)
		}
	}
	var out bytes.Buffer
	n, err := ExportDB(ctx, db, &out, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := fixture.Expected(); n != want.Stored+want.Duplicates {
		t.Fatalf("export wrote %d lines, want %d", n, want.Stored+want.Duplicates)
	}
}

// TestConcurrentCrawlsPostgres: two crawls run on one PostgreSQL store at
// once (no ErrLocked, neither closes the other's run), every article URL is
// decided exactly once and the corpus is one crawl's.
func TestConcurrentCrawlsPostgres(t *testing.T) {
	db := pgSchema(t)
	cfg := fixtureConfig(t, db)
	ctx := context.Background()
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var errs [2]error
	for k := range 2 {
		wg.Go(func() {
			_, errs[k] = Crawl(ctx, cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg})
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("crawl %d: %v", k, err)
		}
	}
	checkOneCrawlCorpus(t, db)
}

// checkOneCrawlCorpus checks that the crawls of the fixture web into the
// store db all completed, decided every article URL once and kept what one
// crawl keeps.
func checkOneCrawlCorpus(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Status != storage.RunCompleted {
			t.Errorf("run %d ended %s, want completed (a crawl closed the other's run?)", r.ID, r.Status)
		}
	}
	decided := map[string]int{}
	var stored, dups int
	if err := store.Pages(ctx, func(p storage.Page) error {
		if p.Outcome.Final() {
			decided[p.URL]++
		}
		switch p.Outcome {
		case storage.OutcomeStored:
			stored++
		case storage.OutcomeDuplicate:
			dups++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Decisions are shared (the decision lock and change feed): the two
	// crawls store what one crawl stores, even when they fetch a story and
	// its reprint at the same moment.
	want := fixture.Expected()
	if stored != want.Stored || dups != want.Duplicates {
		t.Fatalf("concurrent crawls: %d stored, %d duplicates; want %d, %d as one crawl", stored, dups, want.Stored, want.Duplicates)
	}
	for u, n := range decided {
		if n != 1 {
			t.Fatalf("%s decided %d times", u, n)
		}
	}
	if err := store.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMigrate(t *testing.T) {
	db := pgSchema(t)
	ctx := context.Background()
	dir := t.TempDir()
	from := filepath.Join(dir, "news.db")
	cfg := fixtureConfig(t, from)
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Crawl(ctx, cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg}); err != nil {
		t.Fatal(err)
	}
	st, err := Migrate(ctx, from, db)
	if err != nil {
		t.Fatal(err)
	}
	want := fixture.Expected()
	if st.Articles != want.Stored || st.Duplicates != want.Duplicates || st.Runs != 1 {
		t.Fatalf("migrated %+v", st)
	}
	var a, b bytes.Buffer
	if _, err := ExportDB(ctx, from, &a, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ExportDB(ctx, db, &b, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("exports differ:\nsqlite:\n%s\npostgres:\n%s", a.String(), b.String())
	}
	if _, err := Migrate(ctx, from, db); !errors.Is(err, postgres.ErrNotEmpty) {
		t.Fatalf("second Migrate = %v, want ErrNotEmpty", err)
	}
	// A crawl holding the SQLite store's lock keeps the migration off it.
	src, err := sqlite.Open(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	release, err := src.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := Migrate(ctx, from, pgSchema(t)); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("Migrate of a locked store = %v, want ErrLocked", err)
	}
	for _, tc := range []struct{ from, to string }{{from, filepath.Join(dir, "x.db")}, {db, db}, {filepath.Join(dir, "none.db"), db}} {
		if _, err := Migrate(ctx, tc.from, tc.to); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("Migrate(%q, %q) = %v, want an error", tc.from, tc.to, err)
		}
	}
}

// TestConcurrentCrawlsRedis: with redis: set, three crawls on one
// PostgreSQL store share the Redis frontier (the queue's sequence counter
// is in Redis), decide every article URL once and keep what one crawl
// keeps.
func TestConcurrentCrawlsRedis(t *testing.T) {
	for _, index := range []string{"", RedisIndex} {
		t.Run("index="+index, func(t *testing.T) { concurrentCrawlsRedis(t, index) })
	}
}

// concurrentCrawlsRedis: three crawls with redis: at once give one crawl's
// corpus; with dedup.index redis the index is in Redis (and no crawl
// rebuilds it), and a start on a store whose index keys are gone loads
// the store into Redis once, marked by the store cursor.
func concurrentCrawlsRedis(t *testing.T, index string) {
	db := pgSchema(t)
	rurl := redisURL(t)
	ns := RedisNamespace(db)
	opt, err := redis.ParseURL(rurl)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	ctx := context.Background()
	delKeys := func(pattern string) {
		if keys, err := rdb.Keys(ctx, pattern).Result(); err == nil && len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	}
	t.Cleanup(func() {
		delKeys(ns + "*")
		rdb.Close()
	})
	cfg := fixtureConfig(t, db)
	cfg.Redis = rurl
	cfg.Dedup.Index = index
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var errs [3]error
	for k := range errs {
		wg.Go(func() {
			_, errs[k] = Crawl(ctx, cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg})
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("crawl %d: %v", k, err)
		}
	}
	if n, err := rdb.Get(ctx, ns+"seq").Int(); err != nil || n == 0 {
		t.Fatalf("Redis frontier sequence = %d, %v: the crawls did not queue in Redis", n, err)
	}
	checkOneCrawlCorpus(t, db)
	indexed, _ := rdb.Get(ctx, ns+"index:n").Int()
	if index != RedisIndex {
		if indexed != 0 {
			t.Errorf("%d entries in a Redis index nobody asked for", indexed)
		}
		return
	}
	if indexed != 10 {
		t.Errorf("the shared index holds %d entries, want the 6 stored articles and 4 duplicates", indexed)
	}
	// An existing store without an index in Redis: loaded once.
	delKeys(ns + "index:*")
	var out strings.Builder
	if _, err := Crawl(ctx, cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg, Status: &out}); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Get(ctx, ns+"index:n").Int(); n != 10 {
		t.Errorf("after loading the store the shared index holds %d entries, want 10 (%s)", n, out.String())
	}
	if c, err := rdb.Get(ctx, ns+"index:cursor").Result(); err != nil || c == "" {
		t.Errorf("no store cursor in Redis after the load: %q, %v", c, err)
	}
	checkOneCrawlCorpus(t, db)
}

// TestRedisNamespace: the crawls of one corpus share a namespace whatever
// their credentials; another database or schema has its own.
func TestRedisNamespace(t *testing.T) {
	base := RedisNamespace("postgres://a:pw@db.internal:5432/news?search_path=corpus")
	tests := []struct {
		name, db string
		same     bool
	}{
		{"other credentials", "postgres://b:other@db.internal:5432/news?search_path=corpus&sslmode=disable", true},
		{"other schema", "postgres://a:pw@db.internal:5432/news?search_path=other", false},
		{"other database", "postgres://a:pw@db.internal:5432/news2?search_path=corpus", false},
		{"other server", "postgres://a:pw@db2.internal:5432/news?search_path=corpus", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RedisNamespace(tc.db); (got == base) != tc.same {
				t.Fatalf("RedisNamespace(%q) = %q, base %q; want same %v", tc.db, got, base, tc.same)
			}
		})
	}
	if !strings.HasPrefix(base, "newscrawl:") || !strings.HasSuffix(base, ":") {
		t.Fatalf("namespace %q", base)
	}
}
