package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// eval crash: kill -9 a crawl of the bench web at random moments, restart it
// until it completes, and check that the store holds exactly what an
// uninterrupted crawl stores.
//
// Method. The crawl runs with one worker and crawls the selected sites one
// after another (crawl --only SITE --workers 1), so that the order of pages,
// and therefore every Single-Pass decision, is deterministic: with several
// sites in one run, the site loops race for the worker and which copy of a
// reprint is stored first varies from run to run (measured: two
// uninterrupted six-site runs with --workers 1 disagree on 2 of 585 URLs).
// A reference store is crawled without interruption; then a series of runs
// on a fresh store is killed (SIGKILL) after a delay drawn uniformly from
// [--min-kill, --max-kill], restarted, and killed again until a run of the
// last site exits 0 having completed. Checks on the series' store:
//
//	(a) every allowed article URL of truth.jsonl is decided at most once
//	    (stored or duplicate, never both), exactly the URLs the reference
//	    decided are decided, and no robots-disallowed URL was fetched;
//	(b) PRAGMA integrity_check and storage.Check pass, the frontier is
//	    empty and the last run completed;
//	(c) the dedup index rebuilt from the store (newEngine) agrees with the
//	    stored text: it holds every article (and every duplicate, as a
//	    cluster member, unless CentresOnly), re-fingerprinting each
//	    article's title and text gives its stored Simhash, SpotSigs
//	    signature, content hash and length, and Decide matches the article
//	    itself;
//	(d) the exported corpus equals the reference's, line for line, once
//	    fetched_at is removed.

// Kill delay bounds and limits of a crash series.
const (
	defaultMinKill = 200 * time.Millisecond
	defaultMaxKill = 3 * time.Second
	// maxStartsPerSite stops a series that makes no progress: a site of the
	// dev split needs about 3 s of crawling, so hundreds of starts mean the
	// restarted runs are not resuming.
	maxStartsPerSite = 200
	benchSites       = 6 // sites of the bench split, on consecutive ports
)

// crashOptions configure evalCrash.
type crashOptions struct {
	shared   string   // ../shared
	siteFile string   // site file of the bench web (default ports)
	sites    []string // crawled one after another; empty: every site, in file order
	minKills int      // series are run until this many kills happened
	series   int      // at most this many series (0: 100)
	seed     uint64
	minKill  time.Duration
	maxKill  time.Duration
	workDir  string
	// command returns a command running newscrawl with args.
	command func(args ...string) *exec.Cmd
	log     io.Writer // progress lines
}

// seriesResult is one series of killed and restarted runs and its checks.
type seriesResult struct {
	kills, startupKills, starts int
	elapsed                     time.Duration
	check                       crashCheck
}

// crashCheck are the figures and problems found by checkCrashStore.
type crashCheck struct {
	allowed, decided, stored, dups int
	undecided                      map[string]int // outcome of allowed URLs not decided
	decidedSet                     map[string]bool
	runs                           map[string]int // runs by status
	indexed                        int
	exportLines                    int
	exportDiff                     int // lines in one export but not the other
	problems                       []string
}

func (c *crashCheck) fail(format string, a ...any) {
	const maxProblems = 20
	if len(c.problems) < maxProblems {
		c.problems = append(c.problems, fmt.Sprintf(format, a...))
	} else if len(c.problems) == maxProblems {
		c.problems = append(c.problems, "(further problems not listed)")
	}
}

// crashReport is the outcome of evalCrash.
type crashReport struct {
	sites      []string
	reference  crashCheck
	refElapsed time.Duration
	series     []seriesResult
}

// kills is the total number of kills over every series.
func (r *crashReport) kills() int {
	n := 0
	for _, s := range r.series {
		n += s.kills
	}
	return n
}

// failed reports whether any check of any series failed.
func (r *crashReport) failed() bool {
	for _, s := range r.series {
		if len(s.check.problems) > 0 {
			return true
		}
	}
	return len(r.reference.problems) > 0
}

func cmdEvalCrash(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval crash", stderr)
	n := fs.Int("n", 50, "kill the crawl at least this many times (over as many series as needed)")
	seed := fs.Uint64("seed", 1, "seed of the kill delays")
	site := fs.String("site", "configs/bench-dev.yaml", "site file of the bench web")
	sites := fs.String("sites", "", "comma-separated sites to crawl, one after another (default: all)")
	minKill := fs.Duration("min-kill", defaultMinKill, "shortest delay from start to kill")
	maxKill := fs.Duration("max-kill", defaultMaxKill, "longest delay from start to kill")
	series := fs.Int("series", 100, "stop after this many series even when fewer than --n kills happened")
	keep := fs.Bool("keep", false, "keep the work directory (stores, binaries)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("eval crash: unexpected arguments %q", fs.Args())
	}
	if *n < 1 || *minKill <= 0 || *maxKill < *minKill || *series < 1 {
		return usagef("eval crash: need --n >= 1, --series >= 1 and 0 < --min-kill <= --max-kill")
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "newscrawl-crash-")
	if err != nil {
		return fmt.Errorf("eval crash: %w", err)
	}
	if *keep {
		fmt.Fprintf(stderr, "work directory: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	root, err := repoRoot()
	if err != nil {
		return fmt.Errorf("eval crash: %w", err)
	}
	bin := filepath.Join(work, "newscrawl")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = root, stderr, stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("eval crash: build newscrawl: %w", err)
	}
	var only []string
	if *sites != "" {
		only = strings.Split(*sites, ",")
	}
	opts := crashOptions{
		shared: dir, siteFile: *site, sites: only, minKills: *n, series: *series, seed: *seed,
		minKill: *minKill, maxKill: *maxKill, workDir: work, log: stderr,
		command: func(args ...string) *exec.Cmd { return exec.Command(bin, args...) },
	}
	rep, err := evalCrash(ctx, opts)
	if err != nil {
		return fmt.Errorf("eval crash: %w", err)
	}
	rep.print(stdout, opts, fmt.Sprintf("newscrawl eval crash --n %d --seed %d%s", *n, *seed, flagIf("--sites", *sites)))
	if rep.failed() {
		return errors.New("eval crash: a check failed (see the table)")
	}
	return nil
}

func flagIf(name, v string) string {
	if v == "" {
		return ""
	}
	return " " + name + " " + v
}

// repoRoot is the directory holding go.mod, above the working directory.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("go.mod not found above the working directory")
		}
	}
}

// benchTruth is what the checks need from the bench split.
type benchTruth struct {
	allowed    map[string]bool   // canonical URLs of allowed article copies
	disallowed map[string]bool   // canonical URLs disallowed by robots.txt
	redirects  map[string]string // canonical /r/ URL -> canonical target
}

// benchRoutes is the part of routes.json used here.
type benchRoutes struct {
	Sites []struct {
		Name        string `json:"name"`
		Index       int    `json:"index"`
		DefaultPort int    `json:"default_port"`
		Routes      map[string]struct {
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
		} `json:"routes"`
	} `json:"sites"`
}

// loadBenchTruth reads routes.json and truth.jsonl of the dev split for the
// given sites served from basePort.
// It also returns the port map: default port -> port served from basePort.
func loadBenchTruth(shared string, sites []string, basePort int) (benchTruth, map[int]int, error) {
	dev := filepath.Join(shared, "bench", "dev")
	var routes benchRoutes
	b, err := os.ReadFile(filepath.Join(dev, "routes.json"))
	if err != nil {
		return benchTruth{}, nil, err
	}
	if err := json.Unmarshal(b, &routes); err != nil {
		return benchTruth{}, nil, fmt.Errorf("routes.json: %w", err)
	}
	want := map[string]bool{}
	for _, s := range sites {
		want[s] = true
	}
	t := benchTruth{allowed: map[string]bool{}, disallowed: map[string]bool{}, redirects: map[string]string{}}
	ports := map[int]int{}
	base := map[string]string{}
	for _, s := range routes.Sites {
		ports[s.DefaultPort] = basePort + s.Index
		base[s.Name] = fmt.Sprintf("http://127.0.0.1:%d", basePort+s.Index)
		if !want[s.Name] {
			continue
		}
		for path, r := range s.Routes {
			if loc := r.Headers["Location"]; strings.HasPrefix(path, "/r/") && loc != "" && r.Status/100 == 3 {
				from, err1 := urlnorm.Canonical(base[s.Name]+path, nil)
				to, err2 := urlnorm.Canonical(base[s.Name]+loc, nil)
				if err1 == nil && err2 == nil {
					t.redirects[from] = to
				}
			}
		}
	}
	f, err := os.Open(filepath.Join(dev, "truth.jsonl"))
	if err != nil {
		return benchTruth{}, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Site       string `json:"site"`
			Path       string `json:"path"`
			Disallowed bool   `json:"disallowed"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return benchTruth{}, nil, fmt.Errorf("truth.jsonl: %w", err)
		}
		if !want[line.Site] {
			continue
		}
		u, err := urlnorm.Canonical(base[line.Site]+line.Path, nil)
		if err != nil {
			return benchTruth{}, nil, fmt.Errorf("truth.jsonl: %s%s: %w", line.Site, line.Path, err)
		}
		if line.Disallowed {
			t.disallowed[u] = true
		} else {
			t.allowed[u] = true
		}
	}
	if err := sc.Err(); err != nil {
		return benchTruth{}, nil, fmt.Errorf("truth.jsonl: %w", err)
	}
	if len(t.allowed) == 0 {
		return benchTruth{}, nil, fmt.Errorf("truth.jsonl has no article of the sites %v", sites)
	}
	return t, ports, nil
}

// freeBasePort finds benchSites consecutive free loopback ports, so that the
// eval never talks to another bench server (tests of other packages start
// one on the default ports).
func freeBasePort(rng *rand.Rand) (int, error) {
	for range 50 {
		base := 20000 + rng.IntN(40000)
		ok := true
		var lns []net.Listener
		for i := range benchSites {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			lns = append(lns, ln)
		}
		for _, ln := range lns {
			ln.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, errors.New("no free range of loopback ports found")
}

// crashServer is the bench server binary, started afresh for each crawl
// series so that its fail-once route fails once in every series.
type crashServer struct {
	bin, root string
	port      int
	cmd       *exec.Cmd
	exited    chan struct{}
}

func (s *crashServer) start(ctx context.Context) error {
	s.cmd = exec.Command(s.bin, "--root", s.root, "--base-port", strconv.Itoa(s.port))
	var errb bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, &errb
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start bench server: %w", err)
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for i := range benchSites {
		for {
			select {
			case <-s.exited:
				return fmt.Errorf("bench server exited: %s", strings.TrimSpace(errb.String()))
			case <-ctx.Done():
				s.stop()
				return ctx.Err()
			default:
			}
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port+i), time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				s.stop()
				return fmt.Errorf("bench server: port %d not answering", s.port+i)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

func (s *crashServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// evalCrash runs the reference crawl and kill series; see the comment at
// the top of this file.
func evalCrash(ctx context.Context, o crashOptions) (*crashReport, error) {
	if o.series <= 0 {
		o.series = 100
	}
	logf := func(format string, a ...any) {
		if o.log != nil {
			fmt.Fprintf(o.log, format+"\n", a...)
		}
	}
	cfg, err := config.Load(o.siteFile)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var all []string
	for _, s := range cfg.Sites {
		known[s.Name] = true
		all = append(all, s.Name)
	}
	sites := o.sites
	if len(sites) == 0 {
		sites = all
	}
	for _, s := range sites {
		if !known[s] {
			return nil, fmt.Errorf("no site %q in %s", s, o.siteFile)
		}
	}
	rng := rand.New(rand.NewPCG(o.seed, 0x6e6577736372))

	// The server on free ports, and the site file rewritten for them.
	srvBin := filepath.Join(o.workDir, "benchserver")
	build := exec.CommandContext(ctx, "go", "build", "-o", srvBin, ".")
	build.Dir = filepath.Join(o.shared, "bench", "server")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build bench server: %w: %s", err, out)
	}
	base, err := freeBasePort(rng)
	if err != nil {
		return nil, err
	}
	truth, ports, err := loadBenchTruth(o.shared, sites, base)
	if err != nil {
		return nil, err
	}
	srv := &crashServer{bin: srvBin, root: filepath.Join(o.shared, "bench", "dev"), port: base}
	siteFile, cfg, err := rewritePorts(o.siteFile, o.workDir, ports)
	if err != nil {
		return nil, err
	}
	seg, err := newSegmenter(cfg.Segment)
	if err != nil {
		return nil, err
	}

	rep := &crashReport{sites: sites}
	crawlArgs := func(db, site string) []string {
		return []string{"crawl", "--site", siteFile, "--db", db, "--only", site, "--workers", "1", "--progress", "0"}
	}

	// Reference: uninterrupted.
	refDB := filepath.Join(o.workDir, "reference.db")
	if err := srv.start(ctx); err != nil {
		return nil, err
	}
	t0 := time.Now()
	for _, s := range sites {
		res, err := runProcess(ctx, o.command(crawlArgs(refDB, s)...), 0)
		if err != nil {
			srv.stop()
			return nil, err
		}
		if res.code != exitOK || !strings.Contains(res.stdout, " completed in ") {
			srv.stop()
			return nil, fmt.Errorf("reference crawl of %s: exit %d\n%s%s", s, res.code, res.stdout, lastBytes(res.stderr, 2000))
		}
	}
	rep.refElapsed = time.Since(t0)
	srv.stop()
	refExport, err := exportNormalised(ctx, refDB)
	if err != nil {
		return nil, err
	}
	rep.reference = checkCrashStore(ctx, refDB, &cfg, seg, truth, nil, refExport)
	logf("reference: %d of %d allowed article URLs decided in %.1fs", rep.reference.decided, rep.reference.allowed, rep.refElapsed.Seconds())

	for i := 1; i <= o.series && (i == 1 || rep.kills() < o.minKills); i++ {
		db := filepath.Join(o.workDir, fmt.Sprintf("series-%d.db", i))
		if err := srv.start(ctx); err != nil {
			return nil, err
		}
		var sr seriesResult
		t := time.Now()
		for _, s := range sites {
			for starts := 0; ; starts++ {
				if starts == maxStartsPerSite {
					srv.stop()
					return nil, fmt.Errorf("series %d: site %s did not complete in %d starts", i, s, starts)
				}
				delay := o.minKill + time.Duration(rng.Int64N(int64(o.maxKill-o.minKill)+1))
				sr.starts++
				res, err := runProcess(ctx, o.command(crawlArgs(db, s)...), delay)
				if err != nil {
					srv.stop()
					return nil, err
				}
				if res.killed {
					sr.kills++
					if !strings.Contains(res.stderr, "indexed") {
						sr.startupKills++ // before the index was rebuilt
					}
					continue
				}
				if res.code != exitOK || !strings.Contains(res.stdout, " completed in ") {
					srv.stop()
					return nil, fmt.Errorf("series %d: restarted crawl of %s: exit %d\n%s%s", i, s, res.code, res.stdout, lastBytes(res.stderr, 2000))
				}
				break
			}
		}
		sr.elapsed = time.Since(t)
		srv.stop()
		sr.check = checkCrashStore(ctx, db, &cfg, seg, truth, rep.reference.decidedSet, refExport)
		rep.series = append(rep.series, sr)
		logf("series %d: %d kills (%d during start-up), %d starts, %.1fs; %d problems", i, sr.kills, sr.startupKills, sr.starts, sr.elapsed.Seconds(), len(sr.check.problems))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// rewritePorts writes the site file with the bench's default ports replaced
// by the ports the server was started on (":18480" -> ":N", in URLs and in
// the article_url patterns alike), and loads it.
func rewritePorts(siteFile, dir string, ports map[int]int) (string, config.Config, error) {
	b, err := os.ReadFile(siteFile)
	if err != nil {
		return "", config.Config{}, err
	}
	var pairs []string
	for from, to := range ports {
		pairs = append(pairs, ":"+strconv.Itoa(from), ":"+strconv.Itoa(to))
	}
	out := filepath.Join(dir, "sites.yaml")
	if err := os.WriteFile(out, []byte(strings.NewReplacer(pairs...).Replace(string(b))), 0o644); err != nil {
		return "", config.Config{}, err
	}
	cfg, err := config.Load(out)
	if err != nil {
		return "", config.Config{}, err
	}
	return out, cfg, nil
}

// processResult is the end of one crawl process.
type processResult struct {
	killed         bool
	code           int
	stdout, stderr string
}

// runProcess runs cmd; with killAfter > 0 it sends SIGKILL after that delay
// unless the process ended first.
func runProcess(ctx context.Context, cmd *exec.Cmd, killAfter time.Duration) (processResult, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return processResult{}, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	var timer <-chan time.Time
	if killAfter > 0 {
		t := time.NewTimer(killAfter)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-done:
	case <-timer:
		cmd.Process.Kill()
		<-done
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		return processResult{}, ctx.Err()
	}
	res := processResult{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		res.killed = true
	}
	return res, nil
}

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}

// exportNormalised exports a store as sorted JSON lines without fetched_at.
func exportNormalised(ctx context.Context, db string) ([]string, error) {
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var buf bytes.Buffer
	if _, err := exportJSONL(ctx, store, &buf); err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("export line: %w", err)
		}
		delete(m, "fetched_at")
		b, err := json.Marshal(m) // map keys are sorted
		if err != nil {
			return nil, err
		}
		lines = append(lines, string(b))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(lines)
	return lines, nil
}

// checkCrashStore runs checks (a)-(d) on a store; refDecided and refExport
// are the reference's (refDecided nil: this is the reference).
func checkCrashStore(ctx context.Context, db string, cfg *config.Config, seg dedup.Segmenter, truth benchTruth, refDecided map[string]bool, refExport []string) crashCheck {
	c := crashCheck{undecided: map[string]int{}, decidedSet: map[string]bool{}, runs: map[string]int{}, allowed: len(truth.allowed)}

	// (a) and (b), straight from the tables.
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		c.fail("open %s: %v", db, err)
		return c
	}
	defer conn.Close()
	var integrity string
	if err := conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		c.fail("(b) integrity_check: %q %v", integrity, err)
	}
	count := map[string]int{}
	canon := func(u string) string {
		if to, ok := truth.redirects[u]; ok {
			return to
		}
		return u
	}
	for _, q := range []struct {
		table string
		n     *int
	}{{"articles", &c.stored}, {"duplicates", &c.dups}} {
		err := queryEach(ctx, conn, "SELECT url FROM "+q.table, func(r *sql.Rows) error {
			var u string
			if err := r.Scan(&u); err != nil {
				return err
			}
			*q.n++
			count[canon(u)]++
			return nil
		})
		if err != nil {
			c.fail("(a) read %s: %v", q.table, err)
		}
	}
	for u, n := range count {
		if n > 1 {
			c.fail("(a) %s decided %d times (stored and/or duplicate)", u, n)
		}
		if !truth.allowed[u] {
			c.fail("(a) %s decided but not an allowed article of truth.jsonl", u)
		}
	}
	for u := range truth.allowed {
		if count[u] > 0 {
			c.decidedSet[u] = true
			c.decided++
			continue
		}
		var outcome, kind string
		err := conn.QueryRowContext(ctx, "SELECT outcome, err_kind FROM pages WHERE url = ?", u).Scan(&outcome, &kind)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			c.undecided["not fetched"]++
		case err != nil:
			c.fail("(a) page %s: %v", u, err)
		case kind != "":
			c.undecided[outcome+":"+kind]++
		default:
			c.undecided[outcome]++
		}
	}
	if refDecided != nil {
		for u := range refDecided {
			if !c.decidedSet[u] {
				c.fail("(a) %s decided by the reference, not by the killed series", u)
			}
		}
		for u := range c.decidedSet {
			if !refDecided[u] {
				c.fail("(a) %s decided by the killed series, not by the reference", u)
			}
		}
	}
	err = queryEach(ctx, conn, "SELECT url FROM pages", func(r *sql.Rows) error {
		var u string
		if err := r.Scan(&u); err != nil {
			return err
		}
		if truth.disallowed[u] {
			c.fail("(a) robots-disallowed %s was fetched", u)
		}
		return nil
	})
	if err != nil {
		c.fail("(a) read pages: %v", err)
	}
	var frontier int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM frontier").Scan(&frontier); err != nil || frontier != 0 {
		c.fail("(b) %d frontier items left after the completed run (%v)", frontier, err)
	}
	var lastStatus string
	err = queryEach(ctx, conn, "SELECT status FROM runs ORDER BY id", func(r *sql.Rows) error {
		if err := r.Scan(&lastStatus); err != nil {
			return err
		}
		c.runs[lastStatus]++
		return nil
	})
	if err != nil || lastStatus != storage.RunCompleted {
		c.fail("(b) last run %q, want completed (%v)", lastStatus, err)
	}
	if n := c.runs[storage.RunRunning]; n > 0 {
		c.fail("(b) %d killed runs still marked running after a completed run", n)
	}
	conn.Close()

	store, err := sqlite.Open(ctx, db)
	if err != nil {
		c.fail("(b) open store: %v", err)
		return c
	}
	defer store.Close()
	if err := store.Check(ctx); err != nil {
		c.fail("(b) store check: %v", err)
	}

	// (c) the rebuilt index against the stored text.
	eng, n, err := newEngine(ctx, cfg, seg, store, time.Now())
	if err != nil {
		c.fail("(c) rebuild index: %v", err)
	} else {
		c.indexed = n
		want := c.stored // cluster centres
		if !eng.Options().CentresOnly {
			want += c.dups // and their members
		}
		if n != want {
			c.fail("(c) index rebuilt with %d entries, the store has %d articles and %d duplicates", n, c.stored, c.dups)
		}
		err := store.Articles(ctx, func(a storage.Article) error {
			fp := eng.Fingerprint(a.Title, a.Text)
			switch {
			case fp.Simhash != a.Fingerprint.Simhash:
				c.fail("(c) article %d %s: stored simhash %016x, text gives %016x", a.ID, a.URL, a.Fingerprint.Simhash, fp.Simhash)
			case !slices.Equal(fp.Signature, a.Fingerprint.Signature):
				c.fail("(c) article %d %s: stored signature (%d spots) differs from the text's (%d spots)", a.ID, a.URL, len(a.Fingerprint.Signature), len(fp.Signature))
			case hex.EncodeToString(fp.Hash[:]) != a.ContentHash:
				c.fail("(c) article %d %s: content hash differs", a.ID, a.URL)
			case fp.Words != a.Fingerprint.Length:
				c.fail("(c) article %d %s: stored length %d, text has %d words", a.ID, a.URL, a.Fingerprint.Length, fp.Words)
			}
			if v := eng.Decide(fp); !v.Duplicate || v.Matched != uint64(a.ID) {
				c.fail("(c) article %d %s: the rebuilt index answers %+v, want an exact match of itself", a.ID, a.URL, v)
			}
			return nil
		})
		if err != nil {
			c.fail("(c) read articles: %v", err)
		}
	}

	// (d) the export against the reference's.
	lines, err := exportNormalised(ctx, db)
	if err != nil {
		c.fail("(d) export: %v", err)
		return c
	}
	c.exportLines = len(lines)
	if refDecided != nil {
		onlyHere, onlyRef := sortedDiff(lines, refExport)
		c.exportDiff = len(onlyHere) + len(onlyRef)
		for i := 0; i < len(onlyHere) && i < 3; i++ {
			c.fail("(d) only in the killed series' export: %s", lastBytes(onlyHere[i], 300))
		}
		for i := 0; i < len(onlyRef) && i < 3; i++ {
			c.fail("(d) only in the reference export: %s", lastBytes(onlyRef[i], 300))
		}
		if c.exportDiff > 0 {
			c.fail("(d) %d export lines differ", c.exportDiff)
		}
	}
	return c
}

func queryEach(ctx context.Context, conn *sql.DB, query string, fn func(*sql.Rows) error) error {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sortedDiff returns the lines only in a and only in b (both sorted; a
// line repeated counts as often as it occurs).
func sortedDiff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}

func (r *crashReport) print(w io.Writer, o crashOptions, command string) {
	fmt.Fprintf(w, "\n## Crash safety: kill -9 during crawls of the reprint web (`%s`)\n\n", command)
	fmt.Fprintf(w, "sites %s, crawled one after another with --workers 1; SIGKILL after U[%s, %s] from each start; seed %d\n\n",
		strings.Join(r.sites, ","), o.minKill, o.maxKill, o.seed)
	ref := r.reference
	fmt.Fprintf(w, "reference (uninterrupted): %.1fs; %d allowed article URLs: %d decided (%d stored, %d duplicates); not decided: %s\n\n",
		r.refElapsed.Seconds(), ref.allowed, ref.decided, ref.stored, ref.dups, formatKinds(ref.undecided))
	fmt.Fprintln(w, "| series | kills (in start-up) | starts | seconds | stored | dups | runs by status | (a) once | (b) integrity | (c) index | (d) export |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for i, s := range r.series {
		c := s.check
		fmt.Fprintf(w, "| %d | %d (%d) | %d | %.1f | %d | %d | %s | %s | %s | %s | %s |\n", i+1, s.kills, s.startupKills, s.starts,
			s.elapsed.Seconds(), c.stored, c.dups, formatKinds(c.runs),
			checkVerdict(c, "(a)", fmt.Sprintf("%d/%d", c.decided, c.allowed)), checkVerdict(c, "(b)", "ok"),
			checkVerdict(c, "(c)", fmt.Sprintf("%d entries ok", c.indexed)), checkVerdict(c, "(d)", fmt.Sprintf("%d lines equal", c.exportLines)))
	}
	fmt.Fprintf(w, "\nkills N = %d over %d series; checks %s\n", r.kills(), len(r.series), map[bool]string{false: "all passed", true: "FAILED"}[r.failed()])
	for i, s := range r.series {
		for _, p := range s.check.problems {
			fmt.Fprintf(w, "  series %d: %s\n", i+1, p)
		}
	}
	for _, p := range r.reference.problems {
		fmt.Fprintf(w, "  reference: %s\n", p)
	}
}

// checkVerdict is ok (with a figure) unless a problem of that check was found.
func checkVerdict(c crashCheck, check, ok string) string {
	n := 0
	for _, p := range c.problems {
		if strings.HasPrefix(p, check) {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("FAIL (%d)", n)
	}
	return ok
}
