package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// benchServer runs ../shared/bench/server on the dev split.
type benchServer struct {
	cmd *exec.Cmd
	dir string
}

// startBenchServer builds and starts the fixture server and waits until
// every site's port answers.
func startBenchServer(ctx context.Context, shared string, stderr io.Writer) (*benchServer, error) {
	// A server left running from an earlier session would answer instead
	// of ours, with its fail-once route already spent: refuse to measure.
	for port := 18480; port <= 18485; port++ {
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
	s := &benchServer{cmd: cmd, dir: tmp}
	deadline := time.Now().Add(30 * time.Second)
	for port := 18480; port <= 18485; port++ {
		for {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				s.stop()
				return nil, fmt.Errorf("bench server: port %d not answering", port)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return s, nil
}

func (s *benchServer) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}

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

func cmdEvalWeb(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval web", stderr)
	site := fs.String("site", "configs/bench-dev.yaml", "site file for the bench web")
	outDir := fs.String("out", "out/eval", "directory for the export and the scores")
	reuse := fs.Bool("reuse", false, "skip the crawl: re-cluster the texts of the previous crawl's store")
	engine := addEngineFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	if *reuse {
		store, err := sqlite.Open(ctx, filepath.Join(*outDir, "bench-dev.db"))
		if err != nil {
			return err
		}
		defer store.Close()
		return reclusterWeb(ctx, store, dir, *outDir, *engine, stdout, stderr)
	}
	cfg, err := config.Load(*site)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return fmt.Errorf("eval web: %w", err)
	}
	srv, err := startBenchServer(ctx, dir, stderr)
	if err != nil {
		return fmt.Errorf("eval web: %w", err)
	}
	defer srv.stop()
	db := filepath.Join(*outDir, "bench-dev.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	cfg.Storage = db
	cfg.Dedup.KeepDuplicateText = true // the baselines re-cluster every fetched text
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	t := time.Now()
	sum, err := crawlOnce(ctx, &cfg, crawlOptions{configPath: *site, progress: 10 * time.Second, log: log}, io.Discard, stderr)
	if err != nil {
		return fmt.Errorf("eval web: crawl: %w", err)
	}
	elapsed := time.Since(t)
	rss := peakRSSMB()

	store, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	export := filepath.Join(*outDir, "bench-dev-export.jsonl")
	f, err := os.Create(export)
	if err != nil {
		return err
	}
	if _, err := exportJSONL(ctx, store, f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	errKinds := map[string]int{}
	pages := map[string]storage.Page{}
	if err := store.Pages(ctx, func(p storage.Page) error {
		pages[p.URL] = p
		if p.Outcome == storage.OutcomeError {
			errKinds[p.ErrKind]++
		}
		return nil
	}); err != nil {
		return err
	}
	t0 := sum.Totals()
	fmt.Fprintf(stdout, "\n## Reprint web (bench/dev): crawl of %s\n\n", *site)
	fmt.Fprintf(stdout, "fetched %d pages in %.1fs; stored %d, duplicates %d, not-article %d, errors %d; peak RSS %.0f MB\n",
		t0.Fetched, elapsed.Seconds(), t0.Stored, t0.Duplicates, t0.NotArticle, t0.Errors, rss)
	fmt.Fprintf(stdout, "errors by kind: %s\n", formatKinds(errKinds))
	if err := printSpecialRoutes(stdout, dir, pages, sum); err != nil {
		return err
	}
	score, err := runScorer(ctx, dir, export)
	if err != nil {
		return fmt.Errorf("eval web: %w", err)
	}
	os.WriteFile(filepath.Join(*outDir, "bench-dev-score.json"), score, 0o644)
	if err := printWebScore(stdout, "combined (default), as crawled", score); err != nil {
		return err
	}
	return reclusterWeb(ctx, store, dir, *outDir, *engine, stdout, stderr)
}

// reclusterWeb clusters the crawled texts again, in crawl (commit) order,
// with every evaluation method, and scores each with score.py: one table
// for all methods on identical extracted text.
func reclusterWeb(ctx context.Context, store storage.Store, shared, outDir string, engine dedup.Options, stdout, stderr io.Writer) error {
	type page struct{ url, site, text, title string }
	texts := map[string]page{}
	if err := store.Articles(ctx, func(a storage.Article) error {
		texts[a.URL] = page{a.URL, a.Site, a.Text, a.Title}
		return nil
	}); err != nil {
		return err
	}
	if err := store.Duplicates(ctx, func(d storage.Duplicate) error {
		texts[d.URL] = page{d.URL, d.Site, d.Text, d.Title}
		return nil
	}); err != nil {
		return err
	}
	var order []page
	if err := store.Pages(ctx, func(p storage.Page) error {
		if t, ok := texts[p.URL]; ok {
			order = append(order, t)
		}
		return nil
	}); err != nil {
		return err
	}
	seg, err := loadEvalSegmenter(stderr)
	if err != nil {
		return err
	}
	in := make([]dedup.Doc, len(order))
	for i, p := range order {
		in[i] = dedup.Doc{Title: p.title, Text: p.text}
	}
	fmt.Fprintf(stdout, "\nall methods on the crawled text, Single-Pass in crawl order (%d article pages):\n\n", len(order))
	fmt.Fprintf(stdout, "| method | P | R | F1 | stories lost | redundant kept | brief/followup/samecat false merges | ms/doc |\n|---|---|---|---|---|---|---|---|\n")
	for _, m := range evalMethods(seg, engine) {
		t := time.Now()
		cl, err := m.cluster(ctx, in)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		ms := float64(time.Since(t).Microseconds()) / 1000 / float64(max(len(in), 1))
		pred := filepath.Join(outDir, "bench-dev-"+slug(m.name)+".jsonl")
		f, err := os.Create(pred)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		enc.SetEscapeHTML(false)
		for i, p := range order {
			kept := cl[i] == i
			enc.Encode(map[string]any{"url": p.url, "kept": kept, "cluster": cl[i], "text": p.text, "title": p.title})
		}
		if err := f.Close(); err != nil {
			return err
		}
		score, err := runScorer(ctx, shared, pred)
		if err != nil {
			return err
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
			return err
		}
		fmt.Fprintf(stdout, "| %s | %.4f | %.4f | %.4f | %d | %d | %d/%d/%d | %.3f |\n", m.name, s.Clustering.P, s.Clustering.R, s.Clustering.F1,
			s.Dedup.Lost, s.Dedup.Redundant, s.Hard["brief"].Merged, s.Hard["followup"].Merged, s.Hard["samecat"].Merged, ms)
	}
	return nil
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

func formatKinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
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

// printWebScore prints the scorer's headline figures as a table row set.
func printWebScore(w io.Writer, name string, score []byte) error {
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

func cmdEvalThroughput(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, shared := evalFlagSet("eval throughput", stderr)
	site := fs.String("site", "configs/bench-dev.yaml", "site file for the bench web")
	outDir := fs.String("out", "out/eval", "directory for the temporary stores")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	dir, err := sharedDir(*shared)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	type result struct {
		name    string
		fetched int
		secs    float64
	}
	var res []result
	for _, fetchOnly := range []bool{true, false} {
		cfg, err := config.Load(*site)
		if err != nil {
			return err
		}
		for i := range cfg.Sites {
			cfg.Sites[i].Delay = 0 // loopback, no politeness delay: measure the pipeline
		}
		name := "full pipeline"
		if fetchOnly {
			name = "fetch only"
		}
		db := filepath.Join(*outDir, "throughput.db")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db + suffix)
		}
		cfg.Storage = db
		// A fresh server per run: its fail-once route and caches start equal.
		srv, err := startBenchServer(ctx, dir, stderr)
		if err != nil {
			return fmt.Errorf("eval throughput: %w", err)
		}
		var o crawlOptions
		o.configPath, o.log, o.fetchOnly = *site, log, fetchOnly
		if !fetchOnly {
			// The segmenter loads once per process, before the clock starts.
			if o.seg, err = newSegmenter(cfg.Segment); err != nil {
				srv.stop()
				return err
			}
		}
		t := time.Now()
		sum, err := crawlOnce(ctx, &cfg, o, io.Discard, io.Discard)
		secs := time.Since(t).Seconds()
		srv.stop()
		if err != nil {
			return fmt.Errorf("eval throughput: %s: %w", name, err)
		}
		res = append(res, result{name, sum.Totals().Fetched, secs})
	}
	fmt.Fprintf(stdout, "\n## Throughput on loopback, delay 0 (%s)\n\n| run | pages | seconds | pages/s |\n|---|---|---|---|\n", *site)
	for _, r := range res {
		fmt.Fprintf(stdout, "| %s | %d | %.2f | %.1f |\n", r.name, r.fetched, r.secs, float64(r.fetched)/r.secs)
	}
	ratio := (float64(res[1].fetched) / res[1].secs) / (float64(res[0].fetched) / res[0].secs)
	fmt.Fprintf(stdout, "\nfull pipeline / fetch only: %.2f (goal ≥ 0.50)\n", ratio)
	return nil
}

// printSpecialRoutes reports how the bench's special routes ended: the
// fail-once and slow articles, the oversized pages and gzip bombs, and the
// deepest calendar-trap page fetched.
func printSpecialRoutes(w io.Writer, shared string, pages map[string]storage.Page, sum crawler.Summary) error {
	f, err := os.Open(filepath.Join(shared, "bench", "dev", "truth.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	var failOnce, slow []string
	for dec.More() {
		var t struct {
			URL      string         `json:"url"`
			Behavior map[string]any `json:"behavior"`
		}
		if err := dec.Decode(&t); err != nil {
			return fmt.Errorf("truth.jsonl: %w", err)
		}
		if t.Behavior["fail_once"] == true {
			failOnce = append(failOnce, t.URL)
		}
		if _, ok := t.Behavior["delay_ms"]; ok {
			slow = append(slow, t.URL)
		}
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
	kinds := map[string]map[string]int{}
	calendar := -1
	for u, p := range pages {
		for _, pre := range []string{"/big/", "/download/"} {
			if strings.Contains(u, pre) {
				if kinds[pre] == nil {
					kinds[pre] = map[string]int{}
				}
				kinds[pre][string(p.Outcome)+" "+p.ErrKind]++
			}
		}
		if i := strings.Index(u, "/calendar/"); i >= 0 {
			var n int
			if _, err := fmt.Sscanf(u[i+len("/calendar/"):], "%d", &n); err == nil && n > calendar {
				calendar = n
			}
		}
	}
	retries := int64(0)
	for _, s := range sum.Sites {
		retries += s.Retries
	}
	fmt.Fprintf(w, "fail-once articles stored or recorded after a retry: %d of %d (retries in the run: %d)\n", decided(failOnce), len(failOnce), retries)
	fmt.Fprintf(w, "slow (2 s) articles decided: %d of %d; the run took %s in all\n", decided(slow), len(slow), sum.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "oversized pages (/big/): %s; gzip bombs (/download/): %s\n", formatKinds(kinds["/big/"]), formatKinds(kinds["/download/"]))
	fmt.Fprintf(w, "deepest calendar-trap page fetched: /calendar/%d (max_depth bounds it)\n", calendar)
	return nil
}
