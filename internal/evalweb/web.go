// Package evalweb is `eval web`: it crawls the reprint web served by
// ../shared/bench/server with the full pipeline, exports the store, scores
// the export with ../shared/bench/score.py (coverage, robots violations,
// extraction F1, pairwise clustering, hard negatives) and then re-clusters
// the crawled text in crawl order with every method of internal/evaldedup.
package evalweb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/evaldedup"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/textfmt"
	"github.com/newsdedup/newscrawl/storage"
)

// The bench server's default ports, one per site of the split.
const (
	firstPort = 18480
	lastPort  = 18485
)

// Config configures Run.
type Config struct {
	Shared   string // the shared data directory
	SiteFile string // site file of the bench web (configs/bench-dev.yaml)
	OutDir   string // directory for the store, the export and the scores
	// DB is the store to crawl into and read: a SQLite path or a
	// postgres:// URL (pipeline.OpenStore), which must hold no store yet
	// unless Reuse. Empty: OutDir/bench-dev.db, replaced by every crawl.
	DB     string
	Reuse  bool          // skip the crawl: re-cluster the texts of the previous crawl's store in OutDir
	Engine dedup.Options // engine settings of the re-clustering (see evaldedup.Methods)
	// Status receives the server build's output and the start-up lines;
	// Progress, when set, is called every 10 s of the crawl.
	Status   io.Writer
	Progress func(p pipeline.Progress)
}

// Report is the outcome of Run.
type Report struct {
	SiteFile string
	Crawled  bool // false with Config.Reuse: only Methods is filled in
	Totals   storage.RunStats
	Elapsed  time.Duration
	PeakRSS  float64 // MB
	ErrKinds map[string]int
	Special  SpecialRoutes
	Score    []byte // score.py's JSON for the export as crawled
	Partial  bool   // the crawl ran with the partial-reprint rule
	Pages    int    // article pages re-clustered
	Methods  []MethodRow
	Recall   *evaldedup.CandidateRecall
	Related  *RelatedLinks // explain's related articles of the stored follow-ups
}

// MethodRow is one method's scores on the re-clustered crawl.
type MethodRow struct {
	Method                   string
	P, R, F1                 float64
	Lost, Redundant          int
	Brief, Followup, SameCat int // hard negatives merged
	MsPerDoc                 float64
}

// Run crawls (unless Config.Reuse), exports, scores and re-clusters.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Status == nil {
		c.Status = io.Discard
	}
	db := c.DB
	if db == "" {
		db = filepath.Join(c.OutDir, "bench-dev.db")
		if !c.Reuse {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suffix)
			}
		}
	} else if !c.Reuse {
		if err := checkNoStore(ctx, db); err != nil {
			return nil, err
		}
	}
	rep := &Report{SiteFile: c.SiteFile}
	if !c.Reuse {
		if err := crawl(ctx, c, db, rep); err != nil {
			return nil, err
		}
	}
	store, err := pipeline.OpenExisting(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if !c.Reuse {
		if err := scoreCrawl(ctx, c, store, rep); err != nil {
			return nil, err
		}
	}
	rows, n, recall, err := recluster(ctx, store, c)
	if err != nil {
		return nil, err
	}
	rep.Methods, rep.Pages, rep.Recall = rows, n, recall
	if rep.Related, err = relatedLinks(ctx, c.Shared, store); err != nil {
		return nil, err
	}
	return rep, nil
}

// crawl starts the bench server and crawls it into a fresh store db.
func crawl(ctx context.Context, c Config, db string, rep *Report) error {
	cfg, err := config.Load(c.SiteFile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
		return err
	}
	srv, err := StartServer(ctx, c.Shared, c.Status)
	if err != nil {
		return err
	}
	defer srv.Stop()
	cfg.Storage = db
	cfg.Dedup.KeepDuplicateText = true // the baselines re-cluster every fetched text
	// The crawl uses the run's partial-reprint setting (--partial, on by
	// default), so that the crawl's own scores (stories lost, hard
	// negatives) measure it either way.
	cfg.Dedup.PartialReprints = c.Engine.PartialReprint
	log := slog.New(slog.NewTextHandler(c.Status, &slog.HandlerOptions{Level: slog.LevelError}))
	t := time.Now()
	res, err := pipeline.Crawl(ctx, &cfg, pipeline.CrawlOptions{ConfigPath: c.SiteFile, Log: log, Status: c.Status,
		Progress: c.Progress, ProgressEvery: 10 * time.Second})
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	rep.Crawled, rep.Partial = true, cfg.Dedup.PartialReprints
	rep.Elapsed = time.Since(t)
	rep.PeakRSS = peakRSSMB()
	rep.Totals = res.Summary.Totals()
	rep.Special.Retries, rep.Special.Duration = 0, res.Summary.Duration
	for _, s := range res.Summary.Sites {
		rep.Special.Retries += s.Retries
	}
	return nil
}

// checkNoStore refuses a --db that already holds a store: the crawl's
// figures are those of a crawl into an empty store, and the eval never
// deletes a store it was given.
func checkNoStore(ctx context.Context, db string) error {
	store, err := pipeline.OpenExisting(ctx, db)
	if errors.Is(err, storage.ErrNoStore) {
		return nil
	}
	if err != nil {
		return err
	}
	store.Close()
	return fmt.Errorf("%w: %s holds a store: eval web crawls into an empty one (a new database, schema (?search_path=) or file), or reads it with --reuse",
		storage.ErrInvalid, pipeline.StoreName(db))
}

// scoreCrawl exports the crawled store, reads its page records and scores
// the export with score.py.
func scoreCrawl(ctx context.Context, c Config, store storage.Store, rep *Report) error {
	export := filepath.Join(c.OutDir, "bench-dev-export.jsonl")
	f, err := os.Create(export)
	if err != nil {
		return err
	}
	if _, err := pipeline.Export(ctx, store, f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	rep.ErrKinds = map[string]int{}
	pages := map[string]storage.Page{}
	if err := store.Pages(ctx, func(p storage.Page) error {
		pages[p.URL] = p
		if p.Outcome == storage.OutcomeError {
			rep.ErrKinds[p.ErrKind]++
		}
		return nil
	}); err != nil {
		return err
	}
	if err := specialRoutes(c.Shared, pages, &rep.Special); err != nil {
		return err
	}
	score, err := runScorer(ctx, c.Shared, export)
	if err != nil {
		return err
	}
	rep.Score = score
	return os.WriteFile(filepath.Join(c.OutDir, "bench-dev-score.json"), score, 0o644)
}

// WriteTable prints the report.
func (r *Report) WriteTable(w io.Writer) error {
	if r.Crawled {
		t := r.Totals
		fmt.Fprintf(w, "\n## Reprint web (bench/dev): crawl of %s\n\n", r.SiteFile)
		fmt.Fprintf(w, "fetched %d pages in %.1fs; stored %d, duplicates %d, not-article %d, errors %d; peak RSS %.0f MB\n",
			t.Fetched, r.Elapsed.Seconds(), t.Stored, t.Duplicates, t.NotArticle, t.Errors, r.PeakRSS)
		fmt.Fprintf(w, "errors by kind: %s\n", textfmt.Kinds(r.ErrKinds))
		r.Special.write(w)
		name := "combined (default), as crawled"
		if !r.Partial {
			name = "combined, no partial-reprint rule, as crawled"
		}
		if err := writeScore(w, name, r.Score); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nall methods on the crawled text, Single-Pass in crawl order (%d article pages):\n\n", r.Pages)
	fmt.Fprintf(w, "| method | P | R | F1 | stories lost | redundant kept | brief/followup/samecat false merges | ms/doc |\n|---|---|---|---|---|---|---|---|\n")
	for _, m := range r.Methods {
		fmt.Fprintf(w, "| %s | %.4f | %.4f | %.4f | %d | %d | %d/%d/%d | %.3f |\n", m.Method, m.P, m.R, m.F1,
			m.Lost, m.Redundant, m.Brief, m.Followup, m.SameCat, m.MsPerDoc)
	}
	r.Recall.Write(w)
	if r.Related != nil {
		r.Related.write(w)
	}
	return nil
}

// Server runs ../shared/bench/server on the dev split.
type Server struct {
	cmd *exec.Cmd
	dir string
}

// StartServer builds and starts the bench server of the dev split on its
// default ports and waits until every site's port answers; the build's
// and the server's error output go to stderr.
func StartServer(ctx context.Context, shared string, stderr io.Writer) (*Server, error) {
	// A server left running from an earlier session would answer instead
	// of ours, with its fail-once route already spent: refuse to measure.
	for port := firstPort; port <= lastPort; port++ {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			c.Close()
			return nil, fmt.Errorf("port %d is already in use (a bench server still running?): stop it first", port)
		}
	}
	tmp, err := os.MkdirTemp("", "newscrawl-bench-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "benchserver")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(shared, "bench", "server")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("build bench server: %w", err)
	}
	cmd := exec.Command(bin, "--root", filepath.Join(shared, "bench", "dev"))
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start bench server: %w", err)
	}
	s := &Server{cmd: cmd, dir: tmp}
	deadline := time.Now().Add(30 * time.Second)
	for port := firstPort; port <= lastPort; port++ {
		for {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				s.Stop()
				return nil, fmt.Errorf("bench server: port %d not answering", port)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return s, nil
}

// Stop kills the server and removes its binary.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}

// peakRSSMB is the process's peak resident set (VmHWM) in MB, 0 where
// /proc is missing.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// runScorer runs ../shared/bench/score.py web on an export.
func runScorer(ctx context.Context, shared, export string) ([]byte, error) {
	abs, _ := filepath.Abs(export)
	cmd := exec.CommandContext(ctx, "python3", "score.py", "web", "--truth", "dev", "--pred", abs)
	cmd.Dir = filepath.Join(shared, "bench")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("score.py: %w: %s", err, errb.String())
	}
	return out.Bytes(), nil
}

// crawledPage is an article page's text as the crawl extracted it.
type crawledPage struct{ url, site, text, title string }

// crawledPages returns the texts of the stored articles and duplicates in
// crawl (commit) order.
func crawledPages(ctx context.Context, store storage.Store) ([]crawledPage, error) {
	texts := map[string]crawledPage{}
	if err := store.Articles(ctx, func(a storage.Article) error {
		texts[a.URL] = crawledPage{a.URL, a.Site, a.Text, a.Title}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := store.Duplicates(ctx, func(d storage.Duplicate) error {
		texts[d.URL] = crawledPage{d.URL, d.Site, d.Text, d.Title}
		return nil
	}); err != nil {
		return nil, err
	}
	var order []crawledPage
	err := store.Pages(ctx, func(p storage.Page) error {
		if t, ok := texts[p.URL]; ok {
			order = append(order, t)
		}
		return nil
	})
	return order, err
}

// recluster clusters the crawled texts again, in crawl (commit) order,
// with every evaluation method, and scores each with score.py: one table
// for all methods on identical extracted text. It returns the rows and the
// number of pages.
func recluster(ctx context.Context, store storage.Store, c Config) ([]MethodRow, int, *evaldedup.CandidateRecall, error) {
	order, err := crawledPages(ctx, store)
	if err != nil {
		return nil, 0, nil, err
	}
	t := time.Now()
	seg, err := pipeline.NewSegmenter(config.Segment{})
	if err != nil {
		return nil, 0, nil, err
	}
	fmt.Fprintf(c.Status, "segmenter loaded in %.2fs\n", time.Since(t).Seconds())
	in := make([]dedup.Doc, len(order))
	for i, p := range order {
		in[i] = dedup.Doc{Title: p.title, Text: p.text}
	}
	var rows []MethodRow
	for _, m := range evaldedup.Methods(seg, c.Engine) {
		t := time.Now()
		cl, err := m.Cluster(ctx, in)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		ms := float64(time.Since(t).Microseconds()) / 1000 / float64(max(len(in), 1))
		row, err := scoreMethod(ctx, c, m.Name, order, cl)
		if err != nil {
			return nil, 0, nil, err
		}
		row.MsPerDoc = ms
		rows = append(rows, row)
	}
	recall, err := evaldedup.RunCandidateRecall(ctx, seg, c.Engine, in)
	if err != nil {
		return nil, 0, nil, err
	}
	return rows, len(order), recall, nil
}

// scoreMethod writes one method's clusters as a prediction file and scores
// it with score.py.
func scoreMethod(ctx context.Context, c Config, name string, order []crawledPage, cl []int) (MethodRow, error) {
	pred := filepath.Join(c.OutDir, "bench-dev-"+slug(name)+".jsonl")
	f, err := os.Create(pred)
	if err != nil {
		return MethodRow{}, err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for i, p := range order {
		kept := cl[i] == i
		if err := enc.Encode(map[string]any{"url": p.url, "kept": kept, "cluster": cl[i], "text": p.text, "title": p.title}); err != nil {
			f.Close()
			return MethodRow{}, err
		}
	}
	if err := f.Close(); err != nil {
		return MethodRow{}, err
	}
	score, err := runScorer(ctx, c.Shared, pred)
	if err != nil {
		return MethodRow{}, err
	}
	var s struct {
		Clustering struct {
			P  float64 `json:"pairwise_precision"`
			R  float64 `json:"pairwise_recall"`
			F1 float64 `json:"pairwise_f1"`
		} `json:"clustering"`
		Dedup struct {
			Lost      int `json:"stories_lost"`
			Redundant int `json:"redundant_kept"`
		} `json:"dedup"`
		Hard map[string]struct {
			Merged int `json:"merged"`
			Pairs  int `json:"pairs"`
		} `json:"hard_negatives"`
	}
	if err := json.Unmarshal(score, &s); err != nil {
		return MethodRow{}, fmt.Errorf("score.py output: %w", err)
	}
	return MethodRow{Method: name, P: s.Clustering.P, R: s.Clustering.R, F1: s.Clustering.F1,
		Lost: s.Dedup.Lost, Redundant: s.Dedup.Redundant,
		Brief: s.Hard["brief"].Merged, Followup: s.Hard["followup"].Merged, SameCat: s.Hard["samecat"].Merged}, nil
}

// writeScore prints the scorer's headline figures as a table row set.
func writeScore(w io.Writer, name string, score []byte) error {
	var s map[string]any
	if err := json.Unmarshal(score, &s); err != nil {
		return fmt.Errorf("score.py output: %w", err)
	}
	get := func(path ...string) any {
		var cur any = s
		for _, p := range path {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[p]
		}
		return cur
	}
	fmt.Fprintf(w, "\n%s:\n", name)
	for _, row := range [][]string{
		{"clustering", "pairwise_precision"}, {"clustering", "pairwise_recall"}, {"clustering", "pairwise_f1"},
		{"dedup", "stories_lost"}, {"dedup", "redundant_kept"},
		{"extraction", "mean_bigram_f1"}, {"extraction", "share_f1_ge_0.9"}, {"extraction", "empty_text"}, {"extraction", "title_exact"},
		{"coverage", "share"}, {"coverage", "stories_share"}, {"robots_violations"},
	} {
		fmt.Fprintf(w, "  %-36s %v\n", strings.Join(row, "."), get(row...))
	}
	if hn, ok := get("hard_negatives").(map[string]any); ok {
		var ks []string
		for k := range hn {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			b, _ := json.Marshal(hn[k])
			fmt.Fprintf(w, "  hard_negatives.%-21s %s\n", k, b)
		}
	}
	return nil
}

// SpecialRoutes is how the bench's special routes ended: the fail-once and
// slow articles, the oversized pages and gzip bombs, and the deepest
// calendar-trap page fetched.
type SpecialRoutes struct {
	FailOnce, FailOnceDecided int
	Slow, SlowDecided         int
	Retries                   int64
	Duration                  time.Duration  // of the whole crawl
	Big, Download             map[string]int // outcomes of /big/ and /download/ pages
	Calendar                  int            // deepest /calendar/N fetched (-1: none)
}

// specialRoutes fills in r from truth.jsonl and the page records.
func specialRoutes(shared string, pages map[string]storage.Page, r *SpecialRoutes) error {
	failOnce, slow, err := behaviours(shared)
	if err != nil {
		return err
	}
	decided := func(urls []string) int {
		n := 0
		for _, u := range urls {
			if o := pages[u].Outcome; o.Final() {
				n++
			}
		}
		return n
	}
	r.FailOnce, r.FailOnceDecided = len(failOnce), decided(failOnce)
	r.Slow, r.SlowDecided = len(slow), decided(slow)
	r.Big, r.Download, r.Calendar = map[string]int{}, map[string]int{}, -1
	for u, p := range pages {
		if strings.Contains(u, "/big/") {
			r.Big[string(p.Outcome)+" "+p.ErrKind]++
		}
		if strings.Contains(u, "/download/") {
			r.Download[string(p.Outcome)+" "+p.ErrKind]++
		}
		if i := strings.Index(u, "/calendar/"); i >= 0 {
			var n int
			if _, err := fmt.Sscanf(u[i+len("/calendar/"):], "%d", &n); err == nil && n > r.Calendar {
				r.Calendar = n
			}
		}
	}
	return nil
}

// behaviours reads the URLs of the fail-once and the slow articles from
// the split's truth.jsonl.
func behaviours(shared string) (failOnce, slow []string, err error) {
	f, err := os.Open(filepath.Join(shared, "bench", "dev", "truth.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for dec.More() {
		var t struct {
			URL      string         `json:"url"`
			Behavior map[string]any `json:"behavior"`
		}
		if err := dec.Decode(&t); err != nil {
			return nil, nil, fmt.Errorf("truth.jsonl: %w", err)
		}
		if t.Behavior["fail_once"] == true {
			failOnce = append(failOnce, t.URL)
		}
		if _, ok := t.Behavior["delay_ms"]; ok {
			slow = append(slow, t.URL)
		}
	}
	return failOnce, slow, nil
}

func (r SpecialRoutes) write(w io.Writer) {
	fmt.Fprintf(w, "fail-once articles stored or recorded after a retry: %d of %d (retries in the run: %d)\n", r.FailOnceDecided, r.FailOnce, r.Retries)
	fmt.Fprintf(w, "slow (2 s) articles decided: %d of %d; the run took %s in all\n", r.SlowDecided, r.Slow, r.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "oversized pages (/big/): %s; gzip bombs (/download/): %s\n", textfmt.Kinds(r.Big), textfmt.Kinds(r.Download))
	fmt.Fprintf(w, "deepest calendar-trap page fetched: /calendar/%d (max_depth bounds it)\n", r.Calendar)
}
