// Package evalscale measures how the near-duplicate decision scales with
// the number of stored articles (`newscrawl-lab eval scale`): for each corpus
// size it fills an engine (and, unless disabled, a SQLite store through
// `import`) with the first N texts of a ../shared/bench/scale/gen.py
// corpus and prints the per-decision latency (fingerprinting excluded),
// the candidates verified per decision, the heap bytes per indexed
// article, the import rate, the store size and the start-up time of a run
// over that store (the index loaded from the snapshot the import saved).
// With --startup (RunStartUp) it measures only the start-up, index rebuilt
// against snapshot plus tail, over stores filled directly with synthetic
// signatures, up to 1,000,000 articles.
package evalscale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/cputime"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
)

// DefaultQueries is the number of held-out texts decided per size.
const DefaultQueries = 1000

// Config configures Run.
type Config struct {
	Docs []int // corpus sizes, ascending
	// Corpus is a gen.py JSONL file with at least max(Docs)+Queries lines;
	// when it is missing and Shared is set, gen.py writes it (about 1,000
	// texts a second).
	Corpus    string
	Shared    string
	Queries   int    // held-out texts decided per size (default DefaultQueries)
	Dir       string // directory for the stores (default: a temporary one)
	NoStore   bool   // skip import, store size and start-up
	Segmenter dedup.Segmenter
	// Engine carries the candidate stage measured (dedup.Options.NewIndex
	// or Exhaustive; zero: dedup.PrefixIndex) and Index its name, which
	// the import and start-up use too (config dedup.index).
	Engine dedup.Options
	Index  string
	Status io.Writer // progress lines
}

// Row is the figures of one size.
type Row struct {
	Docs                 int
	P50, P99             time.Duration // CPU time per decision (thread clock), fingerprinting excluded
	WallP50              time.Duration // wall time per decision
	Candidates           float64       // candidates verified per decision
	Duplicates           int           // held-out texts decided as duplicates
	BytesPerArticle      float64       // heap growth of the engine per indexed article
	IndexBuild           time.Duration // CPU time adding the fingerprints to the engine
	ImportPerSec         float64       // import articles/s (0 with NoStore)
	StoreBytes           int64         // SQLite files after the import
	StartUp              time.Duration // wall time of a run's start-up over the store (index snapshot the import saved)
	FirstDecision        time.Duration // wall time of the first decision after it
	Index                string        // how the start-up filled the index (pipeline.IndexLoad)
	StartUpCPU           time.Duration // process CPU time of start-up and first decision
	FingerprintPerSecond float64
}

// Report is the outcome of Run.
type Report struct {
	Corpus string
	Rows   []Row
}

// Run measures every size of c.Docs.
func Run(ctx context.Context, c Config) (*Report, error) {
	if len(c.Docs) == 0 || !slices.IsSorted(c.Docs) || c.Docs[0] <= 0 {
		return nil, fmt.Errorf("sizes %v: need positive sizes in ascending order", c.Docs)
	}
	if c.Segmenter == nil {
		return nil, errors.New("no segmenter")
	}
	if c.Queries <= 0 {
		c.Queries = DefaultQueries
	}
	if c.Status == nil {
		c.Status = io.Discard
	}
	need := c.Docs[len(c.Docs)-1] + c.Queries
	if err := ensureCorpus(ctx, c, need); err != nil {
		return nil, err
	}
	if c.Dir == "" {
		d, err := os.MkdirTemp("", "newscrawl-evalscale-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		c.Dir = d
	}
	rep := &Report{Corpus: c.Corpus}
	for _, n := range c.Docs {
		row, err := runSize(ctx, c, n)
		if err != nil {
			return nil, fmt.Errorf("%d documents: %w", n, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// ensureCorpus writes the corpus with gen.py when it is missing or short.
func ensureCorpus(ctx context.Context, c Config, need int) error {
	n, err := countLines(c.Corpus)
	if err == nil && n >= need {
		return nil
	}
	if c.Shared == "" {
		return fmt.Errorf("corpus %s has %d of the %d texts needed and no shared directory to generate it", c.Corpus, n, need)
	}
	gen := filepath.Join(c.Shared, "bench", "scale", "gen.py")
	fmt.Fprintf(c.Status, "generating %d texts into %s with %s (about 1,000/s)\n", need, c.Corpus, gen)
	cmd := exec.CommandContext(ctx, "python3", gen, strconv.Itoa(need), c.Corpus)
	cmd.Stderr = c.Status
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gen.py: %w", err)
	}
	return nil
}

func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	err = scalecorpus.ReadTexts(f, func(scalecorpus.Text) bool { n++; return true })
	return n, err
}

// texts yields the texts [from, to) of the corpus.
func texts(path string, from, to int) iter.Seq2[scalecorpus.Text, error] {
	return func(yield func(scalecorpus.Text, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(scalecorpus.Text{}, err)
			return
		}
		defer f.Close()
		i := 0
		stopped := false
		err = scalecorpus.ReadTexts(f, func(t scalecorpus.Text) bool {
			defer func() { i++ }()
			if i < from {
				return true
			}
			if i >= to || !yield(t, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			yield(scalecorpus.Text{}, err)
		}
	}
}

func heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func runSize(ctx context.Context, c Config, n int) (Row, error) {
	row := Row{Docs: n}
	eng, err := dedup.New(c.Segmenter, c.Engine)
	if err != nil {
		return row, err
	}
	fmt.Fprintf(c.Status, "%d: fingerprinting and indexing\n", n)
	h0 := heap()
	// CPU times are read from the thread's clock: the figures must not
	// depend on how loaded the machine is.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var fpTime, addTime time.Duration
	i := 0
	for t, err := range texts(c.Corpus, 0, n) {
		if err != nil {
			return row, err
		}
		if err := ctx.Err(); err != nil {
			return row, err
		}
		t1 := cputime.Thread()
		fp := eng.Fingerprint(t.Title, t.Text)
		t2 := cputime.Thread()
		i++
		if err := eng.Add(ctx, uint64(i), 0, fp); err != nil {
			return row, err
		}
		fpTime, addTime = fpTime+t2-t1, addTime+cputime.Thread()-t2
	}
	// The first decision builds the postings of the bulk load: count it
	// in the build, before the heap is measured.
	t2 := cputime.Thread()
	if _, err := eng.Decide(ctx, eng.Fingerprint("", "建立索引")); err != nil {
		return row, err
	}
	row.IndexBuild = addTime + cputime.Thread() - t2
	row.FingerprintPerSecond = float64(n) / fpTime.Seconds()
	if h1 := heap(); h1 > h0 {
		row.BytesPerArticle = float64(h1-h0) / float64(n)
	}
	var lat, wall []time.Duration
	cands := 0
	for t, err := range texts(c.Corpus, n, n+c.Queries) {
		if err != nil {
			return row, err
		}
		fp := eng.Fingerprint(t.Title, t.Text)
		t1, c1 := time.Now(), cputime.Thread()
		v, err := eng.Decide(ctx, fp)
		if err != nil {
			return row, err
		}
		lat, wall = append(lat, cputime.Thread()-c1), append(wall, time.Since(t1))
		cands += v.Candidates
		if v.Duplicate {
			row.Duplicates++
		}
	}
	if len(lat) == 0 {
		return row, errors.New("no held-out texts")
	}
	slices.Sort(lat)
	slices.Sort(wall)
	row.P50, row.P99, row.WallP50 = lat[len(lat)/2], lat[len(lat)*99/100], wall[len(wall)/2]
	row.Candidates = float64(cands) / float64(len(lat))
	eng = nil
	if c.NoStore {
		return row, nil
	}
	return importAndStart(ctx, c, n, row)
}

// importAndStart imports the first n texts into a fresh store and measures
// the start-up of a run over it.
func importAndStart(ctx context.Context, c Config, n int, row Row) (Row, error) {
	cfg := config.Default()
	cfg.Storage = filepath.Join(c.Dir, fmt.Sprintf("scale-%d.db", n))
	cfg.Dedup.Index = c.Index
	for _, suf := range []string{"", "-wal", "-shm", ".lock"} {
		os.Remove(cfg.Storage + suf)
	}
	recs := func(yield func(pipeline.ImportRecord, error) bool) {
		for t, err := range texts(c.Corpus, 0, n) {
			if err != nil {
				yield(pipeline.ImportRecord{}, err)
				return
			}
			if !yield(pipeline.ImportRecord{URL: "scale:" + t.ID, Title: t.Title, Text: t.Text, Site: "scale"}, nil) {
				return
			}
		}
	}
	fmt.Fprintf(c.Status, "%d: importing into %s\n", n, cfg.Storage)
	st, err := pipeline.Import(ctx, &cfg, c.Corpus, recs, pipeline.ImportOptions{Segmenter: c.Segmenter,
		ProgressEvery: 10 * time.Second, Progress: func(s pipeline.ImportStats) {
			fmt.Fprintf(c.Status, "%d: %d imported (%.0f/s)\n", n, s.Read, float64(s.Read)/s.Elapsed.Seconds())
		}})
	if err != nil {
		return row, err
	}
	row.ImportPerSec = float64(st.Read) / st.Elapsed.Seconds()
	for _, suf := range []string{"", "-wal"} {
		if fi, err := os.Stat(cfg.Storage + suf); err == nil {
			row.StoreBytes += fi.Size()
		}
	}
	// Start-up of the next run: an import of one new text opens the store,
	// takes the lock and loads the index from the snapshot the import saved
	// (start-up, before the first fetch), then decides the text (first
	// decision). The segmenter is loaded once by the
	// caller and its load time is reported separately.
	one := func(yield func(pipeline.ImportRecord, error) bool) {
		for t, err := range texts(c.Corpus, n, n+1) {
			if err != nil {
				yield(pipeline.ImportRecord{}, err)
				return
			}
			yield(pipeline.ImportRecord{URL: "scale:" + t.ID, Title: t.Title, Text: t.Text, Site: "scale"}, nil)
			return
		}
	}
	runtime.GC()
	c0 := cputime.Process()
	st, err = pipeline.Import(ctx, &cfg, "one", one, pipeline.ImportOptions{Segmenter: c.Segmenter})
	if err != nil {
		return row, err
	}
	row.StartUp, row.FirstDecision, row.StartUpCPU = st.StartUp, st.Elapsed, cputime.Process()-c0
	row.Index = st.Index.String()
	return row, nil
}

// WriteTable prints the report as a Markdown table.
func (r *Report) WriteTable(w io.Writer, segmenterLoad time.Duration) {
	fmt.Fprintf(w, "\n## Scale: %s (gen.py texts), decisions on held-out texts\n\n", r.Corpus)
	fmt.Fprintf(w, "| stored articles | decision CPU p50 | CPU p99 | wall p50 | candidates verified / decision | heap bytes / article | index build (CPU) | import articles/s (wall) | store size | start-up to first fetch, wall | first decision, wall | start-up + first decision, CPU |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		imp, size, start, first, cpu := "-", "-", "-", "-", "-"
		if row.ImportPerSec > 0 {
			imp = fmt.Sprintf("%.0f", row.ImportPerSec)
			size = fmt.Sprintf("%.0f MB", float64(row.StoreBytes)/1e6)
			start = fmt.Sprintf("%.2f s", row.StartUp.Seconds())
			first = fmt.Sprintf("%.2f s", row.FirstDecision.Seconds())
			cpu = fmt.Sprintf("%.2f s", row.StartUpCPU.Seconds())
		}
		fmt.Fprintf(w, "| %d | %.0f µs | %.0f µs | %.0f µs | %.2f | %.0f | %.1f s | %s | %s | %s | %s | %s |\n", row.Docs,
			float64(row.P50.Microseconds()), float64(row.P99.Microseconds()), float64(row.WallP50.Microseconds()), row.Candidates, row.BytesPerArticle,
			row.IndexBuild.Seconds(), imp, size, start, first, cpu)
	}
	fmt.Fprintf(w, "\nsegmenter load (added to every run's start-up): %.2f s\n", segmenterLoad.Seconds())
	for _, row := range r.Rows {
		if row.Index != "" {
			fmt.Fprintf(w, "start-up at %d: %s\n", row.Docs, row.Index)
		}
	}
}

// WriteFingerprints writes the fingerprints of every text of corpus (with
// the default engine options) to out, for the scale benchmarks.
func WriteFingerprints(ctx context.Context, seg dedup.Segmenter, corpus, out string) (int, error) {
	eng, err := dedup.New(seg, dedup.Options{})
	if err != nil {
		return 0, err
	}
	in, err := os.Open(corpus)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	w, err := scalecorpus.NewWriter(f)
	if err != nil {
		f.Close()
		return 0, err
	}
	n, err := scalecorpus.FingerprintTexts(ctx, eng, in, w, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
