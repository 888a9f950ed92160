package pipeline

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/crawler"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/dedupinput"
	"github.com/newsdedup/newscrawl/internal/export"
	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// ImportRecord is one line of an import file: url (the key), title, text,
// and optionally site, published_at (RFC 3339), source, author and editor.
// A line of newscrawl's own export (internal/export.Record) is one too:
// its other keys are known and ignored.
type ImportRecord struct {
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	Text        string    `json:"text"`
	Site        string    `json:"site"`
	PublishedAt time.Time `json:"published_at"`
	Source      string    `json:"source"`
	Author      string    `json:"author"`
	Editor      string    `json:"editor"`
}

// importOwnKeys are ImportRecord's keys.
func importOwnKeys() []string {
	return []string{"url", "title", "text", "site", "published_at", "source", "author", "editor"}
}

// ImportSite is the site of imported records that name none.
const ImportSite = "import"

// ImportBatch is the number of records an import commits per SQLite
// transaction (sqlite.Batch): one transaction per record made the store's
// commit, not the decision, the import's cost. A crash loses at most the
// open batch and the decided records queued for it (importWriteAhead),
// which the next import redoes (decided URLs keep their verdict). Larger
// batches share more terms per document-frequency fold and pay SQLite's
// commit less often: 2,000 took the CPU of an import of
// 20,000 scale-corpus texts from 25.9 s (500) to 21.8 s
// (docs/SCALE.md), for a batch of a few MB (texts, title index, terms).
const ImportBatch = 2000

// StreamImport yields the records of a JSONL import file one by one. A
// line that is not a JSON object of the known keys (any key when lenient),
// lacks url or text, or
// has what encoding/json would change silently (a key given twice, bytes
// that are not UTF-8, an escaped lone surrogate: dedupinput.CheckLine) is an
// error naming the line; blank lines are skipped.
func StreamImport(r io.Reader, name string, lenient bool) iter.Seq2[ImportRecord, error] {
	own := importOwnKeys()
	known := append(importOwnKeys(), export.Columns...)
	return func(yield func(ImportRecord, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), dedupinput.MaxLine)
		line := 0
		for sc.Scan() {
			line++
			b := sc.Bytes()
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			k, unknown, err := dedupinput.CheckLineKeys(b, own, known)
			if err != nil {
				yield(ImportRecord{}, fmt.Errorf("%s:%d: %w", name, line, err))
				return
			}
			if unknown && !lenient {
				yield(ImportRecord{}, fmt.Errorf("%s:%d: unknown key %q (allowed: url, title, text, site, published_at, source, author, editor, or the keys of a newscrawl export; lenient reading ignores unknown keys)", name, line, k))
				return
			}
			var rec ImportRecord
			dec := json.NewDecoder(bytes.NewReader(b))
			err = dec.Decode(&rec)
			switch {
			case err != nil:
				err = fmt.Errorf("%s:%d: %w", name, line, err)
			case dec.More():
				err = fmt.Errorf("%s:%d: more than one JSON value on the line", name, line)
			case strings.TrimSpace(rec.URL) == "":
				err = fmt.Errorf("%s:%d: missing url", name, line)
			case rec.Text == "":
				err = fmt.Errorf("%s:%d: missing text", name, line)
			default:
				if verr := storage.ValidTime("published_at", rec.PublishedAt); verr != nil {
					err = fmt.Errorf("%s:%d: %w", name, line, verr)
				}
			}
			if err != nil {
				yield(ImportRecord{}, err)
				return
			}
			if rec.Site == "" {
				rec.Site = ImportSite
			}
			if !yield(rec, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("line longer than %d MiB: %w", dedupinput.MaxLine>>20, err)
			}
			yield(ImportRecord{}, fmt.Errorf("%s:%d: %w", name, line+1, err))
		}
	}
}

// ImportStats counts an import's outcomes.
type ImportStats struct {
	Read, Stored, Duplicates, NotArticle, AlreadyDecided int
	Elapsed                                              time.Duration
	StartUp                                              time.Duration // segmenter and index rebuild
	Indexed                                              int           // articles indexed at start-up
	Index                                                IndexLoad     // how the index was filled
	Saved                                                IndexSave     // the index snapshot written at the end
}

// ImportOptions configure Import.
type ImportOptions struct {
	Segmenter interface {
		Words(string) []string
		IsStop(string) bool
	} // nil: NewSegmenter(cfg.Segment)
	// Progress, when set, is called about every ProgressEvery (default 5 s).
	Progress      func(s ImportStats)
	ProgressEvery time.Duration
	Now           func() time.Time
	// perRecord commits each record of a SQLite import in its own
	// transaction, as a PostgreSQL import does: the reference a batched
	// import's verdicts are tested against.
	perRecord bool
	// batch is the number of records per transaction (0: ImportBatch); tests
	// set it small to cross many batches on a small input.
	batch int
	// onBatch, when set, is called by the store's writer before ("end") and
	// after ("ended") it ends its n-th batch (tests kill the process there).
	onBatch func(step string, n int)
}

// Import brings records into the store of cfg (SQLite, or a shared
// PostgreSQL store, where crawls may run meanwhile) through the same
// near-duplicate decision as the crawl: each record is fingerprinted,
// decided against everything stored before and committed as an article or
// a duplicate. It holds the store's lock and records a run. A record whose
// URL was decided before keeps its first verdict (counted in
// AlreadyDecided).
func Import(ctx context.Context, cfg *config.Config, source string, recs iter.Seq2[ImportRecord, error], o ImportOptions) (ImportStats, error) {
	start := time.Now()
	var st ImportStats
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 5 * time.Second
	}
	store, closeStore, err := openImportStore(ctx, cfg.Storage)
	if err != nil {
		return st, err
	}
	defer closeStore()
	if err := CloseDeadRuns(ctx, store); err != nil {
		return st, err
	}
	seg := o.Segmenter
	if seg == nil {
		s, err := NewSegmenter(cfg.Segment)
		if err != nil {
			return st, err
		}
		seg = s
	}
	idx, err := startIndex(ctx, cfg, seg, store, o.Now(), nil)
	if err != nil {
		return st, err
	}
	eng, shared := idx.eng, idx.shared
	st.Indexed, st.StartUp, st.Index = idx.load.Entries, time.Since(start), idx.load
	// A SQLite store commits ImportBatch records to a transaction; another
	// store (PostgreSQL, shared with crawls) commits each record on its own.
	procStore, bs := store, (*batchStore)(nil)
	if s, ok := store.(*sqlite.Store); ok && !o.perRecord {
		if bs, err = newBatchStore(ctx, s, cmp.Or(o.batch, ImportBatch), o.onBatch); err != nil {
			return st, err
		}
		defer bs.end() // after an early return: stop the writer
		procStore = bs
	}
	proc, err := NewProcessor(cfg, procStore, eng, slog.New(slog.DiscardHandler))
	if err != nil {
		return st, err
	}
	proc.shared = shared
	run, err := store.BeginRun(ctx, "import:"+source)
	if err != nil {
		return st, fmt.Errorf("begin run: %w", err)
	}
	t0, last := time.Now(), time.Now()
	var runErr error
	done := make(chan struct{})
	items := fingerprintAhead(recs, eng, done)
	defer func() {
		close(done)
		for range items { // wait for the fingerprinting goroutine to end
		}
	}()
	for it := range itemsOf(items) {
		rec, fp, err := it.rec, it.fp, it.err
		if err == nil {
			err = ctx.Err()
		}
		if err == nil && bs != nil {
			err = bs.ready(ctx)
		}
		if err != nil {
			runErr = err
			break
		}
		st.Read++
		out, before, err := proc.importRecord(ctx, run.ID, rec, fp, o.Now())
		if err != nil {
			runErr = cmp.Or(bs.failure(), fmt.Errorf("%s: %w", rec.URL, err)) // the writer's error names its record
			break
		}
		switch {
		case bs == nil:
			st.count(out, before)
		case before:
			bs.decidedBefore(rec.URL) // counted when what it repeats is committed
		} // else counted when committed
		if o.Progress != nil && time.Since(last) >= o.ProgressEvery {
			last = time.Now()
			st.Elapsed = time.Since(t0)
			bs.countCommitted(&st)
			o.Progress(st)
		}
	}
	runErr = endImport(ctx, cfg, store, bs, idx, &st, runErr, t0)
	run.FinishedAt = time.Now()
	run.Stats = storage.RunStats{Fetched: st.Read, Stored: st.Stored, Duplicates: st.Duplicates, NotArticle: st.NotArticle,
		Settings: RunSettings(cfg.Dedup)}
	run.Status = importStatus(runErr)
	if err := store.FinishRun(context.WithoutCancel(ctx), run); err != nil && runErr == nil {
		runErr = fmt.Errorf("finish run: %w", err)
	}
	return st, runErr
}

// endImport waits for the store's writer to commit every record decided
// before the loop stopped (unless a write failed: then what it committed
// before), counts what was committed, and saves the index for the next
// run unless a write failed: the index then holds records the store does
// not. It returns the import's error and sets st.Elapsed (from t0 to the
// last commit: the save is timed apart).
func endImport(ctx context.Context, cfg *config.Config, store storage.Store, bs *batchStore, idx *indexRun, st *ImportStats, runErr error, t0 time.Time) error {
	batchErr := bs.end() // nil-safe
	bs.countCommitted(st)
	switch {
	case batchErr == nil || errors.Is(runErr, batchErr):
	case runErr == nil || errors.Is(runErr, context.Canceled):
		runErr = batchErr // a failed write is the import's outcome, even when it was stopping
	default:
		runErr = errors.Join(runErr, batchErr)
	}
	st.Elapsed = time.Since(t0)
	if batchErr == nil && (runErr == nil || errors.Is(runErr, context.Canceled)) {
		idx.save(context.WithoutCancel(ctx), cfg, store, io.Discard, nil)
		st.Saved = idx.saved
	}
	return runErr
}

// openImportStore opens and locks the store db: SQLite with its exclusive
// lock (no crawl meanwhile); PostgreSQL with the shared lock of every crawl,
// its decisions serialised by the fleet-wide decision lock as the crawls'
// are. closeStore releases the lock and closes the store.
func openImportStore(ctx context.Context, db string) (store storage.Store, closeStore func(), err error) {
	store, err = OpenStore(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	release, err := store.Lock(ctx, false)
	if err != nil {
		store.Close()
		if errors.Is(err, storage.ErrLocked) {
			return nil, nil, fmt.Errorf("%s: a crawl or import is running on this store: %w", StoreName(db), err)
		}
		return nil, nil, fmt.Errorf("lock %s: %w", StoreName(db), err)
	}
	return store, func() { release(); store.Close() }, nil
}

// count adds one record's outcome.
func (st *ImportStats) count(out storage.Outcome, before bool) {
	switch {
	case before:
		st.AlreadyDecided++
	case out == storage.OutcomeStored:
		st.Stored++
	case out == storage.OutcomeDuplicate:
		st.Duplicates++
	case out == storage.OutcomeNotArticle:
		st.NotArticle++
	}
}

// importStatus is the status of an import run that ended with err.
func importStatus(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return storage.RunInterrupted
	case err != nil:
		return storage.RunFailed
	default:
		return storage.RunCompleted
	}
}

// importChunk is how many records the import fingerprints at a time,
// ahead of the decisions (fingerprintAhead).
const importChunk = 64

// importItem is a record with its fingerprint (nil: to be computed in
// turn), or the error that ends the input.
type importItem struct {
	rec ImportRecord
	fp  *dedup.Fingerprint
	err error
}

// fingerprintAhead reads recs and fingerprints them on every core,
// importChunk records at a time, while the caller decides and commits the
// chunk before (the decisions are serial; fingerprinting was most of an
// import's CPU). Chunks come out in input order; an error ends the input.
// With TF-IDF weights or the keyword rule a fingerprint depends on the
// documents added before, so the records are passed on unfingerprinted.
// It stops when done is closed; the channel is closed when it has ended.
func fingerprintAhead(recs iter.Seq2[ImportRecord, error], eng *dedup.Engine, done <-chan struct{}) <-chan []importItem {
	out := make(chan []importItem, 2)
	serial := eng.Options().Research.NeedsDocFreqs()
	workers := runtime.GOMAXPROCS(0)
	go func() {
		defer close(out)
		chunk := make([]importItem, 0, importChunk)
		send := func() bool {
			if !serial {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						for i := w; i < len(chunk); i += workers {
							if chunk[i].err == nil {
								chunk[i].fp = eng.Fingerprint(chunk[i].rec.Title, chunk[i].rec.Text)
							}
						}
					})
				}
				wg.Wait()
			}
			select {
			case out <- chunk:
				chunk = make([]importItem, 0, importChunk)
				return true
			case <-done:
				return false
			}
		}
		for rec, err := range recs {
			chunk = append(chunk, importItem{rec: rec, err: err})
			if err != nil {
				break
			}
			if len(chunk) == importChunk && !send() {
				return
			}
		}
		if len(chunk) > 0 {
			send()
		}
	}()
	return out
}

// itemsOf yields the items of the chunks in order.
func itemsOf(chunks <-chan []importItem) iter.Seq[importItem] {
	return func(yield func(importItem) bool) {
		for c := range chunks {
			for _, it := range c {
				if !yield(it) {
					return
				}
			}
		}
	}
}

// importRecord decides and commits one record, fingerprinting it first
// when fp is nil; a URL decided before keeps its verdict.
func (p *Processor) importRecord(ctx context.Context, runID int64, rec ImportRecord, fp *dedup.Fingerprint, now time.Time) (out storage.Outcome, before bool, err error) {
	if o, ok, err := p.store.Decided(ctx, rec.URL); err != nil {
		return "", false, err
	} else if ok {
		return o, true, nil
	}
	page := storage.Page{URL: rec.URL, Site: rec.Site, RunID: runID, Status: 200, FetchedAt: now}
	if fp == nil {
		fp = p.engine.Fingerprint(rec.Title, rec.Text)
	}
	if fp.Empty() {
		page.Outcome, page.Err, page.Permanent = storage.OutcomeNotArticle, "no article: empty text", true
		out, err = p.commit(ctx, &storage.Commit{Page: page})
		return out, out == crawler.OutcomeDecidedElsewhere, err
	}
	art := &extract.Article{Title: rec.Title, Text: rec.Text, PublishedAt: rec.PublishedAt,
		Source: rec.Source, Author: rec.Author, Editor: rec.Editor}
	out, err = p.decideAndCommit(ctx, page, art, fp, nil) // no HTTP response to keep
	return out, out == crawler.OutcomeDecidedElsewhere, err
}
