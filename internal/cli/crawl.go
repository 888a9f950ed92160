package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/logging"
	"github.com/newsdedup/newscrawl/internal/metrics"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/progress"
)

// DefaultMetricsAddr is the conventional address for --metrics-addr.
const DefaultMetricsAddr = "127.0.0.1:9464"

func cmdCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("crawl", stderr)
	site := fs.String("site", "configs/sites.yaml", "site file")
	db := fs.String("db", "", "store: a SQLite file or a postgres:// URL (default: the site file's storage)")
	redisURL := fs.String("redis", "", "redis:// URL shared by the crawls of one postgres:// store: frontier, host politeness, robots.txt (default: the site file's redis)")
	only := fs.String("only", "", "comma-separated site names to crawl (default: all)")
	wait := fs.Bool("wait", false, "wait for a running crawl on the same store instead of exiting")
	every := durationFlag(fs, "progress", 5*time.Second, "progress line interval on stderr: a `duration` (5s, 1m) or seconds (5); 0: no progress lines")
	logFlags := logging.AddFlags(fs)
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics during the crawl (e.g. "+DefaultMetricsAddr+")")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	warcFile := fs.String("warc", "", "write every request and response of the run to this new WARC file (.warc.gz: gzip per record), with its CDXJ index in FILE.cdxj")
	maxTime := durationFlag(fs, "max-time", 0, "stop the crawl after this `duration` (0: no limit); the run is interrupted with its URLs left for the next run (exit 6)")
	workers := fs.Int("workers", 0, "bound concurrent fetches over all sites (0: the sum of the sites' parallelism; 1: one page at a time)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if dbFlagEmpty(fs) {
		return usagef("crawl: --db must name a file (omit it to use the site file's storage)")
	}
	if fs.NArg() > 0 {
		return usagef("crawl: unexpected arguments %q", fs.Args())
	}
	if *every < 0 {
		return usagef("crawl: --progress must be >= 0, got %s", *every)
	}
	if *maxTime < 0 {
		return usagef("crawl: --max-time must be >= 0, got %s", *maxTime)
	}
	if *workers < 0 {
		return usagef("crawl: --workers must be >= 0, got %d", *workers)
	}
	log, err := logFlags.Logger(recordsOf(stderr))
	if err != nil {
		return usageError{fmt.Errorf("crawl: --%w", err)}
	}
	cfg, err := config.Load(*site)
	if err != nil {
		return usageError{err} // a missing, unparsable or invalid site file: exit 2
	}
	if *db != "" {
		cfg.Storage = *db
	}
	if *redisURL != "" {
		if !config.IsRedisURL(*redisURL) {
			return usagef("crawl: --redis must be a redis://, rediss:// or unix:// URL")
		}
		cfg.Redis = *redisURL
	}
	if cfg.Redis != "" && !pipeline.IsPostgres(cfg.Storage) {
		return usagef("crawl: redis is shared by the crawls of one postgres:// store; the store %s is a SQLite file", cfg.Storage)
	}
	var names []string
	if *only != "" {
		known := map[string]bool{}
		for _, s := range cfg.Sites {
			known[s.Name] = true
		}
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !known[n] {
				return usagef("crawl: --only: no site named %q in %s", n, *site)
			}
			names = append(names, n)
		}
	}
	if *warcFile != "" {
		if _, err := os.Lstat(*warcFile); err == nil {
			return usagef("crawl: --warc %s exists: give each run a file of its own", *warcFile)
		}
	}
	o := pipeline.CrawlOptions{ConfigPath: *site, Sites: names, Wait: *wait, ProgressEvery: *every, Log: log, Workers: *workers, WARC: *warcFile}
	if *metricsAddr != "" {
		m := metrics.New()
		stop, addr, err := serveMetrics(*metricsAddr, m, log)
		if err != nil {
			return usageError{fmt.Errorf("crawl: --metrics-addr: %w", err)}
		}
		defer stop()
		fmt.Fprintf(stderr, "metrics at http://%s/metrics\n", addr)
		o.Metrics = m
	}
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	defer stopProfile()
	res, err := crawlFor(ctx, *maxTime, &cfg, o, stdout, stderr)
	if err == nil && res.Summary.NothingFetched {
		return fmt.Errorf("crawl: %w", errNothingFetched)
	}
	return err
}

// serveMetrics listens on addr and serves m at /metrics until stop.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger) (stop func(), bound string, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, ln.Addr().String(), nil
}

// crawl runs pipeline.Crawl with progress lines and start-up lines on
// stderr, and prints the summary on stdout whenever the run was begun.
func crawl(ctx context.Context, cfg *config.Config, o pipeline.CrawlOptions, stdout, stderr io.Writer) (pipeline.CrawlResult, error) {
	o.Status = stderr
	if o.ProgressEvery > 0 {
		o.Progress = progressTo(stderr)
	}
	res, err := pipeline.Crawl(ctx, cfg, o)
	if res.Run.ID != 0 {
		progress.Summary(stdout, pipeline.StoreName(cfg.Storage), res.Run, res.Summary, res.Elapsed)
	}
	return res, err
}

// crawlFor is crawl stopped after maxTime (0: no limit); a crawl stopped
// so returns an error wrapping errMaxTime that says how many URLs are left.
func crawlFor(ctx context.Context, maxTime time.Duration, cfg *config.Config, o pipeline.CrawlOptions, stdout, stderr io.Writer) (pipeline.CrawlResult, error) {
	if maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, maxTime, errMaxTime)
		defer cancel()
	}
	res, err := crawl(ctx, cfg, o, stdout, stderr)
	switch {
	case !errors.Is(context.Cause(ctx), errMaxTime):
		return res, err
	case res.Run.ID == 0:
		return res, fmt.Errorf("crawl: %w (%s) before the crawl began: %w", errMaxTime, maxTime, err)
	}
	return res, fmt.Errorf("crawl: %w (%s): %d URLs left in the frontier for the next run", errMaxTime, maxTime, res.Summary.FrontierLeft)
}
