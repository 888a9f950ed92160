// Package evalcrash is `eval crash`: it kills crawls of the reprint web
// with SIGKILL at random moments, restarts them until they complete, and
// checks the store against an uninterrupted crawl's. See Run for the method
// and the checks.
package evalcrash

import (
	"bufio"
	"bytes"
	"context"
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
	"github.com/newsdedup/newscrawl/internal/devdata"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/textfmt"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
	"github.com/newsdedup/newscrawl/urlnorm"
)

// Method of Run: kill -9 a crawl of the bench web at random moments,
// restart it until it completes, and check that the store holds exactly
// what an uninterrupted crawl stores.
// The crawl runs with one worker and crawls the selected sites one
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
//	(b) PRAGMA integrity_check and storage.Store.Check pass, the frontier
//	    is empty and the last run completed (sqlite.AuditFile reads the
//	    tables independently of the Store's code);
//	(c) the dedup index rebuilt from the store (pipeline.NewEngine) agrees with the
//	    stored text: it holds every article (and every duplicate, as a
//	    cluster member, unless CentresOnly), re-fingerprinting each
//	    article's title and text gives its stored Simhash, SpotSigs
//	    signature, content hash and length, and Decide matches the article
//	    itself;
//	(d) the exported corpus equals the reference's, line for line, once
//	    fetched_at and run_id are removed.

// Kill delay bounds and limits of a crash series.
const (
	DefaultMinKill = 200 * time.Millisecond
	DefaultMaxKill = 3 * time.Second
	// maxStartsPerSite stops a series that makes no progress: a site of the
	// dev split needs about 3 s of crawling, so hundreds of starts mean the
	// restarted runs are not resuming.
	maxStartsPerSite = 200
	benchSites       = 6 // sites of the bench split, on consecutive ports
	// exitOK is the crawl command's exit code for a finished run (cli.ExitOK).
	exitOK = 0
)

// Config configures Run.
type Config struct {
	Shared   string   // ../shared
	SiteFile string   // site file of the bench web (default ports)
	Sites    []string // crawled one after another; empty: every site, in file order
	MinKills int      // series are run until this many kills happened
	Series   int      // at most this many series (0: 100)
	Seed     uint64
	MinKill  time.Duration
	MaxKill  time.Duration
	WorkDir  string
	// Command returns a command running newscrawl with args (see
	// BuildCommand).
	Command func(args ...string) *exec.Cmd
	Log     io.Writer // progress lines
}

// SeriesResult is one series of killed and restarted runs and its checks.
type SeriesResult struct {
	Kills, StartupKills, Starts int
	Elapsed                     time.Duration
	Check                       Check
}

// Check are the figures and problems found by CheckStore.
type Check struct {
	Allowed, Decided, Stored, Dups int
	Undecided                      map[string]int // outcome of allowed URLs not decided
	DecidedSet                     map[string]bool
	Runs                           map[string]int // runs by status
	Indexed                        int
	ExportLines                    int
	ExportDiff                     int      // lines in one export but not the other
	Problems                       []string // "(a) …" to "(d) …"
}

func (c *Check) fail(format string, a ...any) {
	const maxProblems = 20
	if len(c.Problems) < maxProblems {
		c.Problems = append(c.Problems, fmt.Sprintf(format, a...))
	} else if len(c.Problems) == maxProblems {
		c.Problems = append(c.Problems, "(further problems not listed)")
	}
}

// Report is the outcome of Run.
type Report struct {
	Sites      []string
	Reference  Check
	RefElapsed time.Duration
	Series     []SeriesResult
}

// Kills is the total number of kills over every series.
func (r *Report) Kills() int {
	n := 0
	for _, s := range r.Series {
		n += s.Kills
	}
	return n
}

// Failed reports whether any check of any series failed.
func (r *Report) Failed() bool {
	for _, s := range r.Series {
		if len(s.Check.Problems) > 0 {
			return true
		}
	}
	return len(r.Reference.Problems) > 0
}

// Truth is what the checks need from the bench split.
type Truth struct {
	Allowed    map[string]bool   // canonical URLs of allowed article copies
	Disallowed map[string]bool   // canonical URLs disallowed by robots.txt
	Redirects  map[string]string // canonical /r/ URL -> canonical target
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
func loadBenchTruth(shared string, sites []string, basePort int) (Truth, map[int]int, error) {
	dev := filepath.Join(shared, "bench", "dev")
	var routes benchRoutes
	b, err := os.ReadFile(filepath.Join(dev, "routes.json"))
	if err != nil {
		return Truth{}, nil, err
	}
	if err := json.Unmarshal(b, &routes); err != nil {
		return Truth{}, nil, fmt.Errorf("routes.json: %w", err)
	}
	want := map[string]bool{}
	for _, s := range sites {
		want[s] = true
	}
	t := Truth{Allowed: map[string]bool{}, Disallowed: map[string]bool{}, Redirects: map[string]string{}}
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
					t.Redirects[from] = to
				}
			}
		}
	}
	f, err := os.Open(filepath.Join(dev, "truth.jsonl"))
	if err != nil {
		return Truth{}, nil, err
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
			return Truth{}, nil, fmt.Errorf("truth.jsonl: %w", err)
		}
		if !want[line.Site] {
			continue
		}
		u, err := urlnorm.Canonical(base[line.Site]+line.Path, nil)
		if err != nil {
			return Truth{}, nil, fmt.Errorf("truth.jsonl: %s%s: %w", line.Site, line.Path, err)
		}
		if line.Disallowed {
			t.Disallowed[u] = true
		} else {
			t.Allowed[u] = true
		}
	}
	if err := sc.Err(); err != nil {
		return Truth{}, nil, fmt.Errorf("truth.jsonl: %w", err)
	}
	if len(t.Allowed) == 0 {
		return Truth{}, nil, fmt.Errorf("truth.jsonl has no article of the sites %v", sites)
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

// bench is a prepared crash run: the server on free ports, the site file
// rewritten for them, the truth of the selected sites and the segmenter
// the index check fingerprints with.
type bench struct {
	c        Config
	sites    []string
	siteFile string
	cfg      config.Config
	truth    Truth
	srv      *crashServer
	seg      dedup.Segmenter
	rng      *rand.Rand
}

// Run runs the reference crawl and kill series; see the comment at the top
// of this file.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Series <= 0 {
		c.Series = 100
	}
	b, err := prepare(ctx, c)
	if err != nil {
		return nil, err
	}
	rep := &Report{Sites: b.sites}
	refExport, err := b.reference(ctx, rep)
	if err != nil {
		return nil, err
	}
	b.logf("reference: %d of %d allowed article URLs decided in %.1fs", rep.Reference.Decided, rep.Reference.Allowed, rep.RefElapsed.Seconds())
	for i := 1; i <= c.Series && (i == 1 || rep.Kills() < c.MinKills); i++ {
		sr, err := b.series(ctx, i)
		if err != nil {
			return nil, err
		}
		sr.Check = CheckStore(ctx, filepath.Join(c.WorkDir, fmt.Sprintf("series-%d.db", i)), &b.cfg, b.seg, b.truth, rep.Reference.DecidedSet, refExport)
		rep.Series = append(rep.Series, sr)
		b.logf("series %d: %d kills (%d during start-up), %d starts, %.1fs; %d problems", i, sr.Kills, sr.StartupKills, sr.Starts, sr.Elapsed.Seconds(), len(sr.Check.Problems))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func (b *bench) logf(format string, a ...any) {
	if b.c.Log != nil {
		fmt.Fprintf(b.c.Log, format+"\n", a...)
	}
}

// prepare checks the site selection, builds the bench server, picks free
// ports, reads the truth and rewrites the site file for the ports.
func prepare(ctx context.Context, c Config) (*bench, error) {
	cfg, err := config.Load(c.SiteFile)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var all []string
	for _, s := range cfg.Sites {
		known[s.Name] = true
		all = append(all, s.Name)
	}
	b := &bench{c: c, sites: c.Sites, rng: rand.New(rand.NewPCG(c.Seed, 0x6e6577736372))}
	if len(b.sites) == 0 {
		b.sites = all
	}
	for _, s := range b.sites {
		if !known[s] {
			return nil, fmt.Errorf("no site %q in %s", s, c.SiteFile)
		}
	}
	// The server on free ports, and the site file rewritten for them.
	srvBin := filepath.Join(c.WorkDir, "benchserver")
	build := exec.CommandContext(ctx, "go", "build", "-o", srvBin, ".")
	build.Dir = filepath.Join(c.Shared, "bench", "server")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build bench server: %w: %s", err, out)
	}
	base, err := freeBasePort(b.rng)
	if err != nil {
		return nil, err
	}
	truth, ports, err := loadBenchTruth(c.Shared, b.sites, base)
	if err != nil {
		return nil, err
	}
	b.truth = truth
	b.srv = &crashServer{bin: srvBin, root: filepath.Join(c.Shared, "bench", "dev"), port: base}
	if b.siteFile, b.cfg, err = rewritePorts(c.SiteFile, c.WorkDir, ports); err != nil {
		return nil, err
	}
	if b.seg, err = pipeline.NewSegmenter(b.cfg.Segment); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *bench) crawlArgs(db, site string) []string {
	return []string{"crawl", "--site", b.siteFile, "--db", db, "--only", site, "--workers", "1", "--progress", "0"}
}

// reference crawls every site without interruption into reference.db,
// checks that store and returns its normalised export.
func (b *bench) reference(ctx context.Context, rep *Report) ([]string, error) {
	refDB := filepath.Join(b.c.WorkDir, "reference.db")
	if err := b.srv.start(ctx); err != nil {
		return nil, err
	}
	t0 := time.Now()
	for _, s := range b.sites {
		res, err := runProcess(ctx, b.c.Command(b.crawlArgs(refDB, s)...), 0)
		if err != nil {
			b.srv.stop()
			return nil, err
		}
		if res.code != exitOK || !strings.Contains(res.stdout, " completed in ") {
			b.srv.stop()
			return nil, fmt.Errorf("reference crawl of %s: exit %d\n%s%s", s, res.code, res.stdout, lastBytes(res.stderr, 2000))
		}
	}
	rep.RefElapsed = time.Since(t0)
	b.srv.stop()
	refExport, err := ExportNormalised(ctx, refDB)
	if err != nil {
		return nil, err
	}
	rep.Reference = CheckStore(ctx, refDB, &b.cfg, b.seg, b.truth, nil, refExport)
	return refExport, nil
}

// series crawls every site into series-i.db, killing each run after a
// random delay and restarting it until a run of the site completes.
func (b *bench) series(ctx context.Context, i int) (SeriesResult, error) {
	db := filepath.Join(b.c.WorkDir, fmt.Sprintf("series-%d.db", i))
	if err := b.srv.start(ctx); err != nil {
		return SeriesResult{}, err
	}
	defer b.srv.stop()
	var sr SeriesResult
	t := time.Now()
	for _, s := range b.sites {
		for starts := 0; ; starts++ {
			if starts == maxStartsPerSite {
				return SeriesResult{}, fmt.Errorf("series %d: site %s did not complete in %d starts", i, s, starts)
			}
			delay := b.c.MinKill + time.Duration(b.rng.Int64N(int64(b.c.MaxKill-b.c.MinKill)+1))
			sr.Starts++
			res, err := runProcess(ctx, b.c.Command(b.crawlArgs(db, s)...), delay)
			if err != nil {
				return SeriesResult{}, err
			}
			if res.killed {
				sr.Kills++
				if !strings.Contains(res.stderr, "indexed") {
					sr.StartupKills++ // before the index was rebuilt
				}
				continue
			}
			if res.code != exitOK || !strings.Contains(res.stdout, " completed in ") {
				return SeriesResult{}, fmt.Errorf("series %d: restarted crawl of %s: exit %d\n%s%s", i, s, res.code, res.stdout, lastBytes(res.stderr, 2000))
			}
			break
		}
	}
	sr.Elapsed = time.Since(t)
	return sr, nil
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

// ExportNormalised exports a store as sorted JSON lines without fetched_at
// and run_id.
func ExportNormalised(ctx context.Context, db string) ([]string, error) {
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var buf bytes.Buffer
	if _, err := pipeline.Export(ctx, store, &buf); err != nil {
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
		delete(m, "run_id")       // a crashed crawl takes more runs than an uninterrupted one
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

// CheckStore runs checks (a)-(d) on the store file db; refDecided and
// refExport are the reference's (refDecided nil: this is the reference).
func CheckStore(ctx context.Context, db string, cfg *config.Config, seg dedup.Segmenter, truth Truth, refDecided map[string]bool, refExport []string) Check {
	c := Check{Undecided: map[string]int{}, DecidedSet: map[string]bool{}, Runs: map[string]int{}, Allowed: len(truth.Allowed)}
	audit, err := sqlite.AuditFile(ctx, db)
	if err != nil {
		c.fail("(b) audit %s: %v", db, err)
		return c
	}
	c.checkDecisions(audit, truth, refDecided)
	c.checkState(audit)

	store, err := sqlite.Open(ctx, db)
	if err != nil {
		c.fail("(b) open store: %v", err)
		return c
	}
	defer store.Close()
	if err := store.Check(ctx); err != nil {
		c.fail("(b) store check: %v", err)
	}
	c.checkIndex(ctx, store, cfg, seg)
	c.checkExport(ctx, db, refDecided, refExport)
	return c
}

// checkDecisions is check (a): every allowed URL decided at most once,
// the same URLs as the reference, no robots-disallowed fetch.
func (c *Check) checkDecisions(audit *sqlite.Audit, truth Truth, refDecided map[string]bool) {
	count := map[string]int{}
	canon := func(u string) string {
		if to, ok := truth.Redirects[u]; ok {
			return to
		}
		return u
	}
	for _, u := range audit.Articles {
		c.Stored++
		count[canon(u)]++
	}
	for _, u := range audit.Duplicates {
		c.Dups++
		count[canon(u)]++
	}
	for u, n := range count {
		if n > 1 {
			c.fail("(a) %s decided %d times (stored and/or duplicate)", u, n)
		}
		if !truth.Allowed[u] {
			c.fail("(a) %s decided but not an allowed article of truth.jsonl", u)
		}
	}
	for u := range truth.Allowed {
		if count[u] > 0 {
			c.DecidedSet[u] = true
			c.Decided++
			continue
		}
		if o, ok := audit.Pages[u]; ok {
			c.Undecided[o]++
		} else {
			c.Undecided["not fetched"]++
		}
	}
	if refDecided != nil {
		for u := range refDecided {
			if !c.DecidedSet[u] {
				c.fail("(a) %s decided by the reference, not by the killed series", u)
			}
		}
		for u := range c.DecidedSet {
			if !refDecided[u] {
				c.fail("(a) %s decided by the killed series, not by the reference", u)
			}
		}
	}
	for u := range audit.Pages {
		if truth.Disallowed[u] {
			c.fail("(a) robots-disallowed %s was fetched", u)
		}
	}
}

// checkState is check (b) on the tables: integrity, an empty frontier, the
// last run completed and no run left running.
func (c *Check) checkState(audit *sqlite.Audit) {
	if audit.Integrity != "ok" {
		c.fail("(b) integrity_check: %q", audit.Integrity)
	}
	if audit.Frontier != 0 {
		c.fail("(b) %d frontier items left after the completed run", audit.Frontier)
	}
	last := ""
	for _, s := range audit.Runs {
		c.Runs[s]++
		last = s
	}
	if last != storage.RunCompleted {
		c.fail("(b) last run %q, want completed", last)
	}
	if n := c.Runs[storage.RunRunning]; n > 0 {
		c.fail("(b) %d killed runs still marked running after a completed run", n)
	}
}

// checkIndex is check (c): the index rebuilt from the store agrees with
// the stored text.
func (c *Check) checkIndex(ctx context.Context, store storage.Store, cfg *config.Config, seg dedup.Segmenter) {
	eng, load, err := pipeline.NewEngine(ctx, cfg, seg, store, pipeline.EngineConfig{Now: time.Now()})
	if err != nil {
		c.fail("(c) rebuild index: %v", err)
		return
	}
	c.Indexed = load.Entries
	want := c.Stored // cluster centres
	if !eng.Options().CentresOnly {
		want += c.Dups // and their members
	}
	if load.Entries != want {
		c.fail("(c) index rebuilt with %d entries, the store has %d articles and %d duplicates", load.Entries, c.Stored, c.Dups)
	}
	err = store.Articles(ctx, func(a storage.Article) error {
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
		if v, err := eng.Decide(ctx, fp); err != nil || !v.Duplicate || v.Matched != uint64(a.ID) {
			c.fail("(c) article %d %s: the rebuilt index answers %+v (error %v), want an exact match of itself", a.ID, a.URL, v, err)
		}
		return nil
	})
	if err != nil {
		c.fail("(c) read articles: %v", err)
	}
}

// checkExport is check (d): the export equals the reference's.
func (c *Check) checkExport(ctx context.Context, db string, refDecided map[string]bool, refExport []string) {
	lines, err := ExportNormalised(ctx, db)
	if err != nil {
		c.fail("(d) export: %v", err)
		return
	}
	c.ExportLines = len(lines)
	if refDecided == nil {
		return
	}
	onlyHere, onlyRef := sortedDiff(lines, refExport)
	c.ExportDiff = len(onlyHere) + len(onlyRef)
	for i := 0; i < len(onlyHere) && i < 3; i++ {
		c.fail("(d) only in the killed series' export: %s", lastBytes(onlyHere[i], 300))
	}
	for i := 0; i < len(onlyRef) && i < 3; i++ {
		c.fail("(d) only in the reference export: %s", lastBytes(onlyRef[i], 300))
	}
	if c.ExportDiff > 0 {
		c.fail("(d) %d export lines differ", c.ExportDiff)
	}
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

// WriteTable prints the report of a run with Config c; command is the
// command line that produced it.
func (r *Report) WriteTable(w io.Writer, c Config, command string) {
	fmt.Fprintf(w, "\n## Crash safety: kill -9 during crawls of the reprint web (`%s`)\n\n", command)
	fmt.Fprintf(w, "sites %s, crawled one after another with --workers 1; SIGKILL after U[%s, %s] from each start; seed %d\n\n",
		strings.Join(r.Sites, ","), c.MinKill, c.MaxKill, c.Seed)
	ref := r.Reference
	fmt.Fprintf(w, "reference (uninterrupted): %.1fs; %d allowed article URLs: %d decided (%d stored, %d duplicates); not decided: %s\n\n",
		r.RefElapsed.Seconds(), ref.Allowed, ref.Decided, ref.Stored, ref.Dups, textfmt.Kinds(ref.Undecided))
	fmt.Fprintln(w, "| series | kills (in start-up) | starts | seconds | stored | dups | runs by status | (a) once | (b) integrity | (c) index | (d) export |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for i, s := range r.Series {
		c := s.Check
		fmt.Fprintf(w, "| %d | %d (%d) | %d | %.1f | %d | %d | %s | %s | %s | %s | %s |\n", i+1, s.Kills, s.StartupKills, s.Starts,
			s.Elapsed.Seconds(), c.Stored, c.Dups, textfmt.Kinds(c.Runs),
			c.Verdict("(a)", fmt.Sprintf("%d/%d", c.Decided, c.Allowed)), c.Verdict("(b)", "ok"),
			c.Verdict("(c)", fmt.Sprintf("%d entries ok", c.Indexed)), c.Verdict("(d)", fmt.Sprintf("%d lines equal", c.ExportLines)))
	}
	fmt.Fprintf(w, "\nkills N = %d over %d series; checks %s\n", r.Kills(), len(r.Series), map[bool]string{false: "all passed", true: "FAILED"}[r.Failed()])
	for i, s := range r.Series {
		for _, p := range s.Check.Problems {
			fmt.Fprintf(w, "  series %d: %s\n", i+1, p)
		}
	}
	for _, p := range r.Reference.Problems {
		fmt.Fprintf(w, "  reference: %s\n", p)
	}
}

// Verdict is ok (with a figure) unless a problem of check ("(a)" to "(d)")
// was found: then "FAIL (n)".
func (c Check) Verdict(check, ok string) string {
	n := 0
	for _, p := range c.Problems {
		if strings.HasPrefix(p, check) {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("FAIL (%d)", n)
	}
	return ok
}

// BuildCommand builds newscrawl from the repository holding the working
// directory into workDir and returns Config.Command running that binary;
// the build's output goes to log.
func BuildCommand(ctx context.Context, workDir string, log io.Writer) (func(args ...string) *exec.Cmd, error) {
	root, err := devdata.Root(".")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(workDir, "newscrawl")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = root, log, log
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build newscrawl: %w", err)
	}
	return func(args ...string) *exec.Cmd { return exec.Command(bin, args...) }, nil
}
