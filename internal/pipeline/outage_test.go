package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
)

// TestUnavailable: the errors of a server that cannot be reached are an
// outage; answers of a reachable server are not.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"reset, wrapped", fmt.Errorf("pop: %w", syscall.ECONNRESET), true},
		{"unexpected eof", fmt.Errorf("commit: %w", io.ErrUnexpectedEOF), true},
		{"postgres shutting down", &pgconn.PgError{Code: "57P01"}, true},
		{"postgres starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"connection exception", &pgconn.PgError{Code: "08006"}, true},
		{"conn closed", pgconn.ErrConnClosed, true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"statement timeout", &pgconn.PgError{Code: "57014"}, false},
		{"already decided", storage.ErrAlreadyDecided, false},
		{"cancelled", fmt.Errorf("pop: %w", context.Canceled), false},
		{"nil", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unavailable(tc.err); got != tc.want {
				t.Errorf("unavailable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestOutageGuard: failures of an unreachable server are retried while
// the outage is shorter than the limit (logged once when it starts, once
// when it ends), and end with ErrOutage past it; other errors are not
// retried.
func TestOutageGuard(t *testing.T) {
	down := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name     string
		fails    int // failures before success (-1: never succeeds)
		err      error
		limit    time.Duration
		wantErr  error
		wantLogs []string
	}{
		{"short outage", 3, down, 5 * time.Second, nil, []string{"crawl paused", "crawl resumed"}},
		{"past the limit", -1, down, 300 * time.Millisecond, ErrOutage, []string{"crawl paused"}},
		{"an answer is not retried", -1, storage.ErrInvalid, 5 * time.Second, storage.ErrInvalid, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			g := newOutageGuard(tc.limit, slog.New(slog.NewTextHandler(&logs, nil)))
			calls := 0
			err := g.do(context.Background(), "pop", func() error {
				calls++
				if tc.fails < 0 || calls <= tc.fails {
					return tc.err
				}
				return nil
			})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr == storage.ErrInvalid && calls != 1 {
				t.Errorf("%d calls, want 1", calls)
			}
			lines := strings.Count(logs.String(), "\n")
			if lines != len(tc.wantLogs) {
				t.Errorf("%d log lines, want %d:\n%s", lines, len(tc.wantLogs), logs.String())
			}
			for _, w := range tc.wantLogs {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("no %q in the log:\n%s", w, logs.String())
				}
			}
		})
	}
}

// privateServers are a PostgreSQL cluster and a Redis server of one test,
// on ports of their own, so that the test can restart them without
// touching the servers other tests share. PostgreSQL is started by
// .ci/services.sh (NEWSCRAWL_SERVICES_DIR and the port settings); Redis
// here, with an append-only file synced at every write: a Redis frontier
// that must survive a restart needs persistence.
type privateServers struct {
	dir, pgBin      string
	pgPort, rdPort  int
	pgURL, redisURL string
	env             []string
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func startPrivateServers(t *testing.T) *privateServers {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	_, rerr := exec.LookPath("redis-server")
	if len(bins) == 0 || rerr != nil {
		msg := "no PostgreSQL (/usr/lib/postgresql/*/bin) or redis-server binaries: cannot start private servers to restart (run .ci/services.sh once to install them)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	slices.Sort(bins)
	dir, err := os.MkdirTemp("", "newscrawl-outage-")
	if err != nil {
		t.Fatal(err)
	}
	// The postgres user runs the cluster when the test runs as root.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &privateServers{dir: dir, pgBin: filepath.Dir(bins[len(bins)-1]), pgPort: freePort(t), rdPort: freePort(t)}
	s.env = append(os.Environ(), "NEWSCRAWL_SERVICES_DIR="+dir,
		fmt.Sprintf("NEWSCRAWL_PG_PORT=%d", s.pgPort), fmt.Sprintf("NEWSCRAWL_REDIS_PORT=%d", s.rdPort))
	t.Cleanup(func() {
		s.stopPostgres(t)
		s.stopRedis(t)
		os.RemoveAll(dir)
	})
	s.startRedis(t)
	s.startPostgres(t)
	return s
}

// startPostgres runs .ci/services.sh, which starts the cluster (creating
// it the first time) and finds Redis already running.
func (s *privateServers) startPostgres(t *testing.T) {
	t.Helper()
	cmd := exec.Command("../../.ci/services.sh")
	cmd.Env = s.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf(".ci/services.sh: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "export NEWSCRAWL_TEST_POSTGRES="); ok {
			s.pgURL = v
		}
	}
	s.redisURL = fmt.Sprintf("redis://127.0.0.1:%d/0", s.rdPort)
	if s.pgURL == "" {
		t.Fatalf(".ci/services.sh printed no PostgreSQL URL:\n%s", out)
	}
}

func (s *privateServers) stopPostgres(t *testing.T) {
	t.Helper()
	args := []string{filepath.Join(s.pgBin, "pg_ctl"), "-D", filepath.Join(s.dir, "pg", "data"), "-m", "fast", "-w", "stop"}
	if os.Getuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil && !strings.Contains(string(out), "not running") && !strings.Contains(string(out), "does not exist") {
		t.Errorf("stop postgres: %v\n%s", err, out)
	}
}

func (s *privateServers) startRedis(t *testing.T) {
	t.Helper()
	rd := filepath.Join(s.dir, "redis")
	if err := os.MkdirAll(rd, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", fmt.Sprint(s.rdPort), "--dir", rd,
		"--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "yes",
		"--pidfile", filepath.Join(rd, "redis.pid"), "--logfile", filepath.Join(rd, "redis.log")).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-server: %v\n%s", err, out)
	}
	for range 100 {
		if out, _ := exec.Command("redis-cli", "-p", fmt.Sprint(s.rdPort), "ping").Output(); strings.Contains(string(out), "PONG") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("redis on port %d does not answer", s.rdPort)
}

func (s *privateServers) stopRedis(t *testing.T) {
	t.Helper()
	_ = exec.Command("redis-cli", "-p", fmt.Sprint(s.rdPort), "shutdown").Run()
	for range 50 {
		if err := exec.Command("redis-cli", "-p", fmt.Sprint(s.rdPort), "ping").Run(); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// schema creates a schema in the private cluster and returns its URL.
func (s *privateServers) schema(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, s.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	return pgtest.WithSearchPath(t, s.pgURL, name)
}

// syncBuffer is a log destination shared by goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// outageRequestsBefore is how many fixture requests the crawls make before
// the test takes a server down: the middle of the crawl.
const outageRequestsBefore = 4

// outageDelay paces the fixture's hosts so that the crawl outlasts the
// restart.
const outageDelay = 600 * time.Millisecond

// TestOutageRestart: three crawls (Redis frontier, politeness and robots
// share, decisions in PostgreSQL) ride out a real restart of PostgreSQL
// (-m fast) or of Redis in the middle of the crawl: they pause (logged)
// and resume, all three complete, and the corpus is one process's. Redis
// kept down past fleet.outage_limit ends the crawls with ErrOutage and
// their runs interrupted.
func TestOutageRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and restarts servers")
	}
	srv := startPrivateServers(t)
	for _, tc := range []struct {
		name    string
		restart func(t *testing.T)
		limit   time.Duration
		fail    bool
	}{
		{"postgres restart", func(t *testing.T) { srv.stopPostgres(t); time.Sleep(2 * time.Second); srv.startPostgres(t) }, config.DefaultOutageLimit, false},
		{"redis restart", func(t *testing.T) { srv.stopRedis(t); time.Sleep(2 * time.Second); srv.startRedis(t) }, config.DefaultOutageLimit, false},
		{"redis down past the limit", func(t *testing.T) { srv.stopRedis(t); time.Sleep(5 * time.Second); srv.startRedis(t) }, 2 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := srv.schema(t, "outage_"+strings.NewReplacer(" ", "_").Replace(tc.name))
			cfg, counter := countedFixture(t, db)
			cfg.Redis, cfg.Fleet.OutageLimit = srv.redisURL, config.Duration(tc.limit)
			for i := range cfg.Sites {
				cfg.Sites[i].Delay = config.Duration(outageDelay)
			}
			logs := &syncBuffer{}
			log := slog.New(slog.NewTextHandler(logs, nil))
			seg, err := NewSegmenter(cfg.Segment)
			if err != nil {
				t.Fatal(err)
			}
			errs := make([]error, 3)
			res := make([]CrawlResult, 3)
			var wg sync.WaitGroup
			for k := range errs {
				wg.Go(func() {
					res[k], errs[k] = Crawl(context.Background(), cfg, CrawlOptions{ConfigPath: "fixture.yaml", Segmenter: seg, Log: log})
				})
			}
			for {
				if total, _ := pageRequests(counter.snapshot()); total >= outageRequestsBefore {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			tc.restart(t)
			back, _ := pageRequests(counter.snapshot())
			wg.Wait()
			after, _ := pageRequests(counter.snapshot())
			t.Logf("requests: %d before the server was back, %d in all", back, after)
			if tc.fail {
				checkOutageEnd(t, db, errs, res)
				return
			}
			for k, err := range errs {
				if err != nil {
					t.Fatalf("crawl %d: %v\n%s", k, err, logs.String())
				}
				if !res[k].Summary.Completed {
					t.Errorf("crawl %d ended with %d URLs left", k, res[k].Summary.FrontierLeft)
				}
			}
			if after == back {
				t.Errorf("nothing fetched after the restart: the crawl ended before it")
			}
			for _, w := range []string{"crawl paused", "crawl resumed"} {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("no %q line in the log", w)
				}
			}
			checkOneProcessCorpus(t, cfg, db)
		})
	}
}

// checkOutageEnd: every crawl ended with ErrOutage and its run interrupted.
func checkOutageEnd(t *testing.T, db string, errs []error, res []CrawlResult) {
	t.Helper()
	for k, err := range errs {
		if !errors.Is(err, ErrOutage) {
			t.Errorf("crawl %d: err = %v, want ErrOutage", k, err)
		}
	}
	store, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Status != storage.RunInterrupted {
			t.Errorf("run %d is %s, want interrupted", r.ID, r.Status)
		}
	}
}

// checkOneProcessCorpus compares the corpus in db with one crawl's of cfg
// into SQLite.
func checkOneProcessCorpus(t *testing.T, cfg *config.Config, db string) {
	t.Helper()
	ref := *cfg
	ref.Storage, ref.Redis = filepath.Join(t.TempDir(), "ref.db"), ""
	ref.Sites = slices.Clone(cfg.Sites)
	for i := range ref.Sites {
		ref.Sites[i].Delay = 0
	}
	if _, err := Crawl(context.Background(), &ref, CrawlOptions{ConfigPath: "fixture.yaml"}); err != nil {
		t.Fatal(err)
	}
	got, want := corpusOf(t, db), corpusOf(t, ref.Storage)
	if !slices.Equal(got.Clusters, want.Clusters) || got.Kept != want.Kept || got.Dropped != want.Dropped {
		t.Fatalf("three crawls with a restart:\n%+v\none crawl:\n%+v", got, want)
	}
}
