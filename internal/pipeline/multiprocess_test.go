package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/internal/fixture"
)

// Environment of the crawler processes TestThreeProcessesKill starts.
const (
	envCrawlSites = "NEWSCRAWL_TEST_CRAWL_SITES" // site file to crawl
	envCrawlDB    = "NEWSCRAWL_TEST_CRAWL_DB"    // store
	envCrawlRedis = "NEWSCRAWL_TEST_CRAWL_REDIS" // redis: (empty: none)
)

// crawlDelay slows the fixture crawl down (per host, per process) so that a
// process can be killed while it holds leases.
const crawlDelay = 150 * time.Millisecond

// helperLease is the fleet.lease_timeout of the helper processes: the
// survivors of a kill take the dead process's leases over after it.
const helperLease = 3 * time.Second

// TestHelperCrawl is the crawler process of TestThreeProcessesKill; it
// does nothing unless started by it.
func TestHelperCrawl(t *testing.T) {
	sites, db := os.Getenv(envCrawlSites), os.Getenv(envCrawlDB)
	if sites == "" {
		t.Skip("helper process of TestThreeProcessesKill")
	}
	cfg, err := config.Load(sites)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage = db
	cfg.Redis = os.Getenv(envCrawlRedis)
	cfg.Fleet.LeaseTimeout = config.Duration(helperLease)
	for i := range cfg.Sites {
		cfg.Sites[i].Delay = config.Duration(crawlDelay)
	}
	res, err := Crawl(context.Background(), &cfg, CrawlOptions{ConfigPath: sites})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Summary.Completed {
		t.Fatalf("crawl ended with %d URLs left", res.Summary.FrontierLeft)
	}
}

// partition is a corpus as order-independent facts: how many articles were
// kept and dropped, and the clusters as sorted lists of URLs.
type partition struct {
	Kept, Dropped int
	Clusters      []string
}

func corpusOf(t *testing.T, db string) partition {
	t.Helper()
	var buf bytes.Buffer
	if _, err := ExportDB(context.Background(), db, &buf, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	byCluster := map[int64][]string{}
	var p partition
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var l export.Record
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		if l.Kept {
			p.Kept++
		} else {
			p.Dropped++
		}
		byCluster[l.Cluster] = append(byCluster[l.Cluster], l.URL)
	}
	for _, urls := range byCluster {
		slices.Sort(urls)
		p.Clusters = append(p.Clusters, strings.Join(urls, " "))
	}
	slices.Sort(p.Clusters)
	return p
}

// TestThreeProcessesKill: three crawler processes crawl the fixture web into
// one PostgreSQL store, with the frontier in PostgreSQL or (redis: set) in
// Redis; one is killed with SIGKILL while it holds leases; the other two
// wait for its leases to lapse (fleet.lease_timeout), take them over and
// exit 0 with a completed run only when the frontier is empty; the corpus
// is a single process's: the same clusters, nothing decided twice, nothing
// lost, with no later run.
func TestThreeProcessesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease timeout")
	}
	for _, tc := range []struct {
		name  string
		redis bool
	}{
		{"postgres frontier", false},
		{"redis frontier", true},
	} {
		t.Run(tc.name, func(t *testing.T) { threeProcessesKill(t, tc.redis) })
	}
}

// queueProbe counts the leases a process holds and the items left in the
// shared frontier (PostgreSQL's table or Redis's hashes).
type queueProbe struct {
	leases func(pid int) (int, error)
	left   func() (int, error)
}

func pgProbe(t *testing.T, db string) queueProbe {
	admin, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	return queueProbe{
		leases: func(pid int) (int, error) {
			var n int
			err := admin.QueryRow(context.Background(), `SELECT count(*) FROM frontier WHERE owner LIKE $1`,
				fmt.Sprintf("%%/%d/%%", pid)).Scan(&n)
			return n, err
		},
		left: func() (int, error) {
			var n int
			err := admin.QueryRow(context.Background(), `SELECT count(*) FROM frontier`).Scan(&n)
			return n, err
		},
	}
}

func redisProbe(t *testing.T, rurl, db string) queueProbe {
	opt, err := redis.ParseURL(rurl)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	ns := RedisNamespace(db)
	ctx := context.Background()
	t.Cleanup(func() {
		if keys, err := rdb.Keys(ctx, ns+"*").Result(); err == nil && len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
		rdb.Close()
	})
	return queueProbe{
		leases: func(pid int) (int, error) {
			owners, err := rdb.HVals(ctx, ns+"leases").Result()
			n := 0
			for _, o := range owners {
				if strings.Contains(o, fmt.Sprintf("/%d/", pid)) {
					n++
				}
			}
			return n, err
		},
		left: func() (int, error) {
			n, err := rdb.HLen(ctx, ns+"items").Result()
			return int(n), err
		},
	}
}

func threeProcessesKill(t *testing.T, withRedis bool) {
	db := pgSchema(t)
	rurl, probe := "", pgProbe(t, db)
	if withRedis {
		rurl = redisURL(t)
		probe = redisProbe(t, rurl, db)
	}
	dir := t.TempDir()
	sites, stop, err := fixture.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	siteFile := filepath.Join(dir, "sites.yaml")
	if err := os.WriteFile(siteFile, fixture.SiteYAML(sites, "unused.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCrawl$", "-test.count=1")
		cmd.Env = append(os.Environ(), envCrawlSites+"="+siteFile, envCrawlDB+"="+db, envCrawlRedis+"="+rurl)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		return cmd
	}
	procs := []*exec.Cmd{start(), start(), start()}

	// Kill the first process seen holding leases.
	victim := -1
	deadline := time.Now().Add(60 * time.Second)
	for victim < 0 {
		for i, p := range procs {
			// The table appears once a process has opened the store.
			if n, err := probe.leases(p.Process.Pid); err == nil && n > 0 {
				victim = i
				break
			}
		}
		if victim < 0 && time.Now().After(deadline) {
			t.Fatal("no process leased anything in 60 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := procs[victim].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	procs[victim].Wait()
	held, err := probe.leases(procs[victim].Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var lastExit time.Time
	for i, p := range procs {
		if i == victim {
			continue
		}
		if err := p.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, p.Stdout)
		}
		lastExit = time.Now()
	}
	// The dead process's leases were the survivors' to take over: they
	// waited for its heartbeat to lapse.
	if held > 0 && lastExit.Before(killed.Add(helperLease)) {
		t.Errorf("survivors exited %s after the kill, before the lease timeout (%s) while the dead process held %d leases",
			lastExit.Sub(killed), helperLease, held)
	}
	left, err := probe.left()
	if err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d frontier items left after the restarted crawl", left)
	}
	// The reference: one process, one SQLite store.
	refDB := filepath.Join(dir, "ref.db")
	cfg, err := config.Load(siteFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage = refDB
	if _, err := Crawl(context.Background(), &cfg, CrawlOptions{ConfigPath: siteFile}); err != nil {
		t.Fatal(err)
	}
	got, want := corpusOf(t, db), corpusOf(t, refDB)
	t.Logf("killed process held %d leases; survivors done %s after the kill; shared corpus %d kept, %d dropped, %d clusters", held, lastExit.Sub(killed).Round(time.Millisecond), got.Kept, got.Dropped, len(got.Clusters))
	if !slices.Equal(got.Clusters, want.Clusters) || got.Kept != want.Kept || got.Dropped != want.Dropped {
		t.Fatalf("three processes with a kill:\n%+v\none process:\n%+v", got, want)
	}
}
