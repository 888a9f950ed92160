package evalscale

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/cputime"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/scalecorpus"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// Start-up of a run over a large store (docs/SCALE.md), measured on SQLite
// stores filled directly (real rows, batched transactions, no dedup
// decisions) with synthetic signatures from a model fitted on real
// fingerprints (scalecorpus.Fit): a 1,000,000-article store filled through
// `import` would take hours, its decisions growing with the store.

// DefaultTail is the number of commits made after the snapshot before the
// snapshot start-up is measured (a run's worth).
const DefaultTail = 1000

// StartUpConfig configures RunStartUp.
type StartUpConfig struct {
	Docs         []int  // store sizes, ascending
	Fingerprints string // scalecorpus file the synthetic model is fitted on
	Dir          string // directory for the stores (required)
	Tail         int    // commits after the snapshot (default DefaultTail)
	Segmenter    dedup.Segmenter
	Status       io.Writer
}

// StartUpRow is the start-up figures of one store size. Wall times are
// of the index fill (to the first fetch) and of the first decision after
// it; CPU is the process's over both.
type StartUpRow struct {
	Docs                                  int
	Fill                                  time.Duration // filling the store
	StoreBytes, SnapshotBytes             int64
	RebuildLoad, RebuildFirst, RebuildCPU time.Duration
	RebuildHeap                           uint64 // heap in use after the first decision
	Save                                  time.Duration
	Tail                                  int
	SnapLoad, SnapFirst, SnapCPU          time.Duration
	SnapHeap                              uint64
	DocFreqs                              time.Duration // store.DocFreqs into a map
	Terms                                 int
}

// RunStartUp fills a store of each size and measures the start-up with
// the index rebuilt from the store and loaded from a snapshot plus a tail.
func RunStartUp(ctx context.Context, c StartUpConfig) ([]StartUpRow, error) {
	if c.Dir == "" || c.Segmenter == nil {
		return nil, errors.New("start-up: need a directory and a segmenter")
	}
	if c.Tail <= 0 {
		c.Tail = DefaultTail
	}
	f, err := os.Open(c.Fingerprints)
	if err != nil {
		return nil, err
	}
	var fps []*dedup.Fingerprint
	err = scalecorpus.Read(f, func(fp *dedup.Fingerprint) bool { fps = append(fps, fp); return true })
	f.Close()
	if err != nil {
		return nil, err
	}
	model, err := scalecorpus.Fit(fps)
	if err != nil {
		return nil, err
	}
	fps = nil
	fmt.Fprintf(c.Status, "synthetic model: %s\n", model)
	var rows []StartUpRow
	for _, n := range c.Docs {
		row, err := startUpSize(ctx, c, model, n)
		if err != nil {
			return rows, fmt.Errorf("%d articles: %w", n, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// synthFill commits n synthetic articles (one in ten a duplicate of an
// earlier one) from article number from on, 2,000 to a transaction.
func synthFill(ctx context.Context, store *sqlite.Store, model *scalecorpus.Model, rng *rand.Rand, from, n int) error {
	const batch = 2000
	var arts []int64
	for done := 0; done < n; {
		b, err := store.BeginBatch(ctx)
		if err != nil {
			return err
		}
		for k := 0; k < batch && done < n; k++ {
			i := from + done
			done++
			fp := model.Synth(rng, i)
			url := fmt.Sprintf("synth:%d", i)
			page := storage.Page{URL: url, Site: "synth", RunID: 1, Status: 200, FetchedAt: time.Now()}
			title := fmt.Sprintf("第%d号合成新闻：%d地%d事", i, rng.IntN(500), rng.IntN(2000))
			var c *storage.Commit
			if i%10 == 9 && len(arts) > 0 {
				of := arts[rng.IntN(len(arts))]
				near := model.NearDuplicate(rng, fp, 0.2)
				page.Outcome = storage.OutcomeDuplicate
				c = &storage.Commit{Page: page, Duplicate: &storage.Duplicate{URL: url, Site: "synth", RunID: 1, DupOf: of,
					Title: title, FetchedAt: page.FetchedAt, Simhash: near.Simhash, Signature: near.Signature, Reason: "jaccard"}}
			} else {
				page.Outcome = storage.OutcomeStored
				c = &storage.Commit{Page: page, Terms: synthTerms(rng, i), Article: &storage.Article{URL: url, Site: "synth", RunID: 1,
					Title: title, Text: "合成正文。", FetchedAt: page.FetchedAt, ContentHash: hex.EncodeToString(fp.Hash[:]),
					Fingerprint: storage.Fingerprint{Simhash: fp.Simhash, Signature: fp.Signature, Length: fp.Words}}}
			}
			if err := b.Commit(ctx, c); err != nil {
				b.Rollback()
				return err
			}
			if c.Article != nil {
				arts = append(arts, c.Article.ID)
			}
		}
		if err := b.End(); err != nil {
			return err
		}
	}
	return nil
}

// synthTerms are an article's distinct terms for the document
// frequencies: 40 from a fixed vocabulary of 20,000 and 10 from one that
// grows with the corpus (names, numbers), about 2 million terms at
// 1,000,000 articles.
func synthTerms(rng *rand.Rand, i int) []string {
	out := make([]string, 0, 50)
	for range 40 {
		out = append(out, fmt.Sprintf("w%d", rng.IntN(20000)))
	}
	for range 10 {
		out = append(out, fmt.Sprintf("n%d", rng.IntN(2*i+100)))
	}
	return out
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// startOnce opens the store, fills the engine as a run does and decides
// one synthetic page; it returns the wall times of both, the process CPU
// and the growth of the heap in use (the engine and what the start-up
// left behind).
func startOnce(ctx context.Context, cfg *config.Config, c StartUpConfig, snapshot string, q *dedup.Fingerprint) (load, first, cpu time.Duration, hp uint64, il pipeline.IndexLoad, err error) {
	h0 := heapInUse()
	c0, t0 := cputime.Process(), time.Now()
	store, err := sqlite.Open(ctx, cfg.Storage)
	if err != nil {
		return
	}
	defer store.Close()
	eng, il, err := pipeline.NewEngine(ctx, cfg, c.Segmenter, store, pipeline.EngineConfig{Snapshot: snapshot, Now: time.Now()})
	if err != nil {
		return
	}
	load = time.Since(t0)
	t1 := time.Now()
	if _, err = eng.Decide(ctx, q); err != nil {
		return
	}
	first, cpu = time.Since(t1), cputime.Process()-c0
	if h := heapInUse(); h > h0 {
		hp = h - h0
	}
	runtime.KeepAlive(eng)
	return
}

func startUpSize(ctx context.Context, c StartUpConfig, model *scalecorpus.Model, n int) (StartUpRow, error) {
	row := StartUpRow{Docs: n, Tail: c.Tail}
	cfg := config.Default()
	cfg.Storage = filepath.Join(c.Dir, fmt.Sprintf("startup-%d.db", n))
	snap := cfg.Storage + ".index"
	for _, suf := range []string{"", "-wal", "-shm", ".lock", ".index"} {
		os.Remove(cfg.Storage + suf)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	store, err := sqlite.Open(ctx, cfg.Storage)
	if err != nil {
		return row, err
	}
	fmt.Fprintf(c.Status, "%d: filling %s\n", n, cfg.Storage)
	t := time.Now()
	if err := synthFill(ctx, store, model, rng, 0, n); err != nil {
		store.Close()
		return row, err
	}
	row.Fill = time.Since(t)
	t = time.Now()
	row.Terms, err = docFreqs(ctx, store)
	row.DocFreqs = time.Since(t)
	store.Close()
	if err != nil {
		return row, err
	}
	q := model.Synth(rng, n+1)
	fmt.Fprintf(c.Status, "%d: start-up, index rebuilt\n", n)
	var il pipeline.IndexLoad
	row.RebuildLoad, row.RebuildFirst, row.RebuildCPU, row.RebuildHeap, _, err = startOnce(ctx, &cfg, c, "", q)
	if err != nil {
		return row, err
	}
	if err := saveSnapshot(ctx, &cfg, c, snap, &row); err != nil {
		return row, err
	}
	// A run's worth of commits after the snapshot, never saved in it.
	if store, err = sqlite.Open(ctx, cfg.Storage); err != nil {
		return row, err
	}
	err = synthFill(ctx, store, model, rng, n+10, c.Tail)
	store.Close()
	if err != nil {
		return row, err
	}
	fmt.Fprintf(c.Status, "%d: start-up, snapshot + tail\n", n)
	row.SnapLoad, row.SnapFirst, row.SnapCPU, row.SnapHeap, il, err = startOnce(ctx, &cfg, c, snap, q)
	if err != nil {
		return row, err
	}
	if il.Rebuilt {
		return row, fmt.Errorf("the snapshot was not used: %s", il.Reason)
	}
	row.Tail = il.Tail
	for _, suf := range []string{"", "-wal"} {
		if fi, err := os.Stat(cfg.Storage + suf); err == nil {
			row.StoreBytes += fi.Size()
		}
	}
	return row, nil
}

// saveSnapshot rebuilds the index and saves it as a run's end does.
func saveSnapshot(ctx context.Context, cfg *config.Config, c StartUpConfig, path string, row *StartUpRow) error {
	store, err := sqlite.Open(ctx, cfg.Storage)
	if err != nil {
		return err
	}
	defer store.Close()
	eng, il, err := pipeline.NewEngine(ctx, cfg, c.Segmenter, store, pipeline.EngineConfig{Now: time.Now()})
	if err != nil {
		return err
	}
	if _, err := eng.Decide(ctx, &dedup.Fingerprint{}); err != nil { // nothing: Save builds the postings itself
		return err
	}
	t := time.Now()
	row.SnapshotBytes, err = pipeline.SaveIndex(ctx, cfg, eng, store, path, il.Cursor)
	row.Save = time.Since(t)
	return err
}

func docFreqs(ctx context.Context, store *sqlite.Store) (int, error) {
	df := map[string]int{}
	_, err := store.DocFreqs(ctx, func(term string, n int) error { df[term] = n; return nil })
	return len(df), err
}

// WriteStartUpTable prints the rows as a Markdown table.
func WriteStartUpTable(w io.Writer, rows []StartUpRow, segmenterLoad time.Duration) {
	fmt.Fprintf(w, "\n## Start-up over a SQLite store (synthetic signatures), to the first fetch and the first decision\n\n")
	fmt.Fprintf(w, "| stored articles | store size | rebuilt: to first fetch | first decision | CPU | heap | snapshot size | save | snapshot + tail: to first fetch | first decision | CPU | heap | tail commits | document frequencies load (terms) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	mb := func(b uint64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }
	s := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	for _, r := range rows {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s (%d) |\n", r.Docs,
			mb(uint64(r.StoreBytes)), s(r.RebuildLoad), s(r.RebuildFirst), s(r.RebuildCPU), mb(r.RebuildHeap),
			mb(uint64(r.SnapshotBytes)), s(r.Save), s(r.SnapLoad), s(r.SnapFirst), s(r.SnapCPU), mb(r.SnapHeap), r.Tail, s(r.DocFreqs), r.Terms)
	}
	fmt.Fprintf(w, "\nsegmenter load (added to every run's start-up): %.2f s\n", segmenterLoad.Seconds())
}
